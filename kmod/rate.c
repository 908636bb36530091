// SPDX-License-Identifier: GPL-2.0
/*
 * Adaptive sending rate: what a rank sends at when no pacing_rate is set.
 *
 * Receivers measure. For every peer whose DATA reached us in a repair
 * interval, the repair work sends it a REPORT (uapi/linux/gsync_wire.h):
 * the bytes that arrived and the time between the first and last of them
 * (idle time not counted), the chunks judged arrived and lost, and the
 * stamp of its latest DATA with how long we held it, from which the sender
 * reads its round trip to us. Chunks are judged once a chunk sent after
 * them has arrived and a whole report interval has passed: each tick
 * judges the stretch of each stream between where it had reached at the
 * previous tick and where it had reached at the one before
 * (gsync_rate_window()), so each chunk is judged once, a chunk merely
 * reordered by less than an interval is not lost, and arrivals and losses
 * are counted over the same chunks.
 *
 * Senders decide. A round lasts the slowest reporting receiver's round
 * trip plus a repair interval (at least two intervals), so that every
 * receiver has reported on what was sent in it. At the end of a round
 * whose reports say more than GSYNC_CC_LOSS_PERMILLE of the chunks were
 * lost (judged over GSYNC_CC_LOSS_MIN_CHUNKS at least: a round with
 * fewer carries its counts into the next, so that random loss under the
 * threshold does not exceed it by chance in a small sample), or in which
 * every round trip to some receiver exceeded the least seen to its host
 * (by any group of the user in the namespace, within GSYNC_CC_MIN_RTT_NS)
 * by GSYNC_CC_QDELAY_US and a quarter (a queue standing: a deep buffer
 * delays everything long before it drops; a burst that drains within the
 * round is not one; in the first slow start one round trip over is
 * enough), the rate drops (by 30% for a loss, by 15% for a queue, which
 * less drains; out of slow start, down to 90% of the least rate any
 * receiver reported our DATA arriving at in the round if that is lower,
 * but by half at most: a link cut to a quarter is followed in two
 * backoffs) and the next round is not judged (its reports still describe
 * packets sent before the drop). A round without either in which the rate
 * was what paced the DATA, and the rank never ran out of data, grows the
 * rate: it doubles until the first backoff, then grows by GSYNC_CC_STEP.
 * Equal steps and proportional drops are what make groups sharing a link
 * converge to equal shares. The slowest receiver drives it: losses are
 * summed over every receiver. The rate starts at a clique's exported rate
 * if the schedule has one (and never goes above it), else at
 * GSYNC_CC_INIT_RATE, and it is kept between operations.
 * net.gsync.max_rate (mem.c) caps it, and a rate set by hand too.
 *
 * Locking: everything here runs under gsync_group.lock; the peers' state
 * is g->ratep[], the sender's g->cc. The least round trip to each peer
 * host is the namespace's (gsync_net.rtt_paths, shared by one user's
 * groups), under gsync_net.rtt_lock taken inside the group's lock.
 */
#include <linux/bitmap.h>
#include <linux/math64.h>
#include <net/ipv6.h>

#include "gsync.h"
#include "group.h"
#include "mem.h"
#include "rate.h"
#include "send.h"

u16 gsync_rate_stamp(void)
{
	return (u16)ktime_to_ms(ktime_get());
}

/* Chunks missing in have[from, to). Pure; KUnit tests it. */
u32 gsync_rate_zeros(const unsigned long *have, u32 from, u32 to)
{
	u32 n = 0, end;

	while (from < to) {
		from = find_next_zero_bit(have, to, from);
		if (from >= to)
			break;
		end = find_next_bit(have, to, from);
		n += end - from;
		from = end;
	}
	return n;
}
GSYNC_EXPORT_FOR_TESTS(gsync_rate_zeros);

/*
 * Judge the round that ends at now and start the next, round_ns long.
 * Pure; KUnit tests it.
 */
int gsync_cc_judge(struct gsync_cc *cc, ktime_t now, u64 round_ns)
{
	u64 seen = (u64)cc->rx_chunks + cc->lost;
	u64 lost = (u64)cc->sample_lost + cc->lost;
	u64 sample = (u64)cc->sample_ok + cc->rx_chunks + lost;
	bool judged = sample >= GSYNC_CC_LOSS_MIN_CHUNKS;
	bool lossy = judged && lost * 1000 > GSYNC_CC_LOSS_PERMILLE * sample;
	bool carry = !judged;
	int v = GSYNC_CC_KEEP;
	u64 keep;
	u32 factor;

	if (!cc->rate || !seen) {
		/* nothing was sent or nothing reported: no evidence */
	} else if (cc->hold) {
		/* reports on what was sent before the drop: dropped too */
		cc->hold = false;
		carry = false;
	} else if (lossy || cc->queued) {
		/* A queue is drained by less than an overflow needs. */
		factor = lossy ? GSYNC_CC_LOSS_KEEP : GSYNC_CC_QUEUE_KEEP;
		keep = div_u64(cc->rate * factor, 100);
		if (cc->ssthresh && cc->delivered)
			keep = min(keep, max(div_u64(cc->delivered *
						     GSYNC_CC_DELIVERED_KEEP,
						     100), cc->rate / 2));
		cc->rate = max(keep, GSYNC_CC_MIN_RATE);
		cc->ssthresh = cc->rate;
		cc->hold = true;
		v = lossy ? GSYNC_CC_BACKOFF_LOSS : GSYNC_CC_BACKOFF_QUEUE;
		carry = false;
	} else if (cc->limited && !cc->app_limited) {
		if (cc->ssthresh)
			cc->rate += GSYNC_CC_STEP;
		else
			cc->rate *= 2;
		cc->rate = min_t(u64, cc->rate, GSYNC_MAX_PACING_RATE);
		v = GSYNC_CC_GROW;
	}
	/* Not judged: under GSYNC_CC_LOSS_MIN_CHUNKS, so the u32s hold it. */
	cc->sample_ok = carry ? sample - lost : 0;
	cc->sample_lost = carry ? lost : 0;
	cc->round_end = ktime_add_ns(now, round_ns);
	cc->rx_chunks = 0;
	cc->lost = 0;
	cc->limited = false;
	cc->app_limited = false;
	cc->queued = false;
	cc->delivered = 0;
	return v;
}
GSYNC_EXPORT_FOR_TESTS(gsync_cc_judge);

/* The slowest round trip any receiver reported, in microseconds. */
static u32 gsync_rate_max_rtt_us(struct gsync_group *g)
{
	u32 m = 0;
	unsigned int r;

	for (r = 0; r < g->cfg.nranks; r++)
		m = max(m, g->ratep[r].srtt_us);
	return m;
}

u32 gsync_rate_rtt_ms(struct gsync_group *g)
{
	return DIV_ROUND_UP(gsync_rate_max_rtt_us(g), USEC_PER_MSEC);
}

static u64 gsync_rate_round_ns(struct gsync_group *g)
{
	u64 repair = (u64)g->cfg.repair_ms * NSEC_PER_MSEC;

	return max(2 * repair,
		   (u64)gsync_rate_max_rtt_us(g) * NSEC_PER_USEC + repair);
}

/*
 * The rate to pace a packet at: a fixed pacing_rate, else the adaptive
 * rate, either capped by the clique's rate (0: none) and by
 * net.gsync.max_rate. data: a DATA packet, whose pace tells whether the
 * adaptive rate was the limit (a capped one does not grow past its cap).
 */
u64 gsync_rate_pace(struct gsync_group *g, u64 clique_rate, bool data)
{
	u64 cap = gsync_max_rate(g), fixed = g->rate;
	struct gsync_cc *cc = &g->cc;

	if (clique_rate)
		cap = min(cap, clique_rate);
	if (fixed)
		return min(fixed, cap);
	if (!cc->rate) {
		cc->rate = clique_rate ? clique_rate : GSYNC_CC_INIT_RATE;
		cc->rate = max(min(cc->rate, cap), GSYNC_CC_MIN_RATE);
		cc->ssthresh = clique_rate;
		cc->round_end = ktime_add_ns(ktime_get(),
					     gsync_rate_round_ns(g));
	}
	if (cap < cc->rate)
		return cap;
	if (data)
		cc->limited = true;
	return cc->rate;
}

/* What g sends at now, for GSYNC_INFO and /proc: 0 before any send. */
u64 gsync_rate_now(struct gsync_group *g)
{
	u64 cap = gsync_max_rate(g);

	if (g->rate)
		return min(g->rate, cap);
	return min(g->cc.rate, cap);
}

/* The send path found nothing to send. */
void gsync_rate_idle(struct gsync_group *g)
{
	g->cc.app_limited = true;
}

/*
 * A new chunk from rank r arrived, bytes long with its header. One
 * replayed from the stash arrived earlier: its stamp, echoed now, would
 * add the time it waited there to the round trip.
 */
void gsync_rate_rx_data(struct gsync_group *g, unsigned int r,
			const struct gsync_wire_hdr *h, u32 bytes)
{
	struct gsync_rate_peer *p = &g->ratep[r];
	ktime_t now = ktime_get();

	if (!p->since)
		p->since = now;
	p->last_at = now;
	p->rx_bytes += bytes;
	p->rx_chunks++;
	if (g->replaying)
		return;
	p->echo = be16_to_cpu(h->stamp);
	p->echo_valid = true;
	p->echo_at = now;
}

/*
 * Record a round trip of rtt us to the host of key (user, address) in
 * table t of n paths, and return the least recorded for that host within
 * GSYNC_CC_MIN_RTT_NS (rtt itself when there is none that recent). A host
 * not in the table takes a free entry, else the one measured longest ago.
 * Pure; KUnit tests it.
 */
u32 gsync_rtt_path_update(struct gsync_rtt_path *t, unsigned int n,
			  const struct gsync_rtt_path *key, u32 rtt,
			  ktime_t now)
{
	struct gsync_rtt_path *e = NULL, *victim = &t[0];
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (t[i].family == key->family && uid_eq(t[i].uid, key->uid) &&
		    ipv6_addr_equal(&t[i].addr, &key->addr)) {
			e = &t[i];
			break;
		}
		if (victim->family &&
		    (!t[i].family || ktime_before(t[i].at, victim->at)))
			victim = &t[i];
	}
	if (!e) {
		e = victim;
		*e = *key;
		e->min_rtt_us = U32_MAX;
	}
	if (rtt <= e->min_rtt_us ||
	    ktime_to_ns(ktime_sub(now, e->at)) > GSYNC_CC_MIN_RTT_NS) {
		e->min_rtt_us = rtt;
		e->at = now;
	}
	return e->min_rtt_us;
}
GSYNC_EXPORT_FOR_TESTS(gsync_rtt_path_update);

/*
 * A round trip of rtt us to rank r. One over the least of late to its
 * host by more than GSYNC_CC_QDELAY_US and a quarter of that least means a
 * queue is building on the way: back off before it overflows (queues of
 * seconds drop nothing, but delay every operation behind them). The least
 * is shared by the user's groups of the namespace: measured from its own
 * samples only, a group that starts while others keep a queue standing
 * would take that queue for the path, tolerate more of it than they do,
 * and crowd them out.
 */
static void gsync_rate_rtt_sample(struct gsync_group *g, unsigned int r,
				  u32 rtt, ktime_t now)
{
	struct gsync_net *gn = gsync_net(g->net);
	const union gsync_sockaddr *sa = &g->peer_sa[r];
	struct gsync_rate_peer *p = &g->ratep[r];
	struct gsync_rtt_path key = {
		.uid = g->uid,
		.family = sa->sa.sa_family,
	};
	u32 base;

	if (key.family == AF_INET)
		key.addr.s6_addr32[0] = sa->v4.sin_addr.s_addr;
	else
		key.addr = sa->v6.sin6_addr;
	p->srtt_us = p->srtt_us ? (7 * p->srtt_us + rtt) / 8 : rtt;
	spin_lock(&gn->rtt_lock);
	base = gsync_rtt_path_update(gn->rtt_paths, GSYNC_RTT_PATHS, &key,
				     rtt, now);
	spin_unlock(&gn->rtt_lock);
	p->min_rtt_us = base;
	p->round_min_us = p->round_min_us ? min(p->round_min_us, rtt) : rtt;
	/*
	 * Doubling every round, the first slow start fills a queue faster
	 * than a round can show it standing: leave it at the first sample
	 * over, as TCP's HyStart leaves on a delay increase.
	 */
	if (!g->cc.ssthresh && gsync_rate_standing(rtt, base))
		g->cc.queued = true;
}

/*
 * Did the round trips of a round, the least of them round_min_us, show a
 * queue standing over base? A queue that some sample of the round got
 * past drained then: a burst (owners multicasting results at once, a
 * sender's bucket after a wait), which the link absorbs, not a rate
 * above what it carries. Pure; KUnit tests it.
 */
bool gsync_rate_standing(u32 round_min_us, u32 base_us)
{
	return round_min_us > base_us &&
	       round_min_us - base_us > max_t(u32, GSYNC_CC_QDELAY_US,
					      base_us / 4);
}
GSYNC_EXPORT_FOR_TESTS(gsync_rate_standing);

/* The round ends: was a queue standing towards any receiver in it? */
static void gsync_rate_round_queue(struct gsync_group *g)
{
	struct gsync_rate_peer *p;
	unsigned int r;

	for (r = 0; r < g->cfg.nranks; r++) {
		p = &g->ratep[r];
		if (p->round_min_us &&
		    gsync_rate_standing(p->round_min_us, p->min_rtt_us))
			g->cc.queued = true;
		p->round_min_us = 0;
	}
}

/*
 * The round ends: the least rate any receiver reported our DATA arriving
 * at. Receivers count only the time between arrivals (a rank that ran out
 * of data, while a queue towards them drains, still learns the rate the
 * queue drains at); a stream that stops within a repair interval is the
 * one underestimate, and a backoff takes half of the rate at most.
 */
static void gsync_rate_round_delivered(struct gsync_group *g)
{
	struct gsync_cc *cc = &g->cc;
	struct gsync_rate_peer *p;
	unsigned int r;
	u64 v, d = 0;

	for (r = 0; r < g->cfg.nranks; r++) {
		p = &g->ratep[r];
		/* reports of nothing sent (all idle, or lies): no rate */
		if (p->round_bytes && p->round_us) {
			v = div64_u64(p->round_bytes * USEC_PER_SEC,
				      p->round_us);
			d = d ? min(d, v) : v;
		}
		p->round_bytes = 0;
		p->round_us = 0;
	}
	cc->delivered = d;
}

/* A REPORT from rank r about our DATA. */
void gsync_rate_rx_report(struct gsync_group *g, unsigned int r,
			  const struct gsync_wire_report *rep)
{
	struct gsync_rate_peer *p = &g->ratep[r];
	struct gsync_cc *cc = &g->cc;
	u16 hold = be16_to_cpu(rep->hold_ms);
	ktime_t now = ktime_get();
	u32 rtt;

	g->stats.reports_received++;
	if (hold != GSYNC_REPORT_NO_ECHO) {
		rtt = (u16)(gsync_rate_stamp() - be16_to_cpu(rep->echo_stamp) -
			    hold);
		/* A stamp from before a 65 s wrap, or a lie: not a sample. */
		if (rtt < 60 * MSEC_PER_SEC)
			gsync_rate_rtt_sample(g, r, rtt * USEC_PER_MSEC +
					      USEC_PER_MSEC / 2, now);
	}
	cc->rx_chunks = min_t(u64, U32_MAX,
			      (u64)cc->rx_chunks + be32_to_cpu(rep->rx_chunks));
	cc->lost = min_t(u64, U32_MAX,
			 (u64)cc->lost + be32_to_cpu(rep->lost));
	/* Capped, so that a rate computed from them cannot overflow. */
	p->round_bytes = min_t(u64, p->round_bytes + be32_to_cpu(rep->rx_bytes),
			       GSYNC_CC_ROUND_BYTES_MAX);
	p->round_us = min_t(u64, p->round_us + be32_to_cpu(rep->interval_us),
			    GSYNC_CC_ROUND_BYTES_MAX);
	if (!cc->rate || !ktime_after(now, cc->round_end))
		return;
	gsync_rate_round_queue(g);
	gsync_rate_round_delivered(g);
	switch (gsync_cc_judge(cc, now, gsync_rate_round_ns(g))) {
	case GSYNC_CC_BACKOFF_LOSS:
		g->stats.rate_loss_decreases++;
		fallthrough;
	case GSYNC_CC_BACKOFF_QUEUE:
		g->stats.rate_decreases++;
		break;
	default:
		break;
	}
}

/*
 * Judge the chunks a stream passed between the last two ticks, [*h2, *h1):
 * add those that have arrived by now to *ok and those still missing to
 * *lost, then move the window on to highest. Both counts are of the same
 * chunks, so their ratio is the loss rate of that stretch of the stream
 * even where it ends and arrivals stop (counting arrivals as they come
 * set the tail's losses against the few repairs of a later interval).
 * Pure; KUnit tests it.
 */
void gsync_rate_window(const unsigned long *have, u32 *h1, u32 *h2,
		       u32 highest, u32 *ok, u32 *lost)
{
	u32 zeros;

	if (*h1 > *h2) {
		zeros = gsync_rate_zeros(have, *h2, *h1);
		*lost += zeros;
		*ok += *h1 - *h2 - zeros;
	}
	*h2 = *h1;
	*h1 = highest;
}
GSYNC_EXPORT_FOR_TESTS(gsync_rate_window);

/* Judge what stream c passed an interval ago. */
static void gsync_rate_scan(struct gsync_group *g, struct gsync_contrib *c)
{
	struct gsync_rate_peer *p = &g->ratep[c->rank];

	if (!c->expects || !c->nchunks)
		return;
	gsync_rate_window(c->have, &c->rate_h1, &c->rate_h2, c->highest,
			  &p->ok, &p->lost);
}

static void gsync_rate_report(struct gsync_group *g, unsigned int r,
			      ktime_t now)
{
	struct gsync_rate_peer *p = &g->ratep[r];
	s64 span = p->rx_bytes ? ktime_us_delta(p->last_at, p->since) : 0;
	struct gsync_wire_report rep = {
		.target_rank = cpu_to_be16(r),
		.hold_ms = cpu_to_be16(GSYNC_REPORT_NO_ECHO),
		.interval_us = cpu_to_be32(clamp_t(s64, span, 0, U32_MAX)),
		.rx_bytes = cpu_to_be32(p->rx_bytes),
		.rx_chunks = cpu_to_be32(p->ok),
		.lost = cpu_to_be32(p->lost),
	};
	struct gsync_wire_hdr h;
	s64 held;

	if (p->echo_valid) {
		held = ktime_ms_delta(now, p->echo_at);
		rep.echo_stamp = cpu_to_be16(p->echo);
		rep.hold_ms = cpu_to_be16(min_t(s64, held,
					GSYNC_REPORT_NO_ECHO - 1));
	}
	gsync_wire_fill(g, &h, GSYNC_PKT_REPORT, 0, 0, 0);
	if (gsync_ctrl_queue_report(g, r, &h, &rep,
				    p->echo_valid ? p->echo_at : 0))
		return;		/* queue full: report it all next time */
	g->stats.reports_sent++;
	/* The next report's DATA arrive after this one's last. */
	p->since = p->rx_bytes ? p->last_at : 0;
	p->rx_bytes = 0;
	p->rx_chunks = 0;
	p->ok = 0;
	p->lost = 0;
	p->echo_valid = false;
}

/*
 * REPORT c is being sent: its hold_ms counts until now, so that the time
 * it waited in our control queue is not taken for the network's.
 */
void gsync_rate_report_leaves(struct gsync_ctrl *c)
{
	struct gsync_wire_report *rep = (void *)(c->data +
						 sizeof(struct gsync_wire_hdr));
	s64 held = ktime_ms_delta(ktime_get(), c->echo_at);

	rep->hold_ms = cpu_to_be16(clamp_t(s64, held, 0,
					   GSYNC_REPORT_NO_ECHO - 1));
}

/*
 * Every repair interval: count losses, and report to every peer whose
 * DATA arrived since our last REPORT to it.
 */
void gsync_rate_tick(struct gsync_group *g)
{
	ktime_t now = ktime_get();
	struct gsync_op *op;
	unsigned int s, j, r;
	u64 seq;

	for (seq = g->base_seq; seq < g->next_seq; seq++) {
		op = gsync_slot(g, seq);
		if (!op || op->state != GSYNC_OPS_OPEN)
			continue;
		for (s = 0; s < op->nsteps; s++) {
			struct gsync_step *st = &op->step[s];

			if (!st->q || !st->receives)
				continue;
			for (j = 0; j < st->q->nmembers; j++)
				gsync_rate_scan(g, &st->in[j]);
		}
	}
	for (r = 0; r < g->cfg.nranks; r++) {
		struct gsync_rate_peer *p = &g->ratep[r];

		if (r == g->cfg.rank)
			continue;
		/* idle: the next report's time starts at its next DATA */
		if (!p->rx_chunks)
			p->since = 0;
		if (p->rx_chunks || p->ok || p->lost)
			gsync_rate_report(g, r, now);
	}
}
