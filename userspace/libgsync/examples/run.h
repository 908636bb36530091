/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The example's measured loop and result check, apart from its command
 * line so that tests/test_example_run.c can drive them against a stand-in
 * socket.
 */
#ifndef GSYNC_EXAMPLE_RUN_H
#define GSYNC_EXAMPLE_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "gsync.h"

/* Exit statuses (also in --help). */
enum { EX_OK = 0, EX_MISMATCH = 1, EX_USAGE = 2, EX_OPFAIL = 3, EX_SETUP = 4 };

struct opts {
	struct gsync_config cfg;
	struct gsync_addr members[GSYNC_MAX_RANKS];
	int have_rank, have_mcast;
	size_t size;
	unsigned int dtype, op, kind, depth;
	uint64_t iters, seed;
	int check, async;
};

/*
 * Each returns an EX_* status. ITERS operations with seqs SEQ0.. . Data for
 * iteration i comes from pattern_fill(seed, rank, i) when --check (and is
 * verified against all ranks' reference), else from iteration 0.
 */
int run_blocking(const struct opts *o, int fd, uint64_t seq0);
/* The ring belongs to the caller (created with depth o->depth). */
int run_async(const struct opts *o, struct gsync_ring *ring, uint64_t seq0);
/* Compare RESULT of iteration ITER with the reference. EX_OK/EX_MISMATCH. */
int check_result(const struct opts *o, uint64_t iter, const void *result);

#endif
