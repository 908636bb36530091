/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libgsync on the caller's own io_uring: liburing-style helpers that put
 * gsync operations on a ring the program already runs, so a program with
 * its own io_uring loop does not need the second ring of struct gsync_ring.
 * A separate header because it includes <liburing.h>: <gsync.h> does not,
 * and programs that do not use these helpers need no liburing headers.
 * Build with `pkg-config --cflags --libs gsync-uring` (gsync + liburing).
 *
 * One operation is one IORING_OP_SENDMSG (the contribution with its
 * GSYNC_CMSG_OP) and, once that completed, one IORING_OP_RECVMSG (the
 * reduced buffer with its GSYNC_CMSG_RESULT):
 *
 *	struct gsync_op_req req;		// caller's storage, see below
 *	struct gsync_completion c;
 *
 *	gsync_prep_allreduce(io_uring_get_sqe(&ring), fd, &req, seq,
 *			     sendbuf, recvbuf, len, dtype, op);
 *	io_uring_sqe_set_data(sqe, &req);	// user_data is the caller's
 *	... CQE for &req: gsync_cqe_decode(&req, cqe, &c) returns 0:
 *	gsync_prep_recv_result(io_uring_get_sqe(&ring), fd, &req);
 *	... CQE for &req: gsync_cqe_decode(&req, cqe, &c) returns 1: c is final
 *
 * Storage: struct gsync_op_req holds the msghdrs, iovecs and control
 * buffers the kernel reads and writes. It belongs to the caller, who must
 * keep it alive and unmoved from gsync_prep_allreduce() until
 * gsync_cqe_decode() returned 1 (or, after a cancel, until every CQE of an
 * SQE prepared with it arrived). Its fields are the library's: do not
 * touch them. sendbuf and recvbuf (borrowed, not copied) must stay valid
 * as long; sendbuf may equal recvbuf (the kernel copies the contribution
 * during the send).
 *
 * Ordering rules on one gsync socket. The kernel takes operations strictly
 * in seq order (a send whose seq is not the next one fails with EINVAL) and
 * hands results out oldest first; io_uring does not order independent SQEs
 * (a send that waits for window room is retried after later ones ran, and
 * two waiting receives may be served in either order). So:
 *   - Sends: issue the send of seq N+1 only after the CQE of N's send, or
 *     link it behind N's with IOSQE_IO_LINK in the same io_uring_submit()
 *     (a chain of sends; if one fails the rest complete with ECANCELED and
 *     were not sent).
 *   - Receives: prepare a receive only for an operation whose send
 *     completed (gsync_cqe_decode() returned 0), for the oldest such
 *     operation whose result has not been received, with at most one
 *     receive (or one IOSQE_IO_LINK chain of receives, oldest first) in
 *     flight on the socket. The result the kernel returns is always the
 *     oldest; gsync_cqe_decode() checks it is this request's seq and says
 *     EBADMSG if not (the data then went to the wrong buffer).
 *   - Window: at most gsync_info.window operations (gsync_get_info())
 *     between their send and their result. The kernel counts an operation
 *     until every peer acknowledged it, so a send can still wait in the
 *     kernel for a moment; io_uring waits for it (nothing blocks).
 *   - Sequence numbers: the first is gsync_info.next_seq (1 on a fresh
 *     socket), then one more per send the kernel accepted.
 * Do not mix these with blocking calls or a struct gsync_ring on the same
 * socket.
 *
 * The error convention of <gsync.h> holds: 0 or a count, else -errno.
 * The helpers keep no state outside the request, so different requests
 * may be handled from different threads (the ring is the caller's to
 * share, as with liburing).
 */
#ifndef LIBGSYNC_GSYNC_URING_H
#define LIBGSYNC_GSYNC_URING_H

/*
 * First: <liburing.h> defines the feature macros it needs (_GNU_SOURCE),
 * which only works before any system header. Under -std=c11 include this
 * header (or <liburing.h>) before the others.
 */
#include <liburing.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <gsync.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One operation's I/O state, owned by the caller (see above). Any storage
 * duration; needs no initialisation before gsync_prep_allreduce(), which
 * overwrites all of it.
 */
struct gsync_op_req {
	struct msghdr smsg, rmsg;	/* the SENDMSG's and the RECVMSG's */
	struct iovec siov, riov;
	union {
		char buf[GSYNC_OP_CMSG_SPACE];
		size_t align;		/* struct cmsghdr alignment */
	} sctl;
	union {
		char buf[GSYNC_RESULT_CMSG_SPACE];
		size_t align;
	} rctl;
	uint64_t seq;
	uint64_t len;
	uint32_t state;			/* the library's bookkeeping */
	uint32_t reserved;
};

/*
 * Prepare SQE as the SENDMSG of all-reduce SEQ (sendbuf, LEN bytes, DTYPE,
 * OP) on socket FD, and remember recvbuf (LEN bytes) for its receive.
 * Like io_uring_prep_*(), it sets every SQE field but user_data (flags
 * become 0): set user_data, and IOSQE_IO_LINK for a chain, after.
 * Returns 0, -EBUSY if SQE is NULL (io_uring_get_sqe() found the
 * submission queue full; nothing was changed), -EINVAL for a NULL req or
 * buffer, seq 0, an unknown dtype or op, or a LEN of 0, not a multiple of
 * the element size, or above INT32_MAX (a CQE's result is an int).
 */
int gsync_prep_allreduce(struct io_uring_sqe *sqe, int fd,
			 struct gsync_op_req *req, uint64_t seq,
			 const void *sendbuf, void *recvbuf, size_t len,
			 unsigned int dtype, unsigned int op);

/*
 * Prepare SQE as the RECVMSG of REQ's result into its recvbuf. Only after
 * gsync_cqe_decode() returned 0 for REQ's send (see the ordering rules).
 * Returns 0, -EBUSY if SQE is NULL, -EINVAL if REQ's send has not
 * completed successfully (or its receive was prepared already).
 */
int gsync_prep_recv_result(struct io_uring_sqe *sqe, int fd,
			   struct gsync_op_req *req);

/*
 * Decode CQE, the completion of an SQE prepared with REQ, into *out
 * (seq = REQ's, user_data = cqe->user_data, status, len as in struct
 * gsync_completion). Returns
 *   0  the send completed: the kernel accepted the contribution; prepare
 *      the receive next (out->status is 0, out->len 0);
 *   1  the operation is over: out->status is 0 (out->len bytes of result
 *      are in recvbuf) or a positive errno: the send's (EINVAL for a seq
 *      the kernel did not expect, EMSGSIZE, ENOBUFS, ECANCELED when a
 *      linked send before it failed ...; the kernel did not take the
 *      contribution), the receive's, the operation's (ETIMEDOUT, EPROTO,
 *      ECONNABORTED, ECONNRESET), EMSGSIZE (the result did not fit
 *      recvbuf) or EBADMSG (a result for another seq or of another
 *      length: the kernel's results and this request got out of step);
 *  -EINVAL a NULL argument, or REQ has no SQE in flight.
 */
int gsync_cqe_decode(struct gsync_op_req *req,
		     const struct io_uring_cqe *cqe,
		     struct gsync_completion *out);

#ifdef __cplusplus
}
#endif

#endif /* LIBGSYNC_GSYNC_URING_H */
