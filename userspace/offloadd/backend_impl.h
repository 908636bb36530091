/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * backend_impl.h - what a backend implements (private to backend_*.c*).
 * backend_common.c owns validation, descriptor encoding and dispatch, so
 * the sim and xrt backends differ only in how a batch of descriptors is
 * executed.
 */
#ifndef GSYNC_OFFLOAD_BACKEND_IMPL_H
#define GSYNC_OFFLOAD_BACKEND_IMPL_H

#include "backend_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest batch per kernel invocation (descriptor buffer size). */
#define GSYNC_OFFLOAD_MAX_BATCH 256

/* Byte range of the region one job touches, for syncs. */
struct gsync_offload_span { size_t off, len; };

struct gsync_offload_ops {
	const char *name;
	int (*open)(struct gsync_offload_backend *be,
		    const struct gsync_offload_cfg *cfg);
	int (*map_region)(struct gsync_offload_backend *be);
	/* Execute ndesc encoded descriptors (desc: ndesc * GSYNC_HW_DESC_WORDS
	 * words).  ins/outs list the region spans read and written, so a
	 * backend that must move data to a card can move just those. */
	int (*exec)(struct gsync_offload_backend *be, const uint64_t *desc,
		    uint32_t ndesc, const struct gsync_offload_span *ins,
		    size_t nins, const struct gsync_offload_span *outs,
		    size_t nouts);
	void (*close)(struct gsync_offload_backend *be);
};

struct gsync_offload_backend {
	const struct gsync_offload_ops *ops;
	void *base;                     /* registered region */
	size_t len;
	void *priv;                     /* backend state */
	struct gsync_offload_stats stats;
	char err[256];
};

void gsync_offload_set_error(struct gsync_offload_backend *be,
			     const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

extern const struct gsync_offload_ops gsync_offload_sim_ops;
#ifdef GSYNC_HAVE_XRT
extern const struct gsync_offload_ops gsync_offload_xrt_ops;
#endif

#ifdef __cplusplus
}
#endif

#endif /* GSYNC_OFFLOAD_BACKEND_IMPL_H */
