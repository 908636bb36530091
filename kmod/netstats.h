/* SPDX-License-Identifier: GPL-2.0 */
/* Per-namespace cumulative counters that survive close (netstats.c). */
#ifndef GSYNC_NETSTATS_H
#define GSYNC_NETSTATS_H

struct gsync_group;
struct gsync_net;
struct gsync_stats;

void gsync_netstats_add(struct gsync_net *gn, struct gsync_group *g);
void gsync_netstats_fold(struct gsync_net *gn, struct gsync_group *g);
unsigned int gsync_netstats_sum(struct gsync_net *gn, struct gsync_stats *sum);

#endif /* GSYNC_NETSTATS_H */
