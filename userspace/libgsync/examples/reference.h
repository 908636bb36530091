/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The expected result of an all-reduce: docs/reduction-semantics.md applied
 * to all nranks contributions in rank order. xrt_kernels/ref's
 * gsync_reduce_ref() is the oracle but stops at 16 inputs (an FPGA
 * descriptor limit); groups have up to 256 ranks, so this is the same
 * element loop over any k, built on the same gsync_fp.h primitives, and
 * tests/test_reference.c checks the two agree for k <= 16.
 */
#ifndef GSYNC_EXAMPLE_REFERENCE_H
#define GSYNC_EXAMPLE_REFERENCE_H

#include <stddef.h>

/* out[i] = in[0][i] op ... op in[k-1][i]. 0, or -1 on bad arguments. */
int reference_reduce(void *out, const void *const *in, unsigned int k,
		     size_t n, unsigned int dtype, unsigned int op);

#endif
