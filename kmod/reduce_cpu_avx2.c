// SPDX-License-Identifier: GPL-2.0
/*
 * The AVX2 CPU reduction: reduce_cpu_simd.h with 32-byte vectors. Built
 * with the kernel's FPU compiler flags plus -mavx2 (kmod/Kbuild, no FMA),
 * so it holds nothing but code that runs between kernel_fpu_begin() and
 * kernel_fpu_end(), and only on CPUs where reduce_cpu_x86.c found AVX2
 * and F16C with the YMM state enabled; see reduce_cpu_simd.h for the context rules.
 */
#define GSYNC_SIMD_BYTES	32
#define GSYNC_SIMD_ENTRY	gsync_reduce_avx2
#define GSYNC_SIMD_F16C		1	/* fp16 <-> fp32 with vcvtph2ps/vcvtps2ph */

#include "reduce_cpu_simd.h"
