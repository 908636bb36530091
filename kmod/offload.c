// SPDX-License-Identifier: GPL-2.0
/*
 * The offload reduction engine: hands reduction jobs to the agent that
 * registered on /dev/gsync-offload (offload_dev.c has the io_uring side)
 * and falls back to the CPU engine whenever the agent cannot finish one.
 *
 * A job is cut into pieces that fit one slot of the shared region:
 * elements [first, first + n) of its k inputs are copied into the slot's
 * data area when a parked FETCH takes the piece, and the piece's output is
 * copied back into job->out when the agent commits it. The kernel copies
 * rather than letting the transport receive into the region: contribution
 * buffers are allocated per operation by the receive path before any
 * engine is chosen, and the region is writable by the agent at any time,
 * so the transport's buffers must never live in it.
 *
 * Fallback: a job is taken back from the agent (every piece, dispatched or
 * not) when its deadline passes (timeout_ms from submission), when the
 * agent commits an error for one of its pieces, or when the agent stops,
 * dies or closes the device. The whole job is then computed again by
 * gsync_reduce_cpu() in fallback_work; the bits are the same whichever
 * engine computed a piece, so pieces the agent already committed are
 * simply overwritten with identical values. A late commit for a piece that
 * was taken back only re-arms its slot.
 *
 * Job states: QUEUED (on gsync_off.active, maybe on gsync_off.pending,
 * maybe referenced by BUSY slots), FALLBACK (on active and on the fallback
 * list), and taken (on no list: whoever took it computes and finishes it).
 * Only the taker touches job->out outside the lock.
 *
 * Locking: gsync_offload_lock (a mutex) protects everything in gsync_off,
 * the registered agent's slots, each client's inflight count, and every
 * copy into or out of the region. All callers are in process context:
 * the transport's reduce work (submit), io_uring issue and task work
 * (offload_dev.c), fallback_work, monitor_work and group teardown. A job's
 * done callback is always called without the mutex held. The engine mode
 * of a client and the module parameters are read with READ_ONCE().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": offload: " fmt

#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "gsync.h"
#include "offload.h"

enum gsync_offload_job_state {
	GSYNC_OJ_QUEUED,
	GSYNC_OJ_FALLBACK,
};

/* One accepted job. */
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
};

/* A group's engine. */
struct gsync_offload_client {
	struct gsync_reduce_engine eng;
	u32 mode;			/* enum gsync_engine, READ_ONCE */
	unsigned int inflight;		/* lock: accepted, done not returned */
	wait_queue_head_t idle;
};

static DEFINE_MUTEX(gsync_offload_lock);

static struct {
	struct gsync_offload_agent *agent;	/* registered, not stopped */
	struct list_head active;	/* every QUEUED or FALLBACK job */
	struct list_head pending;	/* QUEUED jobs with elements left */
	struct list_head fallback;	/* FALLBACK jobs */
	u64 next_id;
	atomic64_t counters[GSYNC_OC_MAX];
} gsync_off = {
	.active = LIST_HEAD_INIT(gsync_off.active),
	.pending = LIST_HEAD_INIT(gsync_off.pending),
	.fallback = LIST_HEAD_INIT(gsync_off.fallback),
};

static void gsync_offload_fallback_work(struct work_struct *work);
static void gsync_offload_monitor_work(struct work_struct *work);
static DECLARE_WORK(gsync_offload_fallback, gsync_offload_fallback_work);
static DECLARE_DELAYED_WORK(gsync_offload_monitor, gsync_offload_monitor_work);

/* ---- module parameters ---------------------------------------------- */

static const char *const gsync_engine_names[GSYNC_ENGINE_MAX] = {
	[GSYNC_ENGINE_DEFAULT] = "default",
	[GSYNC_ENGINE_CPU] = "cpu",
	[GSYNC_ENGINE_OFFLOAD] = "offload",
	[GSYNC_ENGINE_AUTO] = "auto",
};

static u32 gsync_engine_param = GSYNC_ENGINE_AUTO;

static int gsync_engine_param_set(const char *val,
				  const struct kernel_param *kp)
{
	u32 i;

	for (i = GSYNC_ENGINE_CPU; i < GSYNC_ENGINE_MAX; i++) {
		if (sysfs_streq(val, gsync_engine_names[i])) {
			WRITE_ONCE(gsync_engine_param, i);
			return 0;
		}
	}
	return -EINVAL;
}

static int gsync_engine_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  gsync_engine_names[READ_ONCE(gsync_engine_param)]);
}

static const struct kernel_param_ops gsync_engine_param_ops = {
	.set = gsync_engine_param_set,
	.get = gsync_engine_param_get,
};

module_param_cb(engine, &gsync_engine_param_ops, NULL, 0644);
MODULE_PARM_DESC(engine,
		 "reduction engine of sockets without GSYNC_ENGINE: cpu, offload or auto (default: offload when an agent is registered)");

static unsigned int gsync_offload_timeout = 200;

static int gsync_timeout_param_set(const char *val,
				   const struct kernel_param *kp)
{
	unsigned int ms;
	int err = kstrtouint(val, 0, &ms);

	if (err)
		return err;
	if (ms < 1 || ms > 60000)
		return -EINVAL;
	WRITE_ONCE(gsync_offload_timeout, ms);
	return 0;
}

static const struct kernel_param_ops gsync_timeout_param_ops = {
	.set = gsync_timeout_param_set,
	.get = param_get_uint,
};

module_param_cb(offload_timeout_ms, &gsync_timeout_param_ops,
		&gsync_offload_timeout, 0644);
MODULE_PARM_DESC(offload_timeout_ms,
		 "a job the agent has not finished this long after submission is computed by the CPU (1..60000, default 200)");

unsigned int gsync_offload_timeout_ms(void)
{
	return READ_ONCE(gsync_offload_timeout);
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_timeout_ms);

void gsync_offload_set_timeout_ms(unsigned int ms)
{
	WRITE_ONCE(gsync_offload_timeout, clamp(ms, 1U, 60000U));
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_set_timeout_ms);

static void gsync_oc_inc(enum gsync_offload_counter c)
{
	atomic64_inc(&gsync_off.counters[c]);
}

static void gsync_oc_add(enum gsync_offload_counter c, u64 v)
{
	atomic64_add(v, &gsync_off.counters[c]);
}

u64 gsync_offload_counter(enum gsync_offload_counter c)
{
	return c < GSYNC_OC_MAX ? atomic64_read(&gsync_off.counters[c]) : 0;
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_counter);

static void gsync_offload_kick_monitor(void)
{
	unsigned long period = msecs_to_jiffies(min(gsync_offload_timeout_ms() / 4,
						    50U));

	queue_delayed_work(system_wq, &gsync_offload_monitor, max(period, 1UL));
}

/* ---- job bookkeeping (lock held) -------------------------------------- */

static u8 *gsync_slot_data(struct gsync_offload_agent *a, u32 slot)
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
	u8 *data = gsync_slot_data(a, slot);
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
	return cmd;
}

/*
 * Give pending pieces to armed slots. The parked command of each slot that
 * got one is completed with 0, except @self (a command being issued),
 * which the caller completes: returns true if it got a piece.
 */
static bool gsync_offload_dispatch(struct gsync_offload_agent *a, void *self)
{
	struct gsync_offload_slot *s;
	struct gsync_offload_job *oj;
	bool mine = false;
	void *cmd;

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

/* Forget every reference the agent's slots hold to oj. */
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
static void gsync_offload_to_fallback(struct gsync_offload_job *oj,
				      enum gsync_offload_counter why)
{
	gsync_offload_unbusy(oj);
	list_del_init(&oj->queue_node);
	oj->state = GSYNC_OJ_FALLBACK;
	list_add_tail(&oj->queue_node, &gsync_off.fallback);
	gsync_oc_inc(why);
	queue_work(system_unbound_wq, &gsync_offload_fallback);
}

/* Take oj off every list; the caller finishes it. Lock held. */
static void gsync_offload_take(struct gsync_offload_job *oj)
{
	gsync_offload_unbusy(oj);
	list_del_init(&oj->queue_node);
	list_del_init(&oj->active_node);
}

/* Call done for a taken job; lock not held. */
static void gsync_offload_finish(struct gsync_offload_job *oj, int status)
{
	struct gsync_reduce_job *job = oj->job;
	struct gsync_offload_client *cl = oj->client;

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

static int gsync_offload_stop_locked(struct gsync_offload_agent *a);

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

/* ---- the engine -------------------------------------------------------- */

static int gsync_offload_submit(struct gsync_reduce_engine *eng,
				struct gsync_reduce_job *job)
{
	struct gsync_offload_client *cl =
		container_of(eng, struct gsync_offload_client, eng);
	struct gsync_offload_agent *a;
	struct gsync_offload_job *oj;
	u32 mode = READ_ONCE(cl->mode);

	might_sleep();
	if (mode == GSYNC_ENGINE_DEFAULT)
		mode = READ_ONCE(gsync_engine_param);
	if (!job || !job->done)
		return -EINVAL;
	if (mode == GSYNC_ENGINE_CPU) {
		u64 t0 = ktime_get_ns();
		int err;

		gsync_oc_inc(GSYNC_OC_CPU);
		err = gsync_reduce_cpu_engine.submit(&gsync_reduce_cpu_engine,
						     job);
		gsync_oc_add(GSYNC_OC_CPU_NS, ktime_get_ns() - t0);
		return err;
	}
	if (gsync_reduce_job_check(job))
		return -EINVAL;
	/* Cheap test first: no allocation when no agent is there. */
	if (!READ_ONCE(gsync_off.agent)) {
		gsync_oc_inc(mode == GSYNC_ENGINE_OFFLOAD ? GSYNC_OC_NO_AGENT :
			     GSYNC_OC_CPU);
		return -ENODEV;
	}
	oj = kzalloc(sizeof(*oj), GFP_KERNEL);
	if (!oj)
		return -ENOMEM;

	mutex_lock(&gsync_offload_lock);
	a = gsync_off.agent;
	if (!a || !gsync_offload_fits(a, job)) {
		mutex_unlock(&gsync_offload_lock);
		kfree(oj);
		gsync_oc_inc(a ? GSYNC_OC_DECLINED :
			     mode == GSYNC_ENGINE_OFFLOAD ? GSYNC_OC_NO_AGENT :
			     GSYNC_OC_CPU);
		return a ? -EOPNOTSUPP : -ENODEV;
	}
	oj->job = job;
	oj->client = cl;
	oj->state = GSYNC_OJ_QUEUED;
	oj->esize = gsync_dtype_size(job->dtype);
	oj->piece = gsync_piece_elems(a, job->k, oj->esize);
	oj->deadline = jiffies + msecs_to_jiffies(gsync_offload_timeout_ms());
	oj->start_ns = ktime_get_ns();
	list_add_tail(&oj->active_node, &gsync_off.active);
	list_add_tail(&oj->queue_node, &gsync_off.pending);
	WRITE_ONCE(cl->inflight, cl->inflight + 1);
	gsync_oc_inc(GSYNC_OC_SUBMITTED);
	gsync_offload_dispatch(a, NULL);
	mutex_unlock(&gsync_offload_lock);
	gsync_offload_kick_monitor();
	return 0;
}

struct gsync_reduce_engine *gsync_offload_engine_create(u32 mode)
{
	struct gsync_offload_client *cl;

	if (mode >= GSYNC_ENGINE_MAX)
		mode = GSYNC_ENGINE_DEFAULT;
	cl = kzalloc(sizeof(*cl), GFP_KERNEL);
	if (!cl)
		return NULL;
	cl->eng.name = "offload";
	cl->eng.submit = gsync_offload_submit;
	cl->mode = mode;
	init_waitqueue_head(&cl->idle);
	return &cl->eng;
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_engine_create);

static struct gsync_offload_client *gsync_client(struct gsync_reduce_engine *eng)
{
	if (!eng || eng->submit != gsync_offload_submit)
		return NULL;
	return container_of(eng, struct gsync_offload_client, eng);
}

int gsync_offload_engine_set_mode(struct gsync_reduce_engine *eng, u32 mode)
{
	struct gsync_offload_client *cl = gsync_client(eng);

	if (mode >= GSYNC_ENGINE_MAX)
		return -EINVAL;
	if (cl)
		WRITE_ONCE(cl->mode, mode);
	return 0;
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_engine_set_mode);

/*
 * A wait_event() condition: runs in TASK_UNINTERRUPTIBLE, so it must not
 * sleep; inflight is written under gsync_offload_lock and read here once.
 */
static bool gsync_client_idle(struct gsync_offload_client *cl)
{
	return !READ_ONCE(cl->inflight);
}

/*
 * The group is going away and submits no more: finish its jobs with
 * -ECANCELED and wait for those another path is finishing right now.
 */
void gsync_offload_engine_quiesce(struct gsync_reduce_engine *eng)
{
	struct gsync_offload_client *cl = gsync_client(eng);
	struct gsync_offload_job *oj, *tmp;
	LIST_HEAD(cancel);

	if (!cl)
		return;
	mutex_lock(&gsync_offload_lock);
	list_for_each_entry_safe(oj, tmp, &gsync_off.active, active_node) {
		if (oj->client != cl)
			continue;
		gsync_offload_take(oj);
		list_add_tail(&oj->active_node, &cancel);
	}
	mutex_unlock(&gsync_offload_lock);
	list_for_each_entry_safe(oj, tmp, &cancel, active_node) {
		list_del(&oj->active_node);
		gsync_oc_inc(GSYNC_OC_CANCELLED);
		gsync_offload_finish(oj, -ECANCELED);
	}
	wait_event(cl->idle, gsync_client_idle(cl));
	/*
	 * The last finisher decrements and wakes under the mutex: taking it
	 * once more waits until it is out of cl, which the caller may free.
	 */
	mutex_lock(&gsync_offload_lock);
	mutex_unlock(&gsync_offload_lock);
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_engine_quiesce);

void gsync_offload_engine_destroy(struct gsync_reduce_engine *eng)
{
	struct gsync_offload_client *cl = gsync_client(eng);

	if (!cl)
		return;
	gsync_offload_engine_quiesce(eng);
	kfree(cl);
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_engine_destroy);

/* ---- the agent's commands ---------------------------------------------- */

int gsync_offload_check_register(const struct gsync_offload_register *r)
{
	u32 known_dtypes = BIT(GSYNC_DTYPE_MAX) - 1;
	u32 known_ops = BIT(GSYNC_REDOP_MAX) - 1;
	unsigned int i;

	if (r->version != GSYNC_OFFLOAD_VERSION || r->flags)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(r->reserved); i++)
		if (r->reserved[i])
			return -EINVAL;
	if (r->nslots < 1 || r->nslots > GSYNC_OFFLOAD_MAX_SLOTS)
		return -EINVAL;
	if (r->slot_bytes < GSYNC_OFFLOAD_MIN_SLOT_BYTES ||
	    r->slot_bytes > GSYNC_OFFLOAD_MAX_SLOT_BYTES ||
	    r->slot_bytes % 4096)
		return -EINVAL;
	if (GSYNC_OFFLOAD_REGION_BYTES(r->nslots, r->slot_bytes) >
	    GSYNC_OFFLOAD_MAX_REGION)
		return -EINVAL;
	if (r->max_k < 1 || r->max_k > GSYNC_OFFLOAD_MAX_K)
		return -EINVAL;
	if (!r->dtypes || (r->dtypes & ~known_dtypes) ||
	    !r->ops || (r->ops & ~known_ops))
		return -EINVAL;
	return 0;
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_check_register);

struct gsync_offload_agent *gsync_offload_agent_alloc(void)
{
	struct gsync_offload_agent *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (a)
		INIT_LIST_HEAD(&a->armed);
	return a;
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_agent_alloc);

static void gsync_offload_bad(void)
{
	gsync_oc_inc(GSYNC_OC_BAD_CMDS);
}

/*
 * REGISTER: validate, allocate the region and the slots (every slot starts
 * with the agent), and become the agent unless another one is. 0, -EINVAL,
 * -EALREADY (this file registered before), -EBUSY (another agent),
 * -ENOMEM.
 */
int gsync_offload_agent_register(struct gsync_offload_agent *a,
				 const struct gsync_offload_register *r)
{
	size_t bytes;
	void *region;
	struct gsync_offload_slot *slots;
	u32 i;
	int err;

	err = gsync_offload_check_register(r);
	if (err) {
		gsync_offload_bad();
		return err;
	}
	bytes = GSYNC_OFFLOAD_REGION_BYTES(r->nslots, r->slot_bytes);
	region = vmalloc_user(bytes);
	slots = kvcalloc(r->nslots, sizeof(*slots), GFP_KERNEL);
	if (!region || !slots) {
		vfree(region);
		kvfree(slots);
		return -ENOMEM;
	}
	for (i = 0; i < r->nslots; i++)
		INIT_LIST_HEAD(&slots[i].armed_node);

	mutex_lock(&gsync_offload_lock);
	if (a->registered || a->stopped) {
		err = -EALREADY;
	} else if (gsync_off.agent) {
		err = -EBUSY;
	} else {
		a->reg = *r;
		a->region = region;
		a->region_bytes = bytes;
		a->slots = slots;
		/* mmap() reads region and region_bytes without the lock */
		smp_store_release(&a->registered, true);
		gsync_off.agent = a;
		gsync_oc_inc(GSYNC_OC_REGISTERS);
		region = NULL;
		slots = NULL;
	}
	mutex_unlock(&gsync_offload_lock);
	vfree(region);
	kvfree(slots);
	if (!err)
		gsync_offload_kick_monitor();
	return err;
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_agent_register);

static bool gsync_status_ok(s32 status)
{
	return status <= 0 && status >= -MAX_ERRNO;
}

/* A commit for slot s (BUSY, id checked). Lock held. */
static struct gsync_offload_job *
gsync_offload_commit(struct gsync_offload_agent *a, u32 slot, s32 status)
{
	struct gsync_offload_slot *s = &a->slots[slot];
	struct gsync_offload_job *oj = s->oj;

	s->oj = NULL;
	s->state = GSYNC_SLOT_AGENT;
	if (!oj) {
		gsync_oc_inc(GSYNC_OC_LATE_COMMITS);
		return NULL;
	}
	oj->busy--;
	if (status) {
		gsync_offload_to_fallback(oj, GSYNC_OC_FB_ERROR);
		return NULL;
	}
	memcpy((u8 *)oj->job->out + s->first * oj->esize,
	       gsync_slot_data(a, slot) + (size_t)oj->job->k * oj->piece *
	       oj->esize, s->n * oj->esize);
	oj->committed += s->n;
	gsync_oc_inc(GSYNC_OC_COMMITS);
	if (oj->committed < oj->job->count)
		return NULL;
	gsync_offload_take(oj);
	gsync_oc_inc(GSYNC_OC_OFFLOADED);
	gsync_oc_add(GSYNC_OC_OFFLOAD_NS, ktime_get_ns() - oj->start_ns);
	return oj;
}

/*
 * FETCH (commit false) or COMMIT_FETCH (commit true) of one slot from
 * command cmd. Returns 0 if cmd got a job (the caller completes it with
 * 0), -EIOCBQUEUED if cmd is parked on the slot (completed later through
 * a->complete), or an error for cmd: -EINVAL (bad payload, slot or id;
 * counted), -ENXIO (not registered), -ESHUTDOWN (stopped).
 */
int gsync_offload_fetch(struct gsync_offload_agent *a,
			const struct gsync_offload_slot_cmd *sc, void *cmd,
			bool commit)
{
	struct gsync_offload_job *done = NULL;
	struct gsync_offload_slot *s;
	int ret;

	if (sc->flags || sc->reserved ||
	    (!commit && (sc->status || sc->job_id)) ||
	    (commit && !gsync_status_ok(sc->status))) {
		gsync_offload_bad();
		return -EINVAL;
	}
	mutex_lock(&gsync_offload_lock);
	if (!a->registered) {
		ret = -ENXIO;
		goto out;
	}
	if (sc->slot >= a->reg.nslots) {
		gsync_offload_bad();
		ret = -EINVAL;
		goto out;
	}
	s = &a->slots[sc->slot];
	if (commit) {
		if (s->state != GSYNC_SLOT_BUSY || s->job_id != sc->job_id) {
			gsync_offload_bad();
			ret = -EINVAL;
			goto out;
		}
		done = gsync_offload_commit(a, sc->slot, sc->status);
	} else if (s->state != GSYNC_SLOT_AGENT) {
		gsync_offload_bad();
		ret = -EINVAL;
		goto out;
	}
	if (a->stopped) {
		ret = -ESHUTDOWN;
		goto out;
	}
	s->state = GSYNC_SLOT_ARMED;
	s->cmd = cmd;
	list_add_tail(&s->armed_node, &a->armed);
	ret = gsync_offload_dispatch(a, cmd) ? 0 : -EIOCBQUEUED;
out:
	mutex_unlock(&gsync_offload_lock);
	if (done)
		gsync_offload_finish(done, 0);
	return ret;
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_fetch);

/*
 * io_uring cancels a parked command (its ring is going away): give the
 * slot back to the agent. -ENOENT if cmd is not parked there (it is
 * being completed already).
 */
int gsync_offload_cancel_cmd(struct gsync_offload_agent *a, u32 slot,
			     void *cmd)
{
	struct gsync_offload_slot *s;
	int ret = -ENOENT;

	mutex_lock(&gsync_offload_lock);
	if (a->registered && slot < a->reg.nslots) {
		s = &a->slots[slot];
		if (s->state == GSYNC_SLOT_ARMED && s->cmd == cmd) {
			list_del_init(&s->armed_node);
			s->cmd = NULL;
			s->state = GSYNC_SLOT_AGENT;
			ret = 0;
		}
	}
	mutex_unlock(&gsync_offload_lock);
	return ret;
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_cancel_cmd);

/*
 * STOP (also on death and release): no job goes to this agent any more;
 * every job it had, or could have had, goes to the CPU; parked commands
 * complete with -ESHUTDOWN. -ENXIO if a is not the registered agent.
 */
static int gsync_offload_stop_locked(struct gsync_offload_agent *a)
{
	struct gsync_offload_job *oj, *tmp;
	struct gsync_offload_slot *s, *stmp;

	lockdep_assert_held(&gsync_offload_lock);
	if (gsync_off.agent != a)
		return -ENXIO;
	list_for_each_entry_safe(oj, tmp, &gsync_off.active, active_node)
		if (oj->state == GSYNC_OJ_QUEUED)
			gsync_offload_to_fallback(oj, GSYNC_OC_FB_GONE);
	gsync_off.agent = NULL;
	a->stopped = true;
	list_for_each_entry_safe(s, stmp, &a->armed, armed_node) {
		void *cmd = s->cmd;

		list_del_init(&s->armed_node);
		s->cmd = NULL;
		s->state = GSYNC_SLOT_AGENT;
		a->complete(a, cmd, -ESHUTDOWN);
	}
	return 0;
}

int gsync_offload_stop(struct gsync_offload_agent *a)
{
	int err;

	mutex_lock(&gsync_offload_lock);
	err = gsync_offload_stop_locked(a);
	mutex_unlock(&gsync_offload_lock);
	return err;
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_stop);

/* The agent's file is released: no command of it is in flight. */
void gsync_offload_agent_release(struct gsync_offload_agent *a)
{
	if (!gsync_offload_stop(a))
		gsync_oc_inc(GSYNC_OC_AGENT_LOST);
	vfree(a->region);
	kvfree(a->slots);
	if (a->task)
		put_task_struct(a->task);
	kfree(a);
}
GSYNC_EXPORT_FOR_TESTS(gsync_offload_agent_release);

/* ---- counters ------------------------------------------------------------ */

static const char *const gsync_oc_names[GSYNC_OC_MAX] = {
	[GSYNC_OC_SUBMITTED] = "jobs_submitted",
	[GSYNC_OC_OFFLOADED] = "jobs_offloaded",
	[GSYNC_OC_PIECES] = "pieces_dispatched",
	[GSYNC_OC_COMMITS] = "pieces_committed",
	[GSYNC_OC_CPU] = "jobs_cpu",
	[GSYNC_OC_NO_AGENT] = "jobs_no_agent",
	[GSYNC_OC_DECLINED] = "jobs_declined",
	[GSYNC_OC_FB_TIMEOUT] = "fallback_timeout",
	[GSYNC_OC_FB_ERROR] = "fallback_agent_error",
	[GSYNC_OC_FB_GONE] = "fallback_agent_gone",
	[GSYNC_OC_CANCELLED] = "jobs_cancelled",
	[GSYNC_OC_BAD_CMDS] = "bad_commands",
	[GSYNC_OC_LATE_COMMITS] = "late_commits",
	[GSYNC_OC_REGISTERS] = "agent_registers",
	[GSYNC_OC_AGENT_LOST] = "agent_lost",
	[GSYNC_OC_OFFLOAD_NS] = "offload_ns",
	[GSYNC_OC_CPU_NS] = "cpu_ns",
};

/*
 * Gauges. Lock held. @active: accepted jobs not finished yet. @held: those
 * of them of which the agent holds a piece: handed to one of its FETCHes
 * (BUSY slot), neither committed nor taken back. A held job is QUEUED, so
 * it can only end by the agent's commits or by a fallback (or a cancel).
 */
static void gsync_offload_count_jobs(unsigned int *active, unsigned int *held)
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

/*
 * "name value" lines: the counters, then three gauges: agent_registered
 * (0 or 1), jobs_active and jobs_held (see gsync_offload_count_jobs()).
 * The counters are read before the gauges, so a job counted in jobs_held
 * has not fallen back yet in the counters printed with it.
 */
int gsync_offload_show(struct seq_file *m, void *v)
{
	unsigned int active, held;
	int i;

	for (i = 0; i < GSYNC_OC_MAX; i++)
		seq_printf(m, "%s %llu\n", gsync_oc_names[i],
			   gsync_offload_counter(i));
	mutex_lock(&gsync_offload_lock);
	gsync_offload_count_jobs(&active, &held);
	seq_printf(m, "agent_registered %d\njobs_active %u\njobs_held %u\n",
		   !!gsync_off.agent, active, held);
	mutex_unlock(&gsync_offload_lock);
	return 0;
}

/* Module exit: no socket and no agent file can exist any more. */
void gsync_offload_core_exit(void)
{
	cancel_delayed_work_sync(&gsync_offload_monitor);
	flush_work(&gsync_offload_fallback);
	WARN_ON(!list_empty(&gsync_off.active));
}
