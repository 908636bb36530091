/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the CPU reduction backend (reduce_cpu*.c).
 *
 * gsync_reduce_cpu_run() cuts a job into slices; each slice is computed by
 * one implementation over elements [first, first + n) of every buffer:
 *  - scalar: integer-only (gsync_fp.h), any architecture, no FPU; also
 *    computes the tail a SIMD implementation leaves (n % lanes elements);
 *  - sse2, avx2 (x86-64): GCC vector extensions compiled with per-file FPU
 *    flags; called only between kernel_fpu_begin() and kernel_fpu_end(),
 *    which gsync_reduce_x86_slice() does.
 * Every implementation produces the bits of docs/reduction-semantics.md;
 * the KUnit suite gsync_reduce compares each one with the reference.
 *
 * Context: process context, may sleep (cond_resched() between slices), no
 * locks. The functions keep no state besides the reduce_impl setting, so
 * any number of jobs may run concurrently.
 *
 * These files are also compiled in userspace by tests/bench/reduce with a
 * small shim for the kernel headers they include.
 */
#ifndef GSYNC_REDUCE_CPU_H
#define GSYNC_REDUCE_CPU_H

#include <linux/types.h>
#include <linux/gsync.h>

#include "reduce.h"

enum gsync_reduce_impl {
	GSYNC_REDUCE_IMPL_AUTO,		/* the fastest usable one */
	GSYNC_REDUCE_IMPL_SCALAR,
	GSYNC_REDUCE_IMPL_SSE2,
	GSYNC_REDUCE_IMPL_AVX2,
	GSYNC_REDUCE_NIMPL,
};

/*
 * SIMD implementations hold the FPU for at most this many bytes of input
 * plus output ((k + 1) * element size * elements) before they give it
 * back and call cond_resched(): about 25-50 us at memory speed.
 */
#define GSYNC_REDUCE_SLICE_BYTES	(256 * 1024)

/*
 * SIMD implementations work on blocks of this many elements (a 1 KiB fp32
 * accumulator on the stack); slices are multiples of it.
 */
#define GSYNC_REDUCE_BLOCK		256

static inline unsigned int gsync_reduce_esize(unsigned int dtype)
{
	return dtype == GSYNC_DTYPE_BF16 || dtype == GSYNC_DTYPE_FP16 ? 2 : 4;
}

/* reduce_cpu.c */
const char *gsync_reduce_impl_name(enum gsync_reduce_impl impl);
bool gsync_reduce_impl_usable(enum gsync_reduce_impl impl);
enum gsync_reduce_impl gsync_reduce_impl_best(void);
/*
 * Compute a job that gsync_reduce_job_check() accepted with one
 * implementation (AUTO: the best usable one). Returns 0, or -EOPNOTSUPP if
 * impl is not usable on this CPU (nothing written then).
 */
int gsync_reduce_cpu_run(const struct gsync_reduce_job *job,
			 enum gsync_reduce_impl impl);

/* reduce_cpu_scalar.c */
void gsync_reduce_scalar(const struct gsync_reduce_job *job, size_t first,
			 size_t n);

#ifdef CONFIG_X86_64
/* reduce_cpu_x86.c: CPU features, and kernel_fpu_begin/end around a slice */
bool gsync_reduce_x86_usable(enum gsync_reduce_impl impl);
unsigned int gsync_reduce_x86_lanes(enum gsync_reduce_impl impl);
bool gsync_reduce_x86_slice(const struct gsync_reduce_job *job,
			    enum gsync_reduce_impl impl, size_t first, size_t n);

/* reduce_cpu_sse2.c, reduce_cpu_avx2.c: FPU held; n a multiple of lanes */
void gsync_reduce_sse2(const struct gsync_reduce_job *job, size_t first,
		       size_t n);
void gsync_reduce_avx2(const struct gsync_reduce_job *job, size_t first,
		       size_t n);
#else
static inline bool gsync_reduce_x86_usable(enum gsync_reduce_impl impl)
{
	return false;
}

static inline unsigned int gsync_reduce_x86_lanes(enum gsync_reduce_impl impl)
{
	return 1;
}

static inline bool gsync_reduce_x86_slice(const struct gsync_reduce_job *job,
					  enum gsync_reduce_impl impl,
					  size_t first, size_t n)
{
	return false;
}
#endif

#endif /* GSYNC_REDUCE_CPU_H */
