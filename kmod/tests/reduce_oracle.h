/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test oracle for reductions: gsync_reduce_ref() where it applies
 * (k <= GSYNC_RED_MAX_K and avg divisor == k), otherwise the same
 * per-element left fold written with the same gsync_fp.h primitives, for
 * the two things the reference does not take: k up to 256 and an avg
 * divisor other than k. gsync_oracle_self_check() style tests compare the
 * two wherever both apply. Used by the KUnit suite (reduce_test.c) and by
 * the host test (tests/bench/reduce), so plain C over gsync_fp.h only.
 *
 * Context: any; pure functions.
 */
#ifndef GSYNC_REDUCE_ORACLE_H
#define GSYNC_REDUCE_ORACLE_H

#include "../reduce_fp.h"
#include "../../xrt_kernels/ref/gsync_reduce_ref.h"

static inline uint32_t gsync_oracle_load(const void *buf, size_t i,
					 unsigned int dtype)
{
	if (dtype == GSYNC_RED_BF16)
		return gsync_bf16_to_f32(((const uint16_t *)buf)[i]);
	if (dtype == GSYNC_RED_FP16)
		return gsync_f16_to_f32(((const uint16_t *)buf)[i]);
	return ((const uint32_t *)buf)[i];
}

static inline void gsync_oracle_store(void *buf, size_t i, unsigned int dtype,
				      uint32_t v)
{
	if (dtype == GSYNC_RED_BF16)
		((uint16_t *)buf)[i] = gsync_f32_to_bf16(v);
	else if (dtype == GSYNC_RED_FP16)
		((uint16_t *)buf)[i] = gsync_f32_to_f16(v);
	else
		((uint32_t *)buf)[i] = gsync_f32_canon(v);
}

/* One output element, computed the long way. */
static inline void gsync_oracle_elem(void *out, const void *const *in,
				     unsigned int k, size_t i,
				     unsigned int dtype, unsigned int op,
				     uint32_t divisor)
{
	uint32_t acc, x;
	int64_t sum;
	int32_t sel, v;
	unsigned int j;

	if (dtype == GSYNC_RED_INT32) {
		sel = ((const int32_t *)in[0])[i];
		sum = sel;
		for (j = 1; j < k; j++) {
			v = ((const int32_t *)in[j])[i];
			sum += v;
			if ((op == GSYNC_RED_MIN && v < sel) ||
			    (op == GSYNC_RED_MAX && v > sel))
				sel = v;
		}
		if (op == GSYNC_RED_SUM)
			sel = (int32_t)(uint32_t)(uint64_t)sum;
		else if (op == GSYNC_RED_AVG)
			sel = (int32_t)(sum / (int64_t)divisor);
		((int32_t *)out)[i] = sel;
		return;
	}
	acc = gsync_oracle_load(in[0], i, dtype);
	for (j = 1; j < k; j++) {
		x = gsync_oracle_load(in[j], i, dtype);
		if (op == GSYNC_RED_MIN)
			acc = gsync_f32_min(acc, x);
		else if (op == GSYNC_RED_MAX)
			acc = gsync_f32_max(acc, x);
		else
			acc = gsync_f32_add(acc, x);
	}
	if (op == GSYNC_RED_AVG)
		acc = gsync_f32_div_u(acc, divisor);
	gsync_oracle_store(out, i, dtype, acc);
}

/*
 * out = reduction of in[0..k-1] (n elements); avg divides by divisor.
 * Uses the reference itself whenever it can express the job.
 */
static inline int gsync_oracle(void *out, const void *const *in,
			       unsigned int k, size_t n, unsigned int dtype,
			       unsigned int op, uint32_t divisor)
{
	size_t i;

	if (k <= GSYNC_RED_MAX_K && (op != GSYNC_RED_AVG || divisor == k))
		return gsync_reduce_ref(out, in, k, n, dtype, op);
	for (i = 0; i < n; i++)
		gsync_oracle_elem(out, in, k, i, dtype, op, divisor);
	return 0;
}

/* ---- deterministic test data ---------------------------------------- */

/* xorshift64*: fixed seeds make every run see the same inputs. */
static inline uint64_t gsync_rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static const uint32_t gsync_f32_specials[] = {
	0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
	0x7f800001, 0xffc00001, 0x7fffffff, 0x00000001, 0x807fffff,
	0x00800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000,
	0x33800000, 0x4b800000, 0x00400000,
};

static const uint16_t gsync_f16_specials[] = {
	0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe01, 0x0001,
	0x83ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x0200, 0x7bfe,
};

static const uint16_t gsync_bf16_specials[] = {
	0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffc1, 0x0001,
	0x807f, 0x0080, 0x7f7f, 0xff7f, 0x3f80, 0xbf80, 0x0040, 0x7f7e,
};

static const uint32_t gsync_i32_specials[] = {
	0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 0x7ffffffe, 0x80000001,
};

#define GSYNC_NSPEC(a) (sizeof(a) / sizeof((a)[0]))

/*
 * One random element with the bits of dtype: specials, fully random
 * patterns, subnormals, and values of nearby magnitude, so that sums
 * cancel, round (ties included) and overflow.
 */
static inline uint32_t gsync_rng_value(uint64_t *s, unsigned int dtype)
{
	uint64_t r = gsync_rng_next(s);
	unsigned int kind = r & 15, sign = (r >> 4) & 1;
	uint32_t m = (uint32_t)(r >> 32), e = (uint32_t)(r >> 8);

	switch (dtype) {
	case GSYNC_RED_INT32:
		if (kind == 0)
			return gsync_i32_specials[m % GSYNC_NSPEC(gsync_i32_specials)];
		if (kind < 8)
			return m;
		return (uint32_t)((int32_t)(m % 2001) - 1000);
	case GSYNC_RED_FP16:
		if (kind == 0)
			return gsync_f16_specials[m % GSYNC_NSPEC(gsync_f16_specials)];
		if (kind < 3)
			return m & 0xffff;
		if (kind < 5)		/* subnormal or tiny, or near overflow */
			e = (e & 1) ? e % 3 : 29 + e % 2;
		else
			e = 10 + e % 11;
		return sign << 15 | e << 10 | (m & 0x3ff);
	case GSYNC_RED_BF16:
		if (kind == 0)
			return gsync_bf16_specials[m % GSYNC_NSPEC(gsync_bf16_specials)];
		if (kind < 3)
			return m & 0xffff;
		if (kind < 5)
			e = (e & 1) ? e % 3 : 252 + e % 3;
		else
			e = 120 + e % 15;
		return sign << 15 | e << 7 | (m & 0x7f);
	default:
		if (kind == 0)
			return gsync_f32_specials[m % GSYNC_NSPEC(gsync_f32_specials)];
		if (kind < 3)
			return m;
		if (kind < 5)
			e = (e & 1) ? e % 3 : 252 + e % 3;
		else
			e = 120 + e % 15;
		if (kind == 15)		/* few low bits: exact sums, ties */
			m &= 0x7f0000;
		return sign << 31 | e << 23 | (m & 0x7fffff);
	}
}

static inline void gsync_rng_fill(uint64_t *s, void *buf, size_t n,
				  unsigned int dtype)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t v = gsync_rng_value(s, dtype);

		if (dtype == GSYNC_RED_BF16 || dtype == GSYNC_RED_FP16)
			((uint16_t *)buf)[i] = (uint16_t)v;
		else
			((uint32_t *)buf)[i] = v;
	}
}

#endif /* GSYNC_REDUCE_ORACLE_H */
