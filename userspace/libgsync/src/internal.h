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

/* Lifecycle of one ring request slot. */
enum gsync_req_state {
	GSYNC_REQ_FREE = 0,
	GSYNC_REQ_QUEUED,	/* waiting for its turn to send */
	GSYNC_REQ_SENDING,	/* SENDMSG in flight */
	GSYNC_REQ_SENT,		/* send done, waiting for its turn to receive */
	GSYNC_REQ_RECEIVING,	/* RECVMSG in flight */
	GSYNC_REQ_DONE,		/* status/len final, waiting to be reaped */
};

/*
 * Per-request state. The kernel may read msghdr/iovec/control when the SQE
 * is issued, which can be after io_uring_submit() returns, so they live here
 * until the request's CQEs have arrived.
 */
struct gsync_req {
	enum gsync_req_state state;
	uint64_t seq;
	uint64_t user_data;
	size_t len;
	int status;		/* positive errno or 0, once DONE */
	size_t result_len;
	struct msghdr smsg, rmsg;
	struct iovec siov, riov;
	union gsync_op_ctl sctl;
	union gsync_result_ctl rctl;
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

struct gsync_ring {
	struct io_uring uring;
	int fd;
	unsigned int depth;
	struct gsync_req *reqs;	/* circular, depth slots, oldest at head */
	unsigned int head;	/* oldest request */
	unsigned int count;	/* requests not yet reaped */
	unsigned int send_idx;	/* next request to send (offset from head) */
	int send_busy;		/* a SENDMSG is in flight */
	int recv_busy;		/* a RECVMSG is in flight */
	unsigned int cancels;	/* ASYNC_CANCEL SQEs in flight */
	gsync_result_decoder decode;
	void *decode_arg;
};

/* Test seam: replace the result decoder of RING. */
void gsync_ring_set_decoder(struct gsync_ring *ring, gsync_result_decoder fn,
			    void *arg);

#endif /* LIBGSYNC_INTERNAL_H */
