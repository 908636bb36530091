/* SPDX-License-Identifier: GPL-2.0 */
/* Adaptive sending rate and the REPORTs that drive it (rate.c). */
#ifndef GSYNC_RATE_H
#define GSYNC_RATE_H

#include <linux/ktime.h>
#include <linux/types.h>

struct gsync_group;
struct gsync_ctrl;
struct gsync_wire_hdr;
struct gsync_wire_report;

#define GSYNC_CC_INIT_RATE	(1ULL << 20)	/* bytes/s, first send */
#define GSYNC_CC_MIN_RATE	(32ULL << 10)	/* never backs off below */
#define GSYNC_CC_STEP		(64ULL << 10)	/* growth per round */
/* a round that lost more backs off; less is repaired, not slowed for */
#define GSYNC_CC_LOSS_PERMILLE	200
/*
 * Loss is judged over this many chunks at least; a round with fewer
 * carries its counts into the next. At 10% random loss, over 20% of 256
 * chunks happens once in 1.6 million samples; of 30 chunks, once in 40.
 */
#define GSYNC_CC_LOSS_MIN_CHUNKS	256
/* percent of the rate kept on backing off for a loss, for a queue */
#define GSYNC_CC_LOSS_KEEP	70
#define GSYNC_CC_QUEUE_KEEP	85
/*
 * Out of slow start, a backoff goes down to this percent of what the
 * slowest receiver was delivered in the round, if that is lower (a link
 * cut to a quarter is followed in two backoffs, not nine), but never
 * below half the rate in one go.
 */
#define GSYNC_CC_DELIVERED_KEEP	90
#define GSYNC_CC_ROUND_BYTES_MAX	(1ULL << 40)	/* times 10^6 fits u64 */
#define GSYNC_REPORT_NO_ECHO	0xffff		/* hold_ms: no DATA to echo */
/* A round trip this much over the path's least is a queue building up. */
#define GSYNC_CC_QDELAY_US	(25 * USEC_PER_MSEC)
#define GSYNC_CC_MIN_RTT_NS	(10 * NSEC_PER_SEC)	/* least kept so long */

/* One peer as a rate partner: what we report to it, and its round trip. */
struct gsync_rate_peer {
	u32 rx_bytes;		/* DATA from it since our last REPORT */
	u32 rx_chunks;
	u32 ok;			/* chunks judged since then: arrived */
	u32 lost;		/* and missing */
	u16 echo;		/* stamp of its latest DATA */
	bool echo_valid;
	ktime_t echo_at;	/* when that DATA arrived */
	ktime_t last_at;	/* its latest DATA arrived, replays too */
	ktime_t since;		/* the DATA our next REPORT counts arrive from */
	u32 srtt_us;		/* its REPORTs' round trip, smoothed; 0: none */
	u32 min_rtt_us;		/* the least to its host lately (rtt_paths) */
	u32 round_min_us;	/* the least in this round; 0: no sample */
	u64 round_bytes;	/* its REPORTs in this round: our bytes */
	u64 round_us;		/* that reached it, and over how long */
};

/*
 * The sender's rate control state. rate is kept between operations;
 * ssthresh 0 means the first slow start has not met a loss yet.
 */
struct gsync_cc {
	u64 rate;		/* bytes/s; 0: nothing sent yet */
	u64 ssthresh;
	ktime_t round_end;	/* when this round's reports are judged */
	u32 rx_chunks;		/* reported delivered in this round */
	u32 lost;		/* reported lost in this round */
	u32 sample_ok;		/* earlier rounds' counts, too few to judge */
	u32 sample_lost;
	u64 delivered;		/* bytes/s to the slowest receiver; 0: unknown */
	bool limited;		/* rate was what paced a DATA packet */
	bool app_limited;	/* ran out of data to send */
	bool hold;		/* backed off: the next round is not judged */
	bool queued;		/* the round's round trips showed a queue */
};

/* Verdicts of gsync_cc_judge(), for tests and counters. */
enum gsync_cc_verdict {
	GSYNC_CC_KEEP,
	GSYNC_CC_GROW,
	GSYNC_CC_BACKOFF_LOSS,	/* over GSYNC_CC_LOSS_PERMILLE lost */
	GSYNC_CC_BACKOFF_QUEUE,	/* a standing queue, no such loss */
};

int gsync_cc_judge(struct gsync_cc *cc, ktime_t now, u64 round_ns);
u32 gsync_rate_zeros(const unsigned long *have, u32 from, u32 to);
void gsync_rate_window(const unsigned long *have, u32 *h1, u32 *h2,
		       u32 highest, u32 *ok, u32 *lost);
bool gsync_rate_standing(u32 round_min_us, u32 base_us);
struct gsync_rtt_path;
u32 gsync_rtt_path_update(struct gsync_rtt_path *t, unsigned int n,
			  const struct gsync_rtt_path *key, u32 rtt,
			  ktime_t now);

u16 gsync_rate_stamp(void);
u64 gsync_rate_pace(struct gsync_group *g, u64 clique_rate, bool data);
u64 gsync_rate_now(struct gsync_group *g);
void gsync_rate_idle(struct gsync_group *g);
void gsync_rate_rx_data(struct gsync_group *g, unsigned int r,
			const struct gsync_wire_hdr *h, u32 bytes);
void gsync_rate_rx_report(struct gsync_group *g, unsigned int r,
			  const struct gsync_wire_report *rep);
void gsync_rate_tick(struct gsync_group *g);
void gsync_rate_report_leaves(struct gsync_ctrl *c);
u32 gsync_rate_rtt_ms(struct gsync_group *g);

#endif /* GSYNC_RATE_H */
