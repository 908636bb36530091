// SPDX-License-Identifier: GPL-2.0
/*
 * Loss repair and timeouts. Receivers ask for what they lack with NACKs
 * (selective repeat: ranges of missing chunks) when a sender's stream has
 * stalled for a repair interval, or when the sender POLLs after finishing.
 * Senders keep their contribution until every receiver has acknowledged it
 * with a STATUS, POLLing (with backoff) until then. An operation that
 * makes no progress for op_timeout_ms fails with ETIMEDOUT.
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

#define GSYNC_MAX_BACKOFF	4	/* intervals grow up to 16x */

/*
 * Ranges of clear bits in have[0..nchunks), at most max of them. Returns
 * how many were written. Pure; KUnit tests it.
 */
unsigned int gsync_nack_ranges(const unsigned long *have, u32 nchunks,
			       struct gsync_wire_range *out,
			       unsigned int max)
{
	unsigned int n = 0;
	u32 start = 0, end;

	while (n < max) {
		start = find_next_zero_bit(have, nchunks, start);
		if (start >= nchunks)
			break;
		end = find_next_bit(have, nchunks, start);
		out[n].first = cpu_to_be32(start);
		out[n].count = cpu_to_be32(end - start);
		n++;
		start = end;
	}
	return n;
}
GSYNC_EXPORT_FOR_TESTS(gsync_nack_ranges);

/* Ask rank r for what we lack of its contribution. Under the lock. */
void gsync_send_nack(struct gsync_group *g, struct gsync_op *op,
		     unsigned int r)
{
	struct {
		struct gsync_wire_nack n;
		struct gsync_wire_range ranges[GSYNC_WIRE_MAX_RANGES];
	} *p;
	struct gsync_contrib *c = &op->contrib[r];
	unsigned int nr;

	unsigned long holdoff;

	if (c->complete || time_before(jiffies, c->next_nack))
		return;
	p = kzalloc(sizeof(*p), GFP_ATOMIC);
	if (!p)
		return;
	if (c->nchunks) {
		/*
		 * Gaps below the highest chunk seen are losses; beyond it the
		 * sender may still be sending, unless it said it is done.
		 */
		nr = gsync_nack_ranges(c->have, c->sender_done ? c->nchunks :
				       c->highest, p->ranges,
				       GSYNC_WIRE_MAX_RANGES);
	} else {
		/* Nothing yet: we do not know its chunk count. */
		p->ranges[0].first = 0;
		p->ranges[0].count = cpu_to_be32(GSYNC_WIRE_RANGE_ALL);
		nr = 1;
	}
	p->n.target_rank = cpu_to_be16(r);
	p->n.nranges = cpu_to_be16(nr);
	if (nr && !gsync_ctrl_queue(g, r, GSYNC_PKT_NACK, op, op->seq, p,
				    sizeof(p->n) + nr * sizeof(p->ranges[0]))) {
		g->stats.nacks_sent++;
		c->nack_sent_at = jiffies ? jiffies : 1;
	}
	/* Give a repair time to arrive: a round trip, at least repair_ms. */
	holdoff = max_t(unsigned long, msecs_to_jiffies(g->cfg.repair_ms),
			2 * g->srtt[r]);
	c->next_nack = jiffies + (holdoff << c->nack_backoff);
	if (c->nack_backoff < GSYNC_MAX_BACKOFF)
		c->nack_backoff++;
	kfree(p);
}

/* Tell rank dest (-1: everyone) which contributions we hold. */
void gsync_send_status(struct gsync_group *g, struct gsync_op *op, int dest)
{
	struct gsync_wire_status st = {};
	unsigned int r;

	for (r = 0; r < g->cfg.nranks; r++)
		if (test_bit(r, op->complete))
			st.complete[r / 8] |= 1U << (r % 8);
	gsync_ctrl_queue(g, dest, GSYNC_PKT_STATUS, op, op->seq, &st,
			 sizeof(st));
}

/* One operation's repair duties. Under the lock. */
static void gsync_repair_op(struct gsync_group *g, struct gsync_op *op,
			    unsigned long now)
{
	unsigned long interval = msecs_to_jiffies(g->cfg.repair_ms);
	unsigned int r;

	if (op->state == GSYNC_OPS_OPEN) {
		if (time_after(now, op->deadline)) {
			gsync_op_fail(g, op, -ETIMEDOUT);
			return;
		}
		for (r = 0; r < g->cfg.nranks; r++) {
			struct gsync_contrib *c = &op->contrib[r];

			if (r == g->cfg.rank || c->complete)
				continue;
			/* A stream still flowing is not asked yet. */
			if (c->nchunks && time_before(now, c->last_rx + interval))
				continue;
			/*
			 * Nothing at all from it: its POLL will tell us when it
			 * is done; ask blindly only after a long silence.
			 */
			if (!c->nchunks &&
			    time_before(now, op->submitted_at + 16 * interval))
				continue;
			gsync_send_nack(g, op, r);
		}
	}
	if (op->sendbuf && op->tx_done &&
	    !bitmap_full(op->acked, g->cfg.nranks) &&
	    time_after_eq(now, op->next_poll)) {
		gsync_ctrl_queue(g, -1, GSYNC_PKT_POLL, op, op->seq, NULL, 0);
		op->next_poll = now + (interval << op->poll_backoff);
		if (op->poll_backoff < GSYNC_MAX_BACKOFF)
			op->poll_backoff++;
	}
}

void gsync_repair_work(struct work_struct *work)
{
	struct gsync_group *g = container_of(to_delayed_work(work),
					     struct gsync_group, repair_work);
	void *bufs[GSYNC_MAX_WINDOW];
	unsigned long now = jiffies;
	unsigned int nbufs = 0, i;
	bool serving = false;
	LIST_HEAD(to_free);
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
		if (op->delivered) {
			bufs[nbufs] = gsync_op_take_sendbuf(g, op);
			nbufs += !!bufs[nbufs];
		}
		serving |= !!op->sendbuf;
	}
	gsync_group_release_slots(g, &to_free);
	if (g->lingering && !serving)
		queue_work(gsync_wq, &g->destroy_work);
	else
		queue_delayed_work(gsync_wq, &g->repair_work,
				   msecs_to_jiffies(g->cfg.repair_ms));
	spin_unlock_bh(&g->lock);

	for (i = 0; i < nbufs; i++)
		kvfree(bufs[i]);
	gsync_op_free_list(g, &to_free);
}
