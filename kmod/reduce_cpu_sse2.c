// SPDX-License-Identifier: GPL-2.0
/*
 * The SSE2 CPU reduction (x86-64 baseline): reduce_cpu_simd.h with 16-byte
 * vectors. Built with the kernel's FPU compiler flags (kmod/Kbuild), so
 * it holds nothing but code that runs between kernel_fpu_begin() and
 * kernel_fpu_end(); see reduce_cpu_simd.h for the context rules.
 */
#define GSYNC_SIMD_BYTES	16
#define GSYNC_SIMD_ENTRY	gsync_reduce_sse2

#include "reduce_cpu_simd.h"
