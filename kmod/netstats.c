// SPDX-License-Identifier: GPL-2.0
/*
 * Per-namespace cumulative counters, like /proc/net/snmp: the sum of the
 * counters of every group the namespace has had, open, lingering or gone.
 * A group's counters live in the group (the hot paths count there, under
 * its lock, as before); the namespace keeps a list of its groups and the
 * sum of the groups already freed. A group is listed from GSYNC_JOIN until
 * gsync_group_destroy() has stopped everything that counts, and is folded
 * into the sum as it leaves the list, so a reader sees every count exactly
 * once and the totals never go backwards.
 *
 * Locking: gsync_net.lock (mutex) protects gsync_net.groups, every
 * group's net_node and gsync_net.closed; each group's counters are read
 * under its gsync_group.lock (taken inside gsync_net.lock, the documented
 * order). Process context only.
 */
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>

#include "gsync.h"
#include "group.h"
#include "netstats.h"

/* Counters are all u64, in struct order: add them one by one. */
static void gsync_stats_add(struct gsync_stats *to,
			    const struct gsync_stats *from)
{
	u64 *t = (u64 *)to;
	const u64 *f = (const u64 *)from;
	size_t i;

	static_assert(sizeof(*to) % sizeof(u64) == 0);
	for (i = 0; i < sizeof(*to) / sizeof(u64); i++)
		t[i] += f[i];
}

/* A new group of gn counts from now on. */
void gsync_netstats_add(struct gsync_net *gn, struct gsync_group *g)
{
	mutex_lock(&gn->lock);
	list_add_tail(&g->net_node, &gn->groups);
	mutex_unlock(&gn->lock);
}

/*
 * g has stopped counting (its socket, receive path and works are gone):
 * move its counters into the namespace's sum. A group that never got
 * listed (a failed JOIN) is left alone.
 */
void gsync_netstats_fold(struct gsync_net *gn, struct gsync_group *g)
{
	mutex_lock(&gn->lock);
	if (!list_empty(&g->net_node)) {
		gsync_stats_add(&gn->closed, &g->stats);
		list_del_init(&g->net_node);
	}
	mutex_unlock(&gn->lock);
}

/* The namespace's totals into *sum; returns the number of live groups. */
unsigned int gsync_netstats_sum(struct gsync_net *gn, struct gsync_stats *sum)
{
	struct gsync_group *g;
	unsigned int n = 0;

	mutex_lock(&gn->lock);
	*sum = gn->closed;
	list_for_each_entry(g, &gn->groups, net_node) {
		spin_lock_bh(&g->lock);
		gsync_stats_add(sum, &g->stats);
		spin_unlock_bh(&g->lock);
		n++;
	}
	mutex_unlock(&gn->lock);
	return n;
}
