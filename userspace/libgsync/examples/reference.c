// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Canonical-order reduction for any number of ranks (see reference.h). */
#include <stdint.h>
#include <linux/gsync.h>

#include "gsync_fp.h"
#include "reference.h"

static uint32_t load(const void *b, size_t i, unsigned int dtype)
{
	if (dtype == GSYNC_DTYPE_BF16)
		return gsync_bf16_to_f32(((const uint16_t *)b)[i]);
	if (dtype == GSYNC_DTYPE_FP16)
		return gsync_f16_to_f32(((const uint16_t *)b)[i]);
	return ((const uint32_t *)b)[i];
}

/* One rounding to the output type; NaN becomes the canonical quiet NaN. */
static void store(void *b, size_t i, unsigned int dtype, uint32_t v)
{
	if (dtype == GSYNC_DTYPE_BF16)
		((uint16_t *)b)[i] = gsync_f32_to_bf16(v);
	else if (dtype == GSYNC_DTYPE_FP16)
		((uint16_t *)b)[i] = gsync_f32_to_f16(v);
	else
		((uint32_t *)b)[i] = gsync_f32_canon(v);
}

static void reduce_float(void *out, const void *const *in, unsigned int k,
			 size_t n, unsigned int dtype, unsigned int op)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t acc = load(in[0], i, dtype);

		for (unsigned int j = 1; j < k; j++) {
			uint32_t x = load(in[j], i, dtype);

			if (op == GSYNC_OP_MIN)
				acc = gsync_f32_min(acc, x);
			else if (op == GSYNC_OP_MAX)
				acc = gsync_f32_max(acc, x);
			else
				acc = gsync_f32_add(acc, x);
		}
		if (op == GSYNC_OP_AVG)
			acc = gsync_f32_div_u(acc, k);
		store(out, i, dtype, acc);
	}
}

static void reduce_int32(int32_t *out, const void *const *in, unsigned int k,
			 size_t n, unsigned int op)
{
	for (size_t i = 0; i < n; i++) {
		int32_t sel = ((const int32_t *)in[0])[i];
		int64_t sum = sel;	/* exact for k <= 2^32 */

		for (unsigned int j = 1; j < k; j++) {
			int32_t x = ((const int32_t *)in[j])[i];

			sum += x;
			if ((op == GSYNC_OP_MIN && x < sel) ||
			    (op == GSYNC_OP_MAX && x > sel))
				sel = x;
		}
		if (op == GSYNC_OP_SUM)
			out[i] = (int32_t)(uint32_t)(uint64_t)sum;	/* wraps */
		else if (op == GSYNC_OP_AVG)
			out[i] = (int32_t)(sum / (int64_t)k);	/* toward 0 */
		else
			out[i] = sel;
	}
}

int reference_reduce(void *out, const void *const *in, unsigned int k,
		     size_t n, unsigned int dtype, unsigned int op)
{
	if (!out || !in || k < 1 || dtype >= GSYNC_DTYPE_MAX ||
	    op >= GSYNC_REDOP_MAX)
		return -1;
	for (unsigned int j = 0; j < k; j++)
		if (!in[j])
			return -1;
	if (dtype == GSYNC_DTYPE_INT32)
		reduce_int32(out, in, k, n, op);
	else
		reduce_float(out, in, k, n, dtype, op);
	return 0;
}
