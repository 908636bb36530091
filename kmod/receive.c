// SPDX-License-Identifier: GPL-2.0
/*
 * The receive path: gsync_udp_encap_rcv() is called by UDP in softirq for
 * every datagram arriving on the group's sockets. Every header field is
 * validated (wire.c) and the sender's source address must be the one
 * configured for its rank before any state is touched; a dropped packet is
 * counted by reason. DATA is copied straight into the operation's buffer
 * for that rank; packets for an operation we have not submitted yet go to
 * a bounded stash and are replayed by gsync_rx_replay_stash().
 *
 * Locking: everything runs under gsync_group.lock (spin_lock in softirq,
 * spin_lock_bh from the replay in process context). The group pointer is
 * the UDP socket's sk_user_data, read under RCU (the UDP receive path
 * holds rcu_read_lock); release clears it and waits for RCU first.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/sock.h>
#include <net/udp_tunnel.h>

#include "gsync.h"
#include "group.h"

#define GSYNC_PAYLOAD_OFF	(sizeof(struct udphdr) + GSYNC_WIRE_HDR_LEN)

static void gsync_drop(struct gsync_group *g, int reason)
{
	g->stats.drops[reason]++;
}

/* Does the packet come from the endpoint configured for rank r? */
static bool gsync_rx_source_ok(struct gsync_group *g, struct sk_buff *skb,
			       unsigned int r)
{
	const union gsync_sockaddr *sa = &g->peer_sa[r];

	if (udp_hdr(skb)->source != sa->v4.sin_port)
		return false;
	if (g->family == AF_INET)
		return ip_hdr(skb)->version == 4 &&
		       ip_hdr(skb)->saddr == sa->v4.sin_addr.s_addr;
	return ipv6_hdr(skb)->version == 6 &&
	       ipv6_addr_equal(&ipv6_hdr(skb)->saddr, &sa->v6.sin6_addr);
}

/* Mark every rank's contribution here: reduce, and tell the peers. */
static void gsync_rx_all_here(struct gsync_group *g, struct gsync_op *op)
{
	op->state = GSYNC_OPS_REDUCING;
	queue_work(gsync_wq, &g->reduce_work);
	gsync_send_status(g, op, -1);
}

static void gsync_rx_mismatch(struct gsync_group *g, struct gsync_op *op)
{
	struct gsync_wire_abort a = { .error = cpu_to_be32(EPROTO) };

	if (op->state != GSYNC_OPS_OPEN)
		return;
	gsync_op_fail(g, op, -EPROTO);
	gsync_ctrl_queue(g, -1, GSYNC_PKT_ABORT, op, op->seq, &a, sizeof(a));
}

static void gsync_rx_data(struct gsync_group *g, struct gsync_op *op,
			  const struct gsync_wire_hdr *h, struct sk_buff *skb,
			  unsigned int r)
{
	struct gsync_contrib *c = &op->contrib[r];
	u32 cb = be32_to_cpu(h->chunk_bytes);
	u32 chunk = be32_to_cpu(h->chunk);
	u32 plen = be32_to_cpu(h->payload_len);

	if (op->state != GSYNC_OPS_OPEN || c->complete)
		return gsync_drop(g, GSYNC_DROP_DUP);
	if (h->dtype != op->dtype || h->op != op->redop ||
	    be64_to_cpu(h->total_len) != op->len) {
		gsync_drop(g, GSYNC_DROP_FIELD);
		return gsync_rx_mismatch(g, op);
	}
	if (!c->nchunks) {
		c->nchunks = be32_to_cpu(h->nchunks);
		c->chunk_bytes = cb;
	} else if (cb != c->chunk_bytes) {
		return gsync_drop(g, GSYNC_DROP_FIELD);
	}
	if (test_bit(chunk, c->have))
		return gsync_drop(g, GSYNC_DROP_DUP);
	if (skb_copy_bits(skb, GSYNC_PAYLOAD_OFF, c->buf + chunk * cb, plen))
		return gsync_drop(g, GSYNC_DROP_SHORT);

	__set_bit(chunk, c->have);
	c->received++;
	c->last_rx = jiffies;
	c->highest = max(c->highest, chunk + 1);
	/* A repair arrived: learn how long repairs take, ask sooner again. */
	if (be16_to_cpu(h->flags) & GSYNC_WF_RETRANSMIT && c->nack_sent_at) {
		unsigned long sample = jiffies - c->nack_sent_at;
		unsigned long *srtt = &g->srtt[r];

		*srtt = *srtt ? (7 * *srtt + sample) / 8 : sample;
		c->nack_sent_at = 0;
		c->nack_backoff = 0;
	}
	op->deadline = jiffies + msecs_to_jiffies(g->cfg.op_timeout_ms);
	g->stats.rx_packets++;
	g->stats.rx_bytes += GSYNC_WIRE_HDR_LEN + plen;
	if (c->received < c->nchunks)
		return;
	c->complete = true;
	__set_bit(r, op->complete);
	if (bitmap_full(op->complete, g->cfg.nranks))
		gsync_rx_all_here(g, op);
}

/*
 * A peer asks about an operation that failed here for a reason it must
 * share (a mismatch or an abort, not our own timeout): tell it, so ranks
 * that joined late or lost the ABORT fail the same way.
 */
static bool gsync_rx_tell_failed(struct gsync_group *g, struct gsync_op *op,
				 unsigned int r)
{
	struct gsync_wire_abort a = {};

	if (!gsync_op_keeps_failure(op))
		return false;
	a.error = cpu_to_be32(op->status == -EPROTO ? EPROTO : ECONNABORTED);
	gsync_ctrl_queue(g, r, GSYNC_PKT_ABORT, op, op->seq, &a, sizeof(a));
	return true;
}

/* A peer asks for chunks of our contribution again. */
static void gsync_rx_nack(struct gsync_group *g, struct gsync_op *op,
			  struct sk_buff *skb, unsigned int r)
{
	struct gsync_wire_range ranges[GSYNC_WIRE_MAX_RANGES];
	struct gsync_wire_nack n;
	u32 i, first, count, c, sent;

	if (skb_copy_bits(skb, GSYNC_PAYLOAD_OFF, &n, sizeof(n)))
		return gsync_drop(g, GSYNC_DROP_SHORT);
	if (be16_to_cpu(n.target_rank) != g->cfg.rank || !n.nranges ||
	    be16_to_cpu(n.nranges) > GSYNC_WIRE_MAX_RANGES ||
	    skb->len != GSYNC_PAYLOAD_OFF + sizeof(n) +
	    be16_to_cpu(n.nranges) * sizeof(ranges[0]))
		return gsync_drop(g, GSYNC_DROP_FIELD);
	if (skb_copy_bits(skb, GSYNC_PAYLOAD_OFF + sizeof(n), ranges,
			  be16_to_cpu(n.nranges) * sizeof(ranges[0])))
		return gsync_drop(g, GSYNC_DROP_SHORT);
	g->stats.nacks_received++;
	if (gsync_rx_tell_failed(g, op, r) || !op->sendbuf)
		return;
	/*
	 * Chunks not sent once yet are on their way anyway: resending them
	 * would only duplicate them (receivers cannot tell slow from lost).
	 */
	sent = op->tx_done ? op->nchunks :
	       g->unicast ? op->tx_next / (g->cfg.nranks - 1) : op->tx_next;
	for (i = 0; i < be16_to_cpu(n.nranges); i++) {
		first = be32_to_cpu(ranges[i].first);
		count = be32_to_cpu(ranges[i].count);
		if (first >= sent || !count)
			continue;
		count = min(count, sent - first);
		for (c = first; c < first + count; c++) {
			if (__test_and_set_bit(c, op->rtx)) {
				if (op->rtx_who[c] != r)
					op->rtx_who[c] = GSYNC_RTX_MANY;
			} else {
				op->rtx_who[c] = r;
				op->rtx_pending++;
			}
		}
	}
	gsync_tx_kick(g);
}

static void gsync_rx_status(struct gsync_group *g, struct gsync_op *op,
			    struct sk_buff *skb, unsigned int r)
{
	struct gsync_wire_status st;
	unsigned int me = g->cfg.rank;

	if (skb_copy_bits(skb, GSYNC_PAYLOAD_OFF, &st, sizeof(st)))
		return gsync_drop(g, GSYNC_DROP_SHORT);
	if (st.complete[me / 8] & (1U << (me % 8)))
		__set_bit(r, op->acked);
}

/* A peer finished sending: tell it what we lack, or that we have it all. */
static void gsync_rx_poll(struct gsync_group *g, struct gsync_op *op,
			  const struct gsync_wire_hdr *h, unsigned int r)
{
	struct gsync_contrib *c = &op->contrib[r];

	if (gsync_rx_tell_failed(g, op, r))
		return;
	if (op->state != GSYNC_OPS_OPEN || c->complete)
		return gsync_send_status(g, op, r);
	if (h->dtype != op->dtype || h->op != op->redop ||
	    be64_to_cpu(h->total_len) != op->len)
		return gsync_rx_mismatch(g, op);
	if (!c->nchunks) {
		c->nchunks = be32_to_cpu(h->nchunks);
		c->chunk_bytes = be32_to_cpu(h->chunk_bytes);
	}
	/* Everything was sent: what we lack now, up to the end, is lost. */
	c->sender_done = true;
	c->highest = c->nchunks;
	gsync_send_nack(g, op, r);
}

static void gsync_rx_abort(struct gsync_group *g, struct gsync_op *op,
			   struct sk_buff *skb)
{
	struct gsync_wire_abort a;

	if (skb_copy_bits(skb, GSYNC_PAYLOAD_OFF, &a, sizeof(a)))
		return gsync_drop(g, GSYNC_DROP_SHORT);
	gsync_op_fail(g, op, be32_to_cpu(a.error) == EPROTO ?
		      -EPROTO : -ECONNABORTED);
}

/*
 * Handle one datagram. Returns true if the skb was kept (stashed), false
 * if the caller must free it. Under the lock.
 */
static bool gsync_rx_locked(struct gsync_group *g, struct sk_buff *skb)
{
	struct gsync_wire_hdr h;
	struct gsync_op *op;
	unsigned int r, len;
	int reason;
	u64 seq;

	if (skb->len < sizeof(struct udphdr)) {
		gsync_drop(g, GSYNC_DROP_SHORT);
		return false;
	}
	len = skb->len - sizeof(struct udphdr);
	if (len < GSYNC_WIRE_HDR_LEN ||
	    skb_copy_bits(skb, sizeof(struct udphdr), &h, sizeof(h))) {
		gsync_drop(g, GSYNC_DROP_SHORT);
		return false;
	}
	reason = gsync_wire_check(&h, len, g->cfg.group_id, g->cfg.nranks,
				  g->cfg.rank);
	if (reason != GSYNC_DROP_MAX) {
		/* Our own multicast looped back is expected, not an error. */
		if (!(reason == GSYNC_DROP_RANK &&
		      be16_to_cpu(h.src_rank) == g->cfg.rank &&
		      be64_to_cpu(h.group_id) == g->cfg.group_id))
			gsync_drop(g, reason);
		return false;
	}
	r = be16_to_cpu(h.src_rank);
	if (!gsync_rx_source_ok(g, skb, r)) {
		gsync_drop(g, GSYNC_DROP_SOURCE);
		return false;
	}

	seq = be64_to_cpu(h.seq);
	if (seq < g->base_seq) {
		gsync_drop(g, GSYNC_DROP_STALE);
		return false;
	}
	if (seq - g->base_seq >= g->cfg.window) {
		gsync_drop(g, GSYNC_DROP_WINDOW);
		return false;
	}
	if (seq >= g->next_seq) {
		/* Not submitted here yet: keep DATA and ABORT for later. */
		if (h.type != GSYNC_PKT_DATA && h.type != GSYNC_PKT_ABORT)
			return false;
		if (!g->gs || g->stash_bytes + skb->truesize >
		    READ_ONCE(g->gs->sk.sk_rcvbuf)) {
			gsync_drop(g, GSYNC_DROP_NOMEM);
			return false;
		}
		g->stash_bytes += skb->truesize;
		__skb_queue_tail(&g->stash, skb);
		return true;
	}
	op = gsync_slot(g, seq);
	if (WARN_ON_ONCE(!op || op->seq != seq))
		return false;

	switch (h.type) {
	case GSYNC_PKT_DATA:
		gsync_rx_data(g, op, &h, skb, r);
		break;
	case GSYNC_PKT_NACK:
		gsync_rx_nack(g, op, skb, r);
		break;
	case GSYNC_PKT_STATUS:
		gsync_rx_status(g, op, skb, r);
		break;
	case GSYNC_PKT_POLL:
		gsync_rx_poll(g, op, &h, r);
		break;
	case GSYNC_PKT_ABORT:
		gsync_rx_abort(g, op, skb);
		break;
	}
	return false;
}

int gsync_udp_encap_rcv(struct sock *usk, struct sk_buff *skb)
{
	struct gsync_group *g = rcu_dereference_sk_user_data(usk);
	bool kept = false;

	if (g) {
		spin_lock(&g->lock);
		if (!g->dead)
			kept = gsync_rx_locked(g, skb);
		spin_unlock(&g->lock);
	}
	if (!kept)
		consume_skb(skb);
	return 0;
}

/*
 * After our sendmsg() for seq: handle the packets that arrived for it
 * early, and forget stashed packets of operations now behind us. Process
 * context.
 */
void gsync_rx_replay_stash(struct gsync_group *g, u64 seq)
{
	struct sk_buff_head done;
	struct sk_buff *skb, *tmp;
	struct gsync_wire_hdr h;
	u64 s;

	__skb_queue_head_init(&done);
	spin_lock_bh(&g->lock);
	skb_queue_walk_safe(&g->stash, skb, tmp) {
		if (skb_copy_bits(skb, sizeof(struct udphdr), &h, sizeof(h)))
			s = 0;
		else
			s = be64_to_cpu(h.seq);
		if (s > seq)
			continue;
		__skb_unlink(skb, &g->stash);
		g->stash_bytes -= skb->truesize;
		if (s < seq || !gsync_rx_locked(g, skb))
			__skb_queue_tail(&done, skb);
	}
	spin_unlock_bh(&g->lock);
	__skb_queue_purge(&done);
}
