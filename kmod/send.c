// SPDX-License-Identifier: GPL-2.0
/*
 * The send path: one work item per group drains, in priority order, the
 * control queue (NACK, STATUS, POLL, ABORT), chunks to retransmit, and new
 * chunks (oldest operation first, and within it the latest step whose
 * block is ready, so that rounds pipeline), at no more than the pacing
 * rate (a token bucket topped up from the clock at the rate of the
 * packet's clique, capped by the group's pacing_rate; in a reduce-scatter
 * clique a packet costs by the downloads it lands on, gsync_route_cost()). A step sends to
 * the group's multicast address (or its clique's, with clique groups), to
 * a block's owner, or to each member of its clique in turn (unicast
 * patterns and groups).
 *
 * A keyed group's packets are sealed (seal.c) between the two: each
 * pick takes its key and counter under the lock and is sealed in g->txbuf
 * after it (DATA is built there with room for the sealing fields; a
 * control packet is copied there).
 *
 * Locking: packets are chosen and copied into g->txbuf under
 * gsync_group.lock, then sealed and sent without it (kernel_sendmsg may
 * sleep). The tx work is the only user of g->txbuf. gsync_tx_kick(), gsync_ctrl_queue()
 * and gsync_ctrl_answer() may be called from any context with the lock
 * held.
 */
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "gsync.h"
#include "group.h"
#include "udp.h"
#include "send.h"
#include "route.h"
#include "mgroup.h"
#include "rate.h"
#include "trace.h"
#include "seal.h"

#define GSYNC_CTRL_MAX		1024	/* queued control packets */
#define GSYNC_TX_BATCH		64	/* packets per work run */
#define GSYNC_BUCKET_MIN	(64 << 10)

void gsync_tx_kick(struct gsync_group *g)
{
	if (!g->dead)
		queue_delayed_work(gsync_wq, &g->tx_work, 0);
}

void gsync_wire_fill(struct gsync_group *g, struct gsync_wire_hdr *h,
		     u8 type, u64 seq, u8 dtype, u8 redop)
{
	memset(h, 0, sizeof(*h));
	h->version = GSYNC_WIRE_VERSION;
	h->type = type;
	h->dtype = dtype;
	h->op = redop;
	h->src_rank = cpu_to_be16(g->cfg.rank);
	h->nranks = cpu_to_be16(g->cfg.nranks);
	h->group_id = cpu_to_be64(g->cfg.group_id);
	h->seq = cpu_to_be64(seq);
}

/* DATA and POLL describe what we send in step s of op. */
static void gsync_wire_contrib(struct gsync_group *g, struct gsync_wire_hdr *h,
			       const struct gsync_op *op)
{
	h->nchunks = cpu_to_be32(op->nchunks);
	h->total_len = cpu_to_be64(op->len);
	h->chunk_bytes = cpu_to_be32(g->chunk_bytes);
	h->sched_tag = cpu_to_be64(op->sched->tag);
}

/*
 * How many entries of the control queue may answer one peer's packets
 * (STATUS for its NACKs and POLLs, ABORT for what it asks about a failed or
 * released operation). The answers to all peers together hold at most half
 * the queue, so a peer, or whoever forges its address, cannot crowd out
 * our own NACKs, POLLs and ABORTs to the others. Its token bucket bounds
 * the work its packets cost; this bounds the queue they take.
 */
static unsigned int gsync_ctrl_answer_cap(const struct gsync_group *g)
{
	return max_t(unsigned int, 2, GSYNC_CTRL_MAX / 2 / g->cfg.nranks);
}

/*
 * Queue a control packet; answer: it answers rank dest's packet; to (if
 * not NULL, for dest -1): the clique group to multicast it to.
 */
static int gsync_ctrl_add(struct gsync_group *g, int dest, bool answer,
			  const union gsync_sockaddr *to,
			  const struct gsync_wire_hdr *hdr,
			  const void *payload, unsigned int payload_len)
{
	struct gsync_wire_hdr *h;
	struct gsync_ctrl *c;

	if (g->dead || g->ctrl_len >= GSYNC_CTRL_MAX)
		return -ENOBUFS;
	if (answer && g->ctrl_answers[dest] >= gsync_ctrl_answer_cap(g)) {
		g->stats.drops[GSYNC_DROP_RATELIMIT]++;
		trace_gsync_drop(g, GSYNC_DROP_RATELIMIT);
		return -ENOBUFS;
	}
	c = kzalloc(sizeof(*c) + sizeof(*h) + payload_len, GFP_ATOMIC);
	if (!c)
		return -ENOMEM;
	if (to)
		c->maddr = *to;
	h = (struct gsync_wire_hdr *)c->data;
	*h = *hdr;
	h->payload_len = cpu_to_be32(payload_len);
	memcpy(c->data + sizeof(*h), payload, payload_len);
	c->dest = dest;
	c->answer = answer;
	c->len = sizeof(*h) + payload_len;
	list_add_tail(&c->node, &g->ctrl_q);
	g->ctrl_len++;
	if (answer)
		g->ctrl_answers[dest]++;
	gsync_tx_kick(g);
	return 0;
}

static void gsync_ctrl_hdr(struct gsync_group *g, struct gsync_wire_hdr *h,
			   u8 type, const struct gsync_op *op, unsigned int s)
{
	gsync_wire_fill(g, h, type, op->seq, op->dtype, op->redop);
	h->round = cpu_to_be16(s);
	h->sched_tag = cpu_to_be64(op->sched->tag);
	if (type == GSYNC_PKT_POLL)
		gsync_wire_contrib(g, h, op);
}

/*
 * Queue a control packet of ours about step s of op (0 for ABORT) for rank
 * dest (-1: every peer; for a step's POLL and STATUS, every member of its
 * clique, through the clique's group if it has one). Under the lock.
 */
int gsync_ctrl_queue(struct gsync_group *g, int dest, u8 type,
		     const struct gsync_op *op, unsigned int s,
		     const void *payload, unsigned int payload_len)
{
	union gsync_sockaddr to, *top = NULL;
	struct gsync_wire_hdr h;

	if (dest < 0 && type != GSYNC_PKT_ABORT &&
	    gsync_mgroup_sa(g, op->sched, op->step[s].q, &to))
		top = &to;
	gsync_ctrl_hdr(g, &h, type, op, s);
	return gsync_ctrl_add(g, dest, false, top, &h, payload, payload_len);
}

/*
 * Queue the answer to a packet from rank dest about step s of op, within
 * dest's share of the queue (gsync_ctrl_answer_cap()); one over it is not
 * queued and counts as drop_ratelimit. Under the lock.
 */
int gsync_ctrl_answer(struct gsync_group *g, unsigned int dest, u8 type,
		      const struct gsync_op *op, unsigned int s,
		      const void *payload, unsigned int payload_len)
{
	struct gsync_wire_hdr h;

	gsync_ctrl_hdr(g, &h, type, op, s);
	return gsync_ctrl_add(g, dest, true, NULL, &h, payload, payload_len);
}

/*
 * Queue a REPORT for rank dest; echo_at (if not 0): when the DATA it
 * echoes arrived, so that its hold_ms is set as it leaves. Under the lock.
 */
int gsync_ctrl_queue_report(struct gsync_group *g, unsigned int dest,
			    const struct gsync_wire_hdr *hdr,
			    const struct gsync_wire_report *rep, ktime_t echo_at)
{
	struct gsync_ctrl *c;
	int err;

	err = gsync_ctrl_add(g, dest, false, NULL, hdr, rep, sizeof(*rep));
	if (!err) {
		c = list_last_entry(&g->ctrl_q, struct gsync_ctrl, node);
		c->echo_at = echo_at;
	}
	return err;
}

/*
 * The same with header hdr (payload_len is filled in), for an operation
 * we no longer hold. Under the lock.
 */
int gsync_ctrl_answer_hdr(struct gsync_group *g, unsigned int dest,
			  const struct gsync_wire_hdr *hdr,
			  const void *payload, unsigned int payload_len)
{
	return gsync_ctrl_add(g, dest, true, NULL, hdr, payload, payload_len);
}

/*
 * Build DATA for chunk c of step s into txbuf (the payload after room for
 * the sealing fields of a keyed group); returns the packet's length on the
 * wire.
 */
static unsigned int gsync_build_data(struct gsync_group *g,
				     struct gsync_op *op, unsigned int s,
				     u32 chunk, bool retransmit)
{
	struct gsync_wire_hdr *h = (struct gsync_wire_hdr *)g->txbuf;
	u16 cov = gsync_op_step_cov(op, s, g->cfg.rank);
	u32 off, plen;
	u16 flags = 0;

	if (WARN_ON_ONCE(!gsync_chunk_span(op->len, op->block, g->chunk_bytes,
					   chunk, &off, &plen)))
		return 0;
	gsync_wire_fill(g, h, GSYNC_PKT_DATA, op->seq, op->dtype, op->redop);
	gsync_wire_contrib(g, h, op);
	h->round = cpu_to_be16(s);
	h->chunk = cpu_to_be32(chunk);
	h->payload_len = cpu_to_be32(plen);
	h->ncontrib = cpu_to_be16(cov);
	if (retransmit)
		flags |= GSYNC_WF_RETRANSMIT;
	if (cov != 1)
		flags |= GSYNC_WF_PARTIAL;
	h->flags = cpu_to_be16(flags);
	h->stamp = cpu_to_be16(gsync_rate_stamp());
	memcpy(g->txbuf + sizeof(*h) + g->sec_len,
	       op->val[op->step[s].src] + off, plen);
	return sizeof(*h) + plen + g->seal_len;
}

struct gsync_tx_pick {
	struct gsync_ctrl *ctrl;	/* a control packet, or */
	unsigned int len;		/* a DATA packet in txbuf */
	int dest;			/* rank, -1 = group */
	union gsync_sockaddr maddr;	/* dest -1: a clique group, or none */
	bool retransmit;
	bool fanout_many;		/* resend to every receiver lacking it */
	struct gsync_op *op;		/* the DATA's operation and step */
	unsigned int step;
	u32 tx_walk;			/* the step's cursor before this pick */
	u16 tx_dest;
	unsigned long to[BITS_TO_LONGS(GSYNC_MAX_RANKS)];
};

/* A chunk of step s to send again, if any. Under the lock. */
static bool gsync_tx_pick_rtx(struct gsync_group *g, struct gsync_op *op,
			      unsigned int s, struct gsync_tx_pick *p)
{
	struct gsync_step *st = &op->step[s];
	u32 c, b;
	int r;

	if (!st->rtx_pending)
		return false;
	c = find_first_bit(st->rtx, op->nchunks);
	if (c >= op->nchunks) {
		st->rtx_pending = 0;
		return false;
	}
	__clear_bit(c, st->rtx);
	st->rtx_pending--;
	p->len = gsync_build_data(g, op, s, c, true);
	p->retransmit = true;
	p->dest = st->rtx_who[c];
	if (p->dest != GSYNC_RTX_MANY)
		return true;
	/* Several asked: one multicast, or each receiver still lacking it. */
	b = c / op->ppb;
	p->dest = gsync_step_dest(g, op, s, b, 0);
	if (p->dest < 0)
		gsync_mgroup_sa(g, op->sched, st->q, &p->maddr);
	if (gsync_step_ndest(g, op, s) > 1) {
		p->fanout_many = true;
		for_each_set_bit(r, st->need_ack, g->cfg.nranks)
			if (!test_bit(r, st->acked) &&
			    gsync_op_sends_to(g, op, s, b, r))
				__set_bit(r, p->to);
	}
	return true;
}

/* The next new chunk of step s, if its block is ready. Under the lock. */
static bool gsync_tx_pick_new(struct gsync_group *g, struct gsync_op *op,
			      unsigned int s, struct gsync_tx_pick *p)
{
	struct gsync_step *st = &op->step[s];
	unsigned int ndest;
	u32 b, c;

	if (!st->sends || st->tx_done)
		return false;
	ndest = gsync_step_ndest(g, op, s);
	for (;;) {
		if (st->tx_walk >= gsync_walk_len(op, s)) {
			st->tx_done = true;
			st->next_poll = jiffies +
					msecs_to_jiffies(g->cfg.repair_ms);
			return false;
		}
		c = gsync_walk_chunk(op, s, st->tx_walk);
		b = c / op->ppb;
		if (c < op->nchunks && gsync_op_sends(g, op, s, b))
			break;
		st->tx_walk = gsync_walk_skip(op, s, st->tx_walk);
		st->tx_dest = 0;
	}
	if (!test_bit(b, op->ready[st->src]))
		return false;
	/*
	 * Done here, still sending: receivers get op_timeout_ms from each
	 * new chunk to ask for what they lack (see gsync_op_unretain()).
	 */
	if (op->state == GSYNC_OPS_DONE)
		op->retain_until = jiffies +
				   msecs_to_jiffies(g->cfg.op_timeout_ms);
	p->tx_walk = st->tx_walk;
	p->tx_dest = st->tx_dest;
	p->dest = gsync_step_dest(g, op, s, b, st->tx_dest);
	if (p->dest < 0)
		gsync_mgroup_sa(g, op->sched, st->q, &p->maddr);
	if (++st->tx_dest >= ndest) {
		st->tx_dest = 0;
		st->tx_walk++;
	}
	p->len = gsync_build_data(g, op, s, c, false);
	return true;
}

/* Choose the next packet to send. Under the lock. */
static bool gsync_tx_pick(struct gsync_group *g, struct gsync_tx_pick *p)
{
	struct gsync_op *op;
	unsigned int s;
	u64 seq;

	memset(p, 0, sizeof(*p));
	if (!list_empty(&g->ctrl_q)) {
		p->ctrl = list_first_entry(&g->ctrl_q, struct gsync_ctrl, node);
		list_del(&p->ctrl->node);
		g->ctrl_len--;
		if (p->ctrl->answer)
			g->ctrl_answers[p->ctrl->dest]--;
		p->dest = p->ctrl->dest;
		p->maddr = p->ctrl->maddr;
		return true;
	}
	for (seq = g->base_seq; seq < g->next_seq; seq++) {
		op = gsync_slot(g, seq);
		if (!op || !op->retained)
			continue;
		for (s = 0; s < op->nsteps; s++) {
			if (gsync_tx_pick_rtx(g, op, s, p)) {
				p->op = op;
				p->step = s;
				return true;
			}
		}
	}
	/* New data: oldest operation first, its latest steps first. */
	for (seq = g->base_seq; seq < g->next_seq; seq++) {
		op = gsync_slot(g, seq);
		if (!op || !op->retained || op->state == GSYNC_OPS_FAILED)
			continue;
		for (s = op->nsteps; s-- > 0;) {
			if (gsync_tx_pick_new(g, op, s, p)) {
				p->op = op;
				p->step = s;
				return true;
			}
		}
	}
	return false;
}

/* Pacing says wait: put the pick back. Under the lock. */
static void gsync_tx_unpick(struct gsync_group *g, struct gsync_tx_pick *p)
{
	struct gsync_step *st;
	u32 c;

	if (p->ctrl) {
		list_add(&p->ctrl->node, &g->ctrl_q);
		g->ctrl_len++;
		if (p->ctrl->answer)
			g->ctrl_answers[p->ctrl->dest]++;
		return;
	}
	st = &p->op->step[p->step];
	if (p->retransmit) {
		c = be32_to_cpu(((struct gsync_wire_hdr *)g->txbuf)->chunk);
		if (!__test_and_set_bit(c, st->rtx))
			st->rtx_pending++;
	} else {
		st->tx_walk = p->tx_walk;
		st->tx_dest = p->tx_dest;
		st->tx_done = false;
	}
}

/*
 * The pace of a pick: the group's pacing_rate or its adaptive rate,
 * capped by the rate of the clique the packet's step belongs to (control
 * packets: the group's). See rate.c.
 */
static u64 gsync_tx_rate(struct gsync_group *g, const struct gsync_tx_pick *p)
{
	if (!p->op || !p->op->step[p->step].q)
		return gsync_rate_pace(g, 0, false);
	return gsync_rate_pace(g, p->op->step[p->step].q->rate, !p->ctrl);
}

/*
 * What pick p of len bytes costs in tokens: its length, weighed in a
 * reduce-scatter clique by the downloads it lands on (gsync_route_cost()).
 */
static u32 gsync_tx_cost(struct gsync_group *g, const struct gsync_tx_pick *p,
			 unsigned int len)
{
	const struct gsync_sclique *q;
	unsigned int ndown = 1;

	if (p->ctrl || !p->op)
		return len;
	q = p->op->step[p->step].q;
	if (p->fanout_many)
		ndown = bitmap_weight(p->to, g->cfg.nranks);
	else if (p->dest < 0 && q)
		ndown = q->nmembers - 1;
	return gsync_route_cost(q, ndown, len);
}

/*
 * Top up the token bucket at rate (never 0: see gsync_rate_pace()); false
 * if pacing says wait. A packet costing more than the bucket holds goes
 * once the bucket is full, and leaves it in debt. Under the lock.
 */
static bool gsync_tx_tokens(struct gsync_group *g, u32 cost, u64 rate,
			    unsigned long *wait)
{
	ktime_t now = ktime_get();
	s64 bucket, need;
	u64 ns;

	if (WARN_ON_ONCE(!rate))
		rate = GSYNC_CC_MIN_RATE;
	bucket = max_t(s64, GSYNC_BUCKET_MIN, div64_u64(rate, 100));
	ns = ktime_to_ns(ktime_sub(now, g->refill));
	g->refill = now;
	/* rate <= GSYNC_MAX_PACING_RATE: rate * 1 s needs 128-bit math */
	g->tokens = min_t(s64, bucket,
			  g->tokens + (s64)mul_u64_u64_div_u64(rate,
						min_t(u64, ns, NSEC_PER_SEC),
						NSEC_PER_SEC));
	need = min_t(s64, cost, bucket);
	if (g->tokens >= need)
		return true;
	ns = div64_u64((u64)(need - g->tokens) * NSEC_PER_SEC, rate);
	*wait = max_t(unsigned long, 1, nsecs_to_jiffies(ns));
	return false;
}

/* Length on the wire. */
static unsigned int gsync_tx_pick_len(struct gsync_group *g,
				      struct gsync_tx_pick *p)
{
	return p->ctrl ? p->ctrl->len + g->seal_len : p->len;
}

/*
 * The picked packet, sealed if the group is keyed (seal: its key and
 * counter, taken under the lock): DATA is in txbuf, a control packet is
 * copied there around the room for the sealing fields. Lock not held.
 */
static const void *gsync_tx_packet(struct gsync_group *g,
				   const struct gsync_tx_pick *p,
				   struct gsync_seal *seal)
{
	const unsigned int hl = GSYNC_WIRE_HDR_LEN;

	if (!g->keys)
		return p->ctrl ? (const void *)p->ctrl->data : g->txbuf;
	if (p->ctrl) {
		memcpy(g->txbuf, p->ctrl->data, hl);
		memcpy(g->txbuf + hl + g->sec_len, p->ctrl->data + hl,
		       p->ctrl->len - hl);
	}
	gsync_seal_packet(seal, g->txbuf);
	return g->txbuf;
}

/*
 * Send the picked packet buf to rank dest (-1: the pick's clique group or
 * the group's multicast address); 1 if it went out. Lock not held.
 */
static unsigned int gsync_tx_one(struct gsync_group *g,
				 const struct gsync_tx_pick *p, int dest,
				 const void *buf, unsigned int len)
{
	if (gsync_udp_send(g, dest, &p->maddr, buf, len, NULL, 0) <= 0)
		return 0;
	if (p->retransmit)
		trace_gsync_retransmit(g, buf, dest);
	return 1;
}

void gsync_tx_work(struct work_struct *work)
{
	struct gsync_group *g = container_of(to_delayed_work(work),
					     struct gsync_group, tx_work);
	struct gsync_tx_pick p;
	struct gsync_seal seal;
	unsigned long wait = 0;
	unsigned int n, r, len, sent;
	const void *buf;
	u32 cost;

	for (n = 0; n < GSYNC_TX_BATCH; n++) {
		spin_lock_bh(&g->lock);
		if (g->dead || !gsync_tx_pick(g, &p)) {
			gsync_rate_idle(g);
			spin_unlock_bh(&g->lock);
			return;
		}
		len = gsync_tx_pick_len(g, &p);
		cost = gsync_tx_cost(g, &p, len);
		if (!gsync_tx_tokens(g, cost, gsync_tx_rate(g, &p), &wait)) {
			gsync_tx_unpick(g, &p);
			spin_unlock_bh(&g->lock);
			queue_delayed_work(gsync_wq, &g->tx_work,
					   wait);
			return;
		}
		g->tokens -= cost;
		if (p.ctrl && p.ctrl->echo_at)
			gsync_rate_report_leaves(p.ctrl);
		if (g->keys && !gsync_seal_pick(g, &seal)) {
			spin_unlock_bh(&g->lock);
			kfree(p.ctrl);
			continue;
		}
		spin_unlock_bh(&g->lock);

		buf = gsync_tx_packet(g, &p, &seal);
		sent = 0;
		if (p.fanout_many) {
			for_each_set_bit(r, p.to, g->cfg.nranks)
				sent += gsync_tx_one(g, &p, r, buf, len);
		} else if (g->unicast && p.dest < 0) {
			for (r = 0; r < g->cfg.nranks; r++)
				if (r != g->cfg.rank)
					sent += gsync_tx_one(g, &p, r, buf, len);
		} else {
			sent = gsync_tx_one(g, &p, p.dest, buf, len);
		}
		kfree(p.ctrl);

		spin_lock_bh(&g->lock);
		g->stats.tx_packets += sent;
		g->stats.tx_bytes += (u64)sent * len;
		if (p.retransmit) {
			g->stats.retransmits += sent;
			if (p.dest < 0 && !g->unicast)
				g->stats.mcast_retransmits += sent;
		}
		spin_unlock_bh(&g->lock);
	}
	/* More to do: let other work run first. */
	spin_lock_bh(&g->lock);
	gsync_tx_kick(g);
	spin_unlock_bh(&g->lock);
}
