// SPDX-License-Identifier: GPL-2.0
/*
 * The offload job scheduler: accepts a client's job, cuts it into pieces,
 * hands the pieces to the agent's armed slots, and takes jobs back for the
 * CPU (fallback work) when their deadline passes (monitor work). Owns the
 * engine's global state (gsync_off) and its counters.
 *
 * A job is cut into pieces that fit one slot of the shared region:
 * elements [first, first + n) of its k inputs are copied into the slot's
 * data area when a parked FETCH takes the piece, and the piece's output is
 * copied back into job->out when the agent commits it (offload_agent.c).
 * The kernel copies rather than letting the transport receive into the
 * region: contribution buffers are allocated per operation by the receive
 * path before any engine is chosen, and the region is writable by the
 * agent at any time, so the transport's buffers must never live in it.
 *
 * Fallback: a job is taken back from the agent (every piece, dispatched or
 * not) when its deadline passes (offload_timeout_ms from submission), when
 * the agent commits an error for one of its pieces, or when the agent
 * stops, dies or closes the device. The whole job is then computed again
 * by gsync_reduce_cpu() in fallback_work; the bits are the same whichever
 * engine computed a piece, so pieces the agent already committed are
 * simply overwritten with identical values. A late commit for a piece that
 * was taken back only re-arms its slot. Job states: offload_internal.h.
 *
 * Locking: gsync_offload_lock (defined here, see offload_internal.h)
 * protects gsync_off, the registered agent's slots, every job and each
 * client's inflight count; functions called "lock held" below run under
 * it. Every caller is in process context: a client's submit (the
 * transport's reduce work), the agent's commands (io_uring issue and task
 * work), fallback_work, monitor_work and group teardown. A job's done
 * callback is called by gsync_offload_finish(), without the mutex; the
 * counters are atomic and read without it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": offload: " fmt

#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "gsync.h"
#include "offload_internal.h"
#include "trace.h"

DEFINE_MUTEX(gsync_offload_lock);

struct gsync_offload_state gsync_off = {
	.active = LIST_HEAD_INIT(gsync_off.active),
	.pending = LIST_HEAD_INIT(gsync_off.pending),
	.fallback = LIST_HEAD_INIT(gsync_off.fallback),
};

static void gsync_offload_fallback_work(struct work_struct *work);
static void gsync_offload_monitor_work(struct work_struct *work);
static DECLARE_WORK(gsync_offload_fallback, gsync_offload_fallback_work);
static DECLARE_DELAYED_WORK(gsync_offload_monitor, gsync_offload_monitor_work);

u64 gsync_offload_counter(enum gsync_offload_counter c)
{
	return c < GSYNC_OC_MAX ? atomic64_read(&gsync_off.counters[c]) : 0;
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_counter);

void gsync_offload_counter_add(enum gsync_offload_counter c, u64 v)
{
	if (!WARN_ON_ONCE(c >= GSYNC_OC_MAX))
		gsync_oc_add(c, v);
}

void gsync_offload_kick_monitor(void)
{
	unsigned long period = msecs_to_jiffies(min(gsync_offload_timeout_ms() / 4,
						    50U));

	queue_delayed_work(system_wq, &gsync_offload_monitor, max(period, 1UL));
}

/* ---- pieces and dispatch (lock held) ------------------------------------ */

u8 *gsync_offload_slot_data(struct gsync_offload_agent *a, u32 slot)
{
	return (u8 *)a->region + GSYNC_OFFLOAD_DATA_OFF(a->reg.nslots) +
	       (size_t)slot * a->reg.slot_bytes;
}

/*
 * Elements per piece for a job with k inputs of esize bytes: k + 1 areas
 * of 64-byte multiples must fit in a slot; a multiple of 32 elements so
 * only a job's last piece can end in a half 32-bit word. 0 if none fits.
 */
static size_t gsync_piece_elems(const struct gsync_offload_agent *a,
				unsigned int k, unsigned int esize)
{
	size_t area = rounddown(a->reg.slot_bytes / (k + 1), 64);

	return rounddown(area / esize, 32);
}

/* Can the agent compute this (already validated) job? */
static bool gsync_offload_fits(const struct gsync_offload_agent *a,
			       const struct gsync_reduce_job *job)
{
	if (job->k > a->reg.max_k || !(a->reg.dtypes & BIT(job->dtype)) ||
	    !(a->reg.ops & BIT(job->op)))
		return false;
	/* The HLS kernel divides by k. */
	if (job->op == GSYNC_OP_AVG && job->avg_divisor != job->k)
		return false;
	return gsync_piece_elems(a, job->k, gsync_dtype_size(job->dtype)) > 0;
}

/* Hand out one piece of oj to slot s and take the slot's parked command. */
static void *gsync_offload_give(struct gsync_offload_agent *a,
				struct gsync_offload_job *oj, u32 slot)
{
	struct gsync_offload_slot *s = &a->slots[slot];
	const struct gsync_reduce_job *job = oj->job;
	struct gsync_offload_desc d = {};
	size_t n = min(oj->piece, job->count - oj->next);
	size_t bytes = n * oj->esize, stride = oj->piece * oj->esize;
	u8 *data = gsync_offload_slot_data(a, slot);
	unsigned int j;
	void *cmd;

	for (j = 0; j < job->k; j++)
		memcpy(data + j * stride,
		       (const u8 *)job->in[j] + oj->next * oj->esize, bytes);

	d.job_id = ++gsync_off.next_id;
	d.k = job->k;
	d.count = n;
	d.dtype = job->dtype;
	d.op = job->op;
	d.avg_divisor = job->op == GSYNC_OP_AVG ? job->avg_divisor : 1;
	d.in_off = GSYNC_OFFLOAD_DATA_OFF(a->reg.nslots) +
		   (u64)slot * a->reg.slot_bytes;
	d.in_stride = stride;
	d.out_off = d.in_off + (u64)job->k * stride;
	memcpy((struct gsync_offload_desc *)a->region + slot, &d, sizeof(d));

	s->oj = oj;
	s->job_id = d.job_id;
	s->first = oj->next;
	s->n = n;
	s->state = GSYNC_SLOT_BUSY;
	cmd = s->cmd;
	s->cmd = NULL;
	list_del_init(&s->armed_node);

	oj->next += n;
	oj->busy++;
	if (oj->next == job->count)
		list_del_init(&oj->queue_node);
	gsync_oc_inc(GSYNC_OC_PIECES);
	trace_gsync_offload_dispatch(job, oj->id, d.job_id, slot, bytes);
	return cmd;
}

/*
 * Give pending pieces to armed slots. The parked command of each slot that
 * got one is completed with 0, except @self (a command being issued),
 * which the caller completes: returns true if it got a piece.
 */
bool gsync_offload_dispatch(struct gsync_offload_agent *a, void *self)
{
	struct gsync_offload_slot *s;
	struct gsync_offload_job *oj;
	bool mine = false;
	void *cmd;

	lockdep_assert_held(&gsync_offload_lock);
	while (!list_empty(&gsync_off.pending) && !list_empty(&a->armed)) {
		oj = list_first_entry(&gsync_off.pending,
				      struct gsync_offload_job, queue_node);
		s = list_first_entry(&a->armed, struct gsync_offload_slot,
				     armed_node);
		cmd = gsync_offload_give(a, oj, s - a->slots);
		if (cmd == self)
			mine = true;
		else
			a->complete(a, cmd, 0);
	}
	return mine;
}

/*
 * Queue a client's validated job for the agent. 0 if accepted, -ENODEV
 * if no agent is registered (not counted: what that means is the
 * engine selection's business, reduce.c), -EOPNOTSUPP if it is beyond
 * the agent's limits (counted), -ENOMEM. Lock not held.
 */
int gsync_offload_queue(struct gsync_offload_client *cl,
			struct gsync_reduce_job *job)
{
	struct gsync_offload_agent *a;
	struct gsync_offload_job *oj;

	/* Cheap test first: no allocation when no agent is there. */
	if (!READ_ONCE(gsync_off.agent))
		return -ENODEV;
	oj = kzalloc(sizeof(*oj), GFP_KERNEL);
	if (!oj)
		return -ENOMEM;

	mutex_lock(&gsync_offload_lock);
	a = gsync_off.agent;
	if (!a || !gsync_offload_fits(a, job)) {
		mutex_unlock(&gsync_offload_lock);
		kfree(oj);
		if (!a)
			return -ENODEV;
		gsync_oc_inc(GSYNC_OC_DECLINED);
		return -EOPNOTSUPP;
	}
	oj->job = job;
	oj->client = cl;
	oj->state = GSYNC_OJ_QUEUED;
	oj->esize = gsync_dtype_size(job->dtype);
	oj->piece = gsync_piece_elems(a, job->k, oj->esize);
	oj->deadline = jiffies + msecs_to_jiffies(gsync_offload_timeout_ms());
	oj->start_ns = ktime_get_ns();
	oj->id = ++gsync_off.next_job;
	list_add_tail(&oj->active_node, &gsync_off.active);
	list_add_tail(&oj->queue_node, &gsync_off.pending);
	WRITE_ONCE(cl->inflight, cl->inflight + 1);
	gsync_oc_inc(GSYNC_OC_SUBMITTED);
	gsync_offload_dispatch(a, NULL);
	mutex_unlock(&gsync_offload_lock);
	gsync_offload_kick_monitor();
	return 0;
}

/* ---- taking jobs back and finishing them -------------------------------- */

/* Forget every reference the agent's slots hold to oj. Lock held. */
static void gsync_offload_unbusy(struct gsync_offload_job *oj)
{
	struct gsync_offload_agent *a = gsync_off.agent;
	u32 i;

	if (!oj->busy || WARN_ON_ONCE(!a))
		return;
	for (i = 0; i < a->reg.nslots && oj->busy; i++) {
		if (a->slots[i].state == GSYNC_SLOT_BUSY &&
		    a->slots[i].oj == oj) {
			a->slots[i].oj = NULL;
			oj->busy--;
		}
	}
}

/* Take oj back from the agent for the CPU. Lock held; oj QUEUED. */
void gsync_offload_to_fallback(struct gsync_offload_job *oj,
			       enum gsync_offload_counter why)
{
	lockdep_assert_held(&gsync_offload_lock);
	gsync_offload_unbusy(oj);
	list_del_init(&oj->queue_node);
	oj->state = GSYNC_OJ_FALLBACK;
	list_add_tail(&oj->queue_node, &gsync_off.fallback);
	gsync_oc_inc(why);
	trace_gsync_offload_fallback(oj->job, oj->id, why,
				     (u64)oj->committed * oj->esize);
	queue_work(system_unbound_wq, &gsync_offload_fallback);
}

/* Take oj off every list; the caller finishes it. Lock held. */
void gsync_offload_take(struct gsync_offload_job *oj)
{
	lockdep_assert_held(&gsync_offload_lock);
	gsync_offload_unbusy(oj);
	list_del_init(&oj->queue_node);
	list_del_init(&oj->active_node);
}

/* Call done for a taken job; lock not held. */
void gsync_offload_finish(struct gsync_offload_job *oj, int status)
{
	struct gsync_reduce_job *job = oj->job;
	struct gsync_offload_client *cl = oj->client;

	trace_gsync_offload_complete(job, oj->id,
				     oj->state == GSYNC_OJ_FALLBACK, status,
				     oj->start_ns);
	kfree(oj);
	job->status = status;
	job->done(job);
	mutex_lock(&gsync_offload_lock);
	WRITE_ONCE(cl->inflight, cl->inflight - 1);
	if (!cl->inflight)
		wake_up_all(&cl->idle);
	mutex_unlock(&gsync_offload_lock);
}

static void gsync_offload_fallback_work(struct work_struct *work)
{
	struct gsync_offload_job *oj;

	for (;;) {
		mutex_lock(&gsync_offload_lock);
		oj = list_first_entry_or_null(&gsync_off.fallback,
					      struct gsync_offload_job,
					      queue_node);
		if (oj)
			gsync_offload_take(oj);
		mutex_unlock(&gsync_offload_lock);
		if (!oj)
			return;
		gsync_offload_finish(oj, gsync_reduce_cpu(oj->job));
		cond_resched();
	}
}

/* Deadlines; an agent whose task is exiting (6.1 cannot cancel). */
void gsync_offload_expire(void)
{
	struct gsync_offload_job *oj, *tmp;
	struct gsync_offload_agent *a;
	bool again;

	mutex_lock(&gsync_offload_lock);
	list_for_each_entry_safe(oj, tmp, &gsync_off.active, active_node) {
		if (oj->state == GSYNC_OJ_QUEUED &&
		    time_after_eq(jiffies, oj->deadline))
			gsync_offload_to_fallback(oj, GSYNC_OC_FB_TIMEOUT);
	}
	a = gsync_off.agent;
	if (a && a->task && (READ_ONCE(a->task->flags) & PF_EXITING) &&
	    !gsync_offload_stop_locked(a))
		gsync_oc_inc(GSYNC_OC_AGENT_LOST);
	again = gsync_off.agent || !list_empty(&gsync_off.active);
	mutex_unlock(&gsync_offload_lock);
	if (again)
		gsync_offload_kick_monitor();
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_expire);

static void gsync_offload_monitor_work(struct work_struct *work)
{
	gsync_offload_expire();
}

/* Wait until no fallback is queued or running (KUnit, module exit). */
void gsync_offload_flush(void)
{
	flush_work(&gsync_offload_fallback);
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_flush);

/* ---- gauges --------------------------------------------------------------- */

/*
 * Lock held. @active: accepted jobs not finished yet. @held: those of them
 * of which the agent holds a piece: handed to one of its FETCHes (BUSY
 * slot), neither committed nor taken back. A held job is QUEUED, so it can
 * only end by the agent's commits or by a fallback (or a cancel).
 */
void gsync_offload_count_jobs(unsigned int *active, unsigned int *held)
{
	struct gsync_offload_job *oj;

	lockdep_assert_held(&gsync_offload_lock);
	*active = 0;
	*held = 0;
	list_for_each_entry(oj, &gsync_off.active, active_node) {
		(*active)++;
		if (oj->busy)
			(*held)++;
	}
}

unsigned int gsync_offload_jobs_held(void)
{
	unsigned int active, held;

	mutex_lock(&gsync_offload_lock);
	gsync_offload_count_jobs(&active, &held);
	mutex_unlock(&gsync_offload_lock);
	return held;
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_jobs_held);

/* Module exit: no socket and no agent file can exist any more. */
void gsync_offload_core_exit(void)
{
	cancel_delayed_work_sync(&gsync_offload_monitor);
	flush_work(&gsync_offload_fallback);
	WARN_ON(!list_empty(&gsync_off.active));
}
