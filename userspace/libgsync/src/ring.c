// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Asynchronous all-reduce over io_uring: IORING_OP_SENDMSG carries the
 * contribution and GSYNC_CMSG_OP, IORING_OP_RECVMSG fetches the result and
 * GSYNC_CMSG_RESULT. (A socket cannot have its own uring_cmd, so plain
 * send/recv SQEs are the way in.)
 *
 * Why at most one send and one receive in flight: io_uring does not order
 * independent SQEs on the same socket; two pending SENDMSGs woken together
 * may be retried in either order, and the kernel rejects a seq that is not
 * next_seq. Likewise two pending RECVMSGs could take each other's results,
 * writing result N into request N+1's buffer. Serialising both directions
 * keeps the invariants: sends go out in submission (= seq) order, and the
 * one armed receive always belongs to the oldest request whose send
 * succeeded, which is exactly the result the kernel hands out next.
 * The cost is one io_uring_enter() per step, small next to an all-reduce.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

enum { KIND_SEND = 1, KIND_RECV = 2, KIND_CANCEL = 3 };

/* Submission queue size: one send, one receive and their cancels. */
#define SQ_ENTRIES 8
#define MAX_DEPTH 4096
/* How long gsync_ring_exit() waits for the kernel to drop the buffers. */
#define EXIT_WAIT_MS 5000

static uint64_t ud_make(unsigned int slot, unsigned int kind)
{
	return ((uint64_t)slot << 2) | kind;
}

static struct gsync_req *req_at(struct gsync_ring *r, unsigned int off)
{
	return &r->reqs[(r->head + off) % r->depth];
}

static int default_decode(void *arg, int res, const struct msghdr *msg,
			  struct gsync_op_result *out)
{
	(void)arg;
	(void)res;
	return gsync_cmsg_get_result(msg, out);
}

void gsync_ring_set_decoder(struct gsync_ring *ring, gsync_result_decoder fn,
			    void *arg)
{
	ring->decode = fn ? fn : default_decode;
	ring->decode_arg = arg;
}

static void finish(struct gsync_req *q, int status, size_t len)
{
	q->state = GSYNC_REQ_DONE;
	q->status = status;
	q->result_len = status ? 0 : len;
}

static void on_send(struct gsync_ring *r, struct gsync_req *q, int res)
{
	r->send_busy = 0;
	if (q->state != GSYNC_REQ_SENDING)
		return;		/* cannot happen; never corrupt a slot */
	if (res < 0)
		finish(q, -res, 0);
	else if ((size_t)res != q->len)
		finish(q, EBADMSG, 0);	/* SEQPACKET sends are all or nothing */
	else
		q->state = GSYNC_REQ_SENT;
}

static void on_recv(struct gsync_ring *r, struct gsync_req *q, int res)
{
	struct gsync_op_result out;
	int err;

	r->recv_busy = 0;
	if (q->state != GSYNC_REQ_RECEIVING)
		return;
	if (res < 0) {
		finish(q, -res, 0);
		return;
	}
	memset(&out, 0, sizeof(out));
	err = r->decode(r->decode_arg, res, &q->rmsg, &out);
	if (err)
		finish(q, -err, 0);
	else if (out.seq != q->seq || out.status < 0)
		finish(q, EBADMSG, 0);	/* someone else's result: say so */
	else if (out.status)
		finish(q, out.status, 0);
	else if (q->rmsg.msg_flags & MSG_TRUNC)
		finish(q, EMSGSIZE, 0);
	else if (out.len != q->len || (size_t)res != q->len)
		finish(q, EBADMSG, 0);
	else
		finish(q, 0, out.len);
}

static void on_cqe(struct gsync_ring *r, const struct io_uring_cqe *cqe)
{
	unsigned int kind = (unsigned int)(cqe->user_data & 3);
	uint64_t slot = cqe->user_data >> 2;

	if (kind == KIND_CANCEL) {
		if (r->cancels)
			r->cancels--;
		return;
	}
	if (slot >= r->depth)
		return;
	if (kind == KIND_SEND)
		on_send(r, &r->reqs[slot], cqe->res);
	else if (kind == KIND_RECV)
		on_recv(r, &r->reqs[slot], cqe->res);
}

static void drain_cqes(struct gsync_ring *r)
{
	struct io_uring_cqe *cqe;

	while (io_uring_peek_cqe(&r->uring, &cqe) == 0 && cqe) {
		on_cqe(r, cqe);
		io_uring_cqe_seen(&r->uring, cqe);
	}
}

static unsigned int slot_of(struct gsync_ring *r, struct gsync_req *q)
{
	return (unsigned int)(q - r->reqs);
}

/* Queue the next send and/or receive if their turn came. 1 if any queued. */
static int arm(struct gsync_ring *r)
{
	struct io_uring_sqe *sqe;
	struct gsync_req *q;
	unsigned int i;
	int queued = 0;

	if (!r->send_busy && r->send_idx < r->count) {
		q = req_at(r, r->send_idx);
		sqe = io_uring_get_sqe(&r->uring);
		if (sqe) {
			io_uring_prep_sendmsg(sqe, r->fd, &q->smsg, MSG_NOSIGNAL);
			io_uring_sqe_set_data64(sqe, ud_make(slot_of(r, q), KIND_SEND));
			q->state = GSYNC_REQ_SENDING;
			r->send_busy = 1;
			r->send_idx++;
			queued = 1;
		}
	}
	if (!r->recv_busy) {
		for (i = 0; i < r->send_idx; i++) {
			q = req_at(r, i);
			if (q->state != GSYNC_REQ_SENT)
				continue;
			sqe = io_uring_get_sqe(&r->uring);
			if (!sqe)
				break;
			/* The kernel writes msg_flags/msg_controllen back. */
			q->rmsg.msg_controllen = sizeof(q->rctl.buf);
			q->rmsg.msg_flags = 0;
			io_uring_prep_recvmsg(sqe, r->fd, &q->rmsg, 0);
			io_uring_sqe_set_data64(sqe, ud_make(slot_of(r, q), KIND_RECV));
			q->state = GSYNC_REQ_RECEIVING;
			r->recv_busy = 1;
			queued = 1;
			break;
		}
	}
	return queued;
}

/*
 * Make all the progress possible without waiting: handle CQEs, issue the
 * next SQEs, submit, repeat while submissions complete inline (a send the
 * kernel accepts at once completes during io_uring_submit()).
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
	drain_cqes(r);
	return 0;
}

GSYNC_EXPORT int gsync_ring_init(struct gsync_ring **ringp, int fd,
				 unsigned int depth)
{
	struct gsync_ring *r;
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
	rc = io_uring_queue_init(SQ_ENTRIES, &r->uring, 0);
	if (rc < 0) {
		free(r->reqs);
		free(r);
		return rc;
	}
	r->fd = fd;
	r->depth = depth;
	gsync_ring_set_decoder(r, NULL, NULL);
	*ringp = r;
	return 0;
}

GSYNC_EXPORT int gsync_allreduce_submit(struct gsync_ring *ring, uint64_t seq,
					const void *sendbuf, void *recvbuf,
					size_t len, unsigned int dtype,
					unsigned int op, uint64_t user_data)
{
	struct gsync_req *q;
	int rc;

	if (!ring || !sendbuf || !recvbuf || seq == 0)
		return -EINVAL;
	rc = gsync_check_op(dtype, op, len);
	if (rc)
		return rc;
	if (len > UINT32_MAX)
		return -EINVAL;	/* CQE results are 32-bit */
	if (ring->count == ring->depth)
		return -EAGAIN;
	q = req_at(ring, ring->count);
	memset(q, 0, sizeof(*q));
	q->seq = seq;
	q->user_data = user_data;
	q->len = len;
	q->siov.iov_base = (void *)sendbuf;
	q->siov.iov_len = len;
	q->smsg.msg_iov = &q->siov;
	q->smsg.msg_iovlen = 1;
	q->smsg.msg_control = q->sctl.buf;
	q->smsg.msg_controllen = sizeof(q->sctl.buf);
	rc = gsync_cmsg_put_op(&q->smsg, seq, dtype, op);
	if (rc)
		return rc;
	q->riov.iov_base = recvbuf;
	q->riov.iov_len = len;
	q->rmsg.msg_iov = &q->riov;
	q->rmsg.msg_iovlen = 1;
	q->rmsg.msg_control = q->rctl.buf;
	q->rmsg.msg_controllen = sizeof(q->rctl.buf);
	q->state = GSYNC_REQ_QUEUED;
	ring->count++;
	/*
	 * The request is queued whatever pump() says; an io_uring error here
	 * is reported again by gsync_reap(), which retries the submission.
	 */
	(void)pump(ring);
	return 0;
}

static unsigned int collect(struct gsync_ring *r, struct gsync_completion *out,
			    unsigned int max)
{
	unsigned int n = 0;

	while (n < max && r->count && r->reqs[r->head].state == GSYNC_REQ_DONE) {
		struct gsync_req *q = &r->reqs[r->head];

		out[n].seq = q->seq;
		out[n].user_data = q->user_data;
		out[n].status = q->status;
		out[n].len = q->result_len;
		n++;
		q->state = GSYNC_REQ_FREE;
		r->head = (r->head + 1) % r->depth;
		r->count--;
		r->send_idx--;	/* DONE implies its send was issued */
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
		if (!ring->send_busy && !ring->recv_busy)
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

static int cancel(struct gsync_ring *r, unsigned int kind)
{
	unsigned int i;

	for (i = 0; i < r->count; i++) {
		struct gsync_req *q = req_at(r, i);
		enum gsync_req_state want = kind == KIND_SEND ? GSYNC_REQ_SENDING
							      : GSYNC_REQ_RECEIVING;
		struct io_uring_sqe *sqe;

		if (q->state != want)
			continue;
		sqe = io_uring_get_sqe(&r->uring);
		if (!sqe)
			return -EBUSY;
		io_uring_prep_cancel64(sqe, ud_make(slot_of(r, q), kind), 0);
		io_uring_sqe_set_data64(sqe, ud_make(0, KIND_CANCEL));
		r->cancels++;
	}
	return 0;
}

GSYNC_EXPORT void gsync_ring_exit(struct gsync_ring *ring)
{
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 100000000 };
	struct io_uring_cqe *cqe;
	int waited_ms = 0;

	if (!ring)
		return;
	/* Stop issuing: forget requests whose turn has not come. */
	drain_cqes(ring);
	cancel(ring, KIND_SEND);
	cancel(ring, KIND_RECV);
	io_uring_submit(&ring->uring);
	while ((ring->send_busy || ring->recv_busy || ring->cancels) &&
	       waited_ms < EXIT_WAIT_MS) {
		if (io_uring_wait_cqe_timeout(&ring->uring, &cqe, &ts) == -ETIME)
			waited_ms += 100;
		drain_cqes(ring);
	}
	io_uring_queue_exit(&ring->uring);
	/*
	 * If the kernel still holds a request (it ignored the cancel for
	 * EXIT_WAIT_MS), its msghdr may still be read: leak the slots
	 * rather than free memory the kernel may touch.
	 */
	if (!ring->send_busy && !ring->recv_busy)
		free(ring->reqs);
	free(ring);
}
