/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the three parts of the offload engine share, and nothing else uses:
 * offload_engine.c (a group's client, offload_timeout_ms), offload_sched.c
 * (jobs, pieces, dispatch, fallback, deadlines; owns the state below) and
 * offload_agent.c (the agent's commands, /proc/driver/gsync_offload).
 *
 * Locking: gsync_offload_lock (a mutex, process context only) protects
 * everything in gsync_off except the counters (atomic), the registered
 * agent's slots, every gsync_offload_job, each client's inflight count,
 * and every copy into or out of the region. Functions below marked "lock
 * held" assert it. A job's done callback is always called without it.
 */
#ifndef GSYNC_OFFLOAD_INTERNAL_H
#define GSYNC_OFFLOAD_INTERNAL_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "offload.h"

enum gsync_offload_job_state {
	GSYNC_OJ_QUEUED,
	GSYNC_OJ_FALLBACK,
};

/*
 * One accepted job. QUEUED: on gsync_off.active, maybe on
 * gsync_off.pending, maybe referenced by BUSY slots. FALLBACK: on active
 * and on gsync_off.fallback. Taken: on no list; whoever took it computes
 * and finishes it, and only the taker touches job->out outside the lock.
 */
struct gsync_offload_job {
	struct gsync_reduce_job *job;
	struct gsync_offload_client *client;
	struct list_head active_node;	/* on gsync_off.active */
	/* on gsync_off.pending (QUEUED) or gsync_off.fallback (FALLBACK) */
	struct list_head queue_node;
	u8 state;
	unsigned int esize;
	size_t piece;			/* elements per piece */
	size_t next;			/* first element not yet handed out */
	size_t committed;		/* elements committed by the agent */
	unsigned int busy;		/* pieces in BUSY slots */
	unsigned long deadline;		/* jiffies */
	u64 start_ns;			/* ktime_get_ns() at submit */
	u64 id;				/* names it in the tracepoints */
};

/* The offload side of one group's engine (offload_engine.c). */
struct gsync_offload_client {
	unsigned int inflight;		/* lock: accepted, done not returned */
	wait_queue_head_t idle;
};

extern struct mutex gsync_offload_lock;

struct gsync_offload_state {
	struct gsync_offload_agent *agent;	/* registered, not stopped */
	struct list_head active;	/* every QUEUED or FALLBACK job */
	struct list_head pending;	/* QUEUED jobs with elements left */
	struct list_head fallback;	/* FALLBACK jobs */
	u64 next_id;			/* last job id handed out */
	u64 next_job;			/* last gsync_offload_job.id */
	atomic64_t counters[GSYNC_OC_MAX];
};

extern struct gsync_offload_state gsync_off;

static inline void gsync_oc_inc(enum gsync_offload_counter c)
{
	atomic64_inc(&gsync_off.counters[c]);
}

static inline void gsync_oc_add(enum gsync_offload_counter c, u64 v)
{
	atomic64_add(v, &gsync_off.counters[c]);
}

/* offload_sched.c */
int gsync_offload_queue(struct gsync_offload_client *cl,
			struct gsync_reduce_job *job);
bool gsync_offload_dispatch(struct gsync_offload_agent *a, void *self);
void gsync_offload_to_fallback(struct gsync_offload_job *oj,
			       enum gsync_offload_counter why);
void gsync_offload_take(struct gsync_offload_job *oj);
void gsync_offload_finish(struct gsync_offload_job *oj, int status);
void gsync_offload_kick_monitor(void);
u8 *gsync_offload_slot_data(struct gsync_offload_agent *a, u32 slot);
void gsync_offload_count_jobs(unsigned int *active, unsigned int *held);

/* offload_agent.c */
int gsync_offload_stop_locked(struct gsync_offload_agent *a);

#endif /* GSYNC_OFFLOAD_INTERNAL_H */
