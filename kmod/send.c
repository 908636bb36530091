// SPDX-License-Identifier: GPL-2.0
/*
 * The send path: one work item per group drains, in priority order, the
 * control queue (NACK, STATUS, POLL, ABORT), chunks to retransmit, and new
 * chunks of our contributions (oldest operation first), at no more than
 * the configured pacing rate (a token bucket topped up from the clock).
 *
 * Locking: packets are chosen and copied into g->txbuf under
 * gsync_group.lock, then sent without it (kernel_sendmsg may sleep). The
 * tx work is the only user of g->txbuf. gsync_tx_kick() and
 * gsync_ctrl_queue() may be called from any context with the lock held.
 */
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "gsync.h"
#include "group.h"

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

static void gsync_wire_contrib(struct gsync_group *g, struct gsync_wire_hdr *h,
			       const struct gsync_op *op)
{
	h->nchunks = cpu_to_be32(op->nchunks);
	h->total_len = cpu_to_be64(op->len);
	h->chunk_bytes = cpu_to_be32(g->chunk_bytes);
}

/*
 * Queue a control packet for rank dest (-1: every peer). op, if given,
 * supplies dtype/op and the contribution fields. Under the lock.
 */
int gsync_ctrl_queue(struct gsync_group *g, int dest, u8 type,
		     const struct gsync_op *op, u64 seq, const void *payload,
		     unsigned int payload_len)
{
	struct gsync_wire_hdr *h;
	struct gsync_ctrl *c;

	if (g->dead || g->ctrl_len >= GSYNC_CTRL_MAX)
		return -ENOBUFS;
	c = kmalloc(sizeof(*c) + sizeof(*h) + payload_len, GFP_ATOMIC);
	if (!c)
		return -ENOMEM;
	h = (struct gsync_wire_hdr *)c->data;
	gsync_wire_fill(g, h, type, seq, op ? op->dtype : 0,
			op ? op->redop : 0);
	if (op && type == GSYNC_PKT_POLL)
		gsync_wire_contrib(g, h, op);
	h->payload_len = cpu_to_be32(payload_len);
	memcpy(c->data + sizeof(*h), payload, payload_len);
	c->dest = dest;
	c->len = sizeof(*h) + payload_len;
	list_add_tail(&c->node, &g->ctrl_q);
	g->ctrl_len++;
	gsync_tx_kick(g);
	return 0;
}

/* Build DATA for chunk c of op into txbuf; returns the packet length. */
static unsigned int gsync_build_data(struct gsync_group *g,
				     struct gsync_op *op, u32 chunk,
				     bool retransmit)
{
	struct gsync_wire_hdr *h = (struct gsync_wire_hdr *)g->txbuf;
	u32 off = chunk * g->chunk_bytes;
	u32 plen = min_t(u32, g->chunk_bytes, op->len - off);

	gsync_wire_fill(g, h, GSYNC_PKT_DATA, op->seq, op->dtype, op->redop);
	gsync_wire_contrib(g, h, op);
	h->chunk = cpu_to_be32(chunk);
	h->payload_len = cpu_to_be32(plen);
	h->ncontrib = cpu_to_be16(1);
	if (retransmit)
		h->flags = cpu_to_be16(GSYNC_WF_RETRANSMIT);
	memcpy(g->txbuf + sizeof(*h), op->sendbuf + off, plen);
	return sizeof(*h) + plen;
}

/* Rank of the i-th peer (ranks other than ours, ascending). */
static int gsync_peer_rank(struct gsync_group *g, u32 i)
{
	return i < g->cfg.rank ? i : i + 1;
}

struct gsync_tx_pick {
	struct gsync_ctrl *ctrl;	/* a control packet, or */
	unsigned int len;		/* a DATA packet in txbuf */
	int dest;			/* rank, -1 = group */
	bool retransmit;
	bool fanout_many;		/* resend to every peer lacking it */
	struct gsync_op *op;		/* for fanout_many: its acked map */
	unsigned long acked[BITS_TO_LONGS(GSYNC_MAX_RANKS)];
};

/* Choose the next packet to send. Under the lock. */
static bool gsync_tx_pick(struct gsync_group *g, struct gsync_tx_pick *p)
{
	u32 units, chunk, npeers = g->cfg.nranks - 1;
	struct gsync_op *op;
	u64 seq;

	memset(p, 0, sizeof(*p));
	if (!list_empty(&g->ctrl_q)) {
		p->ctrl = list_first_entry(&g->ctrl_q, struct gsync_ctrl, node);
		list_del(&p->ctrl->node);
		g->ctrl_len--;
		p->dest = p->ctrl->dest;
		return true;
	}
	for (seq = g->base_seq; seq < g->next_seq; seq++) {
		op = gsync_slot(g, seq);
		if (!op || !op->sendbuf || !op->rtx_pending)
			continue;
		chunk = find_first_bit(op->rtx, op->nchunks);
		if (chunk >= op->nchunks) {
			op->rtx_pending = 0;
			continue;
		}
		__clear_bit(chunk, op->rtx);
		op->rtx_pending--;
		p->len = gsync_build_data(g, op, chunk, true);
		p->retransmit = true;
		p->dest = op->rtx_who[chunk];
		if (p->dest == GSYNC_RTX_MANY) {
			p->dest = -1;
			if (g->unicast) {
				p->fanout_many = true;
				bitmap_copy(p->acked, op->acked,
					    g->cfg.nranks);
			}
		}
		return true;
	}
	for (seq = g->base_seq; seq < g->next_seq; seq++) {
		op = gsync_slot(g, seq);
		if (!op || !op->sendbuf || op->tx_done)
			continue;
		units = g->unicast ? op->nchunks * npeers : op->nchunks;
		if (op->tx_next >= units) {
			op->tx_done = true;
			continue;
		}
		if (g->unicast) {
			chunk = op->tx_next / npeers;
			p->dest = gsync_peer_rank(g, op->tx_next % npeers);
		} else {
			chunk = op->tx_next;
			p->dest = -1;
		}
		op->tx_next++;
		if (op->tx_next >= units) {
			op->tx_done = true;
			op->next_poll = jiffies +
					msecs_to_jiffies(g->cfg.repair_ms);
		}
		p->len = gsync_build_data(g, op, chunk, false);
		return true;
	}
	return false;
}

/* Top up the token bucket; false if pacing says wait. Under the lock. */
static bool gsync_tx_tokens(struct gsync_group *g, unsigned int len,
			    unsigned long *wait)
{
	ktime_t now = ktime_get();
	s64 bucket;
	u64 ns;

	if (!g->rate)
		return true;
	bucket = max_t(s64, GSYNC_BUCKET_MIN, div64_u64(g->rate, 100));
	ns = ktime_to_ns(ktime_sub(now, g->refill));
	g->refill = now;
	g->tokens = min_t(s64, bucket,
			  g->tokens + (s64)div64_u64(g->rate * min_t(u64, ns,
						     NSEC_PER_SEC),
						     NSEC_PER_SEC));
	if (g->tokens >= (s64)len)
		return true;
	ns = div64_u64((u64)(len - g->tokens) * NSEC_PER_SEC, g->rate);
	*wait = max_t(unsigned long, 1, nsecs_to_jiffies(ns));
	return false;
}

static unsigned int gsync_tx_pick_len(struct gsync_tx_pick *p)
{
	return p->ctrl ? p->ctrl->len : p->len;
}

void gsync_tx_work(struct work_struct *work)
{
	struct gsync_group *g = container_of(to_delayed_work(work),
					     struct gsync_group, tx_work);
	struct gsync_tx_pick p;
	unsigned long wait = 0;
	unsigned int n, r, len, sent;
	const void *buf;
	int ret;

	for (n = 0; n < GSYNC_TX_BATCH; n++) {
		spin_lock_bh(&g->lock);
		if (g->dead || !gsync_tx_pick(g, &p)) {
			spin_unlock_bh(&g->lock);
			return;
		}
		len = gsync_tx_pick_len(&p);
		if (!gsync_tx_tokens(g, len, &wait)) {
			/* Put it back: control first, data is rebuilt. */
			if (p.ctrl) {
				list_add(&p.ctrl->node, &g->ctrl_q);
				g->ctrl_len++;
			} else {
				struct gsync_wire_hdr *h = (void *)g->txbuf;
				struct gsync_op *op =
					gsync_slot(g, be64_to_cpu(h->seq));
				u32 c = be32_to_cpu(h->chunk);

				if (p.retransmit) {
					__set_bit(c, op->rtx);
					op->rtx_pending++;
				} else {
					op->tx_next--;
					op->tx_done = false;
				}
			}
			spin_unlock_bh(&g->lock);
			queue_delayed_work(gsync_wq, &g->tx_work,
					   wait);
			return;
		}
		g->tokens -= len;
		spin_unlock_bh(&g->lock);

		buf = p.ctrl ? (const void *)p.ctrl->data : g->txbuf;
		sent = 0;
		if (p.fanout_many || (g->unicast && p.dest < 0)) {
			for (r = 0; r < g->cfg.nranks; r++) {
				if (r == g->cfg.rank ||
				    (p.fanout_many && test_bit(r, p.acked)))
					continue;
				ret = gsync_udp_send(g, r, buf, len, NULL, 0);
				sent += ret > 0;
			}
		} else {
			ret = gsync_udp_send(g, p.dest, buf, len, NULL, 0);
			sent += ret > 0;
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
