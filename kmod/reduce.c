// SPDX-License-Identifier: GPL-2.0
/*
 * Reduction jobs: validation, element sizes, and the CPU backend as an
 * engine (reduce.h), plus the reduce_impl module parameter that selects
 * the CPU implementation.
 *
 * Context: gsync_reduce_job_check() and gsync_dtype_size() are pure and
 * run in any context. gsync_reduce_cpu() and the engine's submit() run in
 * process context and may sleep. reduce_impl is one int read with
 * READ_ONCE() per job: a write takes effect for jobs started afterwards;
 * no lock is needed.
 */
#include <linux/align.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "gsync.h"
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

GSYNC_EXPORT_FOR_TESTS(gsync_dtype_size);
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_job_check);
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_cpu);
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_cpu_engine);
/* defined in reduce_cpu.c, which is also built in userspace */
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_cpu_run);
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_impl_usable);
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_impl_name);
GSYNC_EXPORT_FOR_TESTS(gsync_reduce_impl_best);
