// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 glue of the CPU reduction: which SIMD implementations this CPU
 * can run, and kernel_fpu_begin()/kernel_fpu_end() around one slice.
 *
 * Context: process context (softirq would work too: the FPU is checked
 * with irq_fpu_usable()); preemption is disabled while a slice runs, for
 * at most GSYNC_REDUCE_SLICE_BYTES of memory traffic. No locks. Also the
 * glue under ARCH=um on an x86-64 host, where kernel_fpu_begin() is empty:
 * the profile's UML kernel is not preemptible (tasks switch only in calls,
 * where the vector registers are not preserved anyway) and the host saves
 * them around each signal UML takes as an interrupt.
 */
#include <linux/types.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>

#include "reduce_cpu.h"

/*
 * Whether the kernel saves the YMM registers, so AVX code may run. Under
 * UML the host kernel does the saving, and UML takes its CPU flags from
 * the host's /proc/cpuinfo, which lists AVX only where the host does.
 */
static bool gsync_reduce_x86_ymm_saved(void)
{
#ifdef CONFIG_UML
	return true;
#else
	return cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM, NULL);
#endif
}

bool gsync_reduce_x86_usable(enum gsync_reduce_impl impl)
{
	switch (impl) {
	case GSYNC_REDUCE_IMPL_SSE2:
		return boot_cpu_has(X86_FEATURE_XMM2);
	case GSYNC_REDUCE_IMPL_AVX2:
		return boot_cpu_has(X86_FEATURE_AVX) &&
		       boot_cpu_has(X86_FEATURE_AVX2) &&
		       boot_cpu_has(X86_FEATURE_F16C) &&
		       gsync_reduce_x86_ymm_saved();
	default:
		return false;
	}
}

/* Elements per loop step: two vectors of 32-bit lanes. */
unsigned int gsync_reduce_x86_lanes(enum gsync_reduce_impl impl)
{
	return impl == GSYNC_REDUCE_IMPL_AVX2 ? 16 : 8;
}

/*
 * Run elements [first, first + n) of a job (n a multiple of the lanes)
 * with a SIMD implementation. Returns false, having done nothing, if the
 * FPU cannot be used in this context.
 */
bool gsync_reduce_x86_slice(const struct gsync_reduce_job *job,
			    enum gsync_reduce_impl impl, size_t first, size_t n)
{
	if (!irq_fpu_usable())
		return false;
	kernel_fpu_begin();
	if (impl == GSYNC_REDUCE_IMPL_AVX2)
		gsync_reduce_avx2(job, first, n);
	else
		gsync_reduce_sse2(job, first, n);
	kernel_fpu_end();
	return true;
}
