// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU reduction backend: picks an implementation (scalar, sse2, avx2)
 * and runs a job in slices, rescheduling between them so a long job never
 * holds the FPU (or the CPU) for long.
 *
 * Context: process context, may sleep (cond_resched()); no locks, no
 * shared state, so jobs may run concurrently on any number of CPUs.
 */
#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/types.h>

#include "reduce_cpu.h"

static const char *const gsync_reduce_impl_names[GSYNC_REDUCE_NIMPL] = {
	[GSYNC_REDUCE_IMPL_AUTO] = "auto",
	[GSYNC_REDUCE_IMPL_SCALAR] = "scalar",
	[GSYNC_REDUCE_IMPL_SSE2] = "sse2",
	[GSYNC_REDUCE_IMPL_AVX2] = "avx2",
};

const char *gsync_reduce_impl_name(enum gsync_reduce_impl impl)
{
	return impl < GSYNC_REDUCE_NIMPL ? gsync_reduce_impl_names[impl] : "?";
}

bool gsync_reduce_impl_usable(enum gsync_reduce_impl impl)
{
	if (impl == GSYNC_REDUCE_IMPL_AUTO || impl == GSYNC_REDUCE_IMPL_SCALAR)
		return true;
	return gsync_reduce_x86_usable(impl);
}

enum gsync_reduce_impl gsync_reduce_impl_best(void)
{
	if (gsync_reduce_x86_usable(GSYNC_REDUCE_IMPL_AVX2))
		return GSYNC_REDUCE_IMPL_AVX2;
	if (gsync_reduce_x86_usable(GSYNC_REDUCE_IMPL_SSE2))
		return GSYNC_REDUCE_IMPL_SSE2;
	return GSYNC_REDUCE_IMPL_SCALAR;
}

/* Elements per slice: a multiple of the block, at least one block. */
static size_t gsync_reduce_slice_elems(const struct gsync_reduce_job *job)
{
	size_t per_elem = (size_t)(job->k + 1) * gsync_reduce_esize(job->dtype);
	size_t n = GSYNC_REDUCE_SLICE_BYTES / per_elem;

	n -= n % GSYNC_REDUCE_BLOCK;
	return n ? n : GSYNC_REDUCE_BLOCK;
}

int gsync_reduce_cpu_run(const struct gsync_reduce_job *job,
			 enum gsync_reduce_impl impl)
{
	size_t slice = gsync_reduce_slice_elems(job), first, n, simd;
	unsigned int lanes;

	if (impl == GSYNC_REDUCE_IMPL_AUTO)
		impl = gsync_reduce_impl_best();
	else if (impl >= GSYNC_REDUCE_NIMPL || !gsync_reduce_impl_usable(impl))
		return -EOPNOTSUPP;
	/*
	 * int32 avg with a divisor below k can leave the int32 range, where
	 * C's conversion wraps but the SIMD double -> int32 conversion
	 * saturates: rare enough for the scalar code.
	 */
	if (job->dtype == GSYNC_DTYPE_INT32 && job->op == GSYNC_OP_AVG &&
	    job->avg_divisor < job->k)
		impl = GSYNC_REDUCE_IMPL_SCALAR;
	lanes = gsync_reduce_x86_lanes(impl);

	for (first = 0; first < job->count; first += n) {
		n = job->count - first;
		if (n > slice)
			n = slice;
		simd = 0;
		if (impl != GSYNC_REDUCE_IMPL_SCALAR && n >= lanes &&
		    gsync_reduce_x86_slice(job, impl, first, n - n % lanes))
			simd = n - n % lanes;
		if (simd < n)
			gsync_reduce_scalar(job, first + simd, n - simd);
		if (first + n < job->count)
			cond_resched();
	}
	return 0;
}
