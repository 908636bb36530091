// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gsync operations as SQEs on any io_uring (gsync_uring.h): build the
 * SENDMSG and RECVMSG of one all-reduce and judge their CQEs. The
 * library's own ring (ring.c) is built from the same steps, so both paths
 * accept and reject exactly the same results.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "internal.h"

int gsync_decode_cmsg(void *arg, int res, const struct msghdr *msg,
		      struct gsync_op_result *out)
{
	(void)arg;
	(void)res;
	return gsync_cmsg_get_result(msg, out);
}

static gsync_result_decoder prep_decode = gsync_decode_cmsg;
static void *prep_decode_arg;

void gsync_prep_set_decoder(gsync_result_decoder fn, void *arg)
{
	prep_decode = fn ? fn : gsync_decode_cmsg;
	prep_decode_arg = arg;
}

int gsync_req_setup(struct gsync_op_req *req, uint64_t seq,
		    const void *sendbuf, void *recvbuf, size_t len,
		    unsigned int dtype, unsigned int op)
{
	int rc;

	if (!req || !sendbuf || !recvbuf || seq == 0)
		return -EINVAL;
	rc = gsync_check_op(dtype, op, len);
	if (rc)
		return rc;
	if (len > INT32_MAX)
		return -EINVAL;	/* a CQE's res could not say how much */
	memset(req, 0, sizeof(*req));
	req->seq = seq;
	req->len = len;
	req->siov.iov_base = (void *)sendbuf;
	req->siov.iov_len = len;
	req->smsg.msg_iov = &req->siov;
	req->smsg.msg_iovlen = 1;
	req->smsg.msg_control = req->sctl.buf;
	req->smsg.msg_controllen = sizeof(req->sctl.buf);
	rc = gsync_cmsg_put_op(&req->smsg, seq, dtype, op);
	if (rc)
		return rc;
	req->riov.iov_base = recvbuf;
	req->riov.iov_len = len;
	req->rmsg.msg_iov = &req->riov;
	req->rmsg.msg_iovlen = 1;
	req->rmsg.msg_control = req->rctl.buf;
	req->rmsg.msg_controllen = sizeof(req->rctl.buf);
	req->state = GSYNC_REQ_QUEUED;
	return 0;
}

void gsync_req_prep_send(struct io_uring_sqe *sqe, int fd,
			 struct gsync_op_req *req)
{
	io_uring_prep_sendmsg(sqe, fd, &req->smsg, MSG_NOSIGNAL);
	req->state = GSYNC_REQ_SENDING;
}

void gsync_req_prep_recv(struct io_uring_sqe *sqe, int fd,
			 struct gsync_op_req *req)
{
	/* The kernel writes msg_flags and msg_controllen back. */
	req->rmsg.msg_controllen = sizeof(req->rctl.buf);
	req->rmsg.msg_flags = 0;
	io_uring_prep_recvmsg(sqe, fd, &req->rmsg, 0);
	req->state = GSYNC_REQ_RECEIVING;
}

int gsync_req_sent(struct gsync_op_req *req, int res)
{
	if (res < 0) {
		req->state = GSYNC_REQ_DONE;
		return -res;
	}
	if ((uint64_t)res != req->len) {
		req->state = GSYNC_REQ_DONE;
		return EBADMSG;	/* SEQPACKET sends are all or nothing */
	}
	req->state = GSYNC_REQ_SENT;
	return 0;
}

int gsync_req_received(struct gsync_op_req *req, int res,
		       gsync_result_decoder fn, void *arg, size_t *len)
{
	struct gsync_op_result out;
	int err;

	*len = 0;
	req->state = GSYNC_REQ_DONE;
	if (res < 0)
		return -res;
	memset(&out, 0, sizeof(out));
	err = fn(arg, res, &req->rmsg, &out);
	if (err)
		return -err;
	if (out.seq != req->seq || out.status < 0)
		return EBADMSG;	/* someone else's result: say so */
	if (out.status)
		return out.status;
	if (req->rmsg.msg_flags & MSG_TRUNC)
		return EMSGSIZE;
	if (out.len != req->len || (uint64_t)res != req->len)
		return EBADMSG;
	*len = (size_t)out.len;
	return 0;
}

GSYNC_EXPORT int gsync_prep_allreduce(struct io_uring_sqe *sqe, int fd,
				      struct gsync_op_req *req, uint64_t seq,
				      const void *sendbuf, void *recvbuf,
				      size_t len, unsigned int dtype,
				      unsigned int op)
{
	int rc;

	if (!sqe)
		return -EBUSY;
	rc = gsync_req_setup(req, seq, sendbuf, recvbuf, len, dtype, op);
	if (rc)
		return rc;
	gsync_req_prep_send(sqe, fd, req);
	return 0;
}

GSYNC_EXPORT int gsync_prep_recv_result(struct io_uring_sqe *sqe, int fd,
					struct gsync_op_req *req)
{
	if (!sqe)
		return -EBUSY;
	if (!req || req->state != GSYNC_REQ_SENT)
		return -EINVAL;
	gsync_req_prep_recv(sqe, fd, req);
	return 0;
}

GSYNC_EXPORT int gsync_cqe_decode(struct gsync_op_req *req,
				  const struct io_uring_cqe *cqe,
				  struct gsync_completion *out)
{
	size_t len = 0;
	int status;

	if (!req || !cqe || !out)
		return -EINVAL;
	if (req->state == GSYNC_REQ_SENDING)
		status = gsync_req_sent(req, cqe->res);
	else if (req->state == GSYNC_REQ_RECEIVING)
		status = gsync_req_received(req, cqe->res, prep_decode,
					    prep_decode_arg, &len);
	else
		return -EINVAL;
	out->seq = req->seq;
	out->user_data = cqe->user_data;
	out->status = status;
	out->len = len;
	return req->state == GSYNC_REQ_DONE;
}
