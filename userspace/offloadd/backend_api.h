/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * backend_api.h - reduction backends of gsync-offloadd.
 *
 * The agent's io_uring loop (designed separately) fetches jobs from
 * /dev/gsync-offload; each job names k input buffers and one output buffer
 * inside the shared region the agent mmap'ed from that device.  The loop
 * registers the region once, then hands batches of jobs to a backend:
 *
 *     gsync_offload_open("sim" | "xrt", &cfg, &be, err, sizeof(err));
 *     gsync_offload_map_region(be, region, region_len);
 *     ... for every batch fetched:
 *         gsync_offload_run(be, jobs, njobs);   // fills jobs[i].status
 *     gsync_offload_close(be);
 *
 * run() is synchronous (the xrt backend blocks in xrt::run::wait); a loop
 * that must keep servicing its ring calls it from a worker thread.  Results
 * are bit-identical to gsync_reduce_ref() (xrt_kernels/ref) for every job
 * whose status is 0.  See docs/offload-hardware.md.
 */
#ifndef GSYNC_OFFLOAD_BACKEND_API_H
#define GSYNC_OFFLOAD_BACKEND_API_H

#include <stddef.h>
#include <stdint.h>

#include "../../xrt_kernels/ref/gsync_reduce_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gsync_offload_job {
	const void *in[GSYNC_RED_MAX_K]; /* rank order; inside the region */
	void *out;                       /* inside the region, no overlap */
	uint32_t k;                      /* 1..GSYNC_RED_MAX_K */
	uint32_t n;                      /* elements */
	uint8_t dtype;                   /* enum gsync_red_dtype */
	uint8_t op;                      /* enum gsync_red_op */
	int32_t status;                  /* out: 0, or -errno (job not run) */
};

struct gsync_offload_cfg {
	const char *xclbin;     /* xrt: path of the xclbin to load */
	unsigned device_index;  /* xrt: XRT device index */
	int force_copy;         /* xrt: skip the zero-copy userptr attempt */
	unsigned timeout_ms;    /* xrt: per-batch wait; 0 = 10000 */
};

/* Counters and the last register image, for tests and the agent's logs. */
struct gsync_offload_stats {
	uint64_t batches;        /* kernel invocations */
	uint64_t jobs;           /* jobs executed */
	uint64_t bytes_to_dev;   /* bytes synced host -> card (xrt) */
	uint64_t bytes_from_dev; /* bytes synced card -> host (xrt) */
	uint64_t bytes_copied;   /* bytes memcpy'd because zero-copy was refused */
	int zero_copy;           /* region wrapped as a userptr BO (xrt) */
	uint32_t last_regs[16];  /* xrt: s_axilite image of the last start,
				    words 0x00..0x3c (from XRT's ERT packet) */
	uint64_t last_src, last_dst, last_desc; /* device addresses passed */
};

struct gsync_offload_backend;

/* Returns 0, or -errno with a human-readable reason in err. */
int gsync_offload_open(const char *name, const struct gsync_offload_cfg *cfg,
		       struct gsync_offload_backend **out, char *err,
		       size_t errlen);

/* Register the shared region all job pointers point into (once). */
int gsync_offload_map_region(struct gsync_offload_backend *be, void *base,
			     size_t len);

/* Validate and execute a batch.  Invalid jobs get status -EINVAL and are
 * skipped; the others run.  Returns the number of jobs that did not run
 * (0 = all done), or -errno if the backend itself failed (then no status
 * is 0 and the caller should fall back to the CPU path). */
int gsync_offload_run(struct gsync_offload_backend *be,
		      struct gsync_offload_job *jobs, size_t njobs);

const char *gsync_offload_name(const struct gsync_offload_backend *be);
const char *gsync_offload_last_error(const struct gsync_offload_backend *be);
void gsync_offload_get_stats(const struct gsync_offload_backend *be,
			     struct gsync_offload_stats *st);
void gsync_offload_close(struct gsync_offload_backend *be);

#ifdef __cplusplus
}
#endif

#endif /* GSYNC_OFFLOAD_BACKEND_API_H */
