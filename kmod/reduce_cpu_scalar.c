// SPDX-License-Identifier: GPL-2.0
/*
 * The scalar CPU reduction: integer-only arithmetic from gsync_fp.h, one
 * element at a time, inputs folded left to right in in[] order. It never
 * touches FPU registers, so it runs on every architecture and in any
 * context; reduce_cpu.c uses it when no SIMD implementation is usable and
 * for the elements after the last full SIMD vector.
 *
 * Context: any (no locks, no sleeping, no allocation). The caller slices
 * long jobs and reschedules between slices.
 */
#include <linux/math64.h>
#include <linux/types.h>

#include "reduce_cpu.h"
#include "reduce_fp.h"

/* Element i of a float-typed buffer, widened exactly to fp32 bits. */
static u32 gsync_scalar_load(const void *buf, size_t i, unsigned int dtype)
{
	switch (dtype) {
	case GSYNC_DTYPE_BF16:
		return gsync_bf16_to_f32(((const u16 *)buf)[i]);
	case GSYNC_DTYPE_FP16:
		return gsync_f16_to_f32(((const u16 *)buf)[i]);
	default:
		return ((const u32 *)buf)[i];
	}
}

/* Store an fp32 result: the one final rounding, NaN made canonical. */
static void gsync_scalar_store(void *buf, size_t i, unsigned int dtype, u32 v)
{
	switch (dtype) {
	case GSYNC_DTYPE_BF16:
		((u16 *)buf)[i] = gsync_f32_to_bf16(v);
		break;
	case GSYNC_DTYPE_FP16:
		((u16 *)buf)[i] = gsync_f32_to_f16(v);
		break;
	default:
		((u32 *)buf)[i] = gsync_f32_canon(v);
		break;
	}
}

static void gsync_scalar_float(const struct gsync_reduce_job *job,
			       size_t first, size_t n)
{
	unsigned int dtype = job->dtype, op = job->op, j;
	size_t i;

	for (i = first; i < first + n; i++) {
		u32 acc = gsync_scalar_load(job->in[0], i, dtype);

		for (j = 1; j < job->k; j++) {
			u32 x = gsync_scalar_load(job->in[j], i, dtype);

			if (op == GSYNC_OP_MIN)
				acc = gsync_f32_min(acc, x);
			else if (op == GSYNC_OP_MAX)
				acc = gsync_f32_max(acc, x);
			else
				acc = gsync_f32_add(acc, x);
		}
		if (op == GSYNC_OP_AVG)
			acc = gsync_f32_div_u(acc, job->avg_divisor);
		gsync_scalar_store(job->out, i, dtype, acc);
	}
}

static void gsync_scalar_int32(const struct gsync_reduce_job *job,
			       size_t first, size_t n)
{
	unsigned int op = job->op, j;
	s32 *out = job->out;
	size_t i;

	for (i = first; i < first + n; i++) {
		s32 sel = ((const s32 *)job->in[0])[i];
		/* exact for k <= 256; its low 32 bits are the wrapped sum */
		s64 sum = sel;

		for (j = 1; j < job->k; j++) {
			s32 x = ((const s32 *)job->in[j])[i];

			sum += x;
			if (op == GSYNC_OP_MIN && x < sel)
				sel = x;
			if (op == GSYNC_OP_MAX && x > sel)
				sel = x;
		}
		if (op == GSYNC_OP_SUM)
			out[i] = (s32)(u32)(u64)sum;
		else if (op == GSYNC_OP_AVG)	/* truncates toward zero */
			out[i] = (s32)div_s64(sum, job->avg_divisor);
		else
			out[i] = sel;
	}
}

void gsync_reduce_scalar(const struct gsync_reduce_job *job, size_t first,
			 size_t n)
{
	if (job->dtype == GSYNC_DTYPE_INT32)
		gsync_scalar_int32(job, first, n);
	else
		gsync_scalar_float(job, first, n);
}
