// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gsync_reduce_ref.c - scalar reference implementation of gsync reductions.
 * Deliberately naive: one element at a time, the whole rank-ordered chain
 * for that element, then the final conversion.  Clarity over speed; it is
 * the oracle everything else is compared with.
 */
#include "gsync_reduce_ref.h"
#include "gsync_fp.h"

unsigned gsync_red_elem_size(unsigned dtype)
{
	switch (dtype) {
	case GSYNC_RED_FP32:
	case GSYNC_RED_INT32:
		return 4;
	case GSYNC_RED_BF16:
	case GSYNC_RED_FP16:
		return 2;
	default:
		return 0;
	}
}

const char *gsync_red_dtype_name(unsigned dtype)
{
	static const char *const names[] = { "fp32", "bf16", "fp16", "int32" };

	return dtype < GSYNC_RED_NDTYPES ? names[dtype] : "?";
}

const char *gsync_red_op_name(unsigned op)
{
	static const char *const names[] = { "sum", "avg", "min", "max" };

	return op < GSYNC_RED_NOPS ? names[op] : "?";
}

/* Load element i of a float-typed buffer, widened exactly to fp32 bits. */
static uint32_t load_f32(const void *buf, size_t i, unsigned dtype)
{
	switch (dtype) {
	case GSYNC_RED_BF16:
		return gsync_bf16_to_f32(((const uint16_t *)buf)[i]);
	case GSYNC_RED_FP16:
		return gsync_f16_to_f32(((const uint16_t *)buf)[i]);
	default:
		return ((const uint32_t *)buf)[i];
	}
}

/* Store an fp32 result with the single final rounding; NaN -> canonical. */
static void store_f32(void *buf, size_t i, unsigned dtype, uint32_t v)
{
	switch (dtype) {
	case GSYNC_RED_BF16:
		((uint16_t *)buf)[i] = gsync_f32_to_bf16(v);
		break;
	case GSYNC_RED_FP16:
		((uint16_t *)buf)[i] = gsync_f32_to_f16(v);
		break;
	default:
		((uint32_t *)buf)[i] = gsync_f32_canon(v);
		break;
	}
}

static void reduce_float(void *out, const void *const *in, unsigned k,
			 size_t n, unsigned dtype, unsigned op)
{
	size_t i;
	unsigned j;

	for (i = 0; i < n; i++) {
		uint32_t acc = load_f32(in[0], i, dtype);

		for (j = 1; j < k; j++) {
			uint32_t x = load_f32(in[j], i, dtype);

			if (op == GSYNC_RED_MIN)
				acc = gsync_f32_min(acc, x);
			else if (op == GSYNC_RED_MAX)
				acc = gsync_f32_max(acc, x);
			else
				acc = gsync_f32_add(acc, x);
		}
		if (op == GSYNC_RED_AVG)
			acc = gsync_f32_div_u(acc, k);
		store_f32(out, i, dtype, acc);
	}
}

static void reduce_int32(int32_t *out, const void *const *in, unsigned k,
			 size_t n, unsigned op)
{
	size_t i;
	unsigned j;

	for (i = 0; i < n; i++) {
		int32_t first = ((const int32_t *)in[0])[i];
		/* wide sum: exact for avg; its low 32 bits are the wrapped sum */
		int64_t sum = first;
		int32_t sel = first;

		for (j = 1; j < k; j++) {
			int32_t x = ((const int32_t *)in[j])[i];

			sum += x;
			if (op == GSYNC_RED_MIN && x < sel)
				sel = x;
			if (op == GSYNC_RED_MAX && x > sel)
				sel = x;
		}
		switch (op) {
		case GSYNC_RED_SUM:
			/* modulo 2^32 without signed-overflow UB */
			out[i] = (int32_t)(uint32_t)(uint64_t)sum;
			break;
		case GSYNC_RED_AVG:
			out[i] = (int32_t)(sum / (int64_t)k); /* C truncates toward 0 */
			break;
		default:
			out[i] = sel;
			break;
		}
	}
}

int gsync_reduce_ref(void *out, const void *const *in, unsigned k, size_t n,
		     unsigned dtype, unsigned op)
{
	unsigned j;

	if (!out || !in || k < 1 || k > GSYNC_RED_MAX_K ||
	    dtype >= GSYNC_RED_NDTYPES || op >= GSYNC_RED_NOPS)
		return -1;
	for (j = 0; j < k; j++)
		if (!in[j])
			return -1;
	if (dtype == GSYNC_RED_INT32)
		reduce_int32((int32_t *)out, in, k, n, op);
	else
		reduce_float(out, in, k, n, dtype, op);
	return 0;
}
