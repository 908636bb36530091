// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_ref.c - checks gsync_reduce_ref() as a whole against a naive
 * implementation written with the host FPU (float adds in rank order,
 * one float division for avg, libgcc/_Float16 and a nearest-neighbour
 * search for the final narrowing).  Also checks argument validation and
 * the int32 wrap / truncation rules.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../ref/gsync_reduce_ref.h"
#include "oracle.h"
#include "tap.h"

#define N 1031          /* odd, crosses no special boundary on purpose */

static float widen(const void *buf, size_t i, unsigned dt)
{
	if (dt == GSYNC_RED_BF16)
		return bits2f((uint32_t)((const uint16_t *)buf)[i] << 16);
	if (dt == GSYNC_RED_FP16)
		return f16_widen_oracle(((const uint16_t *)buf)[i]);
	return bits2f(((const uint32_t *)buf)[i]);
}

static int isnanf_bits(float f) { return gsync_f32_isnan(f2bits(f)); }

/* -0 < +0 aware "b is smaller than a" */
static int less(float b, float a)
{
	if (b == a)
		return (f2bits(b) >> 31) && !(f2bits(a) >> 31);
	return b < a;
}

static void naive_float(void *out, const void *const *in, unsigned k,
			size_t n, unsigned dt, unsigned op)
{
	size_t i;
	unsigned j;

	for (i = 0; i < n; i++) {
		float acc = widen(in[0], i, dt);
		uint32_t r;

		for (j = 1; j < k; j++) {
			float x = widen(in[j], i, dt);

			if (op == GSYNC_RED_SUM || op == GSYNC_RED_AVG)
				acc = acc + x;
			else if (isnanf_bits(acc) || isnanf_bits(x))
				acc = bits2f(GSYNC_F32_QNAN);
			else if (op == GSYNC_RED_MIN ? less(x, acc) : less(acc, x))
				acc = x;
		}
		if (op == GSYNC_RED_AVG)
			acc = acc / (float)k;
		r = f2bits(acc);
		if (dt == GSYNC_RED_BF16)
			((uint16_t *)out)[i] = bf16_oracle(r);
		else if (dt == GSYNC_RED_FP16)
			((uint16_t *)out)[i] = f16_oracle(acc);
		else
			((uint32_t *)out)[i] = isnanf_bits(acc) ? GSYNC_F32_QNAN : r;
	}
}

static void naive_int(int32_t *out, const void *const *in, unsigned k,
		      size_t n, unsigned op)
{
	size_t i;
	unsigned j;

	for (i = 0; i < n; i++) {
		long long s = 0;
		int32_t m = ((const int32_t *)in[0])[i];

		for (j = 0; j < k; j++) {
			int32_t x = ((const int32_t *)in[j])[i];

			s += x;
			if ((op == GSYNC_RED_MIN && x < m) || (op == GSYNC_RED_MAX && x > m))
				m = x;
		}
		if (op == GSYNC_RED_SUM)
			out[i] = (int32_t)(uint32_t)(unsigned long long)s;
		else if (op == GSYNC_RED_AVG)
			out[i] = (int32_t)(s / (long long)k);
		else
			out[i] = m;
	}
}

static void fill(void *buf, size_t n, unsigned dt)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t f = rand_f32();

		switch (dt) {
		case GSYNC_RED_FP32:
			((uint32_t *)buf)[i] = f;
			break;
		case GSYNC_RED_INT32: /* include extremes so sums wrap */
			((uint32_t *)buf)[i] = (i % 7 == 0) ? 0x7fffffffu - (uint32_t)(rng() & 3)
					     : (i % 7 == 1) ? 0x80000000u + (uint32_t)(rng() & 3)
					     : (uint32_t)rng();
			break;
		default:   /* 16-bit: every pattern class, incl. NaN/inf/subnormal */
			((uint16_t *)buf)[i] = (uint16_t)rng();
			break;
		}
	}
}

static void test_vs_naive(void)
{
	static uint32_t inbuf[GSYNC_RED_MAX_K][N], got[N + 1], want[N];
	const void *in[GSYNC_RED_MAX_K];
	unsigned dt, op, k, j;

	for (j = 0; j < GSYNC_RED_MAX_K; j++)
		in[j] = inbuf[j];
	for (dt = 0; dt < GSYNC_RED_NDTYPES; dt++)
		for (op = 0; op < GSYNC_RED_NOPS; op++) {
			unsigned bad = 0;
			size_t es = gsync_red_elem_size(dt);

			for (k = 1; k <= GSYNC_RED_MAX_K; k++) {
				for (j = 0; j < k; j++)
					fill(inbuf[j], N, dt);
				memset(got, 0xa5, sizeof(got));
				if (gsync_reduce_ref(got, in, k, N, dt, op) != 0)
					bad++;
				if (dt == GSYNC_RED_INT32)
					naive_int((int32_t *)want, in, k, N, op);
				else
					naive_float(want, in, k, N, dt, op);
				if (memcmp(got, want, N * es) != 0 && bad++ < 3) {
					size_t i = 0;

					while (!memcmp((char *)got + i * es, (char *)want + i * es, es))
						i++;
					tap_diag("%s %s k=%u first diff at %zu",
						 gsync_red_dtype_name(dt), gsync_red_op_name(op), k, i);
				}
				/* nothing written past n elements */
				if (((unsigned char *)got)[N * es] != 0xa5)
					bad++;
			}
			tap_result(bad == 0, "ref %s %s k=1..16 n=%d matches naive FPU version",
				   gsync_red_dtype_name(dt), gsync_red_op_name(op), N);
		}
}

static void test_int_rules(void)
{
	int32_t a[3] = { INT32_MAX, -7, -7 }, b[3] = { 1, 2, 0 }, c[3] = { 0, 0, 0 };
	const void *in[3] = { a, b, c };
	int32_t out[3];
	int ok;

	gsync_reduce_ref(out, in, 2, 3, GSYNC_RED_INT32, GSYNC_RED_SUM);
	ok = out[0] == INT32_MIN && out[1] == -5 && out[2] == -7;
	gsync_reduce_ref(out, in, 3, 3, GSYNC_RED_INT32, GSYNC_RED_AVG);
	/* (MAX+1)/3 exact in 64 bits; -5/3 -> -1 and -7/3 -> -2 (toward zero) */
	ok = ok && out[0] == (int32_t)(((long long)INT32_MAX + 1) / 3) &&
	     out[1] == -1 && out[2] == -2;
	tap_result(ok, "int32 sum wraps mod 2^32, avg is exact and truncates toward 0");
}

static void test_invalid_args(void)
{
	uint32_t a[1] = { 0 }, out[1];
	const void *in[2] = { a, NULL };
	int ok = 1;

	ok &= gsync_reduce_ref(out, in, 0, 1, GSYNC_RED_FP32, GSYNC_RED_SUM) == -1;
	ok &= gsync_reduce_ref(out, in, 17, 1, GSYNC_RED_FP32, GSYNC_RED_SUM) == -1;
	ok &= gsync_reduce_ref(out, in, 2, 1, GSYNC_RED_FP32, GSYNC_RED_SUM) == -1;
	ok &= gsync_reduce_ref(out, in, 1, 1, 4, GSYNC_RED_SUM) == -1;
	ok &= gsync_reduce_ref(out, in, 1, 1, GSYNC_RED_FP32, 4) == -1;
	ok &= gsync_reduce_ref(out, in, 1, 1, GSYNC_RED_FP32, GSYNC_RED_SUM) == 0;
	tap_result(ok, "ref rejects k=0, k>16, NULL input, bad dtype/op");
}

/* The canonical order matters: (big + 1) + -big != big + (1 + -big). */
static void test_order(void)
{
	uint32_t big = 0x4b800000u /* 2^24 */, one = 0x3f800000u;
	uint32_t nbig = big | 0x80000000u, out;
	const void *in[3] = { &big, &one, &nbig };

	gsync_reduce_ref(&out, in, 3, 1, GSYNC_RED_FP32, GSYNC_RED_SUM);
	tap_result(out == 0, "fp32 sum is strictly left to right ((2^24+1)-2^24 = 0)");
}

int main(void)
{
	test_vs_naive();
	test_int_rules();
	test_invalid_args();
	test_order();
	return tap_done();
}
