/* SPDX-License-Identifier: GPL-2.0 */
/* Keyed groups: the GSYNC_KEY and GSYNC_KEY_PUSH socket options (keyopt.c). */
#ifndef GSYNC_KEYOPT_H
#define GSYNC_KEYOPT_H

#include <linux/sockptr.h>

struct gsync_sock;

int gsync_key_setsockopt(struct gsync_sock *gs, sockptr_t optval,
			 unsigned int optlen);
int gsync_key_push(struct gsync_sock *gs, sockptr_t optval,
		   unsigned int optlen);
void gsync_key_joined(struct gsync_sock *gs);
void gsync_key_release(struct gsync_sock *gs);

#endif /* GSYNC_KEYOPT_H */
