/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * gsync_reduce_ref.h - portable scalar reference ("oracle") for gsync
 * k-way reductions.  Plain C11 (also valid kernel C), integer-only
 * arithmetic via gsync_fp.h, one element at a time, inputs combined strictly
 * left to right in rank order:  out = op(...op(op(in0, in1), in2)..., in(k-1)).
 *
 * Normative description: docs/reduction-semantics.md.  The HLS kernel, the
 * offload agent's backends and the kernel's CPU backend are all tested
 * against this function.
 */
#ifndef GSYNC_REDUCE_REF_H
#define GSYNC_REDUCE_REF_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stddef.h>
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Wire/ABI codes: shared with the HLS descriptor and the agent.  Keep
 * numerically stable; docs/reduction-semantics.md lists them. */
enum gsync_red_dtype {
	GSYNC_RED_FP32  = 0,
	GSYNC_RED_BF16  = 1,
	GSYNC_RED_FP16  = 2,
	GSYNC_RED_INT32 = 3,
	GSYNC_RED_NDTYPES
};

enum gsync_red_op {
	GSYNC_RED_SUM = 0,
	GSYNC_RED_AVG = 1,
	GSYNC_RED_MIN = 2,
	GSYNC_RED_MAX = 3,
	GSYNC_RED_NOPS
};

/* Largest fan-in one job may have (the HLS descriptor has this many slots). */
#define GSYNC_RED_MAX_K 16

/* Element size in bytes, or 0 for an unknown dtype. */
unsigned gsync_red_elem_size(unsigned dtype);

/*
 * out[i] = in[0][i] op in[1][i] op ... op in[k-1][i] for i < n.
 * Buffers must be naturally aligned for their element size and out must not
 * overlap any input.  1 <= k <= GSYNC_RED_MAX_K.
 * Returns 0, or -1 on invalid arguments (nothing is written then).
 */
int gsync_reduce_ref(void *out, const void *const *in, unsigned k, size_t n,
		     unsigned dtype, unsigned op);

/* Names for diagnostics ("fp32", "sum", ...); "?" when out of range. */
const char *gsync_red_dtype_name(unsigned dtype);
const char *gsync_red_op_name(unsigned op);

#ifdef __cplusplus
}
#endif

#endif /* GSYNC_REDUCE_REF_H */
