// SPDX-License-Identifier: GPL-2.0
/*
 * Loading schedules into groups: setsockopt(GSYNC_SCHEDULE) on a joined
 * socket, setsockopt(GSYNC_SCHEDULE_PUSH) into every socket of a group in
 * the namespace, getsockopt(GSYNC_SCHEDULE), and the choice of schedule
 * for each submitted operation (a pending schedule takes over at its
 * start_seq).
 *
 * Locking: setsockopt/getsockopt run under lock_sock() of the calling
 * socket. g->sched and g->sched_next are under gsync_group.lock; a
 * replaced schedule is put after unlocking (operations hold their own
 * references). Every load joins the schedule's clique groups, installs it
 * and leaves the groups no longer used under gsync_net.lock (mgroup.c), so
 * loads into one group by its owner and by a push do not interleave. A
 * push snapshots the groups of gsync_net.socks under gsync_net.lock and
 * holds it until done: sockets on that list are not released yet, so
 * their group (set once by GSYNC_JOIN, read with acquire) stays valid
 * while the mutex is held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/sockptr.h>
#include <net/sock.h>

#include "gsync.h"
#include "group.h"
#include "mgroup.h"
#include "sched_opt.h"
#include "trace.h"

/* Largest blob: every count at its maximum. */
#define GSYNC_SCHED_MAX_BLOB	GSYNC_SCHED_BLOB_LEN(GSYNC_SCHED_MAX_CLIQUES, \
						     GSYNC_SCHED_MAX_MEMBERS)

/* Copy a blob in from the user; NULL with *err set on failure. */
static void *gsync_sched_copy_blob(sockptr_t optval, unsigned int off,
				   unsigned int len, int *err)
{
	void *blob;

	*err = -EINVAL;
	if (len > GSYNC_SCHED_MAX_BLOB)
		return NULL;
	*err = -ENOMEM;
	blob = kvmalloc(len, GFP_KERNEL);
	if (!blob)
		return NULL;
	*err = -EFAULT;
	if (copy_from_sockptr_offset(blob, optval, off, len)) {
		kvfree(blob);
		return NULL;
	}
	*err = 0;
	return blob;
}

/* Compile blob (len 0: the default schedule) for g. */
static int gsync_sched_build(struct gsync_group *g, const void *blob,
			     unsigned int len, struct gsync_sched **out)
{
	if (!len) {
		*out = gsync_sched_default(g->cfg.nranks, g->unicast);
		return *out ? 0 : -ENOMEM;
	}
	return gsync_sched_compile(blob, len, g->cfg.nranks,
				   g->unicast ? NULL : &g->cfg.mcast, out);
}

/* Can s be installed in g now? Under the lock. */
static int gsync_sched_check_seq(struct gsync_group *g, struct gsync_sched *s)
{
	return s->start_seq && s->start_seq < g->next_seq ? -ERANGE : 0;
}

/*
 * Install s (our reference) in g: now, or pending until its start_seq; a
 * schedule still pending is replaced. Under the lock; returns the
 * schedules to put after unlocking in old[2].
 */
static void gsync_sched_install(struct gsync_group *g, struct gsync_sched *s,
				struct gsync_sched *old[2])
{
	old[1] = g->sched_next;
	g->sched_next = NULL;
	if (!s->start_seq || s->start_seq == g->next_seq) {
		old[0] = g->sched;
		g->sched = s;
		trace_gsync_schedule_switch(g, g->next_seq, s, old[0]);
	} else {
		old[0] = NULL;
		g->sched_next = s;
	}
}

int gsync_sched_setsockopt(struct gsync_group *g, sockptr_t optval,
			   unsigned int optlen)
{
	struct gsync_net *gn = gsync_net(g->net);
	struct gsync_sched *s, *old[2];
	void *blob = NULL;
	int err;

	if (optlen) {
		blob = gsync_sched_copy_blob(optval, 0, optlen, &err);
		if (!blob)
			return err;
	}
	err = gsync_sched_build(g, blob, optlen, &s);
	kvfree(blob);
	if (err)
		return err;
	/* Joined before it is installed: no join on an operation's path. */
	mutex_lock(&gn->lock);
	err = gsync_mgroup_join(g, s);
	if (!err) {
		spin_lock_bh(&g->lock);
		err = gsync_sched_check_seq(g, s);
		if (!err)
			gsync_sched_install(g, s, old);
		spin_unlock_bh(&g->lock);
	}
	gsync_mgroup_sweep(g);
	mutex_unlock(&gn->lock);
	if (err) {
		gsync_sched_put(s);
		return err;
	}
	gsync_sched_put(old[0]);
	gsync_sched_put(old[1]);
	return 0;
}

/* A listed socket's group: pairs with the release in gsync_group_join(). */
static struct gsync_group *gsync_push_group(struct gsync_sock *o)
{
	/* acquire: see the group fully set up, as /proc does */
	return smp_load_acquire(&o->group);
}

static bool gsync_push_match(struct gsync_group *g,
			     const struct gsync_sched_push *p)
{
	return g && g->cfg.group_id == p->group_id &&
	       (p->rank == GSYNC_SCHED_ANY_RANK || p->rank == g->cfg.rank);
}

/*
 * GSYNC_SCHEDULE_PUSH: take one snapshot of the matching groups, compile
 * the blob for each of them, then install it in all of them, all under
 * gsync_net.lock, so that a blob some group refuses changes none and a
 * socket joining or closing meanwhile cannot shift which schedule goes
 * where (a listed socket's group stays alive while the mutex is held).
 */
int gsync_sched_push(struct gsync_sock *gs, sockptr_t optval,
		     unsigned int optlen)
{
	struct net *net = sock_net(&gs->sk);
	struct gsync_net *gn = gsync_net(net);
	struct gsync_sched **scheds = NULL, *old[2];
	struct gsync_group **groups = NULL, *g;
	unsigned int nsocks = 0, n = 0, i, len;
	struct gsync_sched_push p;
	struct gsync_sock *o;
	void *blob = NULL;
	int err;

	if (!ns_capable(net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (optlen < sizeof(p))
		return -EINVAL;
	if (copy_from_sockptr(&p, optval, sizeof(p)))
		return -EFAULT;
	if (p.reserved0 || p.reserved1)
		return -EINVAL;
	len = optlen - sizeof(p);
	if (len) {
		blob = gsync_sched_copy_blob(optval, sizeof(p), len, &err);
		if (!blob)
			return err;
	}

	mutex_lock(&gn->lock);
	list_for_each_entry(o, &gn->socks, node)
		nsocks++;
	err = -ENOMEM;
	groups = kvcalloc(max(nsocks, 1U), sizeof(*groups), GFP_KERNEL_ACCOUNT);
	scheds = kvcalloc(max(nsocks, 1U), sizeof(*scheds), GFP_KERNEL_ACCOUNT);
	if (!groups || !scheds)
		goto out;
	/* The snapshot: every later pass uses these pointers, not the list. */
	list_for_each_entry(o, &gn->socks, node) {
		g = gsync_push_group(o);
		if (gsync_push_match(g, &p))
			groups[n++] = g;
	}
	err = -ENOENT;
	if (!n)
		goto out;
	for (i = 0; i < n; i++) {
		err = gsync_sched_build(groups[i], blob, len, &scheds[i]);
		if (err)
			goto out;
	}
	/*
	 * Every start_seq must still be ahead. A group that submits past it
	 * between this check and its install switches one operation late,
	 * which its peers detect as a schedule-tag mismatch (EPROTO).
	 */
	for (i = 0; i < n && !err; i++) {
		spin_lock_bh(&groups[i]->lock);
		err = gsync_sched_check_seq(groups[i], scheds[i]);
		spin_unlock_bh(&groups[i]->lock);
	}
	for (i = 0; i < n && !err; i++)
		err = gsync_mgroup_join(groups[i], scheds[i]);
	for (i = 0; i < n && !err; i++) {
		spin_lock_bh(&groups[i]->lock);
		gsync_sched_install(groups[i], scheds[i], old);
		spin_unlock_bh(&groups[i]->lock);
		scheds[i] = NULL;
		gsync_sched_put(old[0]);
		gsync_sched_put(old[1]);
	}
	/* Installed or not, leave what none of their schedules uses. */
	for (i = 0; i < n; i++)
		gsync_mgroup_sweep(groups[i]);
out:
	mutex_unlock(&gn->lock);
	for (i = 0; scheds && i < n; i++)
		gsync_sched_put(scheds[i]);
	kvfree(scheds);
	kvfree(groups);
	kvfree(blob);
	return err;
}

/*
 * The schedule operation seq runs under (a reference): a pending schedule
 * takes over from its start_seq. Process context, under lock_sock.
 */
struct gsync_sched *gsync_sched_for_seq(struct gsync_group *g, u64 seq)
{
	struct gsync_sched *s, *old = NULL;

	spin_lock_bh(&g->lock);
	if (g->sched_next && seq >= g->sched_next->start_seq) {
		old = g->sched;
		g->sched = g->sched_next;
		g->sched_next = NULL;
		trace_gsync_schedule_switch(g, seq, g->sched, old);
	}
	s = gsync_sched_get(g->sched);
	spin_unlock_bh(&g->lock);
	gsync_sched_put(old);
	return s;
}

/*
 * getsockopt(GSYNC_SCHEDULE): the blob most recently loaded (pending or in
 * effect), or length 0 for the default schedule. A buffer too small for
 * the blob is ERANGE with optlen set to the size needed. Under lock_sock.
 */
int gsync_sched_getsockopt(struct gsync_group *g, char __user *optval,
			   int __user *optlen, int len)
{
	struct gsync_sched *s;
	int err = 0;

	if (!g)
		return -ENOTCONN;
	spin_lock_bh(&g->lock);
	s = gsync_sched_get(g->sched_next ? g->sched_next : g->sched);
	spin_unlock_bh(&g->lock);
	if (!s->tag) {
		err = put_user(0, optlen) ? -EFAULT : 0;
	} else if (len < s->blob_len) {
		err = put_user(s->blob_len, optlen) ? -EFAULT : -ERANGE;
	} else if (copy_to_user(optval, s->blob, s->blob_len) ||
		   put_user(s->blob_len, optlen)) {
		err = -EFAULT;
	}
	gsync_sched_put(s);
	return err;
}
