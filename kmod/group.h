/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Group transport state: one struct gsync_group per joined AF_GSYNC socket.
 *
 * Operation slots. An operation (one all-reduce, identified by seq) lives
 * in slot seq % window from the local sendmsg() until it has been handed
 * to the user and no peer needs our contribution any more. Valid sequence
 * numbers are [base_seq, base_seq + window); packets outside are dropped
 * and counted. Packets for an operation we have not submitted yet are kept
 * in a bounded stash and replayed at submission, so every allocation for an
 * operation happens in process context.
 *
 * Locking: see gsync.h. Everything below marked "lock" is under
 * gsync_group.lock. Buffers of an operation in state REDUCING are read by
 * the reduce work without the lock: nothing writes or frees them then
 * (packets for a complete contribution are dropped as duplicates, and the
 * slot is freed only after delivery).
 */
#ifndef GSYNC_GROUP_H
#define GSYNC_GROUP_H

#include <linux/bitmap.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/skbuff.h>
#include <linux/sockptr.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/gsync.h>
#include <linux/gsync_wire.h>

#include "rate.h"
#include "reduce.h"
#include "sched.h"

struct gsync_sock;

union gsync_sockaddr {
	struct sockaddr sa;
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
};

/*
 * One stream: what one peer sends us in one step of an operation (its
 * value, or blocks it reduced), as received so far. Chunks of blocks we do
 * not expect from it are marked present when its chunking becomes known,
 * so gaps in have[] are exactly what is missing.
 */
struct gsync_contrib {
	/*
	 * op->len bytes (see borrowed), or with stride > 1 only the blocks
	 * it sends us, every stride-th block from ours, packed: address
	 * them with gsync_stream_ptr()
	 */
	void *buf;
	u16 stride;			/* 0: the whole value */
	unsigned long *have;		/* chunk bits, valid once nchunks */
	u32 *blk_left;			/* [nblocks]: chunks still missing */
	u16 rank;
	bool borrowed;			/* buf is one of op->val[]: not ours */
	bool expects;			/* it sends us anything in this step */
	u32 nchunks;			/* 0 until the first packet */
	u32 chunk_bytes;
	u32 received;
	u32 expected;			/* chunks we expect, once nchunks */
	bool complete;
	unsigned long last_rx;		/* jiffies of the last new chunk */
	unsigned long next_nack;	/* jiffies: no NACK before this */
	unsigned long next_probe;	/* jiffies: no probe before this */
	unsigned long nack_sent_at;	/* jiffies of our last NACK to it */
	u32 highest;			/* highest chunk index + 1 received */
	u32 nacked_hi;			/* gaps below were asked for */
	bool sender_done;		/* it POLLed: every chunk was sent */
	u8 nack_backoff;
	/*
	 * highest at the last two rate (and repair) ticks: holes below are
	 * losses, counted by rate.c and asked for by repair.c
	 */
	u32 rate_h1;
	u32 rate_h2;
};

/*
 * One step of an operation as this rank sees it: step 2r sends values into
 * round r's reductions, step 2r+1 sends reduced blocks back from their
 * owners (see uapi/linux/gsync_wire.h).
 */
struct gsync_step {
	const struct gsync_sclique *q;	/* our clique; NULL: idle step */
	struct gsync_contrib *in;	/* [q->nmembers] by position */
	u16 pos;			/* our position in q */
	u8 src;				/* index in op->val[] we send from */
	bool sends;			/* we send anything in this step */
	bool receives;			/* we expect anything in this step */
	bool status_sent;		/* all our streams in: STATUS sent */
	bool tx_done;			/* every chunk sent once */
	u32 tx_walk;			/* next place in the step's walk */
	u16 tx_dest;			/* next destination of that chunk */
	u8 poll_backoff;
	unsigned long next_poll;	/* jiffies */
	unsigned long *rtx;		/* nchunks bits: chunks to resend */
	u32 *rtx_asked;			/* [nranks]: chunks each peer NACKed */
	/* [nchunks]: the one rank that asked, or GSYNC_RTX_MANY */
	u16 *rtx_who;
	u32 rtx_pending;		/* bits set in rtx */
	unsigned long need_ack[BITS_TO_LONGS(GSYNC_MAX_RANKS)];
	unsigned long acked[BITS_TO_LONGS(GSYNC_MAX_RANKS)];
};

enum gsync_op_state {
	GSYNC_OPS_OPEN,			/* exchanging and reducing blocks */
	GSYNC_OPS_DONE,			/* result ready */
	GSYNC_OPS_FAILED,		/* status holds the error */
};

/*
 * An operation. Its values: val[0] is our buffer, val[r + 1] our value
 * after round r (the same buffer as val[r] when we sit the round out:
 * base[] names the owner). ready[v] marks blocks of val[v] that are final;
 * pend[r][b] counts inputs of block b of round r still missing here.
 */
struct gsync_op {
	u64 seq;
	u8 dtype;
	u8 redop;
	u8 state;			/* enum gsync_op_state */
	bool delivered;			/* handed to the user by recvmsg */
	bool retained;			/* values kept for peers' NACKs */
	int status;			/* 0 or -errno */
	u32 len;
	struct gsync_sched *sched;	/* held reference */
	u16 nrounds;
	u16 nsteps;
	u32 block;			/* bytes per block */
	u32 nblocks;
	u32 nchunks;			/* our chunking (g->chunk_bytes) */
	u32 ppb;			/* our chunks per block */
	u32 jobs;			/* reductions with the engine */
	void *sendbuf;			/* == val[0] */
	void *result;			/* == val[nrounds] */
	void *val[GSYNC_SCHED_MAX_ROUNDS + 1];
	u8 base[GSYNC_SCHED_MAX_ROUNDS + 1];
	unsigned long *ready[GSYNC_SCHED_MAX_ROUNDS + 1];
	u32 nready;			/* blocks ready in val[nrounds] */
	u16 *pend[GSYNC_SCHED_MAX_ROUNDS];
	unsigned long *reducible[GSYNC_SCHED_MAX_ROUNDS];
	struct gsync_step step[GSYNC_MAX_STEPS];
	struct gsync_group *group;
	struct list_head free_node;	/* on a to-free list once released */
	u64 mem;			/* bytes allocated for it, sendbuf too */
	u64 charged;			/* of which charged to g (mem.c) */
	bool over_budget;		/* allocation stopped at the budget */
	unsigned long submitted_at;	/* jiffies of our sendmsg() */
	u64 submit_ns;			/* ktime_get_ns() of it, for tracing */
	unsigned long retain_until;	/* jiffies: keep values for NACKs */
};

/*
 * Operation buffers: charged to the submitter's memory cgroup, and failing
 * with ENOMEM at its limit instead of invoking its OOM killer (a training
 * process that asks too much gets an error, not SIGKILL).
 */
#define GSYNC_GFP_OP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

#define GSYNC_RTX_MANY		0xfffe
/* Smallest DATA chunk we accept: bounds per-operation chunk bitmaps. */
#define GSYNC_MIN_CHUNK_BYTES	256

/* A control packet waiting to be sent (NACK, STATUS, POLL, ABORT). */
struct gsync_ctrl {
	struct list_head node;
	/* rank, or -1 for the multicast group (every peer in unicast mode) */
	int dest;
	bool answer;			/* answers dest's packet (send.c) */
	union gsync_sockaddr maddr;	/* dest -1: a clique group, or none */
	ktime_t echo_at;		/* REPORT: when the DATA it echoes came */
	unsigned int len;
	u8 data[];			/* header + payload */
};

struct gsync_group {
	struct gsync_sock *gs;		/* lock: NULL once the socket closed */
	struct net *net;
	kuid_t uid;			/* the socket's owner at JOIN */
	struct gsync_join cfg;		/* validated, defaults applied */
	struct gsync_addr *members;	/* [nranks] */
	/* lock: [nranks] NACK-to-repair time, jiffies, smoothed; 0 = unknown */
	unsigned long *srtt;
	/* lock: [nranks] jiffies of the last valid packet from each peer */
	unsigned long *heard;
	/*
	 * lock: [nranks] jiffies of the last packet from each peer's address
	 * that did not authenticate (keyed groups, seal.c; 0 = none)
	 */
	unsigned long *auth_fail;
	/* lock: [nranks] NACK/POLL token bucket per peer (receive.c) */
	u32 *ctl_tokens;
	unsigned long *ctl_refill;
	/* lock: [nranks] entries of ctrl_q answering each peer (send.c) */
	u16 *ctrl_answers;
	union gsync_sockaddr *peer_sa;	/* [nranks], ready for sendmsg */
	union gsync_sockaddr mcast_sa;
	int family;			/* AF_INET or AF_INET6 */
	bool unicast;			/* GSYNC_JOIN_UNICAST */
	u32 chunk_bytes;		/* our DATA payload size */
	/* keyed groups (seal.c): lock; set at JOIN, freed at destroy */
	struct gsync_keys *keys;
	u8 sec_len;			/* 0, or room for struct gsync_wire_sec */
	u8 seal_len;			/* 0, or sec_len + the tag */
	struct socket *usock;		/* bound to our endpoint; sends all */
	struct socket *msock;		/* bound to the group; NULL if unicast */
	/* gsync_net.lock (mgroup.c): struct gsync_mgroup, clique groups */
	struct list_head mgroups;
	unsigned int nmgroups;

	spinlock_t lock;
	bool dead;			/* lock: tearing down, queue nothing */
	bool lingering;			/* lock: socket closed, serving peers */
	struct list_head linger_node;	/* gsync_net.lingering, its lock */
	struct list_head net_node;	/* gsync_net.groups, its lock */
	struct work_struct destroy_work;/* ends a lingering group */
	u64 base_seq;			/* lock: oldest seq holding a slot */
	u64 next_seq;			/* lock: seq of the next sendmsg */
	u64 deliver_seq;		/* lock: seq recvmsg returns next */
	struct gsync_op **slots;	/* lock: [window] */
	struct sk_buff_head stash;	/* lock: packets for future ops */
	bool replaying;			/* lock: handling the stash's packets */
	unsigned int stash_bytes;	/* lock: truesize of the stash */
	struct list_head ctrl_q;	/* lock: struct gsync_ctrl */
	unsigned int ctrl_len;		/* lock: entries in ctrl_q */
	u64 rate;			/* lock: pacing, bytes/s, 0 = adaptive */
	struct gsync_cc cc;		/* lock: the adaptive rate (rate.c) */
	struct gsync_rate_peer *ratep;	/* lock: [nranks] (rate.c) */
	s64 tokens;			/* lock: pacing bucket, bytes */
	ktime_t refill;			/* lock: when tokens were topped up */
	struct gsync_stats stats;	/* lock */
	atomic64_t mem;			/* bytes its operations hold (mem.c) */
	u8 *txbuf;			/* tx work only: packet being sent */

	struct delayed_work tx_work;	/* sends queued packets, paced */
	struct delayed_work repair_work;/* NACK/POLL/timeouts, every repair_ms */
	struct work_struct reduce_work;	/* reduces blocks whose inputs are in */
	struct gsync_reduce_engine *engine;
	/* lock: schedule of the next operations, and one waiting for seq */
	struct gsync_sched *sched;
	struct gsync_sched *sched_next;
};

static inline struct gsync_op *gsync_slot(struct gsync_group *g, u64 seq)
{
	return g->slots[seq % g->cfg.window];
}

static inline bool gsync_seq_in_window(struct gsync_group *g, u64 seq)
{
	return seq >= g->base_seq && seq - g->base_seq < g->cfg.window;
}

/* group.c */
int gsync_group_join(struct gsync_sock *gs, sockptr_t optval,
		     unsigned int optlen);
void gsync_group_destroy(struct gsync_group *g, bool from_work);
void gsync_group_close(struct gsync_group *g);
int gsync_join_check(struct gsync_join *j,
		     const struct gsync_addr *members);
void gsync_group_wake_reader(struct gsync_group *g);
void gsync_group_wake_writer(struct gsync_group *g);

#endif /* GSYNC_GROUP_H */
