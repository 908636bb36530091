/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Deterministic test data: every rank can compute every other rank's
 * contribution from (seed, rank, iteration), so a rank checks its result
 * without talking to anyone.
 */
#ifndef GSYNC_EXAMPLE_PATTERN_H
#define GSYNC_EXAMPLE_PATTERN_H

#include <stddef.h>
#include <stdint.h>

enum pattern_kind {
	/* Small multiples of 1/8 in [-125, 125]: exact in every dtype, so
	 * sums are exact in fp32 and easy to read in a hex dump. */
	PATTERN_SMALL = 0,
	/* Arbitrary bit patterns: NaN, Inf, subnormals, huge values; tests
	 * the bit-exact rounding rules of docs/reduction-semantics.md. */
	PATTERN_BITS = 1,
};

/*
 * Fill BUF with elements FIRST..FIRST+N-1 of rank RANK's data for iteration
 * ITER (element i depends only on seed, rank, iter and i, so a long buffer
 * can be produced, and checked, piece by piece).
 */
void pattern_fill(void *buf, size_t first, size_t n, unsigned int dtype,
		  unsigned int kind, uint64_t seed, unsigned int rank,
		  uint64_t iter);

#endif
