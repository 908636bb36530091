// SPDX-License-Identifier: GPL-2.0
/*
 * Lingering groups: the one owner of a closed group's life after close.
 *
 * A rank that has its result may close its socket while peers still need
 * its contribution (their NACKs have not arrived yet), and an operation
 * abandoned by close has ABORTs still queued for its peers. Such a group
 * stays alive without its socket, answering NACKs and POLLs of completed
 * operations and sending its queued control packets, until every peer has
 * acknowledged or op_timeout_ms has passed. It then ends itself (the repair
 * work queues destroy_work), or is ended earlier by namespace teardown,
 * module unload, or a new GSYNC_JOIN on the same endpoint (a restarted
 * process takes over its address, as TCP reuses a TIME_WAIT port).
 *
 * Locking: gsync_net.lock (mutex, process context) protects the list
 * gsync_net.lingering and every group's linger_node. Whoever takes a group
 * off that list under the mutex owns its destruction, so exactly one of
 * destroy_work, the reaper, and a takeover destroys it. g->lingering and
 * g->dead are under gsync_group.lock; destroy_work is queued only under
 * that lock and only while !g->dead, and gsync_group_destroy() cancels it
 * after setting dead (unless destroy_work itself is the caller), so it
 * never runs on a freed group.
 */
#include "gsync.h"
#include "group.h"
#include "linger.h"
#include "udp.h"

/* Does g still serve peers? Under g->lock. */
bool gsync_linger_serving(struct gsync_group *g)
{
	struct gsync_op *op;
	u64 seq;

	if (!list_empty(&g->ctrl_q))
		return true;
	for (seq = g->base_seq; seq < g->next_seq; seq++) {
		op = gsync_slot(g, seq);
		if (op && (op->retained || op->jobs))
			return true;
	}
	return false;
}

/* Take g off the lingering list; true if the caller now owns it. */
static bool gsync_linger_take(struct gsync_net *gn, struct gsync_group *g)
{
	bool mine;

	mutex_lock(&gn->lock);
	mine = !list_empty(&g->linger_node);
	list_del_init(&g->linger_node);
	mutex_unlock(&gn->lock);
	return mine;
}

/*
 * The socket of g has closed and close is done with g: list it as
 * lingering if it still serves peers, else end it now. Nothing else can
 * reach g before it is listed (destroy_work needs g->lingering, the reaper
 * and a takeover need the list), and listing is close's last touch of g:
 * from then on the first of them to take g off the list owns it. Process
 * context, no locks held.
 */
void gsync_linger_decide(struct gsync_group *g)
{
	struct gsync_net *gn = gsync_net(g->net);
	bool linger;

	mutex_lock(&gn->lock);
	spin_lock_bh(&g->lock);
	linger = gsync_linger_serving(g);
	g->lingering = linger;
	spin_unlock_bh(&g->lock);
	if (linger)
		list_add_tail(&g->linger_node, &gn->lingering);
	mutex_unlock(&gn->lock);
	if (!linger)
		gsync_group_destroy(g, false);
}

/* Called by the repair work of a lingering group. Under g->lock. */
bool gsync_linger_check(struct gsync_group *g, bool serving)
{
	if (!g->lingering || serving || g->dead)
		return false;
	queue_work(gsync_wq, &g->destroy_work);
	return true;
}

void gsync_linger_destroy_work(struct work_struct *work)
{
	struct gsync_group *g = container_of(work, struct gsync_group,
					     destroy_work);

	if (gsync_linger_take(gsync_net(g->net), g))
		gsync_group_destroy(g, true);
}

/* Namespace teardown: end every lingering group of gn now, one by one. */
void gsync_linger_reap(struct gsync_net *gn)
{
	struct gsync_group *g;

	for (;;) {
		mutex_lock(&gn->lock);
		g = list_first_entry_or_null(&gn->lingering, struct gsync_group,
					     linger_node);
		if (g)
			list_del_init(&g->linger_node);
		mutex_unlock(&gn->lock);
		if (!g)
			break;
		gsync_group_destroy(g, false);
	}
	/* Destructions their own destroy_work started finish first. */
	flush_workqueue(gsync_wq);
}

/*
 * A new GSYNC_JOIN binds endpoint sa: end a lingering group of gn bound to
 * it, so a restarted process gets its address back at once. Returns the
 * number of groups ended. Process context, may sleep.
 */
unsigned int gsync_linger_takeover(struct gsync_net *gn,
				   const union gsync_sockaddr *sa)
{
	struct gsync_group *g, *found;
	unsigned int n = 0;

	for (;;) {
		found = NULL;
		mutex_lock(&gn->lock);
		list_for_each_entry(g, &gn->lingering, linger_node) {
			if (gsync_sa_equal(&g->peer_sa[g->cfg.rank], sa)) {
				found = g;
				list_del_init(&g->linger_node);
				break;
			}
		}
		mutex_unlock(&gn->lock);
		if (!found)
			return n;
		gsync_group_destroy(found, false);
		atomic64_inc(&gn->linger_takeovers);
		n++;
	}
}
