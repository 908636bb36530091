/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * oracle.h - host-side helpers for tests: bit casts, a deterministic PRNG,
 * random fp32 patterns biased toward edge cases, and oracles that do NOT
 * come from gsync_fp.h (host FPU, libgcc _Float16, a nearest-neighbour
 * search for bf16), so the integer primitives are checked independently.
 */
#ifndef GSYNC_TEST_ORACLE_H
#define GSYNC_TEST_ORACLE_H

#include <float.h>
#include <stdint.h>
#include <string.h>

#include "../ref/gsync_fp.h"

#if FLT_EVAL_METHOD != 0
#error "the FPU oracle needs FLT_EVAL_METHOD == 0 (SSE math)"
#endif

static inline float bits2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t f2bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static inline uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* Random fp32 pattern biased toward interesting regions. */
static inline uint32_t rand_f32(void)
{
	uint64_t r = rng();
	uint32_t sign = (uint32_t)(r >> 63) << 31, m = (uint32_t)r & 0x7fffff;

	switch ((r >> 32) & 7) {
	case 0: return (uint32_t)r;                          /* any pattern */
	case 1: return sign | m;                             /* subnormal */
	case 2: return sign | ((uint32_t)(1 + (r >> 40) % 3) << 23) | m; /* tiny normal */
	case 3: return sign | (254u << 23) | m;              /* near overflow */
	case 4: return sign | (127u << 23) | (m & 0x7ff000); /* few mantissa bits */
	default: return sign | ((uint32_t)(100 + (r >> 40) % 56) << 23) | m;
	}
}

#ifndef __cplusplus /* GCC 12 has _Float16 in C only */
/* One fp16 pattern through libgcc (RNE), NaN canonicalised. */
static inline uint16_t f16_oracle(float x)
{
	_Float16 h = (_Float16)x;
	uint16_t b;

	memcpy(&b, &h, 2);
	if ((b & 0x7c00) == 0x7c00 && (b & 0x3ff))
		b = GSYNC_F16_QNAN;
	return b;
}

static inline float f16_widen_oracle(uint16_t b)
{
	_Float16 h;

	memcpy(&h, &b, 2);
	return (float)h;
}
#endif

/* Independent bf16 oracle: pick the nearer of the two bf16 neighbours,
 * distances computed exactly in double, ties to the even pattern. */
static inline uint16_t bf16_oracle(uint32_t f)
{
	uint32_t lo = f & 0xffff0000u, hi = lo + 0x10000u;
	double x, dlo, dhi;

	if (gsync_f32_isnan(f))
		return GSYNC_BF16_QNAN;
	if ((f & 0xffff) == 0)
		return (uint16_t)(f >> 16);
	x = bits2f(f);
	dlo = x - (double)bits2f(lo);
	/* hi may be the inf pattern: treat it as 2^128 for distance purposes */
	dhi = ((hi & 0x7fffffffu) == GSYNC_F32_INF ?
	       ((f >> 31) ? -0x1p128 : 0x1p128) : (double)bits2f(hi)) - x;
	if (dlo < 0) dlo = -dlo;
	if (dhi < 0) dhi = -dhi;
	if (dlo < dhi || (dlo == dhi && !((lo >> 16) & 1)))
		return (uint16_t)(lo >> 16);
	return (uint16_t)(hi >> 16);
}

#endif /* GSYNC_TEST_ORACLE_H */
