/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared integer-only fp32/bf16/fp16 primitives (xrt_kernels/ref/
 * gsync_fp.h) for kernel C. They use UINT64_C(), which the kernel's headers
 * do not define. Pure functions: no locking, any context, no FPU.
 */
#ifndef GSYNC_REDUCE_FP_H
#define GSYNC_REDUCE_FP_H

#include <linux/types.h>

#ifndef UINT64_C
#define UINT64_C(c) c##ULL
#endif

#include "../xrt_kernels/ref/gsync_fp.h"

#endif /* GSYNC_REDUCE_FP_H */
