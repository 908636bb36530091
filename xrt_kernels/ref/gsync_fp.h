/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * gsync_fp.h - bit-exact scalar floating-point primitives for gsync
 * reductions, written with integer operations only.
 *
 * Why integer-only:
 *  - The Linux kernel cannot use the FPU in ordinary code (x86 builds with
 *    -mno-sse), so the in-kernel CPU backend and its KUnit tests need an
 *    implementation that never touches float registers.
 *  - The floating-point adder IP that Vitis HLS would otherwise instantiate
 *    for a C `float` add does not honour subnormals on every device family;
 *    building the add out of integer logic makes the FPGA bit-identical to
 *    the CPU by construction rather than by vendor documentation.
 *  - Host FPU state (FTZ/DAZ set by -ffast-math libraries, x87 excess
 *    precision) cannot leak in.
 *
 * This header is valid C11, C++17, kernel C and Vitis HLS C++: only
 * fixed-width integer types, no libm, no variable-trip-count loops (so HLS
 * can pipeline every function at II=1).  All values are passed as raw bit
 * patterns (uint32_t for fp32, uint16_t for bf16/fp16).
 *
 * The semantics are normative; see docs/reduction-semantics.md.
 */
#ifndef GSYNC_FP_H
#define GSYNC_FP_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#define GSYNC_F32_QNAN  0x7fc00000u /* canonical NaN: quiet, sign cleared */
#define GSYNC_BF16_QNAN 0x7fc0u
#define GSYNC_F16_QNAN  0x7e00u
#define GSYNC_F32_INF   0x7f800000u

static inline int gsync_f32_isnan(uint32_t x)
{
	return (x & 0x7fffffffu) > GSYNC_F32_INF;
}

/* Any NaN becomes the one canonical NaN, so every path agrees bit-for-bit. */
static inline uint32_t gsync_f32_canon(uint32_t x)
{
	return gsync_f32_isnan(x) ? GSYNC_F32_QNAN : x;
}

/* Count leading zeros without compiler builtins (portable to HLS/kernel);
 * a fixed 6-step binary search, i.e. a small priority encoder in hardware.
 * Returns 64 for x == 0. */
static inline unsigned gsync_clz64(uint64_t x)
{
	unsigned n = 0;

	if (x == 0)
		return 64;
	if (!(x >> 32)) { n += 32; x <<= 32; }
	if (!(x >> 48)) { n += 16; x <<= 16; }
	if (!(x >> 56)) { n += 8;  x <<= 8; }
	if (!(x >> 60)) { n += 4;  x <<= 4; }
	if (!(x >> 62)) { n += 2;  x <<= 2; }
	if (!(x >> 63)) { n += 1; }
	return n;
}

/* Logical right shift that ORs every shifted-out bit into bit 0 ("sticky"),
 * which is all round-to-nearest-even needs to know about them. */
static inline uint64_t gsync_shr_sticky(uint64_t x, unsigned d)
{
	if (d == 0)
		return x;
	if (d >= 64)
		return x != 0;
	return (x >> d) | ((x << (64 - d)) != 0);
}

/*
 * Round sig * 2^exp (sig != 0, exact except that bit 0 may be a sticky bit
 * standing for "something nonzero below") to fp32 with round-to-nearest-even,
 * producing subnormals, and +-inf on overflow.  Callers guarantee that after
 * normalisation the sticky bit lies well below the rounding point.
 */
static inline uint32_t gsync_f32_pack_rne(uint32_t sign, int32_t exp,
					  uint64_t sig)
{
	unsigned lz = gsync_clz64(sig);
	int32_t e;          /* biased fp32 exponent of the leading bit */
	uint32_t base, mant, bits;
	uint64_t rest;

	sig <<= lz;
	e = exp - (int32_t)lz + 63 + 127;
	if (e >= 255)
		return (sign << 31) | GSYNC_F32_INF;
	if (e <= 0) {
		/* subnormal: one more place per step below the minimum exponent */
		sig = gsync_shr_sticky(sig, (unsigned)(1 - e));
		base = 0;
	} else {
		/* mant carries the implicit bit, so base is e-1: a carry out of
		 * the mantissa then bumps the exponent by itself. */
		base = (uint32_t)(e - 1) << 23;
	}
	mant = (uint32_t)(sig >> 40);
	rest = sig & ((UINT64_C(1) << 40) - 1);
	if (rest > (UINT64_C(1) << 39) ||
	    (rest == (UINT64_C(1) << 39) && (mant & 1)))
		mant++;
	bits = base + mant;
	if (bits >= GSYNC_F32_INF)
		bits = GSYNC_F32_INF;
	return (sign << 31) | bits;
}

/* IEEE-754 binary32 addition, round-to-nearest-even, subnormals preserved.
 * A NaN result is returned as the canonical NaN. */
static inline uint32_t gsync_f32_add(uint32_t a, uint32_t b)
{
	uint32_t ua = a & 0x7fffffffu, ub = b & 0x7fffffffu, t;
	uint32_t ea, eb, ma, mb;
	uint64_t A, B, S;

	if (ua > GSYNC_F32_INF || ub > GSYNC_F32_INF)
		return GSYNC_F32_QNAN;
	if (ua == GSYNC_F32_INF) {
		if (ub == GSYNC_F32_INF && ((a ^ b) >> 31))
			return GSYNC_F32_QNAN;          /* inf - inf */
		return a;
	}
	if (ub == GSYNC_F32_INF)
		return b;
	if (ua < ub) {                                  /* make |a| >= |b| */
		t = a; a = b; b = t;
		t = ua; ua = ub; ub = t;
	}
	ea = ua >> 23;
	eb = ub >> 23;
	ma = ua & 0x7fffffu;
	mb = ub & 0x7fffffu;
	if (ea) ma |= 0x800000u; else ea = 1;   /* subnormal: exponent 1, no implicit bit */
	if (eb) mb |= 0x800000u; else eb = 1;
	/* 38 guard bits below the 24-bit significand: any alignment shift up
	 * to 38 is exact, larger ones keep a sticky bit; the sum stays < 2^63. */
	A = (uint64_t)ma << 38;
	B = gsync_shr_sticky((uint64_t)mb << 38, ea - eb);
	S = ((a ^ b) >> 31) ? A - B : A + B;
	if (S == 0)     /* exact zero: -0 only for (-0) + (-0) under RNE */
		return a & b & 0x80000000u;
	return gsync_f32_pack_rne(a >> 31, (int32_t)ea - 150 - 38, S);
}

/* IEEE-754 binary32 division a / (float)k for an integer 1 <= k <= 65536,
 * correctly rounded (RNE, subnormals preserved).  Used for avg. */
static inline uint32_t gsync_f32_div_u(uint32_t a, uint32_t k)
{
	uint32_t ua = a & 0x7fffffffu, sign = a >> 31, ma;
	int32_t ea;
	uint64_t num, q, r;
	unsigned s;

	if (ua > GSYNC_F32_INF)
		return GSYNC_F32_QNAN;
	if (ua == GSYNC_F32_INF || ua == 0)
		return a;                       /* +-inf / k, +-0 / k */
	ea = (int32_t)(ua >> 23);
	ma = ua & 0x7fffffu;
	if (ea) {
		ma |= 0x800000u;
	} else {
		/* normalise subnormals so the quotient always has >= 46 bits and
		 * the sticky bit stays far below the rounding point */
		s = gsync_clz64(ma) - 40;
		ma <<= s;
		ea = 1 - (int32_t)s;
	}
	num = (uint64_t)ma << 39;               /* < 2^63 */
	q = num / k;
	r = num % k;
	return gsync_f32_pack_rne(sign, ea - 150 - 39, q | (r != 0));
}

/* Map a non-NaN fp32 pattern to an unsigned key whose integer order is the
 * numeric order, with -0.0 < +0.0. */
static inline uint32_t gsync_f32_order_key(uint32_t x)
{
	return (x & 0x80000000u) ? ~x : (x | 0x80000000u);
}

/* NaN-propagating min/max; the result is one of the inputs' exact bits. */
static inline uint32_t gsync_f32_min(uint32_t a, uint32_t b)
{
	if (gsync_f32_isnan(a))
		return a;
	if (gsync_f32_isnan(b))
		return b;
	return gsync_f32_order_key(b) < gsync_f32_order_key(a) ? b : a;
}

static inline uint32_t gsync_f32_max(uint32_t a, uint32_t b)
{
	if (gsync_f32_isnan(a))
		return a;
	if (gsync_f32_isnan(b))
		return b;
	return gsync_f32_order_key(b) > gsync_f32_order_key(a) ? b : a;
}

/* ---- conversions ---------------------------------------------------- */

/* bf16 is the top half of an fp32: widening is exact. */
static inline uint32_t gsync_bf16_to_f32(uint16_t h)
{
	return (uint32_t)h << 16;
}

/* fp32 -> bf16, round-to-nearest-even on the 16 dropped bits.  bf16 has
 * fp32's exponent range, so subnormals round as plain integers and a carry
 * out of the largest finite value lands exactly on inf. */
static inline uint16_t gsync_f32_to_bf16(uint32_t f)
{
	if (gsync_f32_isnan(f))
		return GSYNC_BF16_QNAN;
	return (uint16_t)((f + 0x7fffu + ((f >> 16) & 1)) >> 16);
}

/* fp16 -> fp32, exact (every fp16 value, subnormals included, is an fp32
 * normal number).  NaN payloads are kept; they are canonicalised on output. */
static inline uint32_t gsync_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
	unsigned s;

	if (e == 0x1f)
		return sign | GSYNC_F32_INF | (m << 13);
	if (e != 0)
		return sign | ((e + 112) << 23) | (m << 13);    /* rebias 15 -> 127 */
	if (m == 0)
		return sign;
	/* subnormal m * 2^-24: shift the leading 1 up to bit 10 (implicit) */
	s = gsync_clz64(m) - 53;
	return sign | ((113 - s) << 23) | (((m << s) & 0x3ffu) << 13);
}

/* fp32 -> fp16, round-to-nearest-even, fp16 subnormals produced, overflow
 * to +-inf, NaN -> canonical 0x7e00. */
static inline uint16_t gsync_f32_to_f16(uint32_t f)
{
	uint32_t sign = (f >> 16) & 0x8000u, uf = f & 0x7fffffffu;
	uint32_t e32 = uf >> 23, m24 = uf & 0x7fffffu, mant, rest, half, bits;
	int32_t e16;
	unsigned sh;

	if (uf > GSYNC_F32_INF)
		return GSYNC_F16_QNAN;
	if (uf == GSYNC_F32_INF)
		return (uint16_t)(sign | 0x7c00u);
	if (e32) m24 |= 0x800000u; else e32 = 1;
	e16 = (int32_t)e32 - 112;
	if (e16 >= 31)
		return (uint16_t)(sign | 0x7c00u);
	/* drop 13 bits for a normal result, more for a subnormal one */
	sh = 13 + (e16 < 1 ? (unsigned)(1 - e16) : 0);
	if (sh >= 25)   /* below half the smallest subnormal: rounds to zero */
		return (uint16_t)sign;
	mant = m24 >> sh;
	rest = m24 & ((1u << sh) - 1);
	half = 1u << (sh - 1);
	if (rest > half || (rest == half && (mant & 1)))
		mant++;
	bits = (e16 < 1 ? 0 : (uint32_t)(e16 - 1) << 10) + mant;
	if (bits >= 0x7c00u)
		bits = 0x7c00u;
	return (uint16_t)(sign | bits);
}

#endif /* GSYNC_FP_H */
