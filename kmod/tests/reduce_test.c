// SPDX-License-Identifier: GPL-2.0
/*
 * Suite gsync_reduce: the CPU reduction backend, every implementation this
 * CPU can run (scalar, sse2, avx2), bit for bit against the reference
 * (reduce_oracle.h: gsync_reduce_ref, extended to k <= 256 and any avg
 * divisor), plus job validation, the engine interface and canonical order.
 *
 * Inputs come from a fixed-seed xorshift generator, so every run tests the
 * same values. The tests run in the KUnit thread (process context), which
 * is what gsync_reduce_cpu() needs.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/gsync.h>

#include "reduce.h"
#include "reduce_cpu.h"
#include "reduce_oracle.h"

#define GSYNC_RT_GUARD	64	/* bytes checked on each side of out */

struct gsync_rt {
	struct kunit *test;
	u64 seed;
	size_t cap;			/* elements per buffer */
	u8 *in[GSYNC_REDUCE_MAX_K];
	const void *inp[GSYNC_REDUCE_MAX_K];
	u8 *outbuf, *want;
	unsigned int failures;
};

static const enum gsync_reduce_impl gsync_rt_impls[] = {
	GSYNC_REDUCE_IMPL_SCALAR, GSYNC_REDUCE_IMPL_SSE2, GSYNC_REDUCE_IMPL_AVX2,
};

static void gsync_rt_impl_desc(const enum gsync_reduce_impl *impl, char *desc)
{
	strscpy(desc, gsync_reduce_impl_name(*impl), KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(gsync_rt_impl, gsync_rt_impls, gsync_rt_impl_desc);

/* The implementation a parameterised case runs; skips if this CPU lacks it. */
static enum gsync_reduce_impl gsync_rt_param(struct kunit *test)
{
	enum gsync_reduce_impl impl =
		*(const enum gsync_reduce_impl *)test->param_value;

	if (!gsync_reduce_impl_usable(impl))
		kunit_skip(test, "%s not usable on this CPU",
			   gsync_reduce_impl_name(impl));
	return impl;
}

KUNIT_DEFINE_ACTION_WRAPPER(gsync_rt_kvfree, kvfree, const void *);

/* Test-lifetime memory that may be larger than kmalloc likes. */
static void *gsync_rt_alloc(struct kunit *test, size_t size)
{
	void *p = kvmalloc(size, GFP_KERNEL);

	if (!p || kunit_add_action_or_reset(test, gsync_rt_kvfree, p))
		return NULL;
	return p;
}

static struct gsync_rt *gsync_rt_new(struct kunit *test, unsigned int k,
				     size_t cap, u64 seed)
{
	struct gsync_rt *rt = kunit_kzalloc(test, sizeof(*rt), GFP_KERNEL);
	unsigned int j;

	KUNIT_ASSERT_NOT_NULL(test, rt);
	rt->test = test;
	rt->seed = seed;
	rt->cap = cap;
	/* + 3 elements: the cases shift the buffers off vector alignment */
	for (j = 0; j < k; j++) {
		rt->in[j] = gsync_rt_alloc(test, (cap + 3) * 4);
		KUNIT_ASSERT_NOT_NULL(test, rt->in[j]);
	}
	rt->outbuf = gsync_rt_alloc(test, (cap + 3) * 4 + 2 * GSYNC_RT_GUARD);
	rt->want = gsync_rt_alloc(test, cap * 4);
	KUNIT_ASSERT_NOT_NULL(test, rt->outbuf);
	KUNIT_ASSERT_NOT_NULL(test, rt->want);
	return rt;
}

/*
 * One job: inputs at element offset off (random if fill, else as they
 * are), run with impl, compared with the oracle, including the guard bytes
 * around the output. Reports the first difference; true if all equal.
 */
static bool gsync_rt_case(struct gsync_rt *rt, enum gsync_reduce_impl impl,
			  unsigned int dtype, unsigned int op, unsigned int k,
			  size_t n, u32 divisor, unsigned int off, bool fill)
{
	unsigned int es = gsync_dtype_size(dtype), j;
	size_t bytes = n * es, i;
	u8 *out = rt->outbuf + GSYNC_RT_GUARD + off * es;
	struct gsync_reduce_job job = {
		.in = rt->inp, .k = k, .out = out, .count = n,
		.dtype = dtype, .op = op, .avg_divisor = divisor,
	};
	bool same = true, guard = true;
	int err;

	if (rt->failures >= 3)	/* enough to debug; keep the log short */
		return false;
	for (j = 0; j < k; j++) {
		rt->inp[j] = rt->in[j] + off * es;
		if (fill)
			gsync_rng_fill(&rt->seed, rt->in[j] + off * es, n, dtype);
	}
	memset(rt->outbuf, 0xa5, bytes + off * es + 2 * GSYNC_RT_GUARD);
	gsync_oracle(rt->want, rt->inp, k, n, dtype, op, divisor);
	err = gsync_reduce_job_check(&job);
	if (!err)
		err = gsync_reduce_cpu_run(&job, impl);
	if (err) {
		KUNIT_FAIL(rt->test, "%s %s %s k=%u n=%zu: error %d",
			   gsync_reduce_impl_name(impl),
			   gsync_red_dtype_name(dtype), gsync_red_op_name(op),
			   k, n, err);
		rt->failures++;
		return false;
	}
	for (i = 0; i < n && same; i++) {
		u32 got = 0, want = 0;

		if (!memcmp(out + i * es, rt->want + i * es, es))
			continue;
		memcpy(&got, out + i * es, es);
		memcpy(&want, rt->want + i * es, es);
		KUNIT_FAIL(rt->test,
			   "%s %s %s k=%u n=%zu d=%u off=%u: [%zu] got %#x want %#x",
			   gsync_reduce_impl_name(impl),
			   gsync_red_dtype_name(dtype), gsync_red_op_name(op),
			   k, n, divisor, off, i, got, want);
		same = false;
	}
	for (i = 0; i < GSYNC_RT_GUARD + off * es; i++)
		guard &= rt->outbuf[i] == 0xa5;
	for (i = 0; i < GSYNC_RT_GUARD; i++)
		guard &= out[bytes + i] == 0xa5;
	if (!guard)
		KUNIT_FAIL(rt->test, "%s %s %s k=%u n=%zu: wrote outside the output",
			   gsync_reduce_impl_name(impl),
			   gsync_red_dtype_name(dtype), gsync_red_op_name(op),
			   k, n);
	if (!same || !guard)
		rt->failures++;
	return same && guard;
}

/* The oracle's own fallback agrees with gsync_reduce_ref where both apply. */
static void gsync_reduce_oracle_matches_ref(struct kunit *test)
{
	struct gsync_rt *rt = gsync_rt_new(test, GSYNC_RED_MAX_K, 67, 1);
	unsigned int dt, op, k;
	size_t i;

	for (dt = 0; dt < GSYNC_DTYPE_MAX; dt++)
		for (op = 0; op < GSYNC_REDOP_MAX; op++)
			for (k = 1; k <= GSYNC_RED_MAX_K; k++) {
				unsigned int j, es = gsync_dtype_size(dt);

				for (j = 0; j < k; j++) {
					gsync_rng_fill(&rt->seed, rt->in[j], 67, dt);
					rt->inp[j] = rt->in[j];
				}
				KUNIT_ASSERT_EQ(test, 0,
						gsync_reduce_ref(rt->want, rt->inp, k,
								 67, dt, op));
				for (i = 0; i < 67; i++)
					gsync_oracle_elem(rt->outbuf, rt->inp, k, i,
							  dt, op, k);
				KUNIT_EXPECT_MEMEQ_MSG(test, rt->outbuf, rt->want,
						       67 * es, "%s %s k=%u",
						       gsync_red_dtype_name(dt),
						       gsync_red_op_name(op), k);
			}
}

/* Every dtype x op, k up to 17, lengths 1..40 and around 64/128/256/300. */
static void gsync_reduce_matrix(struct kunit *test)
{
	static const unsigned int ks[] = { 1, 2, 3, 4, 8, 9, 16, 17 };
	static const size_t ns[] = { 63, 64, 65, 127, 128, 129, 255, 256,
				     257, 299, 300 };
	enum gsync_reduce_impl impl = gsync_rt_param(test);
	struct gsync_rt *rt = gsync_rt_new(test, 17, 300, 2);
	unsigned int dt, op, ki;
	size_t n, i;

	for (dt = 0; dt < GSYNC_DTYPE_MAX; dt++)
		for (op = 0; op < GSYNC_REDOP_MAX; op++)
			for (ki = 0; ki < ARRAY_SIZE(ks); ki++) {
				for (n = 1; n <= 40; n++)
					gsync_rt_case(rt, impl, dt, op, ks[ki], n,
						      ks[ki], n % 3, true);
				for (i = 0; i < ARRAY_SIZE(ns); i++)
					gsync_rt_case(rt, impl, dt, op, ks[ki],
						      ns[i], ks[ki], i % 3, true);
			}
}

/* The largest group: k = 256 with short buffers. */
static void gsync_reduce_k256(struct kunit *test)
{
	enum gsync_reduce_impl impl = gsync_rt_param(test);
	struct gsync_rt *rt = gsync_rt_new(test, 256, 100, 3);
	unsigned int dt, op;
	size_t n;

	for (dt = 0; dt < GSYNC_DTYPE_MAX; dt++)
		for (op = 0; op < GSYNC_REDOP_MAX; op++) {
			for (n = 1; n <= 33; n += 4)
				gsync_rt_case(rt, impl, dt, op, 256, n, 256, n % 2,
					      true);
			gsync_rt_case(rt, impl, dt, op, 256, 100, 256, 0, true);
		}
}

/* Lengths that cross several slices (kernel_fpu_end + cond_resched). */
static void gsync_reduce_large(struct kunit *test)
{
	static const unsigned int ks[] = { 2, 3 };
	enum gsync_reduce_impl impl = gsync_rt_param(test);
	struct gsync_rt *rt;
	unsigned int dt, ki, op;
	size_t n, slice;

	/* the longest case: 2.5 slices of the smallest dtype, k = 2 */
	rt = gsync_rt_new(test, 3, 5 * GSYNC_REDUCE_SLICE_BYTES / 2 / 6 + 64, 4);
	for (dt = 0; dt < GSYNC_DTYPE_MAX; dt++)
		for (ki = 0; ki < ARRAY_SIZE(ks); ki++) {
			slice = GSYNC_REDUCE_SLICE_BYTES /
				((ks[ki] + 1) * gsync_dtype_size(dt));
			n = 5 * slice / 2 + 13;	/* odd: a scalar tail too */
			for (op = 0; op < GSYNC_REDOP_MAX; op++)
				gsync_rt_case(rt, impl, dt, op, ks[ki], n, ks[ki],
					      1, op == 0);
		}
}

/* Averages divide by avg_divisor, which need not be k. */
static void gsync_reduce_avg_divisor(struct kunit *test)
{
	static const u32 divs[] = { 1, 2, 3, 4, 7, 18, 1000, 65535, 65536 };
	static const unsigned int ks[] = { 3, 17 };
	enum gsync_reduce_impl impl = gsync_rt_param(test);
	struct gsync_rt *rt = gsync_rt_new(test, 17, 101, 5);
	unsigned int dt, ki, d;

	for (dt = 0; dt < GSYNC_DTYPE_MAX; dt++)
		for (ki = 0; ki < ARRAY_SIZE(ks); ki++)
			for (d = 0; d < ARRAY_SIZE(divs); d++)
				gsync_rt_case(rt, impl, dt, GSYNC_OP_AVG, ks[ki],
					      101, divs[d], d % 3, true);
}

/* Every pair of special values (NaNs, infinities, zeros, subnormals...). */
static void gsync_reduce_special_pairs(struct kunit *test)
{
	enum gsync_reduce_impl impl = gsync_rt_param(test);
	struct gsync_rt *rt = gsync_rt_new(test, 3, 18 * 18, 6);
	unsigned int dt, op, a, b, ns;
	size_t i;

	for (dt = 0; dt < GSYNC_DTYPE_MAX; dt++) {
		for (a = 0, i = 0; a < 18; a++) {
			for (b = 0; b < 18; b++, i++) {
				u32 x, y;

				if (dt == GSYNC_DTYPE_FP32) {
					ns = ARRAY_SIZE(gsync_f32_specials);
					x = gsync_f32_specials[a % ns];
					y = gsync_f32_specials[b % ns];
				} else if (dt == GSYNC_DTYPE_INT32) {
					ns = ARRAY_SIZE(gsync_i32_specials);
					x = gsync_i32_specials[a % ns];
					y = gsync_i32_specials[b % ns];
				} else {
					const u16 *sp = dt == GSYNC_DTYPE_BF16 ?
						gsync_bf16_specials : gsync_f16_specials;

					x = sp[a % 16];
					y = sp[b % 16];
				}
				if (gsync_dtype_size(dt) == 4) {
					((u32 *)rt->in[0])[i] = x;
					((u32 *)rt->in[1])[i] = y;
					((u32 *)rt->in[2])[i] = x;
				} else {
					((u16 *)rt->in[0])[i] = x;
					((u16 *)rt->in[1])[i] = y;
					((u16 *)rt->in[2])[i] = x;
				}
			}
		}
		for (op = 0; op < GSYNC_REDOP_MAX; op++) {
			gsync_rt_case(rt, impl, dt, op, 2, i, 2, 0, false);
			gsync_rt_case(rt, impl, dt, op, 3, i, 3, 0, false);
		}
	}
}

/* All 65536 bf16 and fp16 patterns through every narrowing path. */
static void gsync_reduce_all_16bit(struct kunit *test)
{
	static const u32 divs[] = { 1, 3, 10, 65536 };
	enum gsync_reduce_impl impl = gsync_rt_param(test);
	struct gsync_rt *rt = gsync_rt_new(test, 2, 65536 / 2, 7);
	unsigned int dt, d, i;

	for (dt = GSYNC_DTYPE_BF16; dt <= GSYNC_DTYPE_FP16; dt++) {
		for (i = 0; i < 65536; i++) {
			((u16 *)rt->in[0])[i] = i;
			((u16 *)rt->in[1])[i] = (u16)(i * 40503u);
		}
		for (d = 0; d < ARRAY_SIZE(divs); d++)
			gsync_rt_case(rt, impl, dt, GSYNC_OP_AVG, 1, 65536,
				      divs[d], 0, false);
		gsync_rt_case(rt, impl, dt, GSYNC_OP_SUM, 2, 65536, 2, 0, false);
	}
}

/* A few results written out by hand, independent of any implementation. */
static void gsync_reduce_known_values(struct kunit *test)
{
	struct {
		u8 dtype, op;
		u32 a, b, want;
	} v[] = {
		/* RNE tie 1 + 2^-24 -> 1; 1+2^-23 + 2^-24 -> 1+2^-22 */
		{ GSYNC_DTYPE_FP32, GSYNC_OP_SUM, 0x3f800000, 0x33800000, 0x3f800000 },
		{ GSYNC_DTYPE_FP32, GSYNC_OP_SUM, 0x3f800001, 0x33800000, 0x3f800002 },
		{ GSYNC_DTYPE_FP32, GSYNC_OP_SUM, 0x80000000, 0x80000000, 0x80000000 },
		{ GSYNC_DTYPE_FP32, GSYNC_OP_SUM, 0x3f800000, 0xbf800000, 0x00000000 },
		{ GSYNC_DTYPE_FP32, GSYNC_OP_SUM, 0x7f800000, 0xff800000, 0x7fc00000 },
		{ GSYNC_DTYPE_FP32, GSYNC_OP_SUM, 0xffc12345, 0x3f800000, 0x7fc00000 },
		{ GSYNC_DTYPE_FP32, GSYNC_OP_SUM, 0x00000001, 0x00000001, 0x00000002 },
		{ GSYNC_DTYPE_FP32, GSYNC_OP_MIN, 0x00000000, 0x80000000, 0x80000000 },
		{ GSYNC_DTYPE_FP32, GSYNC_OP_MAX, 0x80000000, 0x00000000, 0x00000000 },
		{ GSYNC_DTYPE_FP32, GSYNC_OP_MIN, 0x3f800000, 0xff800001, 0x7fc00000 },
		{ GSYNC_DTYPE_FP32, GSYNC_OP_MAX, 0x7f800001, 0x3f800000, 0x7fc00000 },
		{ GSYNC_DTYPE_FP32, GSYNC_OP_AVG, 0x3f800000, 0x40000000, 0x3fc00000 },
		/* bf16: 1 + 2^-8 is a tie -> 1; fp16: 1 + 2^-11 -> 1 */
		{ GSYNC_DTYPE_BF16, GSYNC_OP_SUM, 0x3f80, 0x3b80, 0x3f80 },
		{ GSYNC_DTYPE_BF16, GSYNC_OP_SUM, 0x3f81, 0x3b80, 0x3f82 },
		{ GSYNC_DTYPE_BF16, GSYNC_OP_SUM, 0x7f80, 0xff80, 0x7fc0 },
		{ GSYNC_DTYPE_FP16, GSYNC_OP_SUM, 0x3c00, 0x1000, 0x3c00 },
		{ GSYNC_DTYPE_FP16, GSYNC_OP_SUM, 0x3c01, 0x1000, 0x3c02 },
		/* 65504 + 16 = 65520: a tie between 65504 and 2^16 -> inf */
		{ GSYNC_DTYPE_FP16, GSYNC_OP_SUM, 0x7bff, 0x4c00, 0x7c00 },
		{ GSYNC_DTYPE_FP16, GSYNC_OP_SUM, 0x0001, 0x0001, 0x0002 },
		{ GSYNC_DTYPE_FP16, GSYNC_OP_SUM, 0xfc00, 0x7c00, 0x7e00 },
		{ GSYNC_DTYPE_FP16, GSYNC_OP_AVG, 0x0001, 0x0000, 0x0000 },
		{ GSYNC_DTYPE_FP16, GSYNC_OP_AVG, 0x0003, 0x0000, 0x0002 },
		{ GSYNC_DTYPE_INT32, GSYNC_OP_SUM, 0x7fffffff, 1, 0x80000000 },
		{ GSYNC_DTYPE_INT32, GSYNC_OP_AVG, (u32)-5, 0, (u32)-2 },
		{ GSYNC_DTYPE_INT32, GSYNC_OP_AVG, (u32)-3, 0, (u32)-1 },
		{ GSYNC_DTYPE_INT32, GSYNC_OP_MIN, (u32)-1, 1, (u32)-1 },
	};
	unsigned int i, impl;

	for (impl = GSYNC_REDUCE_IMPL_SCALAR; impl < GSYNC_REDUCE_NIMPL; impl++) {
		if (!gsync_reduce_impl_usable(impl))
			continue;
		for (i = 0; i < ARRAY_SIZE(v); i++) {
			/* 32 copies, so SIMD lanes see the values too */
			u32 a[32], b[32], out[32], got = 0;
			const void *in[2] = { a, b };
			struct gsync_reduce_job job = {
				.in = in, .k = 2, .out = out, .count = 32,
				.dtype = v[i].dtype, .op = v[i].op,
				.avg_divisor = 2,
			};
			unsigned int j, es = gsync_dtype_size(v[i].dtype);

			if (es == 4)
				job.count = 32;
			else
				job.count = 64;
			for (j = 0; j < job.count; j++) {
				if (es == 4) {
					a[j] = v[i].a;
					b[j] = v[i].b;
				} else {
					((u16 *)a)[j] = v[i].a;
					((u16 *)b)[j] = v[i].b;
				}
			}
			KUNIT_ASSERT_EQ(test, 0, gsync_reduce_cpu_run(&job, impl));
			for (j = 0; j < job.count; j++) {
				memcpy(&got, (u8 *)out + j * es, es);
				if (got != v[i].want)
					break;
			}
			KUNIT_EXPECT_EQ_MSG(test, got, v[i].want,
					    "%s case %u (%#x, %#x) element %u",
					    gsync_reduce_impl_name(impl), i,
					    v[i].a, v[i].b, j);
		}
	}
}

/* int32 avg: the exact sum divided, truncated toward zero. */
static void gsync_reduce_int32_avg_k3(struct kunit *test)
{
	s32 a[16], b[16], c[16], out[16];
	const void *in[3] = { a, b, c };
	struct gsync_reduce_job job = {
		.in = in, .k = 3, .out = out, .count = 16,
		.dtype = GSYNC_DTYPE_INT32, .op = GSYNC_OP_AVG, .avg_divisor = 3,
	};
	unsigned int i, impl;

	for (i = 0; i < 16; i++) {
		a[i] = S32_MIN;
		b[i] = S32_MIN;
		c[i] = (s32)i - 8;	/* sums below -2^32 */
	}
	for (impl = GSYNC_REDUCE_IMPL_SCALAR; impl < GSYNC_REDUCE_NIMPL; impl++) {
		if (!gsync_reduce_impl_usable(impl))
			continue;
		KUNIT_ASSERT_EQ(test, 0, gsync_reduce_cpu_run(&job, impl));
		for (i = 0; i < 16; i++)
			KUNIT_EXPECT_EQ(test, out[i],
					(s32)((2 * (s64)S32_MIN + (s32)i - 8) / 3));
	}
}

static void gsync_reduce_dtype_sizes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, gsync_dtype_size(GSYNC_DTYPE_FP32), 4);
	KUNIT_EXPECT_EQ(test, gsync_dtype_size(GSYNC_DTYPE_BF16), 2);
	KUNIT_EXPECT_EQ(test, gsync_dtype_size(GSYNC_DTYPE_FP16), 2);
	KUNIT_EXPECT_EQ(test, gsync_dtype_size(GSYNC_DTYPE_INT32), 4);
	KUNIT_EXPECT_EQ(test, gsync_dtype_size(GSYNC_DTYPE_MAX), 0);
	KUNIT_EXPECT_EQ(test, gsync_dtype_size(255), 0);
	KUNIT_EXPECT_EQ(test, gsync_dtype_size(UINT_MAX), 0);
}

/* Every malformed job is refused with -EINVAL and nothing is written. */
static void gsync_reduce_job_validation(struct kunit *test)
{
	u32 *buf = kunit_kzalloc(test, 64 * sizeof(u32), GFP_KERNEL);
	const void **in = kunit_kcalloc(test, 257, sizeof(*in), GFP_KERNEL);
	struct gsync_reduce_job good, job;
	unsigned int j;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, in);
	for (j = 0; j < 257; j++)
		in[j] = buf;		/* inputs may alias each other */
	good = (struct gsync_reduce_job){
		.in = in, .k = 2, .out = buf + 32, .count = 32,
		.dtype = GSYNC_DTYPE_FP32, .op = GSYNC_OP_SUM,
	};
	KUNIT_EXPECT_EQ(test, gsync_reduce_job_check(&good), 0);
	KUNIT_EXPECT_EQ(test, gsync_reduce_job_check(NULL), -EINVAL);

#define GSYNC_BAD(field_assignment) do {				\
		job = good;						\
		job.field_assignment;					\
		KUNIT_EXPECT_EQ_MSG(test, gsync_reduce_job_check(&job),	\
				    -EINVAL, #field_assignment);	\
		KUNIT_EXPECT_EQ_MSG(test, gsync_reduce_cpu(&job),	\
				    -EINVAL, #field_assignment);	\
	} while (0)

	GSYNC_BAD(dtype = GSYNC_DTYPE_MAX);
	GSYNC_BAD(dtype = 255);
	GSYNC_BAD(op = GSYNC_REDOP_MAX);
	GSYNC_BAD(op = 255);
	GSYNC_BAD(k = 0);
	GSYNC_BAD(k = GSYNC_REDUCE_MAX_K + 1);
	GSYNC_BAD(count = 0);
	GSYNC_BAD(count = SIZE_MAX / 2);
	GSYNC_BAD(in = NULL);
	GSYNC_BAD(out = NULL);
	GSYNC_BAD(out = (u8 *)(buf + 32) + 2);		/* misaligned */
	GSYNC_BAD(out = buf + 16);			/* overlaps in[0] */
	GSYNC_BAD(out = buf);
	GSYNC_BAD(op = GSYNC_OP_AVG);			/* divisor 0 */
	GSYNC_BAD(op = GSYNC_OP_AVG; job.avg_divisor = 65537);
	GSYNC_BAD(dtype = GSYNC_DTYPE_FP16; job.out = (u8 *)(buf + 32) + 1);
#undef GSYNC_BAD

	in[1] = NULL;
	KUNIT_EXPECT_EQ(test, gsync_reduce_job_check(&good), -EINVAL);
	in[1] = (u8 *)buf + 1;
	KUNIT_EXPECT_EQ(test, gsync_reduce_job_check(&good), -EINVAL);
	in[1] = buf;

	job = good;
	job.k = GSYNC_REDUCE_MAX_K;
	KUNIT_EXPECT_EQ(test, gsync_reduce_job_check(&job), 0);
	job.op = GSYNC_OP_AVG;
	job.avg_divisor = 65536;
	KUNIT_EXPECT_EQ(test, gsync_reduce_job_check(&job), 0);
	job.dtype = GSYNC_DTYPE_BF16;
	job.out = (u8 *)(buf + 32) + 2;		/* 2-byte aligned is enough */
	KUNIT_EXPECT_EQ(test, gsync_reduce_job_check(&job), 0);
	/* the output just after an input does not overlap it */
	job = good;
	job.count = 16;
	job.out = buf + 16;
	in[0] = buf;
	KUNIT_EXPECT_EQ(test, gsync_reduce_job_check(&job), 0);
	job.count = 17;
	KUNIT_EXPECT_EQ(test, gsync_reduce_job_check(&job), -EINVAL);
}

static void gsync_reduce_test_done(struct gsync_reduce_job *job)
{
	(*(int *)job->priv)++;
}

/* The engine: done exactly once with status 0, or -EINVAL and no done. */
static void gsync_reduce_engine_submit(struct kunit *test)
{
	u32 a[5] = { 0x3f800000, 1, 2, 3, 4 }, b[5] = { 0x3f800000, 1, 2, 3, 4 };
	u32 out[5] = { };
	const void *in[2] = { a, b };
	int calls = 0;
	struct gsync_reduce_job job = {
		.in = in, .k = 2, .out = out, .count = 5,
		.dtype = GSYNC_DTYPE_FP32, .op = GSYNC_OP_SUM,
		.status = -EINPROGRESS, .done = gsync_reduce_test_done,
		.priv = &calls,
	};
	struct gsync_reduce_engine *eng = &gsync_reduce_cpu_engine;

	KUNIT_EXPECT_STREQ(test, eng->name, "cpu");
	KUNIT_EXPECT_EQ(test, eng->submit(eng, &job), 0);
	KUNIT_EXPECT_EQ(test, calls, 1);
	KUNIT_EXPECT_EQ(test, job.status, 0);
	KUNIT_EXPECT_EQ(test, out[0], 0x40000000);
	KUNIT_EXPECT_EQ(test, out[4], 0x00000008);

	job.k = 0;
	KUNIT_EXPECT_EQ(test, eng->submit(eng, &job), -EINVAL);
	KUNIT_EXPECT_EQ(test, calls, 1);
	job.k = 2;
	job.done = NULL;
	KUNIT_EXPECT_EQ(test, eng->submit(eng, &job), -EINVAL);
}

/*
 * The result is a function of in[] alone: inputs that arrive in any order
 * into their rank's slot give the same bits (and the same bits with every
 * implementation), while reordering in[] itself may change them.
 */
static void gsync_reduce_arrival_order(struct kunit *test)
{
	static const u8 arrivals[][5] = {
		{ 0, 1, 2, 3, 4 }, { 4, 3, 2, 1, 0 }, { 2, 0, 4, 1, 3 },
		{ 3, 4, 0, 2, 1 },
	};
	const size_t n = 203;
	struct gsync_rt *rt = gsync_rt_new(test, 5, n, 8);
	u32 *first = kunit_kmalloc_array(test, n, 4, GFP_KERNEL);
	u32 *ranks[5], *out = (u32 *)rt->want;
	const void *in[5];
	struct gsync_reduce_job job = {
		.in = in, .k = 5, .out = out, .count = n,
		.dtype = GSYNC_DTYPE_FP32, .op = GSYNC_OP_SUM,
	};
	unsigned int a, j, impl, dt;

	KUNIT_ASSERT_NOT_NULL(test, first);
	for (dt = 0; dt < GSYNC_DTYPE_MAX; dt++) {
		job.dtype = dt;
		for (j = 0; j < 5; j++) {
			ranks[j] = kunit_kmalloc_array(test, n, 4, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, ranks[j]);
			gsync_rng_fill(&rt->seed, ranks[j], n, dt);
			in[j] = rt->in[j];	/* slot j holds rank j */
		}
		for (impl = GSYNC_REDUCE_IMPL_SCALAR; impl < GSYNC_REDUCE_NIMPL;
		     impl++) {
			if (!gsync_reduce_impl_usable(impl))
				continue;
			for (a = 0; a < ARRAY_SIZE(arrivals); a++) {
				/* rank arrivals[a][j] arrives j-th: copy to its slot */
				for (j = 0; j < 5; j++) {
					unsigned int r = arrivals[a][j];

					memset(rt->in[r], 0, n * 4);
					memcpy(rt->in[r], ranks[r], n * 4);
				}
				KUNIT_ASSERT_EQ(test, 0, gsync_reduce_cpu_run(&job, impl));
				if (impl == GSYNC_REDUCE_IMPL_SCALAR && !a)
					memcpy(first, out, n * 4);
				else
					KUNIT_EXPECT_MEMEQ_MSG(test, out, first, n * 4,
							       "%s arrival %u",
							       gsync_reduce_impl_name(impl), a);
			}
		}
	}

	/* fp32: (2^30 + 1) - 2^30 = 0 (the 1 is rounded away), but
	 * (2^30 - 2^30) + 1 = 1: the order of in[] matters, and each order
	 * gives the oracle's bits for that order.
	 */
	for (impl = GSYNC_REDUCE_IMPL_SCALAR; impl < GSYNC_REDUCE_NIMPL; impl++) {
		u32 big[16], one[16], neg[16], res[16];
		const void *order[2][3] = { { big, one, neg }, { big, neg, one } };
		unsigned int o;

		if (!gsync_reduce_impl_usable(impl))
			continue;
		for (j = 0; j < 16; j++) {
			big[j] = 0x4e800000;	/* 2^30 */
			one[j] = 0x3f800000;
			neg[j] = 0xce800000;
		}
		for (o = 0; o < 2; o++) {
			job.in = order[o];
			job.k = 3;
			job.count = 16;
			job.dtype = GSYNC_DTYPE_FP32;
			job.out = res;
			KUNIT_ASSERT_EQ(test, 0, gsync_reduce_cpu_run(&job, impl));
			KUNIT_EXPECT_EQ(test, res[7], o ? 0x3f800000 : 0);
			gsync_oracle(first, order[o], 3, 16, GSYNC_DTYPE_FP32,
				     GSYNC_OP_SUM, 3);
			KUNIT_EXPECT_MEMEQ(test, res, first, sizeof(res));
		}
	}
}

static void gsync_reduce_impl_selection(struct kunit *test)
{
	enum gsync_reduce_impl best = gsync_reduce_impl_best();
	u32 a[8] = { 1 }, out[8];
	const void *in[1] = { a };
	struct gsync_reduce_job job = {
		.in = in, .k = 1, .out = out, .count = 8,
		.dtype = GSYNC_DTYPE_INT32, .op = GSYNC_OP_SUM,
	};
	unsigned int impl;

	KUNIT_EXPECT_TRUE(test, gsync_reduce_impl_usable(best));
	KUNIT_EXPECT_NE(test, best, GSYNC_REDUCE_IMPL_AUTO);
	KUNIT_EXPECT_TRUE(test, gsync_reduce_impl_usable(GSYNC_REDUCE_IMPL_SCALAR));
	kunit_info(test, "best CPU reduction: %s (sse2 %d, avx2 %d)",
		   gsync_reduce_impl_name(best),
		   gsync_reduce_impl_usable(GSYNC_REDUCE_IMPL_SSE2),
		   gsync_reduce_impl_usable(GSYNC_REDUCE_IMPL_AVX2));
	for (impl = 0; impl < GSYNC_REDUCE_NIMPL; impl++)
		KUNIT_EXPECT_EQ(test, gsync_reduce_cpu_run(&job, impl),
				gsync_reduce_impl_usable(impl) ? 0 : -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, gsync_reduce_cpu_run(&job, GSYNC_REDUCE_NIMPL),
			-EOPNOTSUPP);
	KUNIT_EXPECT_STREQ(test, gsync_reduce_impl_name(GSYNC_REDUCE_NIMPL), "?");
}

static struct kunit_case gsync_reduce_cases[] = {
	KUNIT_CASE(gsync_reduce_oracle_matches_ref),
	KUNIT_CASE(gsync_reduce_dtype_sizes),
	KUNIT_CASE(gsync_reduce_job_validation),
	KUNIT_CASE(gsync_reduce_engine_submit),
	KUNIT_CASE(gsync_reduce_impl_selection),
	KUNIT_CASE(gsync_reduce_known_values),
	KUNIT_CASE(gsync_reduce_int32_avg_k3),
	KUNIT_CASE(gsync_reduce_arrival_order),
	KUNIT_CASE_PARAM(gsync_reduce_matrix, gsync_rt_impl_gen_params),
	KUNIT_CASE_PARAM(gsync_reduce_k256, gsync_rt_impl_gen_params),
	KUNIT_CASE_PARAM(gsync_reduce_large, gsync_rt_impl_gen_params),
	KUNIT_CASE_PARAM(gsync_reduce_avg_divisor, gsync_rt_impl_gen_params),
	KUNIT_CASE_PARAM(gsync_reduce_special_pairs, gsync_rt_impl_gen_params),
	KUNIT_CASE_PARAM(gsync_reduce_all_16bit, gsync_rt_impl_gen_params),
	{}
};

static struct kunit_suite gsync_reduce_suite = {
	.name = "gsync_reduce",
	.test_cases = gsync_reduce_cases,
};

kunit_test_suites(&gsync_reduce_suite);
