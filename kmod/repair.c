// SPDX-License-Identifier: GPL-2.0
/*
 * Loss repair and timeouts, per stream (a sender's packets in one step of
 * an operation). Receivers ask for what they lack with NACKs (selective
 * repeat: ranges of missing chunks) that chunks sent after them have
 * passed a repair interval ago (so while the stream still flows), when a
 * stream has stalled for a repair interval, and when its sender POLLs
 * after finishing the step (gsync_nack_span()). A sender
 * silent towards us for a quarter of op_timeout_ms is probed: asked for
 * the gaps and the rest of each of its streams we lack, on a timer of its
 * own; one with nothing of that to resend (it still waits in an earlier
 * step) answers with a STATUS, so a live peer is heard. Senders keep
 * their values until every receiver of every step has acknowledged them
 * with a STATUS, POLLing (with backoff) until then, or until op_timeout_ms
 * after the last chunk they sent for the first time. An operation fails
 * with ETIMEDOUT when a peer it still waits for has sent nothing at all
 * (no packet of any kind, for any operation) for op_timeout_ms, so a dead
 * rank is detected while the others make progress (EKEYREJECTED instead
 * if its address sent packets that did not authenticate since its last
 * valid one: a rank with another key, or none); an ABORT tells the
 * peers, so that every rank reports the operation failed alike.
 *
 * Locking: the repair work runs every repair_ms in process context and
 * takes gsync_group.lock; buffers it releases are freed after unlocking.
 * gsync_send_nack()/gsync_send_status() are called under the lock from
 * any context.
 */
#include <linux/bitmap.h>
#include <linux/slab.h>

#include "gsync.h"
#include "group.h"
#include "op.h"
#include "send.h"
#include "repair.h"
#include "linger.h"
#include "rate.h"
#include "trace.h"

#define GSYNC_MAX_BACKOFF	4	/* intervals grow up to 16x */

/*
 * Ranges of clear bits in have[from..to), at most max of them. Returns
 * how many were written. Pure; KUnit tests it.
 */
unsigned int gsync_nack_ranges(const unsigned long *have, u32 from, u32 to,
			       struct gsync_wire_range *out,
			       unsigned int max)
{
	unsigned int n = 0;
	u32 start = from, end;

	while (n < max) {
		start = find_next_zero_bit(have, to, start);
		if (start >= to)
			break;
		end = find_next_bit(have, to, start);
		out[n].first = cpu_to_be32(start);
		out[n].count = cpu_to_be32(end - start);
		n++;
		start = end;
	}
	return n;
}
GSYNC_EXPORT_FOR_TESTS(gsync_nack_ranges);

/*
 * Which chunks of a stream of nchunks to look for gaps in now: [*from,
 * *to). A gap is a loss once chunks sent after it have arrived for a
 * while, longer than packets are reordered: below everything once the
 * sender has POLLed (sender_done), below the highest chunk seen once the
 * stream has stalled for a repair interval, and while it flows, below
 * aged, the highest chunk seen a repair interval ago. So repair runs
 * alongside the stream instead of after it. Gaps below asked were asked
 * for already: while the NACK hold-off runs (held), only gaps above it
 * are asked for; after it, all are again. Returns false for nothing to
 * look at. Pure; KUnit tests it.
 */
bool gsync_nack_span(u32 nchunks, u32 highest, u32 aged, u32 asked,
		     bool sender_done, bool stalled, bool held,
		     u32 *from, u32 *to)
{
	if (sender_done)
		*to = nchunks;
	else if (stalled)
		*to = highest;
	else
		*to = aged;
	*to = min(*to, nchunks);
	*from = held ? min(asked, *to) : 0;
	return *from < *to;
}
GSYNC_EXPORT_FOR_TESTS(gsync_nack_span);

/*
 * How long a peer we wait for may be silent towards us before we probe it
 * (see gsync_repair_step()): a quarter of op_timeout_ms, at least 16 repair
 * intervals, and at most half the timeout, so that a live peer is asked,
 * and can answer, before we would time it out.
 */
static unsigned long gsync_probe_after(struct gsync_group *g)
{
	unsigned long timeout = msecs_to_jiffies(g->cfg.op_timeout_ms);

	return min(max(16 * msecs_to_jiffies(g->cfg.repair_ms), timeout / 4),
		   timeout / 2);
}

/*
 * Ask the sender of stream c (step s) for what we lack. A probe also asks
 * for everything beyond the highest chunk seen: the sender resends what it
 * sent of it, or, if it has sent none, answers with a STATUS. Under the
 * lock.
 */
void gsync_send_nack(struct gsync_group *g, struct gsync_op *op,
		     unsigned int s, struct gsync_contrib *c, bool probe)
{
	struct {
		struct gsync_wire_nack n;
		struct gsync_wire_range ranges[GSYNC_WIRE_MAX_RANGES];
	} *p;
	unsigned long holdoff, asked_at, now = jiffies;
	bool held, stalled;
	unsigned int nr;
	u32 from = 0, to = 0;

	if (c->complete || !c->expects)
		return;
	/*
	 * A probe keeps its own pace: held off behind the NACKs of a stalled
	 * stream, it could leave a live peer unasked until it times out. Not
	 * due yet, it is an ordinary NACK.
	 */
	if (probe && c->next_probe && time_before(now, c->next_probe))
		probe = false;
	held = !probe && time_before(now, c->next_nack);
	/* A stream not begun is asked for by a probe, or after its POLL. */
	if (!probe && !c->nchunks && (!c->sender_done || held))
		return;
	if (c->nchunks) {
		stalled = !time_before(now, c->last_rx +
				       msecs_to_jiffies(g->cfg.repair_ms));
		if (probe) {
			to = c->sender_done ? c->nchunks : c->highest;
		} else if (!gsync_nack_span(c->nchunks, c->highest, c->rate_h1,
					    c->nacked_hi, c->sender_done,
					    stalled, held, &from, &to)) {
			return;
		}
	}
	p = kzalloc(sizeof(*p), GFP_ATOMIC);
	if (!p)
		return;
	nr = 0;
	if (c->nchunks) {
		nr = gsync_nack_ranges(c->have, from, to, p->ranges,
				       GSYNC_WIRE_MAX_RANGES);
		/* Gaps past a full packet were not asked for. */
		if (nr == GSYNC_WIRE_MAX_RANGES)
			to = be32_to_cpu(p->ranges[nr - 1].first) +
			     be32_to_cpu(p->ranges[nr - 1].count);
		if (!probe)
			c->nacked_hi = max(c->nacked_hi, to);
	}
	if (!c->nchunks || (probe && !c->sender_done &&
			    nr < GSYNC_WIRE_MAX_RANGES)) {
		/* The rest, of a chunk count we may not know yet. */
		p->ranges[nr].first = cpu_to_be32(c->nchunks ? c->highest : 0);
		p->ranges[nr].count = cpu_to_be32(GSYNC_WIRE_RANGE_ALL);
		nr++;
	}
	if (!nr) {
		kfree(p);
		return;
	}
	p->n.target_rank = cpu_to_be16(c->rank);
	p->n.nranges = cpu_to_be16(nr);
	asked_at = c->nack_sent_at;
	if (!gsync_ctrl_queue(g, c->rank, GSYNC_PKT_NACK, op, s, p,
			      sizeof(p->n) + nr * sizeof(p->ranges[0]))) {
		g->stats.nacks_sent++;
		trace_gsync_nack_send(g, op, s, c->rank, p->ranges, NULL, 0,
				      nr);
		/*
		 * A probe is mostly answered by a STATUS: no RTT sample. A
		 * NACK of new gaps only keeps the sample of the one before.
		 */
		if (!probe && (!held || !c->nack_sent_at))
			c->nack_sent_at = now ? now : 1;
	}
	kfree(p);
	if (probe) {
		/*
		 * Unanswered, a probe is repeated at half its interval: twice
		 * or more before the peer would time out, if repair_ms is
		 * small against op_timeout_ms. The NACKs' hold-off and backoff
		 * are left to repairs.
		 */
		c->next_probe = now + max(1UL, gsync_probe_after(g) / 2);
		return;
	}
	if (held)
		return;
	/*
	 * No repair came for the last NACK, but the peer was heard since: it
	 * is alive and its packets reach us, so the NACK or the repair was
	 * lost (at 10% loss, one in five round trips), not the peer slow to
	 * answer. Ask again after one hold-off; back off only from a peer
	 * gone silent.
	 */
	if (asked_at && time_after(g->heard[c->rank], asked_at))
		c->nack_backoff = 0;
	/* Give a repair time to arrive: a round trip, at least repair_ms. */
	holdoff = max_t(unsigned long, msecs_to_jiffies(g->cfg.repair_ms),
			2 * g->srtt[c->rank]);
	c->next_nack = now + (holdoff << c->nack_backoff);
	if (c->nack_backoff < GSYNC_MAX_BACKOFF)
		c->nack_backoff++;
}

/*
 * Tell rank dest which streams of step s we hold complete, answering its
 * NACK or POLL; dest -1: every member of the step's clique (one multicast
 * when the group has it), of our own accord.
 */
void gsync_send_status(struct gsync_group *g, struct gsync_op *op,
		       unsigned int s, int dest)
{
	struct gsync_step *st = &op->step[s];
	struct gsync_wire_status w = {};
	unsigned int j, r;

	if (!st->q)
		return;
	for (j = 0; j < st->q->nmembers; j++) {
		if (j == st->pos || !st->in[j].expects || st->in[j].complete) {
			r = st->q->members[j];
			w.complete[r / 8] |= 1U << (r % 8);
		}
	}
	if (dest >= 0) {
		gsync_ctrl_answer(g, dest, GSYNC_PKT_STATUS, op, s, &w,
				  sizeof(w));
		return;
	}
	if (!g->unicast) {
		gsync_ctrl_queue(g, -1, GSYNC_PKT_STATUS, op, s, &w, sizeof(w));
		return;
	}
	for (j = 0; j < st->q->nmembers; j++)
		if (j != st->pos)
			gsync_ctrl_queue(g, st->q->members[j],
					 GSYNC_PKT_STATUS, op, s, &w, sizeof(w));
}

/* Ask the receivers of step s that have not acknowledged it. */
static void gsync_send_poll(struct gsync_group *g, struct gsync_op *op,
			    unsigned int s)
{
	struct gsync_step *st = &op->step[s];
	unsigned int r;

	if (!g->unicast) {
		gsync_ctrl_queue(g, -1, GSYNC_PKT_POLL, op, s, NULL, 0);
		return;
	}
	for_each_set_bit(r, st->need_ack, g->cfg.nranks)
		if (!test_bit(r, st->acked))
			gsync_ctrl_queue(g, r, GSYNC_PKT_POLL, op, s, NULL, 0);
}

/*
 * When we last heard anything from rank r, as far as op is concerned: not
 * before we submitted op. Under the lock.
 */
static unsigned long gsync_peer_heard(struct gsync_group *g,
				      struct gsync_op *op, unsigned int r)
{
	unsigned long last = g->heard[r];

	if (!last || time_before(last, op->submitted_at))
		last = op->submitted_at;
	return last;
}

/* Repair duties for the streams of step s. Under the lock. */
static void gsync_repair_step(struct gsync_group *g, struct gsync_op *op,
			      unsigned int s, unsigned long now)
{
	unsigned long interval = msecs_to_jiffies(g->cfg.repair_ms);
	struct gsync_step *st = &op->step[s];
	unsigned int j;
	bool probe;

	if (op->state == GSYNC_OPS_OPEN && st->receives) {
		for (j = 0; j < st->q->nmembers; j++) {
			struct gsync_contrib *c = &st->in[j];

			if (!c->expects || c->complete)
				continue;
			/*
			 * Gaps that later chunks passed an interval ago are
			 * asked for (gsync_nack_span()). Beyond the highest
			 * chunk seen, nothing: the sender may not have reached
			 * this step or block yet (an owner waits for its
			 * block), or the next chunks are on the way. Its POLL,
			 * repeated until we acknowledge, says when it is done;
			 * a NACK for chunks not sent yet would only make it
			 * resend what is in flight. A peer silent towards us (nothing
			 * at all, for any step) for a quarter of the timeout is
			 * probed: it resends, answers with a STATUS if it has
			 * not sent any of it yet, or with an ABORT if it let
			 * the operation go (after a forged STATUS).
			 */
			probe = !time_before(now, gsync_peer_heard(g, op,
								   c->rank) +
					     gsync_probe_after(g));
			if (!probe && !c->nchunks)
				continue;
			gsync_send_nack(g, op, s, c, probe);
		}
	}
	if (op->retained && st->sends && st->tx_done &&
	    !bitmap_subset(st->need_ack, st->acked, g->cfg.nranks) &&
	    time_after_eq(now, st->next_poll)) {
		gsync_send_poll(g, op, s);
		st->next_poll = now + (interval << st->poll_backoff);
		if (st->poll_backoff < GSYNC_MAX_BACKOFF)
			st->poll_backoff++;
	}
}

/*
 * Has a peer that op still waits for been silent for op_timeout_ms (since
 * we submitted op, if it spoke before)? 0 if not; else how op fails:
 * -ETIMEDOUT, or -EKEYREJECTED if the peer's address sent packets that did
 * not authenticate after its last one that did (another key, or none).
 * Under the lock.
 */
static int gsync_op_silent(struct gsync_group *g, struct gsync_op *op,
			   unsigned long now)
{
	unsigned long heard, failed;
	unsigned long timeout = msecs_to_jiffies(g->cfg.op_timeout_ms);
	unsigned int s, j;

	for (s = 0; s < op->nsteps; s++) {
		struct gsync_step *st = &op->step[s];

		if (!st->receives)
			continue;
		for (j = 0; j < st->q->nmembers; j++) {
			const struct gsync_contrib *c = &st->in[j];

			if (!c->expects || c->complete)
				continue;
			heard = gsync_peer_heard(g, op, c->rank);
			if (!time_after(now, heard + timeout))
				continue;
			failed = g->auth_fail[c->rank];
			return failed && time_after(failed, heard) ?
			       -EKEYREJECTED : -ETIMEDOUT;
		}
	}
	return 0;
}

/* One operation's repair duties. Under the lock. */
static void gsync_repair_op(struct gsync_group *g, struct gsync_op *op,
			    unsigned long now)
{
	unsigned int s;
	int err;

	/* Blocks with the engine are progress the peers cannot see. */
	err = op->state == GSYNC_OPS_OPEN && !op->jobs ?
	      gsync_op_silent(g, op, now) : 0;
	if (err) {
		struct gsync_wire_abort a = { .error = cpu_to_be32(-err) };

		gsync_op_fail(g, op, err);
		/*
		 * Tell every peer: one still waiting fails alike, one that
		 * has not submitted it yet keeps the ABORT for when it does.
		 */
		gsync_ctrl_queue(g, -1, GSYNC_PKT_ABORT, op, 0, &a, sizeof(a));
		return;
	}
	for (s = 0; s < op->nsteps; s++)
		gsync_repair_step(g, op, s, now);
}

void gsync_repair_work(struct work_struct *work)
{
	struct gsync_group *g = container_of(to_delayed_work(work),
					     struct gsync_group, repair_work);
	unsigned long now = jiffies;
	LIST_HEAD(to_free);
	bool serving;
	struct gsync_op *op;
	u64 seq;

	spin_lock_bh(&g->lock);
	if (g->dead) {
		spin_unlock_bh(&g->lock);
		return;
	}
	for (seq = g->base_seq; seq < g->next_seq; seq++) {
		op = gsync_slot(g, seq);
		if (!op)
			continue;
		gsync_repair_op(g, op, now);
		if (op->delivered)
			gsync_op_unretain(g, op);
	}
	gsync_rate_tick(g);
	gsync_group_release_slots(g, &to_free);
	serving = gsync_linger_serving(g);
	if (!gsync_linger_check(g, serving))
		queue_delayed_work(gsync_wq, &g->repair_work,
				   msecs_to_jiffies(g->cfg.repair_ms));
	spin_unlock_bh(&g->lock);

	gsync_op_free_list(g, &to_free);
}
