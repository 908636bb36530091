// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's side of the offload engine: REGISTER, FETCH, COMMIT_FETCH,
 * STOP, cancellation of a parked command and release of the agent's file,
 * driven by offload_dev.c (io_uring) or by KUnit, plus the counters and
 * gauges of /proc/driver/gsync_offload.
 *
 * A slot is the agent's (AGENT), holds a parked FETCH (ARMED, on
 * agent->armed) or holds a piece the agent must commit (BUSY); see
 * offload.h. Only the registered agent (gsync_off.agent) is given pieces;
 * a stopped agent never again, and its jobs go to the CPU.
 *
 * Locking: every command takes gsync_offload_lock (offload_sched.c) for
 * the agent's state, its slots and the copy of a committed piece out of
 * the region; REGISTER allocates before taking it. The agent's complete()
 * callback is called with the mutex held (offload.h has the io_uring
 * rules); a job the agent finished is finished after the mutex is
 * dropped. a->registered is published with smp_store_release() for
 * mmap(), which reads the region without the mutex. Every caller is in
 * process context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": offload: " fmt

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "gsync.h"
#include "offload_internal.h"

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
	       gsync_offload_slot_data(a, slot) +
	       (size_t)oj->job->k * oj->piece * oj->esize, s->n * oj->esize);
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
 * Lock held.
 */
int gsync_offload_stop_locked(struct gsync_offload_agent *a)
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

/* ---- /proc/driver/gsync_offload ------------------------------------------ */

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
