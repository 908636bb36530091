// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The example's operation loops and the bit-exact result check. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"
#include "reference.h"
#include "run.h"

/* Elements per reference-check piece: bounds memory to k * 64 KiB * 4. */
#define CHECK_PIECE 16384

size_t op_size(const struct opts *o, uint64_t iter)
{
	return o->nsizes ? o->sizes[iter % o->nsizes] : o->size;
}

/* Compare RESULT of iteration ITER with the reference, piece by piece. */
int check_result(const struct opts *o, uint64_t iter, const void *result)
{
	unsigned int k = o->cfg.nranks, j;
	size_t esz = gsync_dtype_size(o->dtype), n = op_size(o, iter) / esz, off, i;
	size_t piece = n < CHECK_PIECE ? n : CHECK_PIECE;
	char *in = malloc(piece * esz * k), *ref = malloc(piece * esz);
	const void **inp = calloc(k, sizeof(*inp));
	int rc = EX_OK;

	if (!in || !ref || !inp) {
		fprintf(stderr, "allreduce: out of memory for --check\n");
		rc = EX_SETUP;
		goto out;
	}
	for (off = 0; off < n && rc == EX_OK; off += piece) {
		size_t m = n - off < piece ? n - off : piece;

		for (j = 0; j < k; j++) {
			inp[j] = in + j * piece * esz;
			pattern_fill(in + j * piece * esz, off, m, o->dtype,
				     o->kind, o->seed, j, iter);
		}
		reference_reduce(ref, inp, k, m, o->dtype, o->op);
		if (memcmp(ref, (const char *)result + off * esz, m * esz) == 0)
			continue;
		for (i = 0; i < m; i++) {
			uint32_t want = 0, got = 0;

			memcpy(&want, ref + i * esz, esz);
			memcpy(&got, (const char *)result + (off + i) * esz, esz);
			if (want != got) {
				fprintf(stderr, "allreduce: iteration %llu: element %zu "
					"is 0x%0*x, expected 0x%0*x\n",
					(unsigned long long)iter, off + i,
					(int)esz * 2, got, (int)esz * 2, want);
				break;
			}
		}
		rc = EX_MISMATCH;
	}
out:
	free(in);
	free(ref);
	free(inp);
	return rc;
}

void fill_data(const struct opts *o, void *buf, uint64_t iter)
{
	/* Without --check every operation sends iteration 0's data. */
	size_t n = (o->check ? op_size(o, iter) : o->size) / gsync_dtype_size(o->dtype);

	pattern_fill(buf, 0, n, o->dtype, o->kind, o->seed, o->cfg.rank,
		     o->check ? iter : 0);
}

int op_failed(uint64_t seq, int status)
{
	fprintf(stderr, "allreduce: operation seq=%llu failed: %s\n",
		(unsigned long long)seq, gsync_strerror(status));
	return EX_OPFAIL;
}

void note_inflight(struct run_stats *st, uint64_t inflight)
{
	struct gsync_info info;

	if (inflight > st->inflight_max)
		st->inflight_max = (unsigned int)inflight;
	if (st->info_fd >= 0 && gsync_get_info(st->info_fd, &info) == 0 &&
	    info.inflight > st->kernel_inflight_max)
		st->kernel_inflight_max = info.inflight;
}

int run_blocking(const struct opts *o, int fd, uint64_t seq0,
		 struct run_stats *st)
{
	char *sbuf = malloc(o->size), *rbuf = malloc(o->size);
	int rc = EX_OK, status, err;

	if (!sbuf || !rbuf) {
		rc = EX_SETUP;
		goto out;
	}
	for (uint64_t it = 0; it < o->iters && rc == EX_OK; it++) {
		if (o->check || it == 0)
			fill_data(o, sbuf, it);
		err = gsync_allreduce(fd, seq0 + it, sbuf, rbuf, op_size(o, it),
				      o->dtype, o->op, &status);
		note_inflight(st, 1);
		if (err || status)
			rc = op_failed(seq0 + it, status);
		else if (o->check)
			rc = check_result(o, it, rbuf);
		if (rc == EX_OK)
			st->ops++;
	}
out:
	free(sbuf);
	free(rbuf);
	return rc;
}

/* Submit iteration IT; with auto_seq the ring picks the seq. */
static int submit(const struct opts *o, struct gsync_ring *ring, uint64_t seq0,
		  uint64_t it, char *s)
{
	uint64_t seq;
	int err;

	if (!o->auto_seq)
		return gsync_allreduce_submit(ring, seq0 + it, s, s + o->size,
					      op_size(o, it), o->dtype, o->op, it);
	err = gsync_allreduce_submit_next(ring, s, s + o->size, op_size(o, it),
					  o->dtype, o->op, it, &seq);
	if (!err && seq != seq0 + it) {
		fprintf(stderr, "allreduce: the ring numbered iteration %llu "
			"seq %llu, expected %llu\n", (unsigned long long)it,
			(unsigned long long)seq, (unsigned long long)(seq0 + it));
		return -EBADMSG;
	}
	return err;
}

int run_async(const struct opts *o, struct gsync_ring *ring, uint64_t seq0,
	      struct run_stats *st)
{
	struct gsync_completion done[16];
	char *bufs = malloc(2 * (size_t)o->depth * o->size);
	uint64_t next = 0, filled = 0, finished = 0;
	int rc = EX_OK, n, i, err;

	if (!bufs) {
		fprintf(stderr, "allreduce: out of memory\n");
		return EX_SETUP;
	}
	while (finished < o->iters && rc == EX_OK) {
		/*
		 * Buffer pair = iteration modulo depth. Fill every free pair
		 * first, then submit back to back until the ring says its
		 * window is full (-EAGAIN): the operations overlap.
		 */
		for (; filled < o->iters && filled - finished < o->depth; filled++)
			if (o->check || filled < o->depth)
				fill_data(o, bufs + 2 * (filled % o->depth) * o->size, filled);
		for (; next < filled; next++) {
			err = submit(o, ring, seq0, next,
				     bufs + 2 * (next % o->depth) * o->size);
			if (err == -EAGAIN) {
				st->refused++;
				break;
			}
			if (err) {
				fprintf(stderr, "allreduce: submit: %s\n",
					gsync_strerror(err));
				rc = EX_SETUP;
				goto out;
			}
			note_inflight(st, next + 1 - finished);
		}
		n = gsync_reap(ring, done, 16, 1);
		if (n < 0) {
			fprintf(stderr, "allreduce: reap: %s\n", gsync_strerror(n));
			rc = EX_SETUP;
			break;
		}
		for (i = 0; i < n && rc == EX_OK; i++, finished++) {
			uint64_t it = done[i].user_data;

			if (it != finished || done[i].seq != seq0 + it) {
				fprintf(stderr, "allreduce: completion of iteration %llu "
					"(seq %llu) came when %llu was due\n",
					(unsigned long long)it,
					(unsigned long long)done[i].seq,
					(unsigned long long)finished);
				rc = EX_SETUP;
			} else if (done[i].status) {
				rc = op_failed(done[i].seq, done[i].status);
			} else if (done[i].len != op_size(o, it)) {
				fprintf(stderr, "allreduce: iteration %llu: %zu bytes, "
					"expected %zu\n", (unsigned long long)it,
					done[i].len, op_size(o, it));
				rc = EX_MISMATCH;
			} else if (o->check) {
				rc = check_result(o, it, bufs + (2 * (it % o->depth) + 1) * o->size);
			}
			if (rc == EX_OK)
				st->ops++;
		}
	}
out:
	/*
	 * On an early exit requests may still be in flight with these
	 * buffers: drain them before freeing (the caller's ring_exit would
	 * cancel them, but only after this free).
	 */
	while (gsync_ring_pending(ring) && gsync_reap(ring, done, 16, 1) > 0)
		;
	free(bufs);
	return rc;
}
