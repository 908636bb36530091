/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The example's measured loops and result check, apart from its command
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

/* Most operation sizes --size may list. */
#define MAX_SIZES 16

struct opts {
	struct gsync_config cfg;
	struct gsync_addr members[GSYNC_MAX_RANKS];
	int have_rank, have_mcast;
	size_t size;			/* the largest of sizes[] */
	size_t sizes[MAX_SIZES];	/* iteration i: sizes[i % nsizes] */
	unsigned int nsizes;		/* 0: every iteration is size */
	unsigned int dtype, op, kind, depth;
	uint64_t iters, seed;
	int check, async, auto_seq, uring;
	const char *key_file;		/* --key: join keyed */
	unsigned int key_mode;		/* --key-mode, enum gsync_key_mode */
	uint32_t key_epoch;		/* --key-epoch */
};

/* What a loop observed, for the summary line. */
struct run_stats {
	int info_fd;			/* >= 0: sample GSYNC_INFO on it */
	uint64_t ops;			/* operations finished and checked */
	unsigned int inflight_max;	/* most submitted and not finished */
	uint64_t refused;		/* submissions the ring refused (-EAGAIN) */
	unsigned int kernel_inflight_max;	/* most gsync_info.inflight seen */
};

/* Bytes of iteration ITER's operation. */
size_t op_size(const struct opts *o, uint64_t iter);

/*
 * Each returns an EX_* status. ITERS operations with seqs SEQ0.. . Data for
 * iteration i comes from pattern_fill(seed, rank, i) when --check (and is
 * verified against all ranks' reference), else from iteration 0.
 */
int run_blocking(const struct opts *o, int fd, uint64_t seq0,
		 struct run_stats *st);
/*
 * The ring belongs to the caller (created with depth o->depth); with
 * o->auto_seq the ring numbers the operations (it must start at SEQ0).
 */
int run_async(const struct opts *o, struct gsync_ring *ring, uint64_t seq0,
	      struct run_stats *st);
/*
 * The program's own io_uring with gsync_prep_*() (run_uring.c): at most
 * WINDOW operations in flight on socket FD.
 */
int run_uring(const struct opts *o, int fd, uint64_t seq0, unsigned int window,
	      struct run_stats *st);
/* Compare RESULT of iteration ITER with the reference. EX_OK/EX_MISMATCH. */
int check_result(const struct opts *o, uint64_t iter, const void *result);
/* Fill BUF with this rank's data of iteration ITER. */
void fill_data(const struct opts *o, void *buf, uint64_t iter);
/* Report a failed operation on stderr; returns EX_OPFAIL. */
int op_failed(uint64_t seq, int status);
/* Record that INFLIGHT operations are submitted and not finished. */
void note_inflight(struct run_stats *st, uint64_t inflight);

#endif
