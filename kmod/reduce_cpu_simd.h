/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SIMD CPU reduction, written once with GCC vector extensions and
 * compiled once per vector width: reduce_cpu_sse2.c (16-byte vectors) and
 * reduce_cpu_avx2.c (32-byte vectors) define GSYNC_SIMD_BYTES and
 * GSYNC_SIMD_ENTRY and include this file. No intrinsics headers.
 *
 * Context: everything here runs between kernel_fpu_begin() and
 * kernel_fpu_end() (reduce_cpu_x86.c), so preemption is off: no sleeping,
 * no locks, no calls into code that may use the FPU. The files that
 * include this one hold nothing else, because their compiler flags let
 * GCC use vector registers anywhere in them.
 *
 * Arithmetic (docs/reduction-semantics.md, bit for bit):
 *  - kernel_fpu_begin() loads the default MXCSR (0x1f80): round to nearest
 *    even, no flush-to-zero, no denormals-are-zero, exceptions masked. So
 *    one addps is one IEEE binary32 add with subnormals kept, and one divps
 *    is one correctly rounded division; no FMA is ever enabled.
 *  - bf16/fp16 are widened and narrowed with integer vector operations
 *    (plus two exact float operations, see gsync_f16_widen/narrow).
 *  - min/max compare order keys: the fp32 bits with the magnitude bits of
 *    negative values inverted, a signed integer whose order is the numeric
 *    order with -0 < +0. A NaN gets the key that wins (INT_MIN for min,
 *    INT_MAX for max), whose inverse is again a NaN.
 *  - NaN results become the canonical NaN when stored.
 *  - int32 avg adds in double lanes: every partial sum of at most 256
 *    int32 values is an integer below 2^40, exact in a double; one
 *    correctly rounded division by d <= 65536 cannot cross an integer
 *    (the error is below |sum| * 2^-53 / d < 1/d, the distance of a
 *    non-integer quotient to the nearest integer), so truncating it gives
 *    the C quotient.
 *
 * Loop structure: the output is processed in blocks of GSYNC_REDUCE_BLOCK
 * elements; each block's fp32 accumulator (1 KiB on the stack) stays in L1
 * while the inputs are streamed over it one after another, so the fold is
 * still left to right per element and each input is read once.
 */
#ifndef GSYNC_SIMD_BYTES
#error "define GSYNC_SIMD_BYTES and GSYNC_SIMD_ENTRY before including"
#endif

#include <linux/types.h>

#include "reduce_cpu.h"

#define GSYNC_L		(GSYNC_SIMD_BYTES / 4)	/* lanes */

typedef u32 gsync_vu __attribute__((vector_size(GSYNC_SIMD_BYTES)));
typedef s32 gsync_vi __attribute__((vector_size(GSYNC_SIMD_BYTES)));
typedef float gsync_vf __attribute__((vector_size(sizeof(u32) * GSYNC_L)));
typedef double gsync_vd __attribute__((vector_size(sizeof(u64) * GSYNC_L)));
/* Views of the buffers, which are only element-aligned. */
typedef gsync_vu gsync_vu_m __aligned(sizeof(u32)) __attribute__((may_alias));
typedef gsync_vu gsync_vu_m2 __aligned(sizeof(u16)) __attribute__((may_alias));
#ifdef GSYNC_SIMD_F16C
typedef short gsync_vh __attribute__((vector_size(sizeof(u16) * GSYNC_L)));
typedef gsync_vh gsync_vh_m __aligned(sizeof(u16)) __attribute__((may_alias));
#endif

#define GSYNC_F32_QNAN_BITS	0x7fc00000u
#define GSYNC_F32_INF_BITS	0x7f800000u

/* mask ? a : b, per lane; mask lanes are all ones or all zeros */
static __always_inline gsync_vu gsync_sel(gsync_vi mask, gsync_vu a,
					  gsync_vu b)
{
	return ((gsync_vu)mask & a) | (~(gsync_vu)mask & b);
}

static __always_inline gsync_vi gsync_isnan(gsync_vu x)
{
	return (gsync_vi)(x & 0x7fffffffu) > (s32)GSYNC_F32_INF_BITS;
}

/*
 * fp16 -> fp32, exact. Normal numbers and inf/NaN are re-biased integer
 * fields; a subnormal m * 2^-24 (m < 1024) is converted to float and
 * scaled by a power of two, both exact.
 */
static __always_inline gsync_vu gsync_f16_widen(gsync_vu h)
{
	gsync_vu m = h & 0x7fffu, e = h & 0x7c00u;
	gsync_vu sign = (h & 0x8000u) << 16;
	gsync_vf subf = __builtin_convertvector((gsync_vi)m, gsync_vf) *
			0x1p-24f;
	gsync_vu r;

	r = gsync_sel(e == 0x7c00u, (m << 13) + 0x70000000u,
		      (m << 13) + 0x38000000u);
	r = gsync_sel(e == 0, (gsync_vu)subf, r);
	return r | sign;
}

/*
 * fp32 -> fp16 with round to nearest even. Normal results round the 13
 * dropped bits as integers (a carry may reach the exponent, correctly).
 * Results below 2^-14 are multiples of 2^-24: adding 0.5f rounds |f| to
 * that grid with the FPU's RNE, and the low bits of the sum are the fp16
 * subnormal (or 0x400, the smallest normal).
 */
static __always_inline gsync_vu gsync_f16_narrow(gsync_vu f)
{
	gsync_vu a = f & 0x7fffffffu, sign = (f >> 16) & 0x8000u;
	gsync_vi ai = (gsync_vi)a;
	gsync_vu norm = (a - 0x38000000u + 0xfffu + ((a >> 13) & 1)) >> 13;
	gsync_vu sub = (gsync_vu)((gsync_vf)a + 0.5f) - 0x3f000000u;
	gsync_vu r;

	r = gsync_sel(ai < 0x38800000, sub, norm);
	r = gsync_sel(ai >= 0x477ff000, (gsync_vu){} + 0x7c00u, r) | sign;
	return gsync_sel(ai > (s32)GSYNC_F32_INF_BITS,
			 (gsync_vu){} + 0x7e00u, r);
}

/* fp32 -> bf16 with round to nearest even; NaN -> 0x7fc0. */
static __always_inline gsync_vu gsync_bf16_narrow(gsync_vu f)
{
	gsync_vu r = (f + 0x7fffu + ((f >> 16) & 1)) >> 16;

	return gsync_sel(gsync_isnan(f), (gsync_vu){} + 0x7fc0u, r);
}

/*
 * Elements [i, i + 2 * GSYNC_L) of a buffer as two vectors of fp32 bits
 * (widened) or int32. 4-byte types: two consecutive vectors. 16-bit types:
 * one vector's worth of memory, the even elements in a and the odd ones
 * in b (the low and high half of each 32-bit lane), which needs no
 * shuffles; with F16C, the two halves converted in order. gsync_st2()
 * undoes the same layout.
 */
static __always_inline void gsync_ld2(const void *buf, size_t i,
				      unsigned int dtype, gsync_vu *a,
				      gsync_vu *b)
{
	const u16 *h = (const u16 *)buf + i;
	gsync_vu x;

	if (dtype == GSYNC_DTYPE_FP32 || dtype == GSYNC_DTYPE_INT32) {
		*a = *(const gsync_vu_m *)((const u32 *)buf + i);
		*b = *(const gsync_vu_m *)((const u32 *)buf + i + GSYNC_L);
		return;
	}
#ifdef GSYNC_SIMD_F16C
	if (dtype == GSYNC_DTYPE_FP16) {
		*a = (gsync_vu)__builtin_ia32_vcvtph2ps256(*(const gsync_vh_m *)h);
		*b = (gsync_vu)__builtin_ia32_vcvtph2ps256(*(const gsync_vh_m *)(h + GSYNC_L));
		return;
	}
#endif
	x = *(const gsync_vu_m2 *)h;
	if (dtype == GSYNC_DTYPE_BF16) {
		*a = x << 16;
		*b = x & 0xffff0000u;
		return;
	}
	*a = gsync_f16_widen(x & 0xffffu);
	*b = gsync_f16_widen(x >> 16);
}

static __always_inline gsync_vu gsync_canon(gsync_vu v)
{
	return gsync_sel(gsync_isnan(v), (gsync_vu){} + GSYNC_F32_QNAN_BITS, v);
}

/* Store results: int32 lanes, or fp32 bits narrowed with NaN canonical. */
static __always_inline void gsync_st2(void *buf, size_t i, unsigned int dtype,
				      gsync_vu a, gsync_vu b)
{
	u16 *h = (u16 *)buf + i;

	if (dtype == GSYNC_DTYPE_FP32) {
		a = gsync_canon(a);
		b = gsync_canon(b);
	}
	if (dtype == GSYNC_DTYPE_FP32 || dtype == GSYNC_DTYPE_INT32) {
		*(gsync_vu_m *)((u32 *)buf + i) = a;
		*(gsync_vu_m *)((u32 *)buf + i + GSYNC_L) = b;
		return;
	}
#ifdef GSYNC_SIMD_F16C
	if (dtype == GSYNC_DTYPE_FP16) {
		/* imm 0: round to nearest even; a NaN's payload would survive */
		*(gsync_vh_m *)h = __builtin_ia32_vcvtps2ph256((gsync_vf)gsync_canon(a), 0);
		*(gsync_vh_m *)(h + GSYNC_L) =
			__builtin_ia32_vcvtps2ph256((gsync_vf)gsync_canon(b), 0);
		return;
	}
#endif
	if (dtype == GSYNC_DTYPE_BF16)
		*(gsync_vu_m2 *)h = gsync_bf16_narrow(a) | gsync_bf16_narrow(b) << 16;
	else
		*(gsync_vu_m2 *)h = gsync_f16_narrow(a) | gsync_f16_narrow(b) << 16;
}

/* fp32 bits -> order key (an involution; see the top of the file) */
static __always_inline gsync_vi gsync_key(gsync_vu x)
{
	gsync_vi xi = (gsync_vi)x;

	return xi ^ (gsync_vi)((gsync_vu)(xi >> 31) >> 1);
}

/* A loaded element in the accumulator's domain. */
static __always_inline gsync_vu gsync_pre(gsync_vu x, unsigned int dtype,
					  unsigned int op)
{
	if (dtype == GSYNC_DTYPE_INT32 || op == GSYNC_OP_SUM ||
	    op == GSYNC_OP_AVG)
		return x;
	return gsync_sel(gsync_isnan(x),
			 (gsync_vu){} + (op == GSYNC_OP_MIN ? 0x80000000u :
							      0x7fffffffu),
			 (gsync_vu)gsync_key(x));
}

/* acc (op) x, both in the accumulator's domain */
static __always_inline gsync_vu gsync_comb(gsync_vu acc, gsync_vu x,
					   unsigned int dtype, unsigned int op)
{
	if (op == GSYNC_OP_MIN)
		return gsync_sel((gsync_vi)x < (gsync_vi)acc, x, acc);
	if (op == GSYNC_OP_MAX)
		return gsync_sel((gsync_vi)x > (gsync_vi)acc, x, acc);
	if (dtype == GSYNC_DTYPE_INT32)
		return acc + x;		/* wraps: unsigned lanes */
	return (gsync_vu)((gsync_vf)acc + (gsync_vf)x);
}

/* The accumulator's final value as fp32 bits (or int32). */
static __always_inline gsync_vu gsync_post(gsync_vu acc, gsync_vf divisor,
					   unsigned int dtype, unsigned int op)
{
	if (dtype == GSYNC_DTYPE_INT32)
		return acc;
	if (op == GSYNC_OP_AVG)
		return (gsync_vu)((gsync_vf)acc / divisor);
	if (op == GSYNC_OP_MIN || op == GSYNC_OP_MAX)
		return (gsync_vu)gsync_key(acc);
	return acc;
}

/* acc = acc (op) x for a pair of vectors (x not yet in the acc domain) */
#define GSYNC_COMB2(acc0, acc1, x0, x1)					\
	do {								\
		(acc0) = gsync_comb(acc0, gsync_pre(x0, dtype, op), dtype, op); \
		(acc1) = gsync_comb(acc1, gsync_pre(x1, dtype, op), dtype, op); \
	} while (0)

/*
 * Every dtype and op except int32 avg, specialised by constant folding;
 * n is a multiple of 2 * GSYNC_L. The buffer pointers are copied to
 * locals: stores through the may_alias views could otherwise change
 * job->in[] as far as GCC knows.
 */
static __always_inline void gsync_simd_run(const struct gsync_reduce_job *job,
					   size_t first, size_t n,
					   unsigned int dtype, unsigned int op)
{
	gsync_vu acc[GSYNC_REDUCE_BLOCK / GSYNC_L];
	const void *const *in = job->in;
	const void *in0 = in[0], *in1 = in[job->k > 1], *inj;
	void *out = job->out;
	gsync_vf div = (gsync_vf){} + (float)job->avg_divisor;
	unsigned int k = job->k, j;
	size_t at, nb, i;
	gsync_vu a, b, x, y;

	if (k <= 2) {
		for (i = first; i < first + n; i += 2 * GSYNC_L) {
			gsync_ld2(in0, i, dtype, &a, &b);
			a = gsync_pre(a, dtype, op);
			b = gsync_pre(b, dtype, op);
			if (k == 2) {
				gsync_ld2(in1, i, dtype, &x, &y);
				GSYNC_COMB2(a, b, x, y);
			}
			gsync_st2(out, i, dtype, gsync_post(a, div, dtype, op),
				  gsync_post(b, div, dtype, op));
		}
		return;
	}
	for (at = first; at < first + n; at += nb) {
		nb = first + n - at;
		if (nb > GSYNC_REDUCE_BLOCK)
			nb = GSYNC_REDUCE_BLOCK;
		for (i = 0; i < nb; i += 2 * GSYNC_L) {
			gsync_ld2(in0, at + i, dtype, &a, &b);
			gsync_ld2(in1, at + i, dtype, &x, &y);
			a = gsync_pre(a, dtype, op);
			b = gsync_pre(b, dtype, op);
			GSYNC_COMB2(a, b, x, y);
			acc[i / GSYNC_L] = a;
			acc[i / GSYNC_L + 1] = b;
		}
		for (j = 2; j < k - 1; j++) {
			inj = in[j];
			for (i = 0; i < nb; i += 2 * GSYNC_L) {
				gsync_ld2(inj, at + i, dtype, &x, &y);
				GSYNC_COMB2(acc[i / GSYNC_L], acc[i / GSYNC_L + 1],
					    x, y);
			}
		}
		inj = in[k - 1];
		for (i = 0; i < nb; i += 2 * GSYNC_L) {
			a = acc[i / GSYNC_L];
			b = acc[i / GSYNC_L + 1];
			gsync_ld2(inj, at + i, dtype, &x, &y);
			GSYNC_COMB2(a, b, x, y);
			gsync_st2(out, at + i, dtype, gsync_post(a, div, dtype, op),
				  gsync_post(b, div, dtype, op));
		}
	}
}

/* int32 avg: exact sums in double lanes, then one division (see top). */
static noinline void gsync_simd_int32_avg(const struct gsync_reduce_job *job,
					  size_t first, size_t n)
{
	gsync_vd acc[GSYNC_REDUCE_BLOCK / 2 / GSYNC_L];
	const void *const *in = job->in;
	const void *inj;
	void *out = job->out;
	double div = job->avg_divisor;
	size_t at, nb, i;
	unsigned int j;
	gsync_vu a, b;

	for (at = first; at < first + n; at += nb) {
		nb = first + n - at;
		if (nb > GSYNC_REDUCE_BLOCK / 2)
			nb = GSYNC_REDUCE_BLOCK / 2;
		for (i = 0; i < nb; i += 2 * GSYNC_L) {
			gsync_ld2(in[0], at + i, GSYNC_DTYPE_INT32, &a, &b);
			acc[i / GSYNC_L] = __builtin_convertvector((gsync_vi)a, gsync_vd);
			acc[i / GSYNC_L + 1] = __builtin_convertvector((gsync_vi)b, gsync_vd);
		}
		for (j = 1; j < job->k; j++) {
			inj = in[j];
			for (i = 0; i < nb; i += 2 * GSYNC_L) {
				gsync_ld2(inj, at + i, GSYNC_DTYPE_INT32, &a, &b);
				acc[i / GSYNC_L] += __builtin_convertvector((gsync_vi)a, gsync_vd);
				acc[i / GSYNC_L + 1] += __builtin_convertvector((gsync_vi)b, gsync_vd);
			}
		}
		for (i = 0; i < nb; i += 2 * GSYNC_L)
			gsync_st2(out, at + i, GSYNC_DTYPE_INT32,
				  (gsync_vu)__builtin_convertvector(acc[i / GSYNC_L] / div, gsync_vi),
				  (gsync_vu)__builtin_convertvector(acc[i / GSYNC_L + 1] / div, gsync_vi));
	}
}

#define GSYNC_SIMD_SPECIALISE(name, dtype, op)				\
static noinline void name(const struct gsync_reduce_job *job,		\
			  size_t first, size_t n)			\
{									\
	gsync_simd_run(job, first, n, dtype, op);			\
}

GSYNC_SIMD_SPECIALISE(gsync_simd_f32_sum, GSYNC_DTYPE_FP32, GSYNC_OP_SUM)
GSYNC_SIMD_SPECIALISE(gsync_simd_f32_avg, GSYNC_DTYPE_FP32, GSYNC_OP_AVG)
GSYNC_SIMD_SPECIALISE(gsync_simd_f32_min, GSYNC_DTYPE_FP32, GSYNC_OP_MIN)
GSYNC_SIMD_SPECIALISE(gsync_simd_f32_max, GSYNC_DTYPE_FP32, GSYNC_OP_MAX)
GSYNC_SIMD_SPECIALISE(gsync_simd_bf16_sum, GSYNC_DTYPE_BF16, GSYNC_OP_SUM)
GSYNC_SIMD_SPECIALISE(gsync_simd_bf16_avg, GSYNC_DTYPE_BF16, GSYNC_OP_AVG)
GSYNC_SIMD_SPECIALISE(gsync_simd_bf16_min, GSYNC_DTYPE_BF16, GSYNC_OP_MIN)
GSYNC_SIMD_SPECIALISE(gsync_simd_bf16_max, GSYNC_DTYPE_BF16, GSYNC_OP_MAX)
GSYNC_SIMD_SPECIALISE(gsync_simd_f16_sum, GSYNC_DTYPE_FP16, GSYNC_OP_SUM)
GSYNC_SIMD_SPECIALISE(gsync_simd_f16_avg, GSYNC_DTYPE_FP16, GSYNC_OP_AVG)
GSYNC_SIMD_SPECIALISE(gsync_simd_f16_min, GSYNC_DTYPE_FP16, GSYNC_OP_MIN)
GSYNC_SIMD_SPECIALISE(gsync_simd_f16_max, GSYNC_DTYPE_FP16, GSYNC_OP_MAX)
GSYNC_SIMD_SPECIALISE(gsync_simd_i32_sum, GSYNC_DTYPE_INT32, GSYNC_OP_SUM)
GSYNC_SIMD_SPECIALISE(gsync_simd_i32_min, GSYNC_DTYPE_INT32, GSYNC_OP_MIN)
GSYNC_SIMD_SPECIALISE(gsync_simd_i32_max, GSYNC_DTYPE_INT32, GSYNC_OP_MAX)

typedef void (*gsync_simd_fn)(const struct gsync_reduce_job *job,
			      size_t first, size_t n);

void GSYNC_SIMD_ENTRY(const struct gsync_reduce_job *job, size_t first,
		      size_t n)
{
	static const gsync_simd_fn fns[GSYNC_DTYPE_MAX][GSYNC_REDOP_MAX] = {
		[GSYNC_DTYPE_FP32] = { gsync_simd_f32_sum, gsync_simd_f32_avg,
				       gsync_simd_f32_min, gsync_simd_f32_max },
		[GSYNC_DTYPE_BF16] = { gsync_simd_bf16_sum, gsync_simd_bf16_avg,
				       gsync_simd_bf16_min, gsync_simd_bf16_max },
		[GSYNC_DTYPE_FP16] = { gsync_simd_f16_sum, gsync_simd_f16_avg,
				       gsync_simd_f16_min, gsync_simd_f16_max },
		[GSYNC_DTYPE_INT32] = { gsync_simd_i32_sum, gsync_simd_int32_avg,
					gsync_simd_i32_min, gsync_simd_i32_max },
	};

	fns[job->dtype][job->op](job, first, n);
}
