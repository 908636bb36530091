// SPDX-License-Identifier: GPL-2.0
/*
 * The offload side of a group's reduction engine (a "client"), and the
 * offload_timeout_ms module parameter.
 *
 * reduce.c owns engine selection: a group's engine, from
 * gsync_reduce_engine_create(), computes CPU-mode jobs itself and hands
 * only jobs for the agent (modes offload and auto) to its client here.
 * The client counts its jobs in flight so that the group can wait for
 * them before it frees its operations (gsync_offload_client_quiesce());
 * the client lives as long as the group, whatever mode the group switches
 * to, so jobs handed to it before a switch are still waited for.
 *
 * Locking: a client's inflight count is written under gsync_offload_lock
 * (offload_sched.c) and read once with READ_ONCE() by a waiter's
 * wait_event() condition. Submit, quiesce and destroy run in process
 * context and may sleep; quiesce calls done callbacks without the mutex.
 * offload_timeout_ms is one unsigned int, written with WRITE_ONCE() and
 * read with READ_ONCE() when a job is accepted and when the monitor is
 * scheduled: a write takes effect for jobs accepted afterwards.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": offload: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "gsync.h"
#include "offload_internal.h"

/* ---- offload_timeout_ms ------------------------------------------------- */

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

/* ---- the client ---------------------------------------------------------- */

struct gsync_offload_client *gsync_offload_client_create(void)
{
	struct gsync_offload_client *cl = kzalloc(sizeof(*cl), GFP_KERNEL);

	if (cl)
		init_waitqueue_head(&cl->idle);
	return cl;
}

/*
 * Hand a job to the agent. 0 if accepted (done will be called), else
 * done will not be called: -EINVAL (invalid job), -ENODEV (no agent
 * registered; not counted, see gsync_offload_queue()), -EOPNOTSUPP
 * (beyond the agent's limits), -ENOMEM.
 */
int gsync_offload_client_submit(struct gsync_offload_client *cl,
				struct gsync_reduce_job *job)
{
	might_sleep();
	if (!job || !job->done || gsync_reduce_job_check(job))
		return -EINVAL;
	return gsync_offload_queue(cl, job);
}

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
void gsync_offload_client_quiesce(struct gsync_offload_client *cl)
{
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

void gsync_offload_client_destroy(struct gsync_offload_client *cl)
{
	if (!cl)
		return;
	gsync_offload_client_quiesce(cl);
	kfree(cl);
}
