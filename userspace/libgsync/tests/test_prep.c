// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gsync_prep_allreduce(), gsync_prep_recv_result() and gsync_cqe_decode()
 * (gsync_uring.h): first on SQEs and CQEs built by hand, with a real
 * GSYNC_CMSG_RESULT written where the kernel would write it; then on the
 * test's own io_uring against the fake of fake_peer.h, with a foreign
 * request on the same ring, as a program with its own loop would use them.
 */
#include <signal.h>

#include "fake_peer.h"
#include "tap.h"

/* Write the GSYNC_CMSG_RESULT the kernel would, into REQ's receive msghdr. */
static void put_result(struct gsync_op_req *req, uint64_t seq, int status,
		       uint64_t len)
{
	struct gsync_op_result res = { .seq = seq, .status = status, .len = len };
	struct cmsghdr *c = (struct cmsghdr *)req->rmsg.msg_control;

	memset(req->rmsg.msg_control, 0, req->rmsg.msg_controllen);
	c->cmsg_level = SOL_GSYNC;
	c->cmsg_type = GSYNC_CMSG_RESULT;
	c->cmsg_len = CMSG_LEN(sizeof(res));
	memcpy(CMSG_DATA(c), &res, sizeof(res));
	req->rmsg.msg_controllen = CMSG_SPACE(sizeof(res));
}

static struct io_uring_cqe *cqe_of(struct io_uring_cqe *c, int res,
				   uint64_t user_data)
{
	memset(c, 0, sizeof(*c));
	c->res = res;
	c->user_data = user_data;
	return c;
}

/* Prepare REQ's send and have it accepted. 1 if all went as expected. */
static int sent(struct gsync_op_req *req, uint64_t seq, void *buf, size_t len)
{
	struct io_uring_sqe sqe;
	struct io_uring_cqe cqe;
	struct gsync_completion c;

	return gsync_prep_allreduce(&sqe, 3, req, seq, buf, buf, len,
				    GSYNC_DTYPE_FP32, GSYNC_OP_SUM) == 0 &&
	       gsync_cqe_decode(req, cqe_of(&cqe, (int)len, 7), &c) == 0;
}

/* REQ sent; prepare its receive, write a result, decode a CQE of RES. */
static int received(struct gsync_op_req *req, int res, uint64_t seq, int status,
		    uint64_t len, int msg_flags, struct gsync_completion *c)
{
	struct io_uring_sqe sqe;
	struct io_uring_cqe cqe;

	if (gsync_prep_recv_result(&sqe, 3, req))
		return -1000;
	put_result(req, seq, status, len);
	req->rmsg.msg_flags = msg_flags;
	return gsync_cqe_decode(req, cqe_of(&cqe, res, 99), c);
}

static void test_by_hand(void)
{
	struct gsync_op_req req, copy;
	struct io_uring_sqe sqe;
	struct io_uring_cqe cqe;
	struct gsync_completion c;
	struct gsync_op_desc desc;
	struct cmsghdr *cm;
	float buf[16];

	memset(&req, 0x5a, sizeof(req));
	copy = req;
	ok(gsync_prep_allreduce(NULL, 3, &req, 1, buf, buf, 64, GSYNC_DTYPE_FP32,
				GSYNC_OP_SUM) == -EBUSY && memcmp(&req, &copy, sizeof(req)) == 0,
	   "no SQE (submission queue full) is -EBUSY and leaves the request alone");
	ok(gsync_prep_allreduce(&sqe, 3, NULL, 1, buf, buf, 64, GSYNC_DTYPE_FP32, GSYNC_OP_SUM) == -EINVAL &&
	   gsync_prep_allreduce(&sqe, 3, &req, 0, buf, buf, 64, GSYNC_DTYPE_FP32, GSYNC_OP_SUM) == -EINVAL &&
	   gsync_prep_allreduce(&sqe, 3, &req, 1, NULL, buf, 64, GSYNC_DTYPE_FP32, GSYNC_OP_SUM) == -EINVAL &&
	   gsync_prep_allreduce(&sqe, 3, &req, 1, buf, NULL, 64, GSYNC_DTYPE_FP32, GSYNC_OP_SUM) == -EINVAL &&
	   gsync_prep_allreduce(&sqe, 3, &req, 1, buf, buf, 6, GSYNC_DTYPE_FP32, GSYNC_OP_SUM) == -EINVAL &&
	   gsync_prep_allreduce(&sqe, 3, &req, 1, buf, buf, 0, GSYNC_DTYPE_FP32, GSYNC_OP_SUM) == -EINVAL &&
	   gsync_prep_allreduce(&sqe, 3, &req, 1, buf, buf, 64, 9, GSYNC_OP_SUM) == -EINVAL &&
	   gsync_prep_allreduce(&sqe, 3, &req, 1, buf, buf, 64, GSYNC_DTYPE_FP32, 9) == -EINVAL &&
	   gsync_prep_allreduce(&sqe, 3, &req, 1, buf, buf, (size_t)INT32_MAX + 1,
				GSYNC_DTYPE_INT32, GSYNC_OP_SUM) == -EINVAL,
	   "NULL request or buffer, seq 0, bad length, dtype or op, len > INT32_MAX: -EINVAL");

	memset(&sqe, 0xff, sizeof(sqe));
	ok(gsync_prep_allreduce(&sqe, 3, &req, 42, buf, buf, 64, GSYNC_DTYPE_FP32,
				GSYNC_OP_AVG) == 0 &&
	   sqe.opcode == IORING_OP_SENDMSG && sqe.fd == 3 && sqe.flags == 0 &&
	   sqe.addr == (uintptr_t)&req.smsg && sqe.len == 1 && sqe.msg_flags == MSG_NOSIGNAL,
	   "the send is an IORING_OP_SENDMSG of the request's msghdr, MSG_NOSIGNAL, no flags");
	cm = CMSG_FIRSTHDR(&req.smsg);
	memcpy(&desc, CMSG_DATA(cm), sizeof(desc));
	ok(req.smsg.msg_iov->iov_base == buf && req.smsg.msg_iov->iov_len == 64 &&
	   cm->cmsg_level == SOL_GSYNC && cm->cmsg_type == GSYNC_CMSG_OP && desc.seq == 42 &&
	   desc.dtype == GSYNC_DTYPE_FP32 && desc.op == GSYNC_OP_AVG,
	   "it carries the buffer and GSYNC_CMSG_OP {seq 42, fp32, avg}");
	ok(gsync_prep_recv_result(&sqe, 3, &req) == -EINVAL,
	   "no receive before the send completed");
	cqe_of(&cqe, 64, 1234);
	ok(gsync_cqe_decode(&req, &cqe, &c) == 0 && c.seq == 42 && c.user_data == 1234 &&
	   c.status == 0 && c.len == 0, "an accepted send decodes to 0: prepare the receive");
	ok(gsync_prep_recv_result(NULL, 3, &req) == -EBUSY, "no SQE for the receive is -EBUSY");
	memset(&sqe, 0xff, sizeof(sqe));
	ok(gsync_prep_recv_result(&sqe, 3, &req) == 0 && sqe.opcode == IORING_OP_RECVMSG &&
	   sqe.fd == 3 && sqe.flags == 0 && sqe.addr == (uintptr_t)&req.rmsg &&
	   req.rmsg.msg_iov->iov_base == buf && req.rmsg.msg_iov->iov_len == 64 &&
	   req.rmsg.msg_controllen >= GSYNC_RESULT_CMSG_SPACE,
	   "the receive is an IORING_OP_RECVMSG into recvbuf with room for the result");
	ok(gsync_prep_recv_result(&sqe, 3, &req) == -EINVAL, "a second receive is -EINVAL");
	put_result(&req, 42, 0, 64);
	cqe_of(&cqe, 64, 99);
	ok(gsync_cqe_decode(&req, &cqe, &c) == 1 && c.seq == 42 && c.user_data == 99 &&
	   c.status == 0 && c.len == 64,
	   "the result's CQE decodes to 1: seq 42, status 0, 64 bytes, the CQE's user_data");
	ok(gsync_cqe_decode(&req, &cqe, &c) == -EINVAL, "a finished request expects no CQE");
	memset(&req, 0, sizeof(req));
	ok(gsync_cqe_decode(&req, &cqe, &c) == -EINVAL &&
	   gsync_cqe_decode(NULL, &cqe, &c) == -EINVAL && gsync_cqe_decode(&req, NULL, &c) == -EINVAL,
	   "an unprepared request or NULL: -EINVAL");

	/* How each way an operation can end is reported. */
	cqe_of(&cqe, -EINVAL, 5);
	gsync_prep_allreduce(&sqe, 3, &req, 9, buf, buf, 64, GSYNC_DTYPE_FP32, GSYNC_OP_SUM);
	ok(gsync_cqe_decode(&req, &cqe, &c) == 1 && c.seq == 9 && c.status == EINVAL &&
	   c.len == 0 && gsync_prep_recv_result(&sqe, 3, &req) == -EINVAL,
	   "a refused send (EINVAL: not the seq the kernel expects) ends the operation");
	cqe_of(&cqe, 32, 5);
	gsync_prep_allreduce(&sqe, 3, &req, 9, buf, buf, 64, GSYNC_DTYPE_FP32, GSYNC_OP_SUM);
	ok(gsync_cqe_decode(&req, &cqe, &c) == 1 && c.status == EBADMSG,
	   "a short send is EBADMSG");
	ok(sent(&req, 9, buf, 64) && received(&req, 0, 9, ETIMEDOUT, 0, 0, &c) == 1 &&
	   c.status == ETIMEDOUT && c.len == 0, "an operation status (ETIMEDOUT) is the status");
	ok(sent(&req, 9, buf, 64) && received(&req, 64, 10, 0, 64, 0, &c) == 1 &&
	   c.status == EBADMSG && c.seq == 9, "a result for another seq (10 for 9) is EBADMSG");
	ok(sent(&req, 9, buf, 64) && received(&req, 64, 9, 0, 128, MSG_TRUNC, &c) == 1 &&
	   c.status == EMSGSIZE, "a truncated result (MSG_TRUNC) is EMSGSIZE");
	ok(sent(&req, 9, buf, 64) && received(&req, 32, 9, 0, 32, 0, &c) == 1 &&
	   c.status == EBADMSG, "a result of another length is EBADMSG");
	ok(sent(&req, 9, buf, 64) && received(&req, 64, 9, 0, 64, MSG_CTRUNC, &c) == 1 &&
	   c.status == EMSGSIZE, "a truncated control message (MSG_CTRUNC) is EMSGSIZE");
	ok(sent(&req, 9, buf, 64) && received(&req, -ECONNRESET, 9, 0, 64, 0, &c) == 1 &&
	   c.status == ECONNRESET, "a failed receive is its errno");
	sent(&req, 9, buf, 64);
	gsync_prep_recv_result(&sqe, 3, &req);
	req.rmsg.msg_controllen = 0;
	cqe_of(&cqe, 64, 1);
	ok(gsync_cqe_decode(&req, &cqe, &c) == 1 && c.status == ENOMSG,
	   "a result without GSYNC_CMSG_RESULT is ENOMSG");
}

/*
 * The test's own ring: a window of WIN operations through the fake,
 * sends linked in batches, one receive at a time, and a NOP of the
 * program's own on the same ring every few operations.
 */
enum { WIN = 8, OPS = 600 };

struct op {
	struct gsync_op_req req;
	int32_t *s, *d;
	size_t n;
	uint64_t iter;
};

#define NOP_DATA 0xfeedULL

static void test_own_ring(void)
{
	struct io_uring ring;
	struct op ops[WIN];
	struct gsync_completion c;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe, *prev;
	struct fake *f;
	unsigned int seed = 5, sends = 0, recvs = 0, nops = 0, nop_done = 0;
	uint64_t next = 0, sent_ok = 0, done = 0;
	int sv[2], good = 1, rc, i;

	socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv);
	gsync_prep_set_decoder(fake_decode, NULL);
	f = fake_start(sv[1], 5);
	io_uring_queue_init(2 * WIN, &ring, 0);
	memset(ops, 0, sizeof(ops));
	while (done < OPS && good) {
		/* Sends: a linked batch of everything that fits, if none in flight. */
		prev = NULL;
		while (!sends && next < OPS && next - done < WIN) {
			struct op *o = &ops[next % WIN];

			free(o->s);
			free(o->d);
			o->n = 2 + (size_t)(rand_r(&seed) % 2000);
			o->s = fake_contrib(next + 1, FAKE_OK, o->n);
			o->d = calloc(o->n, 4);
			o->iter = next;
			sqe = io_uring_get_sqe(&ring);
			rc = gsync_prep_allreduce(sqe, sv[0], &o->req, next + 1, o->s, o->d,
						  o->n * 4, GSYNC_DTYPE_INT32, GSYNC_OP_SUM);
			if (rc) {
				good = 0;
				break;
			}
			io_uring_sqe_set_data(sqe, o);
			if (prev)
				prev->flags |= IOSQE_IO_LINK;
			prev = sqe;
			next++;
		}
		if (prev)	/* the batch is in flight */
			sends = (unsigned int)(next - sent_ok);
		/* One receive, for the oldest operation whose send completed. */
		if (!recvs && done < sent_ok) {
			sqe = io_uring_get_sqe(&ring);
			rc = gsync_prep_recv_result(sqe, sv[0], &ops[done % WIN].req);
			io_uring_sqe_set_data(sqe, &ops[done % WIN]);
			good &= rc == 0;
			recvs = 1;
		}
		/* Something of the program's own on the same ring. */
		if (next % 5 == 0 && nops == nop_done) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_nop(sqe);
			io_uring_sqe_set_data64(sqe, NOP_DATA);
			nops++;
		}
		if (io_uring_submit_and_wait(&ring, 1) < 0 || io_uring_wait_cqe(&ring, &cqe)) {
			good = 0;
			break;
		}
		while (io_uring_peek_cqe(&ring, &cqe) == 0 && cqe) {
			struct op *o = io_uring_cqe_get_data(cqe);

			if (cqe->user_data == NOP_DATA) {
				nop_done++;
			} else {
				rc = gsync_cqe_decode(&o->req, cqe, &c);
				if (rc == 0) {
					sends--;
					good &= o->iter == sent_ok;
					sent_ok++;
				} else {
					recvs = 0;
					good &= rc == 1 && o->iter == done && c.seq == done + 1 &&
						c.status == 0 && c.len == o->n * 4 &&
						c.user_data == (uintptr_t)o &&
						fake_reduced_ok(o->s, o->d, o->n);
					done++;
				}
			}
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	ok(good && done == OPS && f->got == OPS && !f->out_of_order && nop_done == nops,
	   "%d operations, %d in flight, on the program's own ring beside its NOPs: "
	   "in order, exact (%llu done)", OPS, WIN, (unsigned long long)done);
	io_uring_queue_exit(&ring);
	fake_stop(f, sv[0]);
	gsync_prep_set_decoder(NULL, NULL);
	close(sv[0]);
	close(sv[1]);
	for (i = 0; i < WIN; i++) {
		free(ops[i].s);
		free(ops[i].d);
	}
}

int main(void)
{
	struct io_uring ring;

	alarm(120);
	test_by_hand();
	if (io_uring_queue_init(4, &ring, 0)) {
		skip("the program's own ring # SKIP io_uring unavailable");
		return tap_done();
	}
	io_uring_queue_exit(&ring);
	test_own_ring();
	return tap_done();
}
