/* SPDX-License-Identifier: GPL-2.0 */
/* Clique multicast groups (mgroup.c). */
#ifndef GSYNC_MGROUP_H
#define GSYNC_MGROUP_H

#include "group.h"

/* Clique groups a group may hold joined at once. */
#define GSYNC_MAX_MGROUPS	64

bool gsync_mgroup_sa(const struct gsync_group *g, const struct gsync_sched *s,
		     const struct gsync_sclique *q, union gsync_sockaddr *sa);
int gsync_mgroup_join(struct gsync_group *g, const struct gsync_sched *s);
void gsync_mgroup_sweep(struct gsync_group *g);
void gsync_mgroup_close(struct gsync_group *g);

#endif /* GSYNC_MGROUP_H */
