// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The example's async loop and --check, end to end but without the module:
 * a thread on the far end of an AF_UNIX SOCK_SEQPACKET pair plays the
 * kernel of a 3-rank group in which we are rank 1. For each contribution
 * it builds ranks 0 and 2's data from the same pattern, reduces all three
 * with the reference, and replies; the result "cmsg" goes through the
 * ring's decoder seam (AF_UNIX cannot carry SOL_GSYNC control messages).
 * It can also corrupt one result or fail one operation, which the example
 * must report as a mismatch or an operation failure.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "pattern.h"
#include "reference.h"
#include "run.h"
#include "tap.h"

#define NRANKS 3
#define ME 1

struct fake {
	int fd;
	const struct opts *o;
	int64_t corrupt_iter, fail_iter;
	pthread_mutex_t lock;
	struct gsync_op_result q[64];
	unsigned int qh, qt;
};

static void *fake_main(void *arg)
{
	struct fake *f = arg;
	size_t esz = gsync_dtype_size(f->o->dtype), n;
	char *in = malloc(NRANKS * f->o->size), *out = malloc(f->o->size);
	const void *inp[NRANKS];
	ssize_t got;
	uint64_t it = 0;
	int j;

	for (;; it++) {
		got = recv(f->fd, in + ME * f->o->size, f->o->size, 0);
		if (got <= 0)
			break;
		n = (size_t)got / esz;
		for (j = 0; j < NRANKS; j++) {
			inp[j] = in + j * f->o->size;
			if (j != ME)
				pattern_fill(in + j * f->o->size, 0, n, f->o->dtype,
					     f->o->kind, f->o->seed, (unsigned int)j, it);
		}
		reference_reduce(out, inp, NRANKS, n, f->o->dtype, f->o->op);
		if ((int64_t)it == f->corrupt_iter)
			out[got / 2] ^= 1;
		pthread_mutex_lock(&f->lock);
		f->q[f->qt++ % 64] = (struct gsync_op_result){
			.seq = 1 + it, .len = (uint64_t)got,
			.status = (int64_t)it == f->fail_iter ? ETIMEDOUT : 0 };
		pthread_mutex_unlock(&f->lock);
		send(f->fd, out, (int64_t)it == f->fail_iter ? 0 : (size_t)got, 0);
	}
	free(in);
	free(out);
	return NULL;
}

static int decode(void *arg, int res, const struct msghdr *msg,
		  struct gsync_op_result *r)
{
	struct fake *f = arg;
	int rc = -ENOMSG;

	(void)res;
	(void)msg;
	pthread_mutex_lock(&f->lock);
	if (f->qh != f->qt) {
		*r = f->q[f->qh++ % 64];
		rc = 0;
	}
	pthread_mutex_unlock(&f->lock);
	return rc;
}

/*
 * Run one of the example's io_uring loops against the fake: its EX_* code,
 * or 1000 + errno if no io_uring. MODE: 'a' the library's ring, 'u' the
 * program's own ring (gsync_prep_*()). *ST gets the loop's observations.
 */
static int run_mode(struct opts *o, int64_t corrupt_iter, int64_t fail_iter,
		    int mode, struct run_stats *st)
{
	struct gsync_ring *ring;
	struct fake f;
	pthread_t thr;
	int sv[2], rc;

	memset(&f, 0, sizeof(f));
	socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv);
	/* room for several in-flight operations in the socket buffers */
	rc = 4 << 20;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &rc, sizeof(rc));
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &rc, sizeof(rc));
	f.fd = sv[1];
	f.o = o;
	f.corrupt_iter = corrupt_iter;
	f.fail_iter = fail_iter;
	pthread_mutex_init(&f.lock, NULL);
	rc = gsync_ring_init(&ring, sv[0], o->depth);
	if (rc) {
		close(sv[0]);
		close(sv[1]);
		return 1000 - rc;	/* apart from the EX_* codes */
	}
	gsync_ring_set_decoder(ring, decode, &f);
	gsync_prep_set_decoder(decode, &f);
	memset(st, 0, sizeof(*st));
	st->info_fd = -1;
	pthread_create(&thr, NULL, fake_main, &f);
	if (mode == 'u')
		rc = run_uring(o, sv[0], 1, o->depth, st);
	else
		rc = run_async(o, ring, 1, st);
	gsync_ring_exit(ring);
	gsync_prep_set_decoder(NULL, NULL);
	shutdown(sv[0], SHUT_RDWR);
	pthread_join(thr, NULL);
	close(sv[0]);
	close(sv[1]);
	pthread_mutex_destroy(&f.lock);
	return rc;
}

static int run(struct opts *o, int64_t corrupt_iter, int64_t fail_iter)
{
	struct run_stats st;

	return run_mode(o, corrupt_iter, fail_iter, 'a', &st);
}

static void base(struct opts *o, unsigned int dtype, unsigned int op,
		 size_t size)
{
	memset(o, 0, sizeof(*o));
	o->cfg.rank = ME;
	o->cfg.nranks = NRANKS;
	o->dtype = dtype;
	o->op = op;
	o->size = size;
	o->iters = 12;
	o->depth = 4;
	o->seed = 77;
	o->check = 1;
}

int main(void)
{
	struct opts o;
	unsigned int d;
	int rc;

	for (d = 0; d < GSYNC_DTYPE_MAX; d++) {
		base(&o, d, d % GSYNC_REDOP_MAX, 4096 + 2 * gsync_dtype_size(d));
		o.kind = d & 1 ? PATTERN_BITS : PATTERN_SMALL;
		rc = run(&o, -1, -1);
		if (rc >= 1000) {
			skip("example async loop # SKIP io_uring unavailable: %s",
			     strerror(rc - 1000));
			return 0;
		}
		ok(rc == EX_OK, "async --check, %s %s, 12 iterations, depth 4: all match (rc %d)",
		   gsync_dtype_name(d), gsync_op_name(o.op), rc);
	}
	base(&o, GSYNC_DTYPE_FP32, GSYNC_OP_SUM, 40000 * 4);
	ok(run(&o, -1, -1) == EX_OK, "a result larger than one check piece matches");
	base(&o, GSYNC_DTYPE_BF16, GSYNC_OP_SUM, 1000);
	ok(run(&o, 5, -1) == EX_MISMATCH, "one flipped bit in iteration 5 is a mismatch (exit 1)");
	base(&o, GSYNC_DTYPE_FP32, GSYNC_OP_AVG, 1000);
	ok(run(&o, -1, 3) == EX_OPFAIL, "ETIMEDOUT on iteration 3 is an operation failure (exit 3)");
	base(&o, GSYNC_DTYPE_INT32, GSYNC_OP_MAX, 64);
	o.depth = 1;
	o.iters = 50;
	ok(run(&o, -1, -1) == EX_OK, "depth 1, 50 iterations");
	{
		struct run_stats st;
		const size_t sizes[] = { 4096, 256, 40000 * 4, 6 };

		base(&o, GSYNC_DTYPE_BF16, GSYNC_OP_SUM, 0);
		memcpy(o.sizes, sizes, sizeof(sizes));
		o.nsizes = 4;
		o.size = 40000 * 4;
		o.depth = 8;
		o.iters = 30;
		o.auto_seq = 1;
		rc = run_mode(&o, -1, -1, 'a', &st);
		ok(rc == EX_OK && st.ops == 30 && st.inflight_max == 8,
		   "ring, library-numbered seqs, 4 sizes cycling, depth 8: 30 match, "
		   "%u in flight at most", st.inflight_max);
		rc = run_mode(&o, -1, -1, 'u', &st);
		ok(rc == EX_OK && st.ops == 30 && st.inflight_max == 8,
		   "own ring (gsync_prep_*), same: 30 match, %u in flight at most",
		   st.inflight_max);
		for (d = 0; d < GSYNC_DTYPE_MAX; d++) {
			base(&o, d, (d + 1) % GSYNC_REDOP_MAX, 4096 + 2 * gsync_dtype_size(d));
			o.kind = d & 1 ? PATTERN_SMALL : PATTERN_BITS;
			o.depth = 5;
			ok(run_mode(&o, -1, -1, 'u', &st) == EX_OK && st.ops == 12,
			   "own ring, %s %s, 12 iterations, 5 in flight: all match",
			   gsync_dtype_name(d), gsync_op_name(o.op));
		}
		base(&o, GSYNC_DTYPE_FP16, GSYNC_OP_SUM, 2000);
		o.depth = 6;
		ok(run_mode(&o, 7, -1, 'u', &st) == EX_MISMATCH,
		   "own ring: one flipped bit in iteration 7 is a mismatch");
		ok(run_mode(&o, -1, 4, 'u', &st) == EX_OPFAIL && st.ops == 4,
		   "own ring: ETIMEDOUT on iteration 4 is an operation failure after 4 good ones");
	}
	{
		char *buf = malloc(1024);

		base(&o, GSYNC_DTYPE_INT32, GSYNC_OP_SUM, 1024);
		memset(buf, 0, 1024);
		ok(check_result(&o, 0, buf) == EX_MISMATCH, "check_result rejects zeros");
		free(buf);
	}
	return tap_done();
}
