/* SPDX-License-Identifier: GPL-2.0 */
/* Loading schedules into groups (sched_opt.c). */
#ifndef GSYNC_SCHED_OPT_H
#define GSYNC_SCHED_OPT_H

#include "group.h"

int gsync_sched_setsockopt(struct gsync_group *g, sockptr_t optval,
			   unsigned int optlen);
int gsync_sched_push(struct gsync_sock *gs, sockptr_t optval,
		     unsigned int optlen);
struct gsync_sched *gsync_sched_for_seq(struct gsync_group *g, u64 seq);
int gsync_sched_getsockopt(struct gsync_group *g, char __user *optval,
			   int __user *optlen, int len);

#endif /* GSYNC_SCHED_OPT_H */
