/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The offload reduction engine and the /dev/gsync-offload device it hands
 * jobs to. See docs/offload.md. The engine is split by concern:
 *  - offload_engine.c: a group's client, offload_timeout_ms;
 *  - offload_sched.c: jobs, pieces, dispatch, fallback, deadlines;
 *  - offload_agent.c: the agent's commands, /proc/driver/gsync_offload;
 *  - offload_dev.c: the misc device and io_uring glue.
 * offload_internal.h has what the first three share.
 *
 * Engine selection is reduce.c's: a group's engine, from
 * gsync_reduce_engine_create(), computes CPU-mode jobs itself and hands
 * jobs for the agent to its offload client, which counts them in flight
 * so that the group can wait for them before it frees its operations
 * (gsync_offload_client_quiesce()).
 *
 * Locking: one mutex (gsync_offload_lock, in offload_sched.c) protects the
 * registered agent, its slots, the job lists and every copy into or out of
 * the shared region; everything runs in process context. Lock order:
 * io_uring's ctx->uring_lock, then gsync_offload_lock, then
 * gsync_group.lock (taken by a job's done callback, which the engine calls
 * only after dropping its mutex). Nothing here calls into io_uring with
 * the mutex held except io_uring_cmd_complete_in_task() and
 * io_uring_cmd_mark_cancelable() with the issue's own flags, which take
 * no lock that the issue path does not already hold.
 */
#ifndef GSYNC_OFFLOAD_H
#define GSYNC_OFFLOAD_H

#include <linux/list.h>
#include <linux/types.h>
#include <linux/gsync.h>
#include <linux/gsync_offload.h>

#include "reduce.h"

/* Called from reduce.c (offload_engine.c). */
struct gsync_offload_client;
struct gsync_offload_client *gsync_offload_client_create(void);
int gsync_offload_client_submit(struct gsync_offload_client *cl,
				struct gsync_reduce_job *job);
void gsync_offload_client_quiesce(struct gsync_offload_client *cl);
void gsync_offload_client_destroy(struct gsync_offload_client *cl);

/*
 * The names the KUnit suite knows a group's engine by, from when the
 * offload engine did the selection: the engine is reduce.c's now.
 */
static inline struct gsync_reduce_engine *gsync_offload_engine_create(u32 mode)
{
	return gsync_reduce_engine_create(mode);
}

static inline int gsync_offload_engine_set_mode(struct gsync_reduce_engine *eng,
						u32 mode)
{
	return gsync_reduce_engine_set_mode(eng, mode);
}

static inline void gsync_offload_engine_quiesce(struct gsync_reduce_engine *eng)
{
	gsync_reduce_engine_quiesce(eng);
}

static inline void gsync_offload_engine_destroy(struct gsync_reduce_engine *eng)
{
	gsync_reduce_engine_destroy(eng);
}

/* Called from main.c. */
int gsync_offload_init(void);
void gsync_offload_exit(void);

/* ---- between the engine (offload_*.c) and offload_dev.c (device) ---- */

enum gsync_offload_slot_state {
	GSYNC_SLOT_AGENT,	/* the agent has it, no FETCH parked */
	GSYNC_SLOT_ARMED,	/* a FETCH is parked, no job */
	GSYNC_SLOT_BUSY,	/* a job was handed out, commit expected */
};

struct gsync_offload_job;

struct gsync_offload_slot {
	u8 state;			/* enum gsync_offload_slot_state */
	void *cmd;			/* ARMED: the parked command */
	struct list_head armed_node;	/* ARMED: on agent->armed */
	/* BUSY: the job the piece belongs to; NULL once taken back */
	struct gsync_offload_job *oj;
	u64 job_id;			/* BUSY: the id handed out */
	size_t first, n;		/* BUSY: elements [first, first + n) */
};

struct gsync_offload_agent {
	bool registered;		/* REGISTER succeeded */
	bool stopped;			/* STOP, death or release: for good */
	struct gsync_offload_register reg;
	void *region;			/* vmalloc_user(), mmap()ed by the agent */
	size_t region_bytes;
	struct gsync_offload_slot *slots;	/* [reg.nslots] */
	struct list_head armed;		/* slots with a FETCH parked */
	struct task_struct *task;	/* thread group leader of the agent */
	/*
	 * Complete a parked command from outside its issue; called with the
	 * lock held. The device completes it in the issuer's task context;
	 * KUnit records it.
	 */
	void (*complete)(struct gsync_offload_agent *a, void *cmd, int res);
};

/* Counters, /proc/driver/gsync_offload; see docs/offload.md. */
enum gsync_offload_counter {
	GSYNC_OC_SUBMITTED,		/* jobs the offload engine accepted */
	GSYNC_OC_OFFLOADED,		/* ... completed by the agent */
	GSYNC_OC_PIECES,		/* pieces handed to the agent */
	GSYNC_OC_COMMITS,		/* pieces committed with status 0 */
	GSYNC_OC_CPU,			/* jobs for the CPU by selection */
	GSYNC_OC_NO_AGENT,		/* engine=offload but no agent: CPU */
	GSYNC_OC_DECLINED,		/* beyond the agent's limits: CPU */
	GSYNC_OC_FB_TIMEOUT,		/* fallbacks: deadline missed */
	GSYNC_OC_FB_ERROR,		/* fallbacks: agent committed an error */
	GSYNC_OC_FB_GONE,		/* fallbacks: agent stopped or died */
	GSYNC_OC_CANCELLED,		/* jobs of destroyed groups */
	GSYNC_OC_BAD_CMDS,		/* commands rejected with -EINVAL */
	GSYNC_OC_LATE_COMMITS,		/* commits for jobs already taken back */
	GSYNC_OC_REGISTERS,		/* agents registered */
	GSYNC_OC_AGENT_LOST,		/* agents gone without STOP */
	GSYNC_OC_OFFLOAD_NS,		/* submit to done, offloaded jobs */
	GSYNC_OC_CPU_NS,		/* submit to done, GSYNC_OC_CPU jobs */
	GSYNC_OC_MAX,
};

u64 gsync_offload_counter(enum gsync_offload_counter c);
/* Count for reduce.c, which selects the CPU for jobs_cpu and jobs_no_agent. */
void gsync_offload_counter_add(enum gsync_offload_counter c, u64 v);
unsigned int gsync_offload_jobs_held(void);

int gsync_offload_check_register(const struct gsync_offload_register *r);
struct gsync_offload_agent *gsync_offload_agent_alloc(void);
int gsync_offload_agent_register(struct gsync_offload_agent *a,
				 const struct gsync_offload_register *r);
int gsync_offload_fetch(struct gsync_offload_agent *a,
			const struct gsync_offload_slot_cmd *sc, void *cmd,
			bool commit);
int gsync_offload_stop(struct gsync_offload_agent *a);
int gsync_offload_cancel_cmd(struct gsync_offload_agent *a, u32 slot,
			     void *cmd);
void gsync_offload_agent_release(struct gsync_offload_agent *a);
void gsync_offload_expire(void);
void gsync_offload_flush(void);
unsigned int gsync_offload_timeout_ms(void);
struct seq_file;
int gsync_offload_show(struct seq_file *m, void *v);
void gsync_offload_core_exit(void);
void gsync_offload_set_timeout_ms(unsigned int ms);

#endif /* GSYNC_OFFLOAD_H */
