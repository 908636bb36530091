/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reduction-engine interface: k input buffers -> one output buffer.
 *
 * The transport hands every reduction to its group's engine through this
 * interface; that engine (reduce.c) selects the CPU backend (reduce_cpu.c)
 * or the offload backend (offload_*.c, which hands jobs to the FPGA agent)
 * for each job. The arithmetic of every engine is the one in
 * docs/reduction-semantics.md, bit for bit: inputs are folded strictly
 * left to right in the order of in[] (the canonical rank order), so every
 * rank computes identical bits whatever the arrival order.
 *
 * Context and locking: submit() is called in process context, without
 * spinlocks held, and may sleep. An engine calls job->done exactly once per
 * accepted job, in process context, possibly before submit() returns.
 */
#ifndef GSYNC_REDUCE_H
#define GSYNC_REDUCE_H

#include <linux/list.h>
#include <linux/types.h>

/* Largest k: the largest group has 256 ranks. */
#define GSYNC_REDUCE_MAX_K		256
/* Largest avg_divisor (the reference's exact fp32 division by an integer). */
#define GSYNC_REDUCE_MAX_DIVISOR	65536

struct gsync_reduce_job {
	const void *const *in;	/* k inputs, canonical order */
	unsigned int k;		/* >= 1 */
	void *out;		/* may alias no input */
	size_t count;		/* elements */
	u8 dtype;		/* enum gsync_dtype */
	u8 op;			/* enum gsync_redop */
	u32 avg_divisor;	/* GSYNC_OP_AVG divides the sum by this; >= 1 */
	int status;		/* set by the engine before done: 0 / -errno */
	void (*done)(struct gsync_reduce_job *job);
	void *priv;		/* the submitter's */
	struct list_head node;	/* the engine's, while it owns the job */
	/* for the offload tracepoints only: whose operation it is */
	u64 group_id;
	u64 seq;
	u16 rank;
};

struct gsync_reduce_engine {
	const char *name;
	/*
	 * Take a job. Returns 0 if accepted (done will be called) or -errno
	 * if not (done will not be called; the caller may use another
	 * engine).
	 */
	int (*submit)(struct gsync_reduce_engine *eng,
		      struct gsync_reduce_job *job);
};

/* Validate a job's fields: 0 or -EINVAL. Engines call this first. */
int gsync_reduce_job_check(const struct gsync_reduce_job *job);

/* Element size of a dtype in bytes, 0 if unknown. */
unsigned int gsync_dtype_size(unsigned int dtype);

/*
 * The CPU backend, synchronous: computes the job in the caller's context
 * (process context; uses the FPU/SIMD units where the kernel allows) and
 * returns 0 or -EINVAL. Does not call job->done.
 */
int gsync_reduce_cpu(const struct gsync_reduce_job *job);

/* The CPU backend as an engine (calls done before submit returns). */
extern struct gsync_reduce_engine gsync_reduce_cpu_engine;

/*
 * A group's engine: selects, per job, the CPU engine or the offload
 * engine (offload.h) by mode (enum gsync_engine, the socket's
 * GSYNC_ENGINE; GSYNC_ENGINE_DEFAULT follows the engine module parameter
 * as it is when the job is submitted). create() returns NULL without
 * memory; an unknown mode is taken as GSYNC_ENGINE_DEFAULT. set_mode()
 * applies to jobs submitted after it returns and fails only with -EINVAL
 * for an unknown mode. quiesce(): the group submits no more; finishes its
 * jobs still with an engine (-ECANCELED) and waits for those being
 * finished. destroy() quiesces and frees. All run in process context and
 * may sleep; quiesce() and destroy() accept NULL.
 */
struct gsync_reduce_engine *gsync_reduce_engine_create(u32 mode);
int gsync_reduce_engine_set_mode(struct gsync_reduce_engine *eng, u32 mode);
void gsync_reduce_engine_quiesce(struct gsync_reduce_engine *eng);
void gsync_reduce_engine_destroy(struct gsync_reduce_engine *eng);

#endif /* GSYNC_REDUCE_H */
