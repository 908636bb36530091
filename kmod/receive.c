// SPDX-License-Identifier: GPL-2.0
/*
 * The receive path: gsync_udp_encap_rcv() is called by UDP in softirq for
 * every datagram arriving on the group's sockets. Every header field is
 * validated (wire.c) and the sender's source address must be the one
 * configured for its rank before any state is touched; a dropped packet is
 * counted by reason. DATA is copied straight into the buffer of the stream
 * it belongs to (sender and step of the operation's schedule); packets for an operation we have not submitted yet go to
 * a bounded stash and are replayed by gsync_rx_replay_stash().
 *
 * Locking: everything runs under gsync_group.lock (spin_lock in softirq;
 * the replay runs in the submitting sendmsg()'s hold of it, with BHs off). The group pointer is
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
#include "op.h"
#include "send.h"
#include "receive.h"
#include "repair.h"
#include "wire.h"
#include "route.h"
#include "mem.h"
#include "rate.h"
#include "trace.h"
#include "seal.h"

#define GSYNC_PAYLOAD_OFF	(sizeof(struct udphdr) + GSYNC_WIRE_HDR_LEN)

static void gsync_drop(struct gsync_group *g, int reason)
{
	GSYNC_STATS_DROP(&g->stats, reason)++;
	trace_gsync_drop(g, reason);
}

/* Does the packet come from the endpoint configured for rank r? */
bool gsync_rx_source_ok(struct gsync_group *g, struct sk_buff *skb,
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

static void gsync_rx_mismatch(struct gsync_group *g, struct gsync_op *op)
{
	struct gsync_wire_abort a = { .error = cpu_to_be32(EPROTO) };

	if (op->state != GSYNC_OPS_OPEN)
		return;
	gsync_op_fail(g, op, -EPROTO);
	gsync_ctrl_queue(g, -1, GSYNC_PKT_ABORT, op, 0, &a, sizeof(a));
}

/* Do DATA/POLL describe the same operation as ours? */
static bool gsync_rx_same_op(const struct gsync_op *op,
			     const struct gsync_wire_hdr *h)
{
	return h->dtype == op->dtype && h->op == op->redop &&
	       be64_to_cpu(h->total_len) == op->len &&
	       be64_to_cpu(h->sched_tag) == op->sched->tag;
}

/*
 * The first packet of a stream tells its chunking: check it against our
 * cut of the operation into blocks, and mark the chunks of blocks we do
 * not expect as present.
 */
static bool gsync_rx_stream_init(struct gsync_group *g, struct gsync_op *op,
				 unsigned int s, struct gsync_contrib *c,
				 const struct gsync_wire_hdr *h)
{
	u32 cb = be32_to_cpu(h->chunk_bytes), ppb, b, first, n;

	if (be32_to_cpu(h->nchunks) != gsync_chunk_count(op->len, op->block, cb))
		return false;
	c->nchunks = be32_to_cpu(h->nchunks);
	c->chunk_bytes = cb;
	ppb = gsync_chunks_per_block(op->block, cb);
	for (b = 0; b < op->nblocks; b++) {
		first = b * ppb;
		n = min(ppb, c->nchunks - first);
		if (gsync_op_expects(g, op, s, c->rank, b)) {
			c->blk_left[b] = n;
			c->expected += n;
		} else {
			bitmap_set(c->have, first, n);
		}
	}
	return true;
}

/* Every stream of step s is in: tell its senders. Under the lock. */
static void gsync_rx_step_complete(struct gsync_group *g, struct gsync_op *op,
				   unsigned int s)
{
	struct gsync_step *st = &op->step[s];
	unsigned int j;

	for (j = 0; j < st->q->nmembers; j++)
		if (st->in[j].expects && !st->in[j].complete)
			return;
	st->status_sent = true;
	gsync_send_status(g, op, s, -1);
}

static void gsync_rx_data(struct gsync_group *g, struct gsync_op *op,
			  const struct gsync_wire_hdr *h, struct sk_buff *skb,
			  unsigned int r)
{
	u32 chunk = be32_to_cpu(h->chunk);
	u32 plen = be32_to_cpu(h->payload_len);
	unsigned int s = be16_to_cpu(h->round);
	struct gsync_contrib *c;
	u32 off, len, b;

	if (op->state != GSYNC_OPS_OPEN)
		return gsync_drop(g, GSYNC_DROP_DUP);
	if (!gsync_rx_same_op(op, h)) {
		gsync_drop(g, GSYNC_DROP_FIELD);
		return gsync_rx_mismatch(g, op);
	}
	if (s >= op->nsteps)
		return gsync_drop(g, GSYNC_DROP_FIELD);
	c = gsync_op_stream(op, s, r);
	if (!c || !c->expects)
		return gsync_drop(g, GSYNC_DROP_CLIQUE);
	if (be16_to_cpu(h->ncontrib) != gsync_op_step_cov(op, s, r))
		return gsync_drop(g, GSYNC_DROP_FIELD);
	if (c->complete)
		return gsync_drop(g, GSYNC_DROP_DUP);
	if (!c->nchunks) {
		if (!gsync_rx_stream_init(g, op, s, c, h))
			return gsync_drop(g, GSYNC_DROP_FIELD);
	} else if (be32_to_cpu(h->chunk_bytes) != c->chunk_bytes) {
		/*
		 * A sender keeps its chunking for an operation: another one
		 * is a forged or broken packet, and whichever came first,
		 * the stream cannot complete. Fail now, not at the timeout.
		 */
		gsync_drop(g, GSYNC_DROP_FIELD);
		return gsync_rx_mismatch(g, op);
	}
	if (!gsync_chunk_span(op->len, op->block, c->chunk_bytes, chunk,
			      &off, &len) || len != plen)
		return gsync_drop(g, GSYNC_DROP_FIELD);
	b = chunk / gsync_chunks_per_block(op->block, c->chunk_bytes);
	if (!c->blk_left[b])	/* a block we do not expect from it */
		return gsync_drop(g, test_bit(chunk, c->have) &&
				  gsync_op_expects(g, op, s, r, b) ?
				  GSYNC_DROP_DUP : GSYNC_DROP_CLIQUE);
	if (test_bit(chunk, c->have))
		return gsync_drop(g, GSYNC_DROP_DUP);
	if (skb_copy_bits(skb, GSYNC_PAYLOAD_OFF, gsync_stream_ptr(op, c, off),
			  plen))
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
	g->stats.rx_packets++;
	g->stats.rx_bytes += GSYNC_WIRE_HDR_LEN + plen;
	gsync_rate_rx_data(g, r, h, GSYNC_WIRE_HDR_LEN + plen);
	if (!--c->blk_left[b])
		gsync_op_block_in(g, op, s, b);
	if (c->received < c->expected)
		return;
	c->complete = true;
	gsync_rx_step_complete(g, op, s);
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
	a.error = cpu_to_be32(-op->status);
	gsync_ctrl_answer(g, r, GSYNC_PKT_ABORT, op, 0, &a, sizeof(a));
	return true;
}

/*
 * What one NACK may cost. It is handled in softirq under the group lock, so
 * the chunks (and skipped blocks) it makes us look at are capped per
 * packet; a receiver that lost more asks again after the repairs arrive.
 * Blocks not ours to send the peer are jumped over, not visited, so every
 * unit of work marks a chunk or passes a block we could have sent it.
 * And over an operation, a peer can make us resend a step's chunks at most
 * GSYNC_RTX_FACTOR times: real loss needs far less, a forged NACK no more.
 */
#define GSYNC_NACK_MAX_WORK	16384
#define GSYNC_RTX_FACTOR	4

/*
 * Mark chunks [first, first + count) of step s for resending to r, within
 * *work chunks of effort. Returns how many it marked. Under the lock.
 */
static u32 gsync_rx_nack_range(struct gsync_group *g, struct gsync_op *op,
			       unsigned int s, unsigned int r, u32 first,
			       u32 count, u32 *work)
{
	struct gsync_step *st = &op->step[s];
	u32 allowed = GSYNC_RTX_FACTOR * op->nchunks, marked = 0, c, b, end;

	if (first >= op->nchunks || !count)
		return 0;
	end = first + min(count, op->nchunks - first);
	for (c = first; c < end && *work; c++, (*work)--) {
		b = c / op->ppb;
		if (!gsync_op_sends_to(g, op, s, b, r)) {
			/* On to the next block we may send r (c++ below). */
			c = gsync_op_next_block_to(g, op, s, b, r) * op->ppb - 1;
			continue;
		}
		/*
		 * Chunks not sent once yet are on their way anyway: resending
		 * them would only duplicate them (receivers cannot tell slow
		 * from lost). What r has had from us is a prefix of what we
		 * send it: nothing further on has left either.
		 */
		if (!gsync_walk_sent(op, s, c))
			break;
		if (st->rtx_asked[r] >= allowed) {
			gsync_drop(g, GSYNC_DROP_RATELIMIT);
			*work = 0;
			return marked;
		}
		st->rtx_asked[r]++;
		marked++;
		if (__test_and_set_bit(c, st->rtx)) {
			if (st->rtx_who[c] != r)
				st->rtx_who[c] = GSYNC_RTX_MANY;
		} else {
			st->rtx_who[c] = r;
			st->rtx_pending++;
		}
	}
	return marked;
}

/* A peer asks for chunks of what we sent it in a step again. */
static void gsync_rx_nack(struct gsync_group *g, struct gsync_op *op,
			  const struct gsync_wire_hdr *h, struct sk_buff *skb,
			  unsigned int r)
{
	unsigned int s = be16_to_cpu(h->round), nr, i;
	u32 work = GSYNC_NACK_MAX_WORK, marked = 0;
	struct gsync_wire_range range;
	struct gsync_wire_nack n;

	if (skb_copy_bits(skb, GSYNC_PAYLOAD_OFF, &n, sizeof(n)))
		return gsync_drop(g, GSYNC_DROP_SHORT);
	nr = be16_to_cpu(n.nranges);
	if (be16_to_cpu(n.target_rank) != g->cfg.rank || !nr ||
	    nr > GSYNC_WIRE_MAX_RANGES ||
	    skb->len != GSYNC_PAYLOAD_OFF + sizeof(n) + nr * sizeof(range) ||
	    s >= op->nsteps)
		return gsync_drop(g, GSYNC_DROP_FIELD);
	g->stats.nacks_received++;
	trace_gsync_nack_recv(g, op, s, r, NULL, skb,
			      GSYNC_PAYLOAD_OFF + sizeof(n), nr);
	if (gsync_rx_tell_failed(g, op, r) || !op->retained ||
	    !op->step[s].sends)
		return;
	/* One range at a time: no array of them on the softirq stack. */
	for (i = 0; i < nr && work; i++) {
		if (skb_copy_bits(skb, GSYNC_PAYLOAD_OFF + sizeof(n) +
				  i * sizeof(range), &range, sizeof(range)))
			return gsync_drop(g, GSYNC_DROP_SHORT);
		marked += gsync_rx_nack_range(g, op, s, r,
					      be32_to_cpu(range.first),
					      be32_to_cpu(range.count), &work);
	}
	if (marked) {
		gsync_tx_kick(g);
		return;
	}
	/*
	 * Nothing it asks for has left us yet: we may still wait in an
	 * earlier step, and have sent it nothing for a while. Say what we
	 * hold of its stream instead, so that it hears we are alive and does
	 * not time us out (a probe is how it asks). One STATUS, about the
	 * size of the NACK, per NACK, and NACKs are rate limited per peer.
	 * An operation that failed here (and was not told to peers: see
	 * gsync_rx_tell_failed()) will send nothing more: say nothing, and
	 * let the peer time it out.
	 */
	if (work && op->state != GSYNC_OPS_FAILED)
		gsync_send_status(g, op, s, r);
}

static void gsync_rx_status(struct gsync_group *g, struct gsync_op *op,
			    const struct gsync_wire_hdr *h, struct sk_buff *skb,
			    unsigned int r)
{
	unsigned int s = be16_to_cpu(h->round), me = g->cfg.rank;
	struct gsync_wire_status st;

	if (skb_copy_bits(skb, GSYNC_PAYLOAD_OFF, &st, sizeof(st)))
		return gsync_drop(g, GSYNC_DROP_SHORT);
	if (s >= op->nsteps)
		return gsync_drop(g, GSYNC_DROP_FIELD);
	if (st.complete[me / 8] & (1U << (me % 8)))
		__set_bit(r, op->step[s].acked);
}

/* A peer finished sending a step: tell it what we lack, or that we have it. */
static void gsync_rx_poll(struct gsync_group *g, struct gsync_op *op,
			  const struct gsync_wire_hdr *h, unsigned int r)
{
	unsigned int s = be16_to_cpu(h->round);
	struct gsync_contrib *c;

	if (gsync_rx_tell_failed(g, op, r))
		return;
	if (s >= op->nsteps)
		return gsync_drop(g, GSYNC_DROP_FIELD);
	c = gsync_op_stream(op, s, r);
	if (!c)		/* a multicast POLL for the other cliques */
		return;
	if (op->state != GSYNC_OPS_OPEN || !c->expects || c->complete)
		return gsync_send_status(g, op, s, r);
	if (!gsync_rx_same_op(op, h))
		return gsync_rx_mismatch(g, op);
	/*
	 * Everything was sent: what we lack now, up to the end, is lost. Only
	 * DATA sets a stream's chunking (a POLL is not needed for it, and a
	 * forged one must not pin it): with no DATA yet, ask for it all.
	 */
	c->sender_done = true;
	c->highest = c->nchunks;
	gsync_send_nack(g, op, s, c, false);
}

static void gsync_rx_abort(struct gsync_group *g, struct gsync_op *op,
			   struct sk_buff *skb)
{
	struct gsync_wire_abort a;

	int err;

	if (skb_copy_bits(skb, GSYNC_PAYLOAD_OFF, &a, sizeof(a)))
		return gsync_drop(g, GSYNC_DROP_SHORT);
	/* Only the failures a peer may report; anything else is an abort. */
	switch (be32_to_cpu(a.error)) {
	case EPROTO:
		err = -EPROTO;
		break;
	case ECONNRESET:
		err = -ECONNRESET;
		break;
	case ETIMEDOUT:
		err = -ETIMEDOUT;
		break;
	case EKEYREJECTED:
		err = -EKEYREJECTED;
		break;
	default:
		err = -ECONNABORTED;
	}
	gsync_op_fail(g, op, err);
}

/*
 * NACK and POLL cost us work and packets; a peer gets a token bucket of
 * them. An honest peer sends at most one NACK per stream and one POLL per
 * step it sends in per repair interval (less with backoff), for at most
 * window operations: the bucket holds twice that and refills every
 * repair_ms. Under the lock.
 */
static bool gsync_rx_ctl_allowed(struct gsync_group *g, unsigned int r)
{
	u32 cap = 2 * g->cfg.window * GSYNC_MAX_STEPS;
	unsigned long now = jiffies;
	unsigned long period = max_t(unsigned long, 1,
				     msecs_to_jiffies(g->cfg.repair_ms));

	if (!g->ctl_refill[r] || time_after_eq(now, g->ctl_refill[r] + period)) {
		g->ctl_tokens[r] = cap;
		g->ctl_refill[r] = now ? now : 1;
	}
	if (!g->ctl_tokens[r])
		return false;
	g->ctl_tokens[r]--;
	return true;
}

/*
 * A POLL or NACK for an operation we released. Under the lock.
 *
 * POLL: we hold all we needed of it, and its sender must not keep it (and
 * its window slot) until op_timeout_ms waiting for our acknowledgement,
 * which we sent but it lost: answer with a STATUS saying every stream of
 * that step is complete.
 *
 * NACK: every receiver had acknowledged it (or it outlived op_timeout_ms),
 * so the data is gone. A receiver that still lacks some (its STATUS was
 * forged, or it is that late) would wait for repairs that never come:
 * answer with ABORT, so it fails the operation.
 */
static void gsync_rx_answer_stale(struct gsync_group *g,
				  const struct gsync_wire_hdr *pkt,
				  unsigned int r)
{
	struct gsync_wire_abort a = { .error = cpu_to_be32(ECONNABORTED) };
	struct gsync_wire_status st;
	struct gsync_wire_hdr h;
	bool poll = pkt->type == GSYNC_PKT_POLL;

	memset(st.complete, 0xff, sizeof(st.complete));
	gsync_wire_fill(g, &h, poll ? GSYNC_PKT_STATUS : GSYNC_PKT_ABORT,
			be64_to_cpu(pkt->seq), pkt->dtype, pkt->op);
	h.round = pkt->round;
	h.sched_tag = pkt->sched_tag;
	if (poll)
		gsync_ctrl_answer_hdr(g, r, &h, &st, sizeof(st));
	else
		gsync_ctrl_answer_hdr(g, r, &h, &a, sizeof(a));
}

/* A REPORT from rank r about the DATA we send it (rate.c). */
static void gsync_rx_report(struct gsync_group *g, struct sk_buff *skb,
			    unsigned int r)
{
	struct gsync_wire_report rep;

	if (skb_copy_bits(skb, GSYNC_PAYLOAD_OFF, &rep, sizeof(rep)))
		return gsync_drop(g, GSYNC_DROP_SHORT);
	if (be16_to_cpu(rep.target_rank) != g->cfg.rank || rep.reserved)
		return gsync_drop(g, GSYNC_DROP_FIELD);
	gsync_rate_rx_report(g, r, &rep);
}

/*
 * Bytes of early packets the socket keeps: net.gsync.stash_max, or less if
 * the user set SO_RCVBUF. Under the lock, with g->gs set.
 */
static unsigned long gsync_rx_stash_limit(struct gsync_group *g)
{
	unsigned long limit = gsync_stash_max(g);
	struct sock *sk = &g->gs->sk;

	if (sk->sk_userlocks & SOCK_RCVBUF_LOCK)
		limit = min_t(unsigned long, limit, READ_ONCE(sk->sk_rcvbuf));
	return limit;
}

/* Copy the header of the datagram in skb; false (counted) if too short. */
static bool gsync_rx_hdr(struct gsync_group *g, struct sk_buff *skb,
			 struct gsync_wire_hdr *h)
{
	if (skb->len < sizeof(struct udphdr) + GSYNC_WIRE_HDR_LEN ||
	    skb_copy_bits(skb, sizeof(struct udphdr), h, sizeof(*h))) {
		gsync_drop(g, GSYNC_DROP_SHORT);
		return false;
	}
	return true;
}

/* Our own multicast looped back: expected, dropped without counting. */
static bool gsync_rx_own(struct gsync_group *g, const struct gsync_wire_hdr *h)
{
	return h->version == GSYNC_WIRE_VERSION &&
	       h->type >= GSYNC_PKT_DATA && h->type <= GSYNC_PKT_REPORT &&
	       be16_to_cpu(h->src_rank) == g->cfg.rank &&
	       be64_to_cpu(h->group_id) == g->cfg.group_id;
}

/*
 * Handle one plain datagram (a keyed group's, opened: seal.c). Returns
 * true if the skb was kept (stashed), false if the caller must free it.
 * Under the lock.
 */
static bool gsync_rx_plain(struct gsync_group *g, struct sk_buff *skb)
{
	struct gsync_wire_hdr h;
	struct gsync_op *op;
	unsigned int r, len;
	int reason;
	u64 seq;

	if (!gsync_rx_hdr(g, skb, &h))
		return false;
	len = skb->len - sizeof(struct udphdr);
	reason = gsync_wire_check(&h, len, g->cfg.group_id, g->cfg.nranks,
				  g->cfg.rank);
	/* Sealed, to a group without a key: a peer with one (seal.c). */
	if (reason == GSYNC_DROP_AUTH &&
	    gsync_rx_source_ok(g, skb, be16_to_cpu(h.src_rank)))
		gsync_rx_auth_failed(g, be16_to_cpu(h.src_rank));
	if (reason != GSYNC_DROP_MAX) {
		if (!(reason == GSYNC_DROP_RANK && gsync_rx_own(g, &h)))
			gsync_drop(g, reason);
		return false;
	}
	r = be16_to_cpu(h.src_rank);
	if (!gsync_rx_source_ok(g, skb, r)) {
		gsync_drop(g, GSYNC_DROP_SOURCE);
		return false;
	}
	/* Any valid packet shows the peer alive (see gsync_op_silent()). */
	g->heard[r] = jiffies;
	if (h.type == GSYNC_PKT_REPORT) {
		if (gsync_rx_ctl_allowed(g, r))
			gsync_rx_report(g, skb, r);
		else
			gsync_drop(g, GSYNC_DROP_RATELIMIT);
		return false;
	}

	seq = be64_to_cpu(h.seq);
	if (seq < g->base_seq) {
		gsync_drop(g, GSYNC_DROP_STALE);
		if ((h.type == GSYNC_PKT_POLL || h.type == GSYNC_PKT_NACK) &&
		    gsync_rx_ctl_allowed(g, r))
			gsync_rx_answer_stale(g, &h, r);
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
		    gsync_rx_stash_limit(g)) {
			gsync_drop(g, GSYNC_DROP_NOMEM);
			return false;
		}
		/* Parked for a while: hold no route or conntrack entry. */
		skb_dst_drop(skb);
		nf_reset_ct(skb);
		g->stash_bytes += skb->truesize;
		__skb_queue_tail(&g->stash, skb);
		return true;
	}
	op = gsync_slot(g, seq);
	if (WARN_ON_ONCE(!op || op->seq != seq))
		return false;

	/* Steps of another schedule mean nothing here. */
	if ((h.type == GSYNC_PKT_NACK || h.type == GSYNC_PKT_STATUS) &&
	    be64_to_cpu(h.sched_tag) != op->sched->tag) {
		gsync_drop(g, GSYNC_DROP_FIELD);
		return false;
	}
	if ((h.type == GSYNC_PKT_NACK || h.type == GSYNC_PKT_POLL) &&
	    !gsync_rx_ctl_allowed(g, r)) {
		gsync_drop(g, GSYNC_DROP_RATELIMIT);
		return false;
	}
	switch (h.type) {
	case GSYNC_PKT_DATA:
		gsync_rx_data(g, op, &h, skb, r);
		break;
	case GSYNC_PKT_NACK:
		gsync_rx_nack(g, op, &h, skb, r);
		break;
	case GSYNC_PKT_STATUS:
		gsync_rx_status(g, op, &h, skb, r);
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

/*
 * Handle one datagram as it arrived: a keyed group's is opened first
 * (seal.c). Returns as gsync_rx_plain(). Under the lock.
 */
static bool gsync_rx_locked(struct gsync_group *g, struct sk_buff *skb)
{
	struct gsync_wire_hdr h;
	int reason;

	if (!gsync_rx_hdr(g, skb, &h))
		return false;
	if (gsync_rx_own(g, &h))
		return false;
	reason = gsync_rx_unseal(g, skb, &h);
	if (reason != GSYNC_DROP_MAX) {
		gsync_drop(g, reason);
		return false;
	}
	return gsync_rx_plain(g, skb);
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
 * Our sendmsg() for seq has just submitted it: handle the packets that
 * arrived for it early, and forget stashed packets of operations now
 * behind us. In the same hold of the lock as the submission: a packet for
 * seq that arrived in between would otherwise be handled before the
 * stashed ones it followed (a POLL before the DATA it follows, asking for
 * all of it again). The packets to free are moved to done: free them
 * once the lock is released.
 */
void gsync_rx_replay_stash(struct gsync_group *g, u64 seq,
			   struct sk_buff_head *done)
{
	struct sk_buff *skb, *tmp;
	struct gsync_wire_hdr h;
	unsigned int pass;
	u64 s;

	lockdep_assert_held(&g->lock);
	g->replaying = true;
	/*
	 * ABORTs first: an operation a peer failed before we submitted it
	 * fails here too, even if the peers' values came in before their
	 * ABORT and would complete it.
	 */
	for (pass = 0; pass < 2; pass++) {
		skb_queue_walk_safe(&g->stash, skb, tmp) {
			if (skb_copy_bits(skb, sizeof(struct udphdr), &h,
					  sizeof(h)))
				memset(&h, 0, sizeof(h));	/* seq 0: dropped */
			s = be64_to_cpu(h.seq);
			if (s > seq || (!pass && h.type != GSYNC_PKT_ABORT))
				continue;
			__skb_unlink(skb, &g->stash);
			g->stash_bytes -= skb->truesize;
			if (s < seq || !gsync_rx_plain(g, skb))
				__skb_queue_tail(done, skb);
		}
	}
	g->replaying = false;
}
