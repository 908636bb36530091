// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * backend_common.c - backend-independent half of the offload backends:
 * job validation (the card must never be pointed outside the region),
 * encoding into the HLS kernel's descriptor format, batching, dispatch.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"
#include "../../xrt_kernels/hls/gsync_reduce_hw.h"

void gsync_offload_set_error(struct gsync_offload_backend *be,
			     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(be->err, sizeof(be->err), fmt, ap);
	va_end(ap);
}

static const struct gsync_offload_ops *find_ops(const char *name)
{
	if (!strcmp(name, gsync_offload_sim_ops.name))
		return &gsync_offload_sim_ops;
#ifdef GSYNC_HAVE_XRT
	if (!strcmp(name, gsync_offload_xrt_ops.name))
		return &gsync_offload_xrt_ops;
#endif
	return NULL;
}

int gsync_offload_open(const char *name, const struct gsync_offload_cfg *cfg,
		       struct gsync_offload_backend **out, char *err,
		       size_t errlen)
{
	static const struct gsync_offload_cfg defaults;
	struct gsync_offload_backend *be;
	const struct gsync_offload_ops *ops = find_ops(name ? name : "");
	int ret;

	*out = NULL;
	if (!ops) {
		snprintf(err, errlen, "unknown backend '%s'%s", name ? name : "",
			 name && !strcmp(name, "xrt") ?
			 " (built without XRT: install libxrt-dev and rebuild)" : "");
		return -ENOENT;
	}
	be = calloc(1, sizeof(*be));
	if (!be) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	be->ops = ops;
	ret = ops->open(be, cfg ? cfg : &defaults);
	if (ret) {
		snprintf(err, errlen, "%s: %s", ops->name, be->err);
		free(be);
		return ret;
	}
	*out = be;
	return 0;
}

int gsync_offload_map_region(struct gsync_offload_backend *be, void *base,
			     size_t len)
{
	if (!base || len == 0 || ((uintptr_t)base & 3)) {
		gsync_offload_set_error(be, "region must be non-empty and 4-byte aligned");
		return -EINVAL;
	}
	be->base = base;
	be->len = len;
	return be->ops->map_region ? be->ops->map_region(be) : 0;
}

/* Offset of p in the region if [p, p+bytes) lies inside it, 4-byte
 * aligned; else (size_t)-1. */
static size_t region_off(const struct gsync_offload_backend *be,
			 const void *p, size_t bytes)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)be->base;

	if (!p || a < b || (a & 3) || a - b > be->len ||
	    bytes > be->len - (a - b))
		return (size_t)-1;
	return a - b;
}

/* Validate one job and encode its descriptor.  The kernel moves whole
 * 32-bit words, so a 16-bit buffer with odd n "touches" 2 extra bytes:
 * those must be inside the region and not overlap another buffer. */
static int encode(const struct gsync_offload_backend *be,
		  const struct gsync_offload_job *j, uint64_t *d,
		  struct gsync_offload_span *ins, struct gsync_offload_span *out)
{
	unsigned es = gsync_red_elem_size(j->dtype), r;
	size_t bytes, touched, oo;

	if (j->k < 1 || j->k > GSYNC_RED_MAX_K || !es || j->op >= GSYNC_RED_NOPS)
		return -EINVAL;
	bytes = (size_t)j->n * es;
	touched = (bytes + 3) & ~(size_t)3;
	oo = region_off(be, j->out, touched);
	if (oo == (size_t)-1)
		return -EINVAL;
	memset(d, 0, GSYNC_HW_DESC_BYTES);
	d[0] = gsync_hw_desc_word0(j->dtype, j->op, j->k, j->n);
	d[1] = oo;
	for (r = 0; r < j->k; r++) {
		size_t io = region_off(be, j->in[r], touched);

		if (io == (size_t)-1)
			return -EINVAL;
		if (io < oo + touched && oo < io + touched)   /* overlap */
			return -EINVAL;
		d[2 + r] = io;
		ins[r].off = io;
		ins[r].len = touched;
	}
	out->off = oo;
	out->len = touched;
	return 0;
}

int gsync_offload_run(struct gsync_offload_backend *be,
		      struct gsync_offload_job *jobs, size_t njobs)
{
	static const size_t maxb = GSYNC_OFFLOAD_MAX_BATCH;
	uint64_t *desc;
	struct gsync_offload_span *ins, *outs;
	struct gsync_offload_job **batch;
	size_t i = 0, skipped = 0;
	int ret = 0;

	if (!be->base) {
		gsync_offload_set_error(be, "no region mapped");
		return -EINVAL;
	}
	desc = malloc(maxb * GSYNC_HW_DESC_BYTES);
	ins = malloc(maxb * GSYNC_RED_MAX_K * sizeof(*ins));
	outs = malloc(maxb * sizeof(*outs));
	batch = malloc(maxb * sizeof(*batch));
	if (!desc || !ins || !outs || !batch) {
		ret = -ENOMEM;
		goto out;
	}
	while (i < njobs) {
		uint32_t nd = 0;
		size_t nin = 0, b;

		for (; i < njobs && nd < maxb; i++) {
			struct gsync_offload_job *j = &jobs[i];

			j->status = encode(be, j, desc + (size_t)nd * GSYNC_HW_DESC_WORDS,
					   ins + nin, outs + nd);
			if (j->status) {
				skipped++;
				continue;
			}
			if (j->n == 0)          /* nothing to compute */
				continue;
			nin += j->k;
			batch[nd++] = j;
		}
		if (nd == 0)
			continue;
		ret = be->ops->exec(be, desc, nd, ins, nin, outs, nd);
		if (ret) {
			/* the backend failed: nothing in this or later batches ran */
			for (b = 0; b < nd; b++)
				batch[b]->status = ret;
			for (; i < njobs; i++)
				jobs[i].status = ret;
			goto out;
		}
		be->stats.batches++;
		be->stats.jobs += nd;
	}
	ret = (int)skipped;
out:
	free(desc);
	free(ins);
	free(outs);
	free(batch);
	return ret;
}

const char *gsync_offload_name(const struct gsync_offload_backend *be)
{
	return be->ops->name;
}

const char *gsync_offload_last_error(const struct gsync_offload_backend *be)
{
	return be->err;
}

void gsync_offload_get_stats(const struct gsync_offload_backend *be,
			     struct gsync_offload_stats *st)
{
	*st = be->stats;
}

void gsync_offload_close(struct gsync_offload_backend *be)
{
	if (!be)
		return;
	if (be->ops->close)
		be->ops->close(be);
	free(be);
}
