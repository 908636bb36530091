// SPDX-License-Identifier: GPL-2.0
/*
 * Reduction jobs: validation, element sizes, the CPU backend as an engine
 * (reduce.h), the reduce_impl module parameter that selects the CPU
 * implementation, and engine selection: a group's engine, which hands each
 * job to the CPU engine or to the offload engine (offload.h) by the
 * socket's GSYNC_ENGINE and the engine module parameter.
 *
 * Selection: mode cpu computes the job here, in the submitter's context,
 * and counts it in jobs_cpu and cpu_ns (/proc/driver/gsync_offload); the
 * offload engine and its mutex are not involved. Modes offload and auto
 * hand the job to the group's offload client; if no agent is registered
 * it refuses the job (the transport then computes it on the CPU) and it is
 * counted here, in jobs_no_agent (offload) or jobs_cpu (auto).
 *
 * Context: gsync_reduce_job_check() and gsync_dtype_size() are pure and
 * run in any context. gsync_reduce_cpu(), every engine's submit() and the
 * group engine's create, set_mode, quiesce and destroy run in process
 * context and may sleep. reduce_impl, engine and a group engine's mode are
 * each one word read once per job with READ_ONCE(): a write takes effect
 * for jobs submitted afterwards; no lock is needed.
 *
 * Switching a group's mode at run time (setsockopt, under lock_sock) is
 * only that write: it neither waits for nor moves jobs in flight. A job
 * handed to the offload client stays with it until it is finished (by the
 * agent, a fallback or a cancel); the client lives as long as the group
 * whatever its mode, so quiesce, at group teardown after the transport
 * stopped submitting, waits for such jobs in every mode. A CPU job is
 * finished before its submit returns, so none is ever in flight.
 */
#include <linux/align.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "gsync.h"
#include "offload.h"
#include "reduce.h"
#include "reduce_cpu.h"

static int gsync_reduce_impl_param = GSYNC_REDUCE_IMPL_AUTO;

static int gsync_reduce_impl_set(const char *val, const struct kernel_param *kp)
{
	int i;

	for (i = 0; i < GSYNC_REDUCE_NIMPL; i++) {
		if (!sysfs_streq(val, gsync_reduce_impl_name(i)))
			continue;
		if (!gsync_reduce_impl_usable(i))
			return -ENODEV;
		WRITE_ONCE(gsync_reduce_impl_param, i);
		return 0;
	}
	return -EINVAL;
}

static int gsync_reduce_impl_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  gsync_reduce_impl_name(READ_ONCE(gsync_reduce_impl_param)));
}

static const struct kernel_param_ops gsync_reduce_impl_ops = {
	.set = gsync_reduce_impl_set,
	.get = gsync_reduce_impl_get,
};

module_param_cb(reduce_impl, &gsync_reduce_impl_ops, NULL, 0644);
MODULE_PARM_DESC(reduce_impl,
		 "CPU reduction: auto (default), scalar, sse2 or avx2");

unsigned int gsync_dtype_size(unsigned int dtype)
{
	return GSYNC_DTYPE_SIZE(dtype);
}

static bool gsync_reduce_overlap(const void *a, const void *b, size_t bytes)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return x < y ? y - x < bytes : x - y < bytes;
}

int gsync_reduce_job_check(const struct gsync_reduce_job *job)
{
	unsigned int esize, j;
	size_t bytes;

	if (!job || !job->in || !job->out)
		return -EINVAL;
	esize = gsync_dtype_size(job->dtype);
	if (!esize || job->op >= GSYNC_REDOP_MAX)
		return -EINVAL;
	if (job->k < 1 || job->k > GSYNC_REDUCE_MAX_K)
		return -EINVAL;
	if (!job->count || job->count > SIZE_MAX / esize)
		return -EINVAL;
	if (job->op == GSYNC_OP_AVG &&
	    (job->avg_divisor < 1 || job->avg_divisor > GSYNC_REDUCE_MAX_DIVISOR))
		return -EINVAL;
	if (!IS_ALIGNED((uintptr_t)job->out, esize))
		return -EINVAL;
	bytes = job->count * esize;
	for (j = 0; j < job->k; j++) {
		const void *in = job->in[j];

		if (!in || !IS_ALIGNED((uintptr_t)in, esize) ||
		    gsync_reduce_overlap(in, job->out, bytes))
			return -EINVAL;
	}
	return 0;
}

int gsync_reduce_cpu(const struct gsync_reduce_job *job)
{
	int err = gsync_reduce_job_check(job);

	might_sleep();
	if (err)
		return err;
	return gsync_reduce_cpu_run(job, READ_ONCE(gsync_reduce_impl_param));
}

static int gsync_reduce_cpu_submit(struct gsync_reduce_engine *eng,
				   struct gsync_reduce_job *job)
{
	int err;

	if (!job || !job->done)
		return -EINVAL;
	err = gsync_reduce_cpu(job);
	if (err)
		return err;
	job->status = 0;
	job->done(job);
	return 0;
}

struct gsync_reduce_engine gsync_reduce_cpu_engine = {
	.name = "cpu",
	.submit = gsync_reduce_cpu_submit,
};

/* ---- engine selection ---------------------------------------------------- */

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

/* A group's engine. */
struct gsync_reduce_select {
	struct gsync_reduce_engine eng;
	u32 mode;			/* enum gsync_engine, READ_ONCE */
	/* modes offload and auto; kept for the group's whole life */
	struct gsync_offload_client *offload;
};

static int gsync_reduce_select_submit(struct gsync_reduce_engine *eng,
				      struct gsync_reduce_job *job)
{
	struct gsync_reduce_select *sel =
		container_of(eng, struct gsync_reduce_select, eng);
	u32 mode = READ_ONCE(sel->mode);
	u64 t0;
	int err;

	might_sleep();
	if (mode == GSYNC_ENGINE_DEFAULT)
		mode = READ_ONCE(gsync_engine_param);
	if (!job || !job->done)
		return -EINVAL;
	if (mode != GSYNC_ENGINE_CPU) {
		err = gsync_offload_client_submit(sel->offload, job);
		if (err == -ENODEV)	/* no agent: the caller uses the CPU */
			gsync_offload_counter_add(mode == GSYNC_ENGINE_OFFLOAD ?
						  GSYNC_OC_NO_AGENT :
						  GSYNC_OC_CPU, 1);
		return err;
	}
	t0 = ktime_get_ns();
	gsync_offload_counter_add(GSYNC_OC_CPU, 1);
	err = gsync_reduce_cpu_submit(&gsync_reduce_cpu_engine, job);
	gsync_offload_counter_add(GSYNC_OC_CPU_NS, ktime_get_ns() - t0);
	return err;
}

static struct gsync_reduce_select *
gsync_reduce_select(struct gsync_reduce_engine *eng)
{
	if (!eng || eng->submit != gsync_reduce_select_submit)
		return NULL;
	return container_of(eng, struct gsync_reduce_select, eng);
}

struct gsync_reduce_engine *gsync_reduce_engine_create(u32 mode)
{
	struct gsync_reduce_select *sel;

	if (mode >= GSYNC_ENGINE_MAX)
		mode = GSYNC_ENGINE_DEFAULT;
	sel = kzalloc(sizeof(*sel), GFP_KERNEL);
	if (!sel)
		return NULL;
	sel->offload = gsync_offload_client_create();
	if (!sel->offload) {
		kfree(sel);
		return NULL;
	}
	sel->eng.name = "select";
	sel->eng.submit = gsync_reduce_select_submit;
	sel->mode = mode;
	return &sel->eng;
}

int gsync_reduce_engine_set_mode(struct gsync_reduce_engine *eng, u32 mode)
{
	struct gsync_reduce_select *sel = gsync_reduce_select(eng);

	if (mode >= GSYNC_ENGINE_MAX)
		return -EINVAL;
	if (sel)
		WRITE_ONCE(sel->mode, mode);
	return 0;
}

/* Only the offload client can hold jobs (see the top of this file). */
void gsync_reduce_engine_quiesce(struct gsync_reduce_engine *eng)
{
	struct gsync_reduce_select *sel = gsync_reduce_select(eng);

	if (sel)
		gsync_offload_client_quiesce(sel->offload);
}

void gsync_reduce_engine_destroy(struct gsync_reduce_engine *eng)
{
	struct gsync_reduce_select *sel = gsync_reduce_select(eng);

	if (!sel)
		return;
	gsync_offload_client_destroy(sel->offload);
	kfree(sel);
}

GSYNC_EXPORT_FOR_TESTS(gsync_dtype_size);
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_job_check);
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_cpu);
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_cpu_engine);
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_engine_create);
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_engine_set_mode);
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_engine_quiesce);
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_engine_destroy);
/* defined in reduce_cpu.c, which is also built in userspace */
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_cpu_run);
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_impl_usable);
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_impl_name);
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_impl_best);
