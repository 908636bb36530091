// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_fp_prims.c - checks the integer-only primitives of gsync_fp.h
 * against independent oracles:
 *   - the host FPU (IEEE binary32 add/divide, SSE on x86-64: no excess
 *     precision, denormals kept unless FTZ/DAZ are set, which test 1 checks),
 *   - GCC's _Float16 conversions (libgcc, round-to-nearest-even),
 *   - a nearest-neighbour search in double for fp32 -> bf16.
 * Conversions are tested exhaustively over all 65536 16-bit patterns, plus
 * explicit round-to-nearest-even ties.
 */
#include <stdint.h>
#include <string.h>

#include "../ref/gsync_fp.h"
#include "oracle.h"
#include "tap.h"

/* Both NaN, or identical bits. */
static int same_f32(uint32_t got, uint32_t want)
{
	if (gsync_f32_isnan(want))
		return got == GSYNC_F32_QNAN;
	return got == want;
}

static void test_fpu_sane(void)
{
	volatile float tiny = bits2f(0x00000002u), two = 2.0f;

	tap_result(f2bits(tiny / two) == 0x00000001u,
		   "host FPU keeps subnormals (oracle usable)");
}

static void test_f16_widen_exhaustive(void)
{
	unsigned bad = 0, h;

	for (h = 0; h < 65536; h++) {
		_Float16 x;
		uint16_t hb = (uint16_t)h;
		uint32_t got = gsync_f16_to_f32(hb), want;

		memcpy(&x, &hb, 2);
		want = f2bits((float)x);
		if (gsync_f32_isnan(want) ? !gsync_f32_isnan(got) : got != want) {
			if (bad++ < 5)
				tap_diag("f16 %04x -> %08x, want %08x", h, got, want);
		}
	}
	tap_result(bad == 0, "fp16->fp32 exact for all 65536 patterns (%u bad)", bad);
}

static void test_roundtrip_exhaustive(void)
{
	unsigned bad16 = 0, badbf = 0, h;

	for (h = 0; h < 65536; h++) {
		uint16_t hb = (uint16_t)h;
		int nan16 = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
		int nanbf = (h & 0x7f80) == 0x7f80 && (h & 0x7f);
		uint16_t r16 = gsync_f32_to_f16(gsync_f16_to_f32(hb));
		uint16_t rbf = gsync_f32_to_bf16(gsync_bf16_to_f32(hb));

		if (r16 != (nan16 ? GSYNC_F16_QNAN : hb) && bad16++ < 5)
			tap_diag("f16 %04x round-trips to %04x", h, r16);
		if (rbf != (nanbf ? GSYNC_BF16_QNAN : hb) && badbf++ < 5)
			tap_diag("bf16 %04x round-trips to %04x", h, rbf);
	}
	tap_result(bad16 == 0, "fp16->fp32->fp16 identity for all 65536 (NaN -> 0x7e00)");
	tap_result(badbf == 0, "bf16->fp32->bf16 identity for all 65536 (NaN -> 0x7fc0)");
}

/* fp32 -> fp16 against libgcc on a 2^24-sample stride of all fp32 patterns
 * (every exponent, every sign, low mantissa bits varied by the stride
 * offset) plus random patterns. */
static void test_f16_narrow_vs_libgcc(void)
{
	unsigned bad = 0;
	uint64_t u;
	int i;

	for (u = 0; u < (1ull << 32); u += 251) {
		uint32_t f = (uint32_t)u;
		_Float16 x = (_Float16)bits2f(f);
		uint16_t want, got = gsync_f32_to_f16(f);

		memcpy(&want, &x, 2);
		if ((want & 0x7c00) == 0x7c00 && (want & 0x3ff))
			want = GSYNC_F16_QNAN;
		if (got != want && bad++ < 5)
			tap_diag("f32 %08x -> f16 %04x, want %04x", f, got, want);
	}
	for (i = 0; i < 1000000; i++) {
		uint32_t f = rand_f32();
		_Float16 x = (_Float16)bits2f(f);
		uint16_t want, got = gsync_f32_to_f16(f);

		memcpy(&want, &x, 2);
		if ((want & 0x7c00) == 0x7c00 && (want & 0x3ff))
			want = GSYNC_F16_QNAN;
		if (got != want && bad++ < 5)
			tap_diag("f32 %08x -> f16 %04x, want %04x", f, got, want);
	}
	tap_result(bad == 0, "fp32->fp16 RNE matches libgcc _Float16 (%u bad)", bad);
}

static void test_bf16_narrow(void)
{
	unsigned bad = 0;
	uint64_t u;

	for (u = 0; u < (1ull << 32); u += 257) {
		uint32_t f = (uint32_t)u;
		uint16_t got = gsync_f32_to_bf16(f), want = bf16_oracle(f);

		if (got != want && bad++ < 5)
			tap_diag("f32 %08x -> bf16 %04x, want %04x", f, got, want);
	}
	tap_result(bad == 0, "fp32->bf16 RNE matches nearest-neighbour oracle (%u bad)", bad);
}

struct tie { uint32_t in; uint16_t out; const char *what; };

static void test_ties(void)
{
	/* fp16: 1 ulp at 1.0 is 2^-10; 2^-11 offsets are exact ties */
	static const struct tie f16[] = {
		{ 0x3f801000u, 0x3c00, "1+2^-11 -> 1 (even)" },
		{ 0x3f803000u, 0x3c02, "1+3*2^-11 -> 1+2^-9 (even)" },
		{ 0x3f801001u, 0x3c01, "just above tie rounds up" },
		{ 0x477fefffu, 0x7bff, "65519.998 -> 65504" },
		{ 0x477ff000u, 0x7c00, "65520 (tie at max) -> inf" },
		{ 0xc77ff000u, 0xfc00, "-65520 -> -inf" },
		{ 0x33000000u, 0x0000, "2^-25 (half min subnormal) -> +0 (even)" },
		{ 0x33000001u, 0x0001, "just above 2^-25 -> min subnormal" },
		{ 0x33c00000u, 0x0002, "3*2^-25 -> 2*2^-24 (even)" },
		{ 0xb3000000u, 0x8000, "-2^-25 -> -0" },
		{ 0x387fe000u, 0x0400, "max subnormal + half ulp -> min normal (even)" },
		{ 0x00000001u, 0x0000, "fp32 subnormal -> +0" },
		{ 0x80000000u, 0x8000, "-0 stays -0" },
		{ 0xffc12345u, 0x7e00, "negative NaN -> canonical 0x7e00" },
	};
	static const struct tie bf[] = {
		{ 0x3f808000u, 0x3f80, "1+2^-8 -> 1 (even)" },
		{ 0x3f818000u, 0x3f82, "odd + half -> up (even)" },
		{ 0x3f808001u, 0x3f81, "just above tie rounds up" },
		{ 0x7f7f8000u, 0x7f80, "max + half ulp -> inf" },
		{ 0x7f7f7fffu, 0x7f7f, "just below overflow tie stays finite" },
		{ 0x00008000u, 0x0000, "subnormal tie -> even 0" },
		{ 0x00018000u, 0x0002, "subnormal tie -> even 2" },
		{ 0xff812345u, 0x7fc0, "signalling negative NaN -> canonical 0x7fc0" },
	};
	static const struct { uint32_t a, b, r; const char *what; } add[] = {
		{ 0x3f800000u, 0x33800000u, 0x3f800000u, "1 + 2^-24 -> 1 (tie, even)" },
		{ 0x3f800001u, 0x33800000u, 0x3f800002u, "(1+ulp) + 2^-24 -> up (even)" },
		{ 0x80000000u, 0x80000000u, 0x80000000u, "-0 + -0 = -0" },
		{ 0x00000000u, 0x80000000u, 0x00000000u, "+0 + -0 = +0" },
		{ 0x3f800000u, 0xbf800000u, 0x00000000u, "1 + -1 = +0" },
		{ 0x00000001u, 0x00000001u, 0x00000002u, "subnormal + subnormal" },
		{ 0x007fffffu, 0x00000001u, 0x00800000u, "max subnormal + min -> min normal" },
		{ 0x7f7fffffu, 0x73000000u, 0x7f800000u, "max + half ulp -> inf" },
		{ 0x7f800000u, 0xff800000u, GSYNC_F32_QNAN, "inf + -inf = NaN" },
	};
	unsigned bad = 0, i;

	for (i = 0; i < sizeof(f16) / sizeof(f16[0]); i++)
		if (gsync_f32_to_f16(f16[i].in) != f16[i].out && ++bad)
			tap_diag("f16 tie %s: got %04x", f16[i].what, gsync_f32_to_f16(f16[i].in));
	tap_result(bad == 0, "fp32->fp16 explicit RNE ties, subnormals, overflow");
	bad = 0;
	for (i = 0; i < sizeof(bf) / sizeof(bf[0]); i++)
		if (gsync_f32_to_bf16(bf[i].in) != bf[i].out && ++bad)
			tap_diag("bf16 tie %s: got %04x", bf[i].what, gsync_f32_to_bf16(bf[i].in));
	tap_result(bad == 0, "fp32->bf16 explicit RNE ties, subnormals, overflow");
	bad = 0;
	for (i = 0; i < sizeof(add) / sizeof(add[0]); i++)
		if (gsync_f32_add(add[i].a, add[i].b) != add[i].r && ++bad)
			tap_diag("add %s: got %08x", add[i].what, gsync_f32_add(add[i].a, add[i].b));
	tap_result(bad == 0, "fp32 add explicit ties, signed zeros, overflow, inf-inf");
}

static const uint32_t specials[] = {
	0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff,
	0x00800000, 0x80800000, 0x3f800000, 0xbf800000, 0x3f800001, 0x33800000,
	0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001,
	0x7f800001, 0x34000000, 0x4b800000, 0xcb7fffff, 0x00400000, 0x80400001,
};
#define NSPECIALS (sizeof(specials) / sizeof(specials[0]))

static void test_add_vs_fpu(void)
{
	unsigned bad = 0, i, j;
	int n;

	for (i = 0; i < NSPECIALS; i++)
		for (j = 0; j < NSPECIALS; j++) {
			uint32_t want = f2bits(bits2f(specials[i]) + bits2f(specials[j]));
			uint32_t got = gsync_f32_add(specials[i], specials[j]);

			if (!same_f32(got, want) && bad++ < 5)
				tap_diag("%08x + %08x = %08x, want %08x",
					 specials[i], specials[j], got, want);
		}
	for (n = 0; n < 3000000; n++) {
		uint32_t a = rand_f32(), b, got, want;

		/* a third of the pairs have close magnitudes: deep cancellation */
		b = (n % 3 == 0) ? (a ^ 0x80000000u) + (uint32_t)(rng() % 64) - 32
				 : rand_f32();
		want = f2bits(bits2f(a) + bits2f(b));
		got = gsync_f32_add(a, b);
		if (!same_f32(got, want) && bad++ < 5)
			tap_diag("%08x + %08x = %08x, want %08x", a, b, got, want);
	}
	tap_result(bad == 0, "fp32 add matches FPU on specials^2 + 3M random pairs (%u bad)", bad);
}

static void test_div_vs_fpu(void)
{
	unsigned bad = 0, i, k;
	int n;

	for (k = 1; k <= 16; k++) {
		for (i = 0; i < NSPECIALS; i++) {
			uint32_t want = f2bits(bits2f(specials[i]) / (float)k);
			uint32_t got = gsync_f32_div_u(specials[i], k);

			if (!same_f32(got, want) && bad++ < 5)
				tap_diag("%08x / %u = %08x, want %08x", specials[i], k, got, want);
		}
		for (n = 0; n < 100000; n++) {
			uint32_t a = rand_f32();
			uint32_t want = f2bits(bits2f(a) / (float)k);
			uint32_t got = gsync_f32_div_u(a, k);

			if (!same_f32(got, want) && bad++ < 5)
				tap_diag("%08x / %u = %08x, want %08x", a, k, got, want);
		}
	}
	tap_result(bad == 0, "fp32 divide by k=1..16 matches FPU (%u bad)", bad);
}

static void test_minmax(void)
{
	unsigned bad = 0, i, j;

	for (i = 0; i < NSPECIALS; i++)
		for (j = 0; j < NSPECIALS; j++) {
			uint32_t a = specials[i], b = specials[j];
			uint32_t mn = gsync_f32_min(a, b), mx = gsync_f32_max(a, b);
			float fa = bits2f(a), fb = bits2f(b);
			uint32_t wmn, wmx;

			if (gsync_f32_isnan(a) || gsync_f32_isnan(b)) {
				wmn = wmx = GSYNC_F32_QNAN;
				mn = gsync_f32_canon(mn);
				mx = gsync_f32_canon(mx);
			} else if (fa == fb) {  /* only +-0 pairs or identical bits */
				wmn = (a >> 31) ? a : b;
				wmx = (a >> 31) ? b : a;
			} else {
				wmn = fa < fb ? a : b;
				wmx = fa < fb ? b : a;
			}
			if ((mn != wmn || mx != wmx) && bad++ < 5)
				tap_diag("min/max(%08x,%08x) = %08x/%08x, want %08x/%08x",
					 a, b, mn, mx, wmn, wmx);
		}
	tap_result(bad == 0, "fp32 min/max: NaN-propagating, -0 < +0, exact bits");
}

int main(void)
{
	test_fpu_sane();
	test_f16_widen_exhaustive();
	test_roundtrip_exhaustive();
	test_f16_narrow_vs_libgcc();
	test_bf16_narrow();
	test_ties();
	test_add_vs_fpu();
	test_div_vs_fpu();
	test_minmax();
	return tap_done();
}
