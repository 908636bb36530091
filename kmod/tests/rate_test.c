// SPDX-License-Identifier: GPL-2.0
/*
 * Suite gsync_rate: the adaptive rate's round verdicts and the loss count
 * of the REPORTs (kmod/rate.c). Pure functions, no sockets.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/prandom.h>
#include <linux/gsync.h>

#include "gsync.h"
#include "rate.h"

#define ROUND_NS	(100 * NSEC_PER_MSEC)

/* One round with these reports; returns the verdict. */
static int cc_round(struct gsync_cc *cc, ktime_t *now, u32 rx, u32 lost,
		 bool limited, bool app_limited)
{
	cc->rx_chunks = rx;
	cc->lost = lost;
	cc->limited = limited;
	cc->app_limited = app_limited;
	*now = ktime_add_ns(*now, ROUND_NS);
	return gsync_cc_judge(cc, *now, ROUND_NS);
}

static void gsync_rate_slow_start_then_step(struct kunit *test)
{
	struct gsync_cc cc = { .rate = GSYNC_CC_INIT_RATE };
	ktime_t now = 0;

	/* Doubles per clean round until the first loss. */
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 1000, 0, true, false),
			GSYNC_CC_GROW);
	KUNIT_EXPECT_EQ(test, cc.rate, 2 * GSYNC_CC_INIT_RATE);
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 800, 200, true, false),
			GSYNC_CC_GROW);	/* 20% is not over 20% */
	KUNIT_EXPECT_EQ(test, cc.rate, 4 * GSYNC_CC_INIT_RATE);
	KUNIT_EXPECT_EQ(test, cc.round_end, now + ROUND_NS);

	/* Over 20% lost: 30% less, and the next round is not judged. */
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 790, 210, true, false),
			GSYNC_CC_BACKOFF_LOSS);
	KUNIT_EXPECT_EQ(test, cc.rate, 4 * GSYNC_CC_INIT_RATE * 7 / 10);
	KUNIT_EXPECT_EQ(test, cc.ssthresh, cc.rate);
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 500, 500, true, false),
			GSYNC_CC_KEEP);
	KUNIT_EXPECT_EQ(test, cc.rate, 4 * GSYNC_CC_INIT_RATE * 7 / 10);

	/* After the first loss: a fixed step per clean round. */
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 100, 0, true, false),
			GSYNC_CC_GROW);
	KUNIT_EXPECT_EQ(test, cc.rate,
			4 * GSYNC_CC_INIT_RATE * 7 / 10 + GSYNC_CC_STEP);
	/* The hold is over: the next lossy round backs off again. */
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 100, 900, true, false),
			GSYNC_CC_BACKOFF_LOSS);
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 1000, 0, true, false),
			GSYNC_CC_KEEP);
	/* A queue building up backs off too, by less than a loss. */
	cc.rate = 1000000;
	cc.queued = true;
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 100, 0, true, false),
			GSYNC_CC_BACKOFF_QUEUE);
	KUNIT_EXPECT_EQ(test, cc.rate, 850000);
	KUNIT_EXPECT_EQ(test, cc.ssthresh, 850000);
	KUNIT_EXPECT_FALSE(test, cc.queued);
	/* Both: the loss decides. */
	cc_round(&cc, &now, 100, 0, true, false);	/* held */
	cc.rate = 1000000;
	cc.queued = true;
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 100, 900, true, false),
			GSYNC_CC_BACKOFF_LOSS);
	KUNIT_EXPECT_EQ(test, cc.rate, 700000);
}

static void gsync_rate_no_growth_without_evidence(struct kunit *test)
{
	struct gsync_cc cc = { .rate = 1000000, .ssthresh = 1000000 };
	ktime_t now = 0;

	/* Ran out of data, or something else paced it, or no reports. */
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 100, 0, true, true),
			GSYNC_CC_KEEP);
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 100, 0, false, false),
			GSYNC_CC_KEEP);
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 0, 0, true, false),
			GSYNC_CC_KEEP);
	KUNIT_EXPECT_EQ(test, cc.rate, 1000000);
	/* A lossy round backs off even when the rate was not the limit. */
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 128, 128, false, true),
			GSYNC_CC_BACKOFF_LOSS);
	/* Every round resets what it judged. */
	KUNIT_EXPECT_EQ(test, cc.rx_chunks, 0);
	KUNIT_EXPECT_EQ(test, cc.lost, 0);
	KUNIT_EXPECT_EQ(test, cc.sample_ok, 0);
	KUNIT_EXPECT_EQ(test, cc.sample_lost, 0);
	KUNIT_EXPECT_FALSE(test, cc.limited);
	KUNIT_EXPECT_FALSE(test, cc.app_limited);

	/* Not started: nothing to judge. */
	cc = (struct gsync_cc){};
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 100, 100, true, false),
			GSYNC_CC_KEEP);
	KUNIT_EXPECT_EQ(test, cc.rate, 0);
}

static void gsync_rate_bounds(struct kunit *test)
{
	struct gsync_cc cc = { .rate = GSYNC_CC_MIN_RATE + 1 };
	ktime_t now = 0;

	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 0, 300, true, false),
			GSYNC_CC_BACKOFF_LOSS);
	KUNIT_EXPECT_EQ(test, cc.rate, GSYNC_CC_MIN_RATE);
	cc.rate = GSYNC_MAX_PACING_RATE - 1;
	cc.ssthresh = 0;
	cc.hold = false;
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 300, 0, true, false),
			GSYNC_CC_GROW);
	KUNIT_EXPECT_EQ(test, cc.rate, GSYNC_MAX_PACING_RATE);
}

/*
 * Loss is judged over GSYNC_CC_LOSS_MIN_CHUNKS at least: small rounds
 * carry their counts on (and still grow the rate), a backoff or a held
 * round drops them.
 */
static void gsync_rate_loss_sample(struct kunit *test)
{
	struct gsync_cc cc = { .rate = 1000000, .ssthresh = 1000000 };
	ktime_t now = 0;

	/* 40% of 100 chunks: too few to judge; the round still grows. */
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 60, 40, true, false),
			GSYNC_CC_GROW);
	KUNIT_EXPECT_EQ(test, cc.sample_ok, 60);
	KUNIT_EXPECT_EQ(test, cc.sample_lost, 40);
	/* A round without reports keeps the sample as it is. */
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 0, 0, true, false),
			GSYNC_CC_KEEP);
	KUNIT_EXPECT_EQ(test, cc.sample_ok + cc.sample_lost, 100);
	/* 255 in all is still too few; 256 is judged: 121 lost, over 20%. */
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 75, 80, true, false),
			GSYNC_CC_GROW);
	KUNIT_EXPECT_EQ(test, cc.sample_ok + cc.sample_lost, 255);
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 0, 1, true, false),
			GSYNC_CC_BACKOFF_LOSS);
	KUNIT_EXPECT_EQ(test, cc.sample_ok + cc.sample_lost, 0);
	/* The held round's counts are dropped with it. */
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 0, 200, true, false),
			GSYNC_CC_KEEP);
	KUNIT_EXPECT_EQ(test, cc.sample_ok + cc.sample_lost, 0);
	/* The same counts over a whole sample: 51 of 256 is not over 20%. */
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 100, 51, true, false),
			GSYNC_CC_GROW);
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 105, 0, true, false),
			GSYNC_CC_GROW);
	KUNIT_EXPECT_EQ(test, cc.sample_ok + cc.sample_lost, 0);
	/* A queue backs off at once, whatever the sample; drops it too. */
	cc_round(&cc, &now, 10, 5, true, false);
	cc.queued = true;
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 10, 0, true, false),
			GSYNC_CC_BACKOFF_QUEUE);
	KUNIT_EXPECT_EQ(test, cc.sample_ok + cc.sample_lost, 0);
}

/*
 * Out of slow start, a backoff goes down to 90% of what the slowest
 * receiver was delivered, by half at most: a cut to a quarter of the
 * link is followed in two backoffs. Not in slow start (the reports lag a
 * doubling rate), and not when delivered is unknown.
 */
static void gsync_rate_follow_delivered(struct kunit *test)
{
	struct gsync_cc cc = { .rate = 1600000, .ssthresh = 1600000 };
	ktime_t now = 0;

	cc.queued = true;
	cc.delivered = 400000;
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 300, 0, true, false),
			GSYNC_CC_BACKOFF_QUEUE);
	KUNIT_EXPECT_EQ(test, cc.rate, 800000);		/* half at most */
	KUNIT_EXPECT_EQ(test, cc.delivered, 0);		/* used once */
	cc_round(&cc, &now, 300, 0, true, false);	/* held */
	cc.queued = true;
	cc.delivered = 400000;
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 300, 0, true, false),
			GSYNC_CC_BACKOFF_QUEUE);
	KUNIT_EXPECT_EQ(test, cc.rate, 400000);		/* half, not 360000 */
	cc_round(&cc, &now, 300, 0, true, false);
	/* A loss too; 90% of delivered when that is the least cut. */
	cc.delivered = 350000;
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 100, 200, true, false),
			GSYNC_CC_BACKOFF_LOSS);
	KUNIT_EXPECT_EQ(test, cc.rate, 280000);		/* 70% < 315000 */
	cc_round(&cc, &now, 300, 0, true, false);
	cc.queued = true;
	cc.delivered = 250000;
	KUNIT_EXPECT_EQ(test, cc_round(&cc, &now, 300, 0, true, false),
			GSYNC_CC_BACKOFF_QUEUE);
	KUNIT_EXPECT_EQ(test, cc.rate, 225000);		/* 90% < 85% */
	cc_round(&cc, &now, 300, 0, true, false);
	/* Delivered more than the rate: the usual 15%. */
	cc.queued = true;
	cc.delivered = 1000000;
	cc_round(&cc, &now, 300, 0, true, false);
	KUNIT_EXPECT_EQ(test, cc.rate, 191250);
	/* In the first slow start, delivered is not used. */
	cc = (struct gsync_cc){ .rate = 1600000 };
	cc.queued = true;
	cc.delivered = 400000;
	cc_round(&cc, &now, 300, 0, true, false);
	KUNIT_EXPECT_EQ(test, cc.rate, 1360000);
}

/*
 * 10% random loss in rounds of 5 to 60 chunks, as short rounds report it:
 * never a backoff for loss. (Judged a round at a time, a round of 30
 * chunks goes over 20% once in 40.)
 */
static void gsync_rate_random_loss(struct kunit *test)
{
	struct gsync_cc cc = { .rate = 1000000, .ssthresh = 1000000 };
	struct rnd_state rnd;
	ktime_t now = 0;
	unsigned int i, c, n, lost, backoffs = 0;

	prandom_seed_state(&rnd, 42);
	for (i = 0; i < 20000; i++) {
		n = 5 + prandom_u32_state(&rnd) % 56;
		for (c = 0, lost = 0; c < n; c++)
			lost += prandom_u32_state(&rnd) % 10 == 0;
		if (cc_round(&cc, &now, n - lost, lost, true, false) ==
		    GSYNC_CC_BACKOFF_LOSS)
			backoffs++;
	}
	KUNIT_EXPECT_EQ(test, backoffs, 0);
}

/*
 * Two senders on one link, both told of the same losses: equal steps and
 * proportional backoff bring an unequal start to equal shares.
 */
static void gsync_rate_fair_share(struct kunit *test)
{
	struct gsync_cc a = { .rate = 3000000, .ssthresh = 3000000 };
	struct gsync_cc b = { .rate = 300000, .ssthresh = 300000 };
	const u64 link = 2000000;
	ktime_t now = 0, now_b = 0;
	unsigned int i;
	u32 lost;

	for (i = 0; i < 2000; i++) {
		lost = a.rate + b.rate > link ? 300 : 0;
		cc_round(&a, &now, 1000, lost, true, false);
		cc_round(&b, &now_b, 1000, lost, true, false);
	}
	KUNIT_EXPECT_LE(test, max(a.rate, b.rate) * 10,
			min(a.rate, b.rate) * 13);
}

static struct gsync_rtt_path gsync_test_path(u32 uid, u16 family, u8 last)
{
	struct gsync_rtt_path k = {
		.uid = KUIDT_INIT(uid),
		.family = family,
	};

	k.addr.s6_addr[3] = last;	/* AF_INET: 0.0.0.last in the first word */
	return k;
}

/*
 * The least round trip per (user, host): shared by a user's groups, kept
 * GSYNC_CC_MIN_RTT_NS, separate per user and family, a full table gives
 * up the entry measured longest ago.
 */
static void gsync_rtt_path_cases(struct kunit *test)
{
	struct gsync_rtt_path t[4] = {};
	struct gsync_rtt_path a = gsync_test_path(1000, AF_INET, 1);
	struct gsync_rtt_path b = gsync_test_path(1000, AF_INET, 2);
	struct gsync_rtt_path a6 = gsync_test_path(1000, AF_INET6, 1);
	struct gsync_rtt_path other = gsync_test_path(1001, AF_INET, 1);
	ktime_t t0 = ms_to_ktime(100000), s = ms_to_ktime(1000);
	unsigned int i;

	/* A first sample is the base; a lower one lowers it, a higher not. */
	KUNIT_EXPECT_EQ(test, gsync_rtt_path_update(t, 4, &a, 40000, t0), 40000U);
	KUNIT_EXPECT_EQ(test, gsync_rtt_path_update(t, 4, &a, 38000, t0 + s), 38000U);
	KUNIT_EXPECT_EQ(test, gsync_rtt_path_update(t, 4, &a, 70000, t0 + 2 * s), 38000U);
	/* Another group of the user, new to the host, gets that base. */
	KUNIT_EXPECT_EQ(test, gsync_rtt_path_update(t, 4, &a, 65000, t0 + 3 * s), 38000U);
	/* Another user, family or host does not. */
	KUNIT_EXPECT_EQ(test, gsync_rtt_path_update(t, 4, &other, 65000, t0 + 3 * s), 65000U);
	KUNIT_EXPECT_EQ(test, gsync_rtt_path_update(t, 4, &a6, 66000, t0 + 3 * s), 66000U);
	KUNIT_EXPECT_EQ(test, gsync_rtt_path_update(t, 4, &b, 67000, t0 + 3 * s), 67000U);
	/* Kept 10 s from when it was measured (at t0 + 1 s), then renewed. */
	KUNIT_EXPECT_EQ(test, gsync_rtt_path_update(t, 4, &a, 60000, t0 + 11 * s), 38000U);
	KUNIT_EXPECT_EQ(test, gsync_rtt_path_update(t, 4, &a, 60000, t0 + 11 * s + 1), 60000U);
	/* Full: a new host takes the entry measured longest ago (other's). */
	b.addr.s6_addr[3] = 9;
	KUNIT_EXPECT_EQ(test, gsync_rtt_path_update(t, 4, &b, 50000, t0 + 12 * s), 50000U);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_FALSE(test, uid_eq(t[i].uid, other.uid));
	KUNIT_EXPECT_EQ(test, gsync_rtt_path_update(t, 4, &a, 61000, t0 + 12 * s), 60000U);
}

/*
 * A queue stands when even the least round trip of a round is over the
 * path's least by 25 ms, or by a quarter of it on longer paths.
 */
static void gsync_rate_standing_cases(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, gsync_rate_standing(60000, 40000));
	KUNIT_EXPECT_TRUE(test, gsync_rate_standing(65001, 40000));
	KUNIT_EXPECT_FALSE(test, gsync_rate_standing(250000, 200000));
	KUNIT_EXPECT_TRUE(test, gsync_rate_standing(250001, 200000));
	/* Under the least (a new least, set a moment later): none. */
	KUNIT_EXPECT_FALSE(test, gsync_rate_standing(30000, 40000));
	KUNIT_EXPECT_FALSE(test, gsync_rate_standing(40000, 40000));
}

static void gsync_rate_zeros_cases(struct kunit *test)
{
	DECLARE_BITMAP(have, 200);

	bitmap_fill(have, 200);
	KUNIT_EXPECT_EQ(test, gsync_rate_zeros(have, 0, 200), 0);
	KUNIT_EXPECT_EQ(test, gsync_rate_zeros(have, 5, 5), 0);
	__clear_bit(0, have);
	__clear_bit(64, have);
	__clear_bit(65, have);
	__clear_bit(199, have);
	KUNIT_EXPECT_EQ(test, gsync_rate_zeros(have, 0, 200), 4);
	KUNIT_EXPECT_EQ(test, gsync_rate_zeros(have, 1, 65), 1);
	KUNIT_EXPECT_EQ(test, gsync_rate_zeros(have, 65, 199), 1);
	KUNIT_EXPECT_EQ(test, gsync_rate_zeros(have, 66, 199), 0);
	bitmap_zero(have, 200);
	KUNIT_EXPECT_EQ(test, gsync_rate_zeros(have, 10, 150), 140);
}

/*
 * A stream of 400 chunks arriving 100 per tick, one in ten lost, then no
 * more: every tick's report judges the same chunks as arrived and lost,
 * so it reads 10% also after the stream has stopped, where counting
 * arrivals as they came read the last stretch's losses against nothing.
 */
static void gsync_rate_window_stream_end(struct kunit *test)
{
	static const struct {
		u32 ok, lost;	/* the tick's report */
	} want[] = {
		{ 0, 0 },	/* tick 1: nothing judged yet */
		{ 90, 10 },	/* [0, 100) */
		{ 91, 9 },	/* [100, 200): 103 repaired in time */
		{ 90, 10 },	/* [200, 300): 205 late, not lost */
		{ 90, 10 },	/* [300, 400): after the stream ended */
		{ 0, 0 },	/* nothing more */
	};
	DECLARE_BITMAP(have, 400);
	u32 h1 = 0, h2 = 0, highest = 0, ok, lost, total = 0;
	unsigned int t, i;

	bitmap_zero(have, 400);
	for (t = 0; t < ARRAY_SIZE(want); t++) {
		/* What arrived since the previous tick. */
		for (i = 100 * t; i < 100 * (t + 1) && i < 400; i++) {
			if (i % 10 == 3 || i == 205)
				continue;
			__set_bit(i, have);
			highest = i + 1;
		}
		if (t == 2)
			__set_bit(103, have);	/* a repair, before judging */
		if (t == 3)
			__set_bit(205, have);	/* reordered by a tick */
		ok = 0;
		lost = 0;
		gsync_rate_window(have, &h1, &h2, highest, &ok, &lost);
		KUNIT_EXPECT_EQ_MSG(test, ok, want[t].ok, "tick %u", t + 1);
		KUNIT_EXPECT_EQ_MSG(test, lost, want[t].lost, "tick %u", t + 1);
		total += ok + lost;
	}
	/* Every chunk judged, once. */
	KUNIT_EXPECT_EQ(test, total, 400);
	KUNIT_EXPECT_EQ(test, h1, 400);
	KUNIT_EXPECT_EQ(test, h2, 400);
}

static struct kunit_case gsync_rate_cases[] = {
	KUNIT_CASE(gsync_rate_slow_start_then_step),
	KUNIT_CASE(gsync_rate_no_growth_without_evidence),
	KUNIT_CASE(gsync_rate_bounds),
	KUNIT_CASE(gsync_rate_fair_share),
	KUNIT_CASE(gsync_rate_loss_sample),
	KUNIT_CASE(gsync_rate_follow_delivered),
	KUNIT_CASE(gsync_rate_random_loss),
	KUNIT_CASE(gsync_rate_zeros_cases),
	KUNIT_CASE(gsync_rate_window_stream_end),
	KUNIT_CASE(gsync_rate_standing_cases),
	KUNIT_CASE(gsync_rtt_path_cases),
	{}
};

static struct kunit_suite gsync_rate_suite = {
	.name = "gsync_rate",
	.test_cases = gsync_rate_cases,
};

kunit_test_suites(&gsync_rate_suite);
