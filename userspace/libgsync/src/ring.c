// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Asynchronous all-reduce over io_uring: IORING_OP_SENDMSG carries the
 * contribution and GSYNC_CMSG_OP, IORING_OP_RECVMSG fetches the result and
 * GSYNC_CMSG_RESULT. (A socket cannot have its own uring_cmd, so plain
 * send/recv SQEs are the way in.) Each request is a struct gsync_op_req
 * driven by the same steps as the public prep helpers (prep.c).
 *
 * Up to the group's window of requests are in flight, but io_uring does not
 * order independent SQEs on one socket: a send waiting for window room is
 * retried after later sends ran (and the kernel rejects a seq that is not
 * next_seq), and two waiting receives may be served in either order,
 * writing result N into request N+1's buffer. So the ring issues sends as
 * one IOSQE_IO_LINK chain (in seq order, each started when the one before
 * completed, inside the kernel, without calls into the library) and
 * receives likewise. The first request of the receive chain is always the
 * oldest whose send succeeded, which is the result the kernel hands out
 * next, and every result's GSYNC_CMSG_RESULT seq is checked against its
 * request's.
 *
 * A chain cannot grow once submitted. When requests arrive while a chain
 * waits (a send for window room, a receive for its result), the ring
 * cancels the waiting head (it has done nothing yet: gsync, like any
 * socket, has no side effect before it returns EAGAIN) and issues one
 * longer chain, so that every accepted request is in the kernel's hands
 * without further calls. If the head completed meanwhile the cancel finds
 * nothing and the chain runs on; the new requests follow in the next one.
 *
 * A failed link cancels the rest of its chain (ECANCELED); those requests
 * are issued again in a new chain, so each gets its own verdict.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

enum { KIND_SEND = 1, KIND_RECV = 2, KIND_CANCEL = 3 };

#define MAX_DEPTH 4096
/* Longest SQE chain: the largest window a group can have. */
#define CHAIN_MAX GSYNC_MAX_WINDOW
/* How long gsync_ring_exit() waits for the kernel to drop the buffers. */
#define EXIT_WAIT_MS 5000

/*
 * user_data: slot << 2 | kind. A cancel's slot is 0, or depth + KIND_SEND
 * or KIND_RECV for the cancel of a waiting chain head (rechain).
 */
static uint64_t ud_make(unsigned int slot, unsigned int kind)
{
	return ((uint64_t)slot << 2) | kind;
}

static struct gsync_req *req_at(struct gsync_ring *r, unsigned int off)
{
	return &r->reqs[(r->head + off) % r->depth];
}

static unsigned int slot_of(struct gsync_ring *r, struct gsync_req *q)
{
	return (unsigned int)(q - r->reqs);
}

static int default_info(void *arg, int fd, struct gsync_info *info)
{
	(void)arg;
	return gsync_get_info(fd, info);
}

void gsync_ring_set_decoder(struct gsync_ring *ring, gsync_result_decoder fn,
			    void *arg)
{
	ring->decode = fn ? fn : gsync_decode_cmsg;
	ring->decode_arg = arg;
}

void gsync_ring_set_info_source(struct gsync_ring *ring, gsync_info_source fn,
				void *arg)
{
	ring->info = fn ? fn : default_info;
	ring->info_arg = arg;
}

/*
 * Learn the group's window (and, if the ring has not numbered anything
 * yet, the next seq) from GSYNC_INFO. Until the socket is joined (or if
 * it is no gsync socket) nothing is learned and the next call asks again.
 */
static void learn(struct gsync_ring *r)
{
	struct gsync_info info;

	if (r->window)
		return;
	if (r->info(r->info_arg, r->fd, &info) ||
	    info.state != GSYNC_STATE_JOINED || !info.window)
		return;
	r->window = info.window;
	if (!r->next_seq && r->count == 0)
		r->next_seq = info.next_seq;
}

/* Requests the ring accepts unreaped: the window, at most depth. */
static unsigned int limit(const struct gsync_ring *r)
{
	return r->window && r->window < r->depth ? r->window : r->depth;
}

static void finish(struct gsync_req *q, int status, size_t len)
{
	q->io.state = GSYNC_REQ_DONE;
	q->status = status;
	q->result_len = status ? 0 : len;
}

static void on_send(struct gsync_ring *r, struct gsync_req *q, int res)
{
	int status;

	r->sends--;
	if (q->io.state != GSYNC_REQ_SENDING)
		return;		/* cannot happen; never corrupt a slot */
	if (res == -ECANCELED && !r->exiting) {
		q->io.state = GSYNC_REQ_QUEUED;	/* an earlier link failed */
		return;
	}
	status = gsync_req_sent(&q->io, res);
	if (status)
		finish(q, status, 0);
}

static void on_recv(struct gsync_ring *r, struct gsync_req *q, int res)
{
	size_t len;
	int status;

	r->recvs--;
	if (q->io.state != GSYNC_REQ_RECEIVING)
		return;
	if (res == -ECANCELED && !r->exiting) {
		q->io.state = GSYNC_REQ_SENT;	/* an earlier link failed */
		return;
	}
	status = gsync_req_received(&q->io, res, r->decode, r->decode_arg, &len);
	finish(q, status, len);
}

/* Handle one CQE; 1 if it was a send's or a receive's. */
static int on_cqe(struct gsync_ring *r, const struct io_uring_cqe *cqe)
{
	unsigned int kind = (unsigned int)(cqe->user_data & 3);
	uint64_t slot = cqe->user_data >> 2;

	if (kind == KIND_CANCEL) {
		if (r->cancels)
			r->cancels--;
		if (slot >= r->depth)
			r->rechain &= ~(1U << (slot - r->depth));
		return 0;
	}
	if (slot >= r->depth)
		return 0;
	if (kind == KIND_SEND && r->sends)
		on_send(r, &r->reqs[slot], cqe->res);
	else if (kind == KIND_RECV && r->recvs)
		on_recv(r, &r->reqs[slot], cqe->res);
	return 1;
}

/* Handle every waiting CQE; how many were sends' or receives'. */
static int drain_cqes(struct gsync_ring *r)
{
	struct io_uring_cqe *cqe;
	int ops = 0;

	while (io_uring_peek_cqe(&r->uring, &cqe) == 0 && cqe) {
		ops += on_cqe(r, cqe);
		io_uring_cqe_seen(&r->uring, cqe);
	}
	return ops;
}

/*
 * Issue one chain: every request in state FROM, oldest first, linked, as
 * KIND. Returns how many SQEs were queued.
 */
static unsigned int chain(struct gsync_ring *r, enum gsync_req_state from,
			  unsigned int kind)
{
	struct io_uring_sqe *sqe, *prev = NULL;
	unsigned int i, n = 0;

	for (i = 0; i < r->count && n < CHAIN_MAX; i++) {
		struct gsync_req *q = req_at(r, i);

		if (q->io.state != from)
			continue;
		sqe = io_uring_get_sqe(&r->uring);
		if (!sqe)
			break;
		if (kind == KIND_SEND)
			gsync_req_prep_send(sqe, r->fd, &q->io);
		else
			gsync_req_prep_recv(sqe, r->fd, &q->io);
		io_uring_sqe_set_data64(sqe, ud_make(slot_of(r, q), kind));
		if (prev)
			prev->flags |= IOSQE_IO_LINK;
		prev = sqe;
		n++;
	}
	return n;
}

/* The first request in state STATE, or NULL. */
static struct gsync_req *first(struct gsync_ring *r, enum gsync_req_state state)
{
	unsigned int i;

	for (i = 0; i < r->count; i++)
		if (req_at(r, i)->io.state == state)
			return req_at(r, i);
	return NULL;
}

/*
 * Requests in state WAITING wait behind a chain of KIND whose head is the
 * first request in state HEAD: cancel that head (at most one such cancel
 * per kind in flight), so that all of them go out in one chain when its
 * CQEs came.
 */
static int rechain(struct gsync_ring *r, enum gsync_req_state waiting,
		   enum gsync_req_state head, unsigned int kind)
{
	unsigned int inflight = kind == KIND_SEND ? r->sends : r->recvs;
	struct gsync_req *q = first(r, head);
	struct io_uring_sqe *sqe;

	/* A chain as long as any can be would come back the same. */
	if ((r->rechain & (1U << kind)) || inflight >= CHAIN_MAX || !q ||
	    !first(r, waiting))
		return 0;
	sqe = io_uring_get_sqe(&r->uring);
	if (!sqe)
		return 0;
	io_uring_prep_cancel64(sqe, ud_make(slot_of(r, q), kind), 0);
	io_uring_sqe_set_data64(sqe, ud_make(r->depth + kind, KIND_CANCEL));
	r->cancels++;
	r->rechain |= 1U << kind;
	return 1;
}

/* Queue the next chains if their turn came. 1 if any SQE was queued. */
static int arm(struct gsync_ring *r)
{
	unsigned int n = 0;

	if (r->exiting)
		return 0;
	if (!r->sends) {
		r->sends = chain(r, GSYNC_REQ_QUEUED, KIND_SEND);
		n += r->sends;
	} else {
		n += rechain(r, GSYNC_REQ_QUEUED, GSYNC_REQ_SENDING, KIND_SEND);
	}
	if (!r->recvs) {
		r->recvs = chain(r, GSYNC_REQ_SENT, KIND_RECV);
		n += r->recvs;
	} else {
		n += rechain(r, GSYNC_REQ_SENT, GSYNC_REQ_RECEIVING, KIND_RECV);
	}
	return n > 0;
}

/*
 * Make all the progress possible without waiting: handle CQEs, issue the
 * next chains, submit, repeat while submissions complete inline (a send
 * the kernel accepts at once completes during io_uring_submit()).
 */
static int pump(struct gsync_ring *r)
{
	int rc, rounds;

	/* Bounded: each round either completes an SQE or stops. */
	for (rounds = 0; rounds < 2 * (int)r->depth + 4; rounds++) {
		drain_cqes(r);
		if (!arm(r) && io_uring_sq_ready(&r->uring) == 0)
			return 0;
		rc = io_uring_submit(&r->uring);
		if (rc < 0 && rc != -EINTR)
			return rc;
	}
	/* Out of rounds: leave nothing idle that could be in flight. */
	drain_cqes(r);
	if (arm(r))
		io_uring_submit(&r->uring);
	return 0;
}

GSYNC_EXPORT int gsync_ring_init(struct gsync_ring **ringp, int fd,
				 unsigned int depth)
{
	struct gsync_ring *r;
	unsigned int chain_max = depth < CHAIN_MAX ? depth : CHAIN_MAX;
	int rc;

	if (!ringp || fd < 0 || depth == 0 || depth > MAX_DEPTH)
		return -EINVAL;
	*ringp = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->reqs = calloc(depth, sizeof(*r->reqs));
	if (!r->reqs) {
		free(r);
		return -ENOMEM;
	}
	/* A send chain, a receive chain, and a cancel for each SQE. */
	rc = io_uring_queue_init(4 * chain_max, &r->uring, 0);
	if (rc < 0) {
		free(r->reqs);
		free(r);
		return rc;
	}
	r->fd = fd;
	r->depth = depth;
	gsync_ring_set_decoder(r, NULL, NULL);
	gsync_ring_set_info_source(r, NULL, NULL);
	*ringp = r;
	return 0;
}

GSYNC_EXPORT unsigned int gsync_ring_window(struct gsync_ring *ring)
{
	if (!ring)
		return 0;
	learn(ring);
	return limit(ring);
}

GSYNC_EXPORT int gsync_allreduce_submit(struct gsync_ring *ring, uint64_t seq,
					const void *sendbuf, void *recvbuf,
					size_t len, unsigned int dtype,
					unsigned int op, uint64_t user_data)
{
	struct gsync_req *q;
	int rc;

	if (!ring)
		return -EINVAL;
	learn(ring);
	if (ring->count >= limit(ring)) {
		/* Still say -EINVAL for arguments that can never work. */
		struct gsync_op_req probe;

		rc = gsync_req_setup(&probe, seq, sendbuf, recvbuf, len, dtype, op);
		return rc ? rc : -EAGAIN;
	}
	q = req_at(ring, ring->count);
	rc = gsync_req_setup(&q->io, seq, sendbuf, recvbuf, len, dtype, op);
	if (rc) {
		memset(q, 0, sizeof(*q));
		return rc;
	}
	q->user_data = user_data;
	q->status = 0;
	q->result_len = 0;
	ring->count++;
	ring->next_seq = seq + 1;
	/*
	 * The request is queued whatever pump() says; an io_uring error here
	 * is reported again by gsync_reap(), which retries the submission.
	 */
	(void)pump(ring);
	return 0;
}

GSYNC_EXPORT int gsync_allreduce_submit_next(struct gsync_ring *ring,
					     const void *sendbuf, void *recvbuf,
					     size_t len, unsigned int dtype,
					     unsigned int op, uint64_t user_data,
					     uint64_t *seqp)
{
	uint64_t seq;
	int rc;

	if (!ring)
		return -EINVAL;
	learn(ring);
	seq = ring->next_seq ? ring->next_seq : 1;
	rc = gsync_allreduce_submit(ring, seq, sendbuf, recvbuf, len, dtype, op,
				    user_data);
	if (!rc && seqp)
		*seqp = seq;
	return rc;
}

GSYNC_EXPORT uint64_t gsync_ring_next_seq(struct gsync_ring *ring)
{
	if (!ring)
		return 0;
	learn(ring);
	return ring->next_seq ? ring->next_seq : 1;
}

static unsigned int collect(struct gsync_ring *r, struct gsync_completion *out,
			    unsigned int max)
{
	unsigned int n = 0;

	while (n < max && r->count &&
	       r->reqs[r->head].io.state == GSYNC_REQ_DONE) {
		struct gsync_req *q = &r->reqs[r->head];

		out[n].seq = q->io.seq;
		out[n].user_data = q->user_data;
		out[n].status = q->status;
		out[n].len = q->result_len;
		n++;
		q->io.state = GSYNC_REQ_FREE;
		r->head = (r->head + 1) % r->depth;
		r->count--;
	}
	return n;
}

GSYNC_EXPORT int gsync_reap(struct gsync_ring *ring,
			    struct gsync_completion *out, unsigned int max,
			    int wait)
{
	struct io_uring_cqe *cqe;
	unsigned int n;
	int rc;

	if (!ring || (!out && max))
		return -EINVAL;
	rc = pump(ring);
	n = collect(ring, out, max);
	while (rc == 0 && wait && n == 0 && max && ring->count) {
		/* Nothing in flight yet nothing done would wait forever. */
		if (!ring->sends && !ring->recvs)
			return -EIO;
		rc = io_uring_wait_cqe(&ring->uring, &cqe);
		if (rc < 0)
			break;
		rc = pump(ring);
		n = collect(ring, out, max);
	}
	if (n)
		return (int)n;
	return rc;
}

GSYNC_EXPORT unsigned int gsync_ring_pending(const struct gsync_ring *ring)
{
	return ring ? ring->count : 0;
}

GSYNC_EXPORT int gsync_ring_fd(const struct gsync_ring *ring)
{
	return ring ? ring->uring.ring_fd : -EINVAL;
}

/*
 * Ask the kernel to cancel every send and receive in flight. Requests
 * still waiting in a chain are not found (-ENOENT) but fail with
 * ECANCELED with the chain's cancelled head.
 */
static void cancel_all(struct gsync_ring *r)
{
	unsigned int i;

	for (i = 0; i < r->count; i++) {
		struct gsync_req *q = req_at(r, i);
		struct io_uring_sqe *sqe;
		unsigned int kind;

		if (q->io.state == GSYNC_REQ_SENDING)
			kind = KIND_SEND;
		else if (q->io.state == GSYNC_REQ_RECEIVING)
			kind = KIND_RECV;
		else
			continue;
		sqe = io_uring_get_sqe(&r->uring);
		if (!sqe)
			break;
		io_uring_prep_cancel64(sqe, ud_make(slot_of(r, q), kind), 0);
		io_uring_sqe_set_data64(sqe, ud_make(0, KIND_CANCEL));
		r->cancels++;
	}
	io_uring_submit(&r->uring);
}

GSYNC_EXPORT void gsync_ring_exit(struct gsync_ring *ring)
{
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 100000000 };
	struct io_uring_cqe *cqe;
	int waited_ms = 0, again = 1;

	if (!ring)
		return;
	/* Stop issuing: forget requests whose turn has not come. */
	ring->exiting = 1;
	drain_cqes(ring);
	while ((ring->sends || ring->recvs || ring->cancels) &&
	       waited_ms < EXIT_WAIT_MS) {
		/*
		 * Cancel again whenever a request finished (its chain may
		 * have started the next) or nothing happened for a while.
		 */
		if (again && !ring->cancels) {
			cancel_all(ring);
			again = 0;
		}
		if (io_uring_wait_cqe_timeout(&ring->uring, &cqe, &ts) == -ETIME) {
			waited_ms += 100;
			again = 1;
		}
		if (drain_cqes(ring))
			again = 1;
	}
	io_uring_queue_exit(&ring->uring);
	/*
	 * If the kernel still holds a request (it ignored the cancel for
	 * EXIT_WAIT_MS), its msghdr may still be read: leak the slots
	 * rather than free memory the kernel may touch.
	 */
	if (!ring->sends && !ring->recvs)
		free(ring->reqs);
	free(ring);
}
