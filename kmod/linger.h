/* SPDX-License-Identifier: GPL-2.0 */
/* Lingering groups: closed groups still serving peers (see linger.c). */
#ifndef GSYNC_LINGER_H
#define GSYNC_LINGER_H

#include <linux/types.h>
#include <linux/workqueue.h>

struct gsync_group;
struct gsync_net;
union gsync_sockaddr;

bool gsync_linger_serving(struct gsync_group *g);
void gsync_linger_decide(struct gsync_group *g);
bool gsync_linger_check(struct gsync_group *g, bool serving);
void gsync_linger_destroy_work(struct work_struct *work);
void gsync_linger_reap(struct gsync_net *gn);
unsigned int gsync_linger_takeover(struct gsync_net *gn,
				   const union gsync_sockaddr *sa);

#endif /* GSYNC_LINGER_H */
