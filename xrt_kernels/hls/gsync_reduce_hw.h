/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * gsync_reduce_hw.h - host-visible interface of the gsync_reduce HLS kernel:
 * the job descriptor layout in memory and the top function prototype.
 * Shared by the kernel source, the C-simulation testbench and the offload
 * agent's backends.  Register map and pragmas: docs/offload-hardware.md.
 *
 * A kernel invocation processes a batch of jobs.  All buffers live in one
 * "region" (the agent's shared mmap) passed twice, as src (read port) and
 * dst (write port); descriptors give byte offsets into it.  One register
 * write sequence per batch amortises the ~tens of microseconds a kernel
 * start costs over many jobs.
 */
#ifndef GSYNC_REDUCE_HW_H
#define GSYNC_REDUCE_HW_H

#include <stdint.h>

/* One descriptor = GSYNC_HW_DESC_WORDS little-endian uint64 words:
 *   word 0: bits  0..7  dtype (enum gsync_red_dtype)
 *           bits  8..15 op    (enum gsync_red_op)
 *           bits 16..23 k     (1..GSYNC_HW_MAX_K)
 *           bits 32..63 n     element count
 *   word 1: byte offset of the output buffer in the region
 *   word 2+j: byte offset of input j (rank order), j < k; unused slots 0
 * Offsets must be multiples of 4.  Bytes of the output beyond n elements are
 * never changed (a 16-bit tail sharing a 32-bit word is merged).
 */
#define GSYNC_HW_MAX_K      16
#define GSYNC_HW_DESC_WORDS (2 + GSYNC_HW_MAX_K)
#define GSYNC_HW_DESC_BYTES (GSYNC_HW_DESC_WORDS * 8)

static inline uint64_t gsync_hw_desc_word0(unsigned dtype, unsigned op,
					   unsigned k, uint32_t n)
{
	return (uint64_t)(dtype & 0xff) | ((uint64_t)(op & 0xff) << 8) |
	       ((uint64_t)(k & 0xff) << 16) | ((uint64_t)n << 32);
}

/* s_axilite register offsets as Vitis HLS assigns them (64-bit pointer
 * arguments take 3 words incl. a reserved one, 32-bit scalars 2). */
#define GSYNC_HW_REG_CTRL   0x00
#define GSYNC_HW_REG_GIE    0x04
#define GSYNC_HW_REG_IER    0x08
#define GSYNC_HW_REG_ISR    0x0c
#define GSYNC_HW_REG_SRC    0x10
#define GSYNC_HW_REG_DST    0x1c
#define GSYNC_HW_REG_DESC   0x28
#define GSYNC_HW_REG_NJOBS  0x34

/* Argument indices (xrt::kernel::set_arg order). */
#define GSYNC_HW_ARG_SRC    0
#define GSYNC_HW_ARG_DST    1
#define GSYNC_HW_ARG_DESC   2
#define GSYNC_HW_ARG_NJOBS  3

#define GSYNC_HW_KERNEL_NAME "gsync_reduce"

#ifdef __cplusplus
extern "C"
#endif
void gsync_reduce(const uint32_t *src, uint32_t *dst, const uint64_t *desc,
		  uint32_t njobs);

#endif /* GSYNC_REDUCE_HW_H */
