// SPDX-License-Identifier: GPL-2.0
/*
 * Clique groups (GSYNC_SCHF_CLIQUE_GROUPS): each clique of a schedule
 * multicasts to an address of its own, so that a rank downloads only the
 * traffic of its own cliques.
 *
 * A rank joins the address of every clique it is a member of when it loads
 * the schedule, before the schedule is installed, so no join (and no
 * IGMP/MLD report) is on the path of an operation. Each address has a
 * kernel UDP socket of its own, bound to it and joined to it (udp.c), so
 * the per-socket igmp_max_memberships limit never applies. After each
 * load, the addresses that neither the group's current and pending
 * schedules nor any operation in its window use are left. A group holds
 * at most GSYNC_MAX_MGROUPS of them (ENOBUFS beyond): one kernel UDP
 * socket and one membership each; the entry is charged to the loader's
 * memory cgroup, the kernel socket to none.
 *
 * Locking: g->mgroups and g->nmgroups change only under gsync_net.lock, by
 * a load (setsockopt or push) while the group's socket is on
 * gsync_net.socks, and at destroy (gsync_udp_close()), when nothing else
 * can reach the group. The send path never reads the list: it computes a
 * packet's address from the packet's schedule under gsync_group.lock
 * (gsync_mgroup_sa()). Packets arriving on these sockets reach the group
 * through sk_user_data, as those of the group socket do. Joining takes
 * RTNL inside the IP stack: gsync_net.lock -> RTNL.
 */
#include <linux/slab.h>

#include "gsync.h"
#include "group.h"
#include "mgroup.h"
#include "udp.h"

struct gsync_mgroup {
	struct list_head node;
	union gsync_sockaddr sa;
	struct socket *sock;
};

/* Schedules a sweep looks at, at most; with more in use it leaves none. */
#define GSYNC_SWEEP_SCHEDS	8

/*
 * Where clique q of s multicasts to, as a sockaddr (the group's port and
 * scope); false if to the group's address. Any context.
 */
bool gsync_mgroup_sa(const struct gsync_group *g, const struct gsync_sched *s,
		     const struct gsync_sclique *q, union gsync_sockaddr *sa)
{
	u8 addr[16];

	if (g->unicast || !q || !gsync_sched_caddr(s, q, addr))
		return false;
	*sa = g->mcast_sa;
	if (g->family == AF_INET)
		memcpy(&sa->v4.sin_addr, addr, 4);
	else
		memcpy(&sa->v6.sin6_addr, addr, 16);
	return true;
}

static bool gsync_mgroup_joined(struct gsync_group *g,
				const union gsync_sockaddr *sa)
{
	struct gsync_mgroup *m;

	list_for_each_entry(m, &g->mgroups, node)
		if (gsync_sa_equal(&m->sa, sa))
			return true;
	return false;
}

/* Is our rank in a clique of s that multicasts to sa? */
static bool gsync_mgroup_used(const struct gsync_group *g,
			      const struct gsync_sched *s,
			      const union gsync_sockaddr *sa)
{
	union gsync_sockaddr c;
	unsigned int r;

	for (r = 0; r < s->nrounds; r++)
		if (gsync_mgroup_sa(g, s, gsync_sched_clique(s, r, g->cfg.rank),
				    &c) && gsync_sa_equal(&c, sa))
			return true;
	return false;
}

/*
 * Join the addresses of our cliques in s that are not joined yet. Those
 * joined before a failure stay until the next sweep. Under gsync_net.lock.
 */
int gsync_mgroup_join(struct gsync_group *g, const struct gsync_sched *s)
{
	struct gsync_mgroup *m;
	union gsync_sockaddr sa;
	unsigned int r;
	int err;

	lockdep_assert_held(&gsync_net(g->net)->lock);
	for (r = 0; r < s->nrounds; r++) {
		if (!gsync_mgroup_sa(g, s, gsync_sched_clique(s, r, g->cfg.rank),
				     &sa) || gsync_mgroup_joined(g, &sa))
			continue;
		if (g->nmgroups >= GSYNC_MAX_MGROUPS)
			return -ENOBUFS;
		m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
		if (!m)
			return -ENOMEM;
		m->sa = sa;
		err = gsync_udp_msock(g, &sa, &m->sock);
		if (err) {
			kfree(m);
			return err;
		}
		list_add_tail(&m->node, &g->mgroups);
		g->nmgroups++;
	}
	return 0;
}

static void gsync_mgroup_free(struct gsync_group *g, struct gsync_mgroup *m)
{
	list_del(&m->node);
	g->nmgroups--;
	gsync_udp_msock_release(m->sock);
	kfree(m);
}

/* Add s to the n schedules of sv, once, with a reference; false if full. */
static bool gsync_mgroup_hold(struct gsync_sched **sv, unsigned int *n,
			      struct gsync_sched *s)
{
	unsigned int i;

	if (!s)
		return true;
	for (i = 0; i < *n; i++)
		if (sv[i] == s)
			return true;
	if (*n == GSYNC_SWEEP_SCHEDS)
		return false;
	sv[(*n)++] = gsync_sched_get(s);
	return true;
}

/*
 * Leave the addresses that no schedule g may still run uses: its current
 * and pending ones and those of the operations in its window. A schedule
 * installed later is joined by its own load, under the same mutex. Under
 * gsync_net.lock.
 */
void gsync_mgroup_sweep(struct gsync_group *g)
{
	struct gsync_sched *sv[GSYNC_SWEEP_SCHEDS];
	struct gsync_mgroup *m, *tmp;
	unsigned int n = 0, i;
	struct gsync_op *op;
	bool room, used;
	u64 seq;

	lockdep_assert_held(&gsync_net(g->net)->lock);
	if (!g->nmgroups)
		return;
	spin_lock_bh(&g->lock);
	room = gsync_mgroup_hold(sv, &n, g->sched) &&
	       gsync_mgroup_hold(sv, &n, g->sched_next);
	for (seq = g->base_seq; room && seq < g->next_seq; seq++) {
		op = gsync_slot(g, seq);
		if (op)
			room = gsync_mgroup_hold(sv, &n, op->sched);
	}
	spin_unlock_bh(&g->lock);
	list_for_each_entry_safe(m, tmp, &g->mgroups, node) {
		if (!room)
			break;
		for (i = 0, used = false; i < n && !used; i++)
			used = gsync_mgroup_used(g, sv[i], &m->sa);
		if (!used)
			gsync_mgroup_free(g, m);
	}
	for (i = 0; i < n; i++)
		gsync_sched_put(sv[i]);
}

/* Leave them all: g is being destroyed (gsync_udp_close()). */
void gsync_mgroup_close(struct gsync_group *g)
{
	struct gsync_mgroup *m, *tmp;

	list_for_each_entry_safe(m, tmp, &g->mgroups, node)
		gsync_mgroup_free(g, m);
}
