// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * desc.c - a job descriptor from the kernel, checked and turned into a
 * backend job. The kernel is trusted to be correct, but a mismatch (an
 * older module, a bug) must produce an error commit, never a card pointed
 * outside the region.
 */
#include <errno.h>
#include <string.h>

#include "agent.h"

/* [off, off + len) inside [0, region_len), 4-byte aligned offset. */
static int span_ok(uint64_t off, uint64_t len, size_t region_len)
{
	return !(off & 3) && off <= region_len && len <= region_len - off;
}

int agent_job_from_desc(const struct gsync_offload_desc *d, void *base,
			size_t region_len, uint32_t max_k,
			struct gsync_offload_job *job)
{
	unsigned es = gsync_red_elem_size(d->dtype);
	uint64_t bytes, touched;
	uint32_t j;

	memset(job, 0, sizeof(*job));
	if (!d->job_id || d->flags || d->reserved[0] || d->reserved[1])
		return -EINVAL;
	if (!es || d->op >= GSYNC_RED_NOPS || !d->count || d->k < 1 ||
	    d->k > GSYNC_OFFLOAD_MAX_K)
		return -EINVAL;
	if (d->k > max_k || d->k > GSYNC_RED_MAX_K)
		return -EOPNOTSUPP;
	/* The HLS kernel's avg divides by k. */
	if (d->op == GSYNC_RED_AVG && d->avg_divisor != d->k)
		return -EOPNOTSUPP;
	bytes = (uint64_t)d->count * es;
	touched = (bytes + 3) & ~3ULL;	/* the kernel moves 32-bit words */
	if (d->in_stride < touched || (d->in_stride & 3))
		return -EINVAL;
	if (!span_ok(d->out_off, touched, region_len))
		return -EINVAL;
	for (j = 0; j < d->k; j++) {
		uint64_t off = d->in_off + (uint64_t)j * d->in_stride;

		if (off < d->in_off || !span_ok(off, touched, region_len))
			return -EINVAL;
		/* no input may overlap the output */
		if (off < d->out_off + touched && d->out_off < off + touched)
			return -EINVAL;
		job->in[j] = (const char *)base + off;
	}
	job->out = (char *)base + d->out_off;
	job->k = d->k;
	job->n = d->count;
	job->dtype = d->dtype;
	job->op = d->op;
	return 0;
}
