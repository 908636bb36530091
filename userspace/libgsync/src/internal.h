/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Private declarations shared by the library's source files and its unit
 * tests (which include this to reach the ring's test seam). Not installed.
 */
#ifndef LIBGSYNC_INTERNAL_H
#define LIBGSYNC_INTERNAL_H

#include <liburing.h>
#include <sys/uio.h>

#include "gsync.h"
#include "gsync_uring.h"
#include "export.h"

/*
 * A control buffer aligned for struct cmsghdr, as CMSG_* require. Aligned
 * through a size_t (cmsghdr's widest member), not a struct cmsghdr member:
 * glibc's cmsghdr ends in a flexible array, which makes the union a
 * "variable sized type" for clang and -Wpedantic when embedded in a struct.
 */
union gsync_op_ctl {
	char buf[GSYNC_OP_CMSG_SPACE];
	size_t align;
};

union gsync_result_ctl {
	char buf[GSYNC_RESULT_CMSG_SPACE];
	size_t align;
};

/* 0 if (dtype, op, len) describe a valid operation, else -EINVAL. */
int gsync_check_op(unsigned int dtype, unsigned int op, size_t len);

/*
 * Lifecycle of a struct gsync_op_req (its state field), for the prep
 * helpers and the ring's requests alike.
 */
enum gsync_req_state {
	GSYNC_REQ_FREE = 0,	/* not prepared (a free ring slot) */
	GSYNC_REQ_QUEUED,	/* ring only: accepted, its send not issued yet */
	GSYNC_REQ_SENDING,	/* SENDMSG prepared or in flight */
	GSYNC_REQ_SENT,		/* send done, its receive not prepared yet */
	GSYNC_REQ_RECEIVING,	/* RECVMSG prepared or in flight */
	GSYNC_REQ_DONE,		/* status/len final */
};

/*
 * Decodes a finished RECVMSG into *res: RES is the CQE result (bytes or
 * -errno), MSG the request's msghdr after the kernel wrote msg_flags and
 * msg_controllen. Returns 0 or -errno (see gsync_cmsg_get_result()).
 * The default reads GSYNC_CMSG_RESULT; the unit tests replace it because
 * their AF_UNIX stand-in socket cannot carry SOL_GSYNC control messages.
 */
typedef int (*gsync_result_decoder)(void *arg, int res,
				    const struct msghdr *msg,
				    struct gsync_op_result *out);

/* The default decoder: gsync_cmsg_get_result(). */
int gsync_decode_cmsg(void *arg, int res, const struct msghdr *msg,
		      struct gsync_op_result *out);

/*
 * The steps of the prep helpers (prep.c), shared with the ring, which
 * queues a request (setup) before its turn to send comes.
 * setup: validate and fill REQ's msghdrs (state QUEUED); 0 or -EINVAL.
 * prep_send/prep_recv: write the SQE (state SENDING/RECEIVING); REQ must be
 * QUEUED/SENT. sent/received: account the CQE result RES; return 0 (send
 * accepted, state SENT) or the positive errno the operation ends with
 * (state DONE; for received, 0 means success and *len the result length).
 */
int gsync_req_setup(struct gsync_op_req *req, uint64_t seq,
		    const void *sendbuf, void *recvbuf, size_t len,
		    unsigned int dtype, unsigned int op);
void gsync_req_prep_send(struct io_uring_sqe *sqe, int fd,
			 struct gsync_op_req *req);
void gsync_req_prep_recv(struct io_uring_sqe *sqe, int fd,
			 struct gsync_op_req *req);
int gsync_req_sent(struct gsync_op_req *req, int res);
int gsync_req_received(struct gsync_op_req *req, int res,
		       gsync_result_decoder fn, void *arg, size_t *len);

/* Test seam: the decoder gsync_cqe_decode() uses (NULL: the default). */
void gsync_prep_set_decoder(gsync_result_decoder fn, void *arg);

/* One ring request: the operation's I/O state plus the ring's bookkeeping. */
struct gsync_req {
	struct gsync_op_req io;
	uint64_t user_data;
	int status;		/* positive errno or 0, once DONE */
	size_t result_len;
};

/* Where the ring learns the group's window and next seq (GSYNC_INFO). */
typedef int (*gsync_info_source)(void *arg, int fd, struct gsync_info *info);

struct gsync_ring {
	struct io_uring uring;
	int fd;
	unsigned int depth;
	struct gsync_req *reqs;	/* circular, depth slots, oldest at head */
	unsigned int head;	/* oldest request */
	unsigned int count;	/* requests not yet reaped */
	unsigned int sends;	/* SENDMSG SQEs whose CQE has not arrived */
	unsigned int recvs;	/* RECVMSG SQEs whose CQE has not arrived */
	unsigned int cancels;	/* ASYNC_CANCEL SQEs in flight */
	unsigned int rechain;	/* 1 << KIND_*: a chain head's cancel in flight */
	int exiting;		/* gsync_ring_exit() runs: re-issue nothing */
	unsigned int window;	/* the group's window; 0 = not learned yet */
	uint64_t next_seq;	/* seq gsync_allreduce_submit_next() takes;
				 * 0 = not known yet */
	gsync_result_decoder decode;
	void *decode_arg;
	gsync_info_source info;
	void *info_arg;
};

/* Test seams: replace the result decoder or GSYNC_INFO source of RING. */
void gsync_ring_set_decoder(struct gsync_ring *ring, gsync_result_decoder fn,
			    void *arg);
void gsync_ring_set_info_source(struct gsync_ring *ring, gsync_info_source fn,
				void *arg);

#endif /* LIBGSYNC_INTERNAL_H */
