// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The example's --uring mode: the program runs its own io_uring and puts
 * gsync operations on it with gsync_prep_*() (<gsync_uring.h>), as a
 * training loop that already has a ring would. It keeps that header's
 * ordering rules: the sends of a batch go out as one IOSQE_IO_LINK chain
 * (a new batch once the previous chain completed), and one receive is in
 * flight at a time, for the oldest operation whose send completed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsync_uring.h"
#include "run.h"

enum { PHASE_IDLE, PHASE_SEND, PHASE_SENT, PHASE_RECV };

struct slot {
	struct gsync_op_req req;	/* lives until its last CQE */
	uint64_t iter;
	int phase;
};

struct loop {
	const struct opts *o;
	int fd;
	uint64_t seq0;
	unsigned int window;
	struct io_uring ring;
	struct slot *slots;
	char *bufs;		/* per slot: send buffer, receive buffer */
	uint64_t next;		/* iterations whose send was prepared */
	uint64_t filled;	/* iterations whose data is ready */
	uint64_t sent;		/* iterations whose send completed */
	uint64_t finished;	/* iterations received and checked */
	unsigned int sends, recvs;	/* SQEs in flight */
};

static char *sendbuf(struct loop *l, uint64_t it)
{
	return l->bufs + 2 * (it % l->window) * l->o->size;
}

/* If no send is in flight: one linked chain of every operation that fits. */
static int queue_sends(struct loop *l)
{
	const struct opts *o = l->o;
	struct io_uring_sqe *sqe, *prev = NULL;
	int err;

	if (l->sends)
		return EX_OK;
	for (; l->filled < o->iters && l->filled - l->finished < l->window; l->filled++)
		if (o->check || l->filled < l->window)
			fill_data(o, sendbuf(l, l->filled), l->filled);
	for (; l->next < l->filled; l->next++) {
		struct slot *sl = &l->slots[l->next % l->window];
		char *s = sendbuf(l, l->next);

		sqe = io_uring_get_sqe(&l->ring);
		err = gsync_prep_allreduce(sqe, l->fd, &sl->req, l->seq0 + l->next,
					   s, s + o->size, op_size(o, l->next),
					   o->dtype, o->op);
		if (err == -EBUSY)
			break;		/* queue full: the rest in the next chain */
		if (err) {
			fprintf(stderr, "allreduce: gsync_prep_allreduce: %s\n",
				gsync_strerror(err));
			return EX_SETUP;
		}
		io_uring_sqe_set_data(sqe, sl);
		if (prev)
			prev->flags |= IOSQE_IO_LINK;
		prev = sqe;
		sl->iter = l->next;
		sl->phase = PHASE_SEND;
		l->sends++;
	}
	return EX_OK;
}

/* If no receive is in flight: one for the oldest operation sent. */
static int queue_recv(struct loop *l)
{
	struct slot *sl = &l->slots[l->finished % l->window];
	struct io_uring_sqe *sqe;
	int err;

	if (l->recvs || l->finished == l->sent)
		return EX_OK;
	sqe = io_uring_get_sqe(&l->ring);
	err = gsync_prep_recv_result(sqe, l->fd, &sl->req);
	if (err) {
		fprintf(stderr, "allreduce: gsync_prep_recv_result: %s\n",
			gsync_strerror(err));
		return EX_SETUP;
	}
	io_uring_sqe_set_data(sqe, sl);
	sl->phase = PHASE_RECV;
	l->recvs++;
	return EX_OK;
}

/* One CQE of a slot: account it, and check a finished operation. */
static int on_cqe(struct loop *l, struct slot *sl, const struct io_uring_cqe *cqe)
{
	const struct opts *o = l->o;
	struct gsync_completion c;
	int phase = sl->phase, rc;

	if (phase == PHASE_SEND)
		l->sends--;
	else
		l->recvs--;
	rc = gsync_cqe_decode(&sl->req, cqe, &c);
	if (rc == 0) {
		sl->phase = PHASE_SENT;
		l->sent++;
		return EX_OK;
	}
	sl->phase = PHASE_IDLE;
	if (rc < 0) {
		fprintf(stderr, "allreduce: gsync_cqe_decode: %s\n", gsync_strerror(rc));
		return EX_SETUP;
	}
	if (c.status)
		return op_failed(c.seq, c.status);
	if (phase != PHASE_RECV || sl->iter != l->finished ||
	    c.seq != l->seq0 + sl->iter) {
		fprintf(stderr, "allreduce: result of iteration %llu (seq %llu) "
			"came when %llu was due\n", (unsigned long long)sl->iter,
			(unsigned long long)c.seq, (unsigned long long)l->finished);
		return EX_SETUP;
	}
	if (c.len != op_size(o, sl->iter)) {
		fprintf(stderr, "allreduce: iteration %llu: %zu bytes, expected %zu\n",
			(unsigned long long)sl->iter, c.len, op_size(o, sl->iter));
		return EX_MISMATCH;
	}
	if (o->check) {
		rc = check_result(o, sl->iter, sendbuf(l, sl->iter) + o->size);
		if (rc)
			return rc;
	}
	l->finished++;
	return EX_OK;
}

/* Cancel what is still in flight and wait for it: the buffers go next. */
static void drain(struct loop *l)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&l->ring);
	struct io_uring_cqe *cqe;
	struct slot *sl;

	if (!l->sends && !l->recvs)
		return;
	if (sqe) {
		io_uring_prep_cancel_fd(sqe, l->fd, IORING_ASYNC_CANCEL_ALL);
		io_uring_sqe_set_data(sqe, NULL);
	}
	io_uring_submit(&l->ring);
	/* Bounded: every operation ends by the group's op_timeout_ms. */
	while ((l->sends || l->recvs) && io_uring_wait_cqe(&l->ring, &cqe) == 0) {
		sl = io_uring_cqe_get_data(cqe);
		if (sl && sl->phase == PHASE_SEND)
			l->sends--;
		else if (sl)
			l->recvs--;
		if (sl)
			sl->phase = PHASE_IDLE;
		io_uring_cqe_seen(&l->ring, cqe);
	}
}

int run_uring(const struct opts *o, int fd, uint64_t seq0, unsigned int window,
	      struct run_stats *st)
{
	struct loop l = { .o = o, .fd = fd, .seq0 = seq0,
			  .window = window ? window : 1 };
	struct io_uring_cqe *cqe;
	unsigned int head, seen;
	int rc = EX_OK, err;

	l.slots = calloc(l.window, sizeof(*l.slots));
	l.bufs = malloc(2 * (size_t)l.window * o->size);
	/* A chain of sends, a receive, a cancel. */
	err = io_uring_queue_init(l.window + 2, &l.ring, 0);
	if (!l.slots || !l.bufs || err) {
		fprintf(stderr, "allreduce: io_uring: %s\n",
			gsync_strerror(err ? err : -ENOMEM));
		if (!err)
			io_uring_queue_exit(&l.ring);
		free(l.slots);
		free(l.bufs);
		return EX_SETUP;
	}
	while (l.finished < o->iters && rc == EX_OK) {
		rc = queue_sends(&l);
		if (rc == EX_OK)
			rc = queue_recv(&l);
		if (rc != EX_OK)
			break;
		if (!l.sends && !l.recvs) {
			fprintf(stderr, "allreduce: nothing in flight\n");
			rc = EX_SETUP;
			break;
		}
		err = io_uring_submit_and_wait(&l.ring, 1);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "allreduce: io_uring_submit: %s\n",
				gsync_strerror(err));
			rc = EX_SETUP;
			break;
		}
		note_inflight(st, l.next - l.finished);
		seen = 0;
		io_uring_for_each_cqe(&l.ring, head, cqe) {
			struct slot *sl = io_uring_cqe_get_data(cqe);

			seen++;
			err = on_cqe(&l, sl, cqe);
			if (rc == EX_OK)
				rc = err;
		}
		io_uring_cq_advance(&l.ring, seen);
	}
	st->ops = l.finished;
	drain(&l);
	io_uring_queue_exit(&l.ring);
	free(l.slots);
	free(l.bufs);
	return rc;
}
