// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * io_uring plumbing of the ring, without the module: an AF_UNIX
 * SOCK_SEQPACKET socketpair stands in for the gsync socket and a thread on
 * the other end plays the kernel ("fake"): it receives each contribution,
 * replies with a "reduced" buffer (every element + 1000), and publishes the
 * GSYNC_CMSG_RESULT it would have attached through a side queue, because
 * AF_UNIX cannot carry SOL_GSYNC control messages. The ring's result
 * decoder is swapped for one reading that queue (internal.h test seam).
 *
 * Contribution layout (int32): [0] = seq, [1] = what the fake should do
 * (FAKE_*), [2..] payload.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"

enum { FAKE_OK, FAKE_TIMEOUT, FAKE_TRUNC, FAKE_WRONGSEQ, FAKE_STALL };

#define QMAX 4096
#define FAKE_BUF (1 << 21)

struct fake {
	int fd;
	unsigned int delay_us;	/* before each reply: makes reap() wait */
	pthread_t thr;
	pthread_mutex_t lock;
	struct gsync_op_result q[QMAX];
	unsigned int qhead, qtail;
};

static void push(struct fake *f, uint64_t seq, int status, uint64_t len)
{
	pthread_mutex_lock(&f->lock);
	f->q[f->qtail % QMAX] = (struct gsync_op_result){ .seq = seq,
		.status = status, .len = len };
	f->qtail++;
	pthread_mutex_unlock(&f->lock);
}

static void *fake_main(void *arg)
{
	struct fake *f = arg;
	int32_t *buf = malloc(FAKE_BUF + 64);
	ssize_t n, i;

	for (;;) {
		n = recv(f->fd, buf, FAKE_BUF, 0);
		if (n <= 0)
			break;
		if (f->delay_us)
			usleep(f->delay_us);
		if (n < 8) {
			push(f, 0, EPROTO, 0);
			send(f->fd, buf, 0, 0);
			continue;
		}
		for (i = 2; i < n / 4; i++)
			buf[i] += 1000;
		switch (buf[1]) {
		case FAKE_TIMEOUT:
			push(f, (uint64_t)buf[0], ETIMEDOUT, 0);
			send(f->fd, buf, 0, 0);
			break;
		case FAKE_TRUNC:
			push(f, (uint64_t)buf[0], 0, (uint64_t)n);
			send(f->fd, buf, (size_t)n + 4, 0);
			break;
		case FAKE_WRONGSEQ:
			push(f, (uint64_t)buf[0] + 100, 0, (uint64_t)n);
			send(f->fd, buf, (size_t)n, 0);
			break;
		case FAKE_STALL:
			break;
		default:
			push(f, (uint64_t)buf[0], 0, (uint64_t)n);
			send(f->fd, buf, (size_t)n, 0);
		}
	}
	free(buf);
	return NULL;
}

/* The stand-in for GSYNC_CMSG_RESULT: pop what the fake published. */
static int fake_decode(void *arg, int res, const struct msghdr *msg,
		       struct gsync_op_result *out)
{
	struct fake *f = arg;
	int rc = -ENOMSG;

	(void)res;
	(void)msg;
	pthread_mutex_lock(&f->lock);
	if (f->qhead != f->qtail) {
		*out = f->q[f->qhead % QMAX];
		f->qhead++;
		rc = 0;
	}
	pthread_mutex_unlock(&f->lock);
	return rc;
}

struct rig {
	int sv[2];
	struct fake *fake;
	struct gsync_ring *ring;
};

static int rig_up(struct rig *r, unsigned int depth, unsigned int delay_us)
{
	int rc;

	memset(r, 0, sizeof(*r));
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, r->sv))
		return -errno;
	rc = gsync_ring_init(&r->ring, r->sv[0], depth);
	if (rc) {
		close(r->sv[0]);
		close(r->sv[1]);
		return rc;
	}
	r->fake = calloc(1, sizeof(*r->fake));
	r->fake->fd = r->sv[1];
	r->fake->delay_us = delay_us;
	pthread_mutex_init(&r->fake->lock, NULL);
	pthread_create(&r->fake->thr, NULL, fake_main, r->fake);
	gsync_ring_set_decoder(r->ring, fake_decode, r->fake);
	return 0;
}

static void rig_down(struct rig *r)
{
	gsync_ring_exit(r->ring);
	shutdown(r->sv[0], SHUT_RDWR);	/* the fake's recv() returns 0 */
	pthread_join(r->fake->thr, NULL);
	close(r->sv[0]);
	close(r->sv[1]);
	pthread_mutex_destroy(&r->fake->lock);
	free(r->fake);
}

/* An int32 contribution of N elements for SEQ with fake action ACT. */
static int32_t *contrib(uint64_t seq, int act, size_t n)
{
	int32_t *b = malloc(n * 4);

	b[0] = (int32_t)seq;
	b[1] = act;
	for (size_t i = 2; i < n; i++)
		b[i] = (int32_t)(seq * 7 + i);
	return b;
}

static int reduced_ok(const int32_t *snd, const int32_t *rcv, size_t n)
{
	for (size_t i = 2; i < n; i++)
		if (rcv[i] != snd[i] + 1000)
			return 0;
	return rcv[0] == snd[0];
}

/* Reap until N completions arrived (or an error); returns how many. */
static int reap_all(struct gsync_ring *ring, struct gsync_completion *c, int n)
{
	int got = 0, rc;

	while (got < n) {
		rc = gsync_reap(ring, c + got, (unsigned int)(n - got), 1);
		if (rc <= 0)
			break;
		got += rc;
	}
	return got;
}

static void test_basic(void)
{
	struct rig r;
	struct gsync_completion c[8];
	int32_t *s[8], *d[8];
	int i, inorder = 1, data = 1, rc;
	struct cmsghdr *cm;
	struct gsync_op_desc desc;

	rig_up(&r, 8, 0);
	ok(gsync_ring_fd(r.ring) >= 0 && gsync_ring_pending(r.ring) == 0,
	   "a new ring has an fd and nothing pending");
	for (i = 0; i < 8; i++) {
		s[i] = contrib((uint64_t)i + 1, FAKE_OK, 64);
		d[i] = calloc(64, 4);
		rc = gsync_allreduce_submit(r.ring, (uint64_t)i + 1, s[i], d[i], 256,
					    GSYNC_DTYPE_INT32, GSYNC_OP_SUM, 100 + (uint64_t)i);
		if (rc)
			break;
	}
	ok(i == 8, "8 requests fit a ring of depth 8");
	ok(gsync_allreduce_submit(r.ring, 9, s[0], d[0], 256, GSYNC_DTYPE_INT32,
				  GSYNC_OP_SUM, 0) == -EAGAIN,
	   "a 9th request is -EAGAIN while 8 are unreaped");
	/* Slot 0's send control message is what the kernel will read. */
	cm = CMSG_FIRSTHDR(&r.ring->reqs[0].io.smsg);
	memcpy(&desc, CMSG_DATA(cm), sizeof(desc));
	ok(cm->cmsg_level == SOL_GSYNC && cm->cmsg_type == GSYNC_CMSG_OP &&
	   desc.seq == 1 && desc.dtype == GSYNC_DTYPE_INT32 && desc.op == GSYNC_OP_SUM,
	   "the SENDMSG carries GSYNC_CMSG_OP {seq 1, int32, sum}");
	ok(reap_all(r.ring, c, 8) == 8, "all 8 complete");
	for (i = 0; i < 8; i++) {
		inorder &= c[i].seq == (uint64_t)i + 1 && c[i].user_data == 100 + (uint64_t)i &&
			   c[i].status == 0 && c[i].len == 256;
		data &= reduced_ok(s[i], d[i], 64);
	}
	ok(inorder, "completions come in seq order with user_data, status 0, len");
	ok(data, "each result landed in its own request's buffer");
	ok(gsync_ring_pending(r.ring) == 0, "nothing pending after reaping");
	ok(gsync_reap(r.ring, c, 8, 0) == 0, "non-blocking reap of an idle ring is 0");
	ok(gsync_reap(r.ring, c, 8, 1) == 0, "blocking reap with nothing pending is 0, not a hang");
	for (i = 0; i < 8; i++) {
		free(s[i]);
		free(d[i]);
	}
	rig_down(&r);
}

/* Requests with fake actions ACTS[]; checks each completion's status. */
static void run_mix(const char *what, const int *acts, const int *want, int n,
		    unsigned int delay_us)
{
	struct rig r;
	struct gsync_completion c[16];
	int32_t *s[16], *d[16];
	int i, good = 1, got;

	rig_up(&r, (unsigned int)n, delay_us);
	for (i = 0; i < n; i++) {
		s[i] = contrib((uint64_t)i + 1, acts[i], 32);
		d[i] = calloc(32, 4);
		gsync_allreduce_submit(r.ring, (uint64_t)i + 1, s[i], d[i], 128,
				       GSYNC_DTYPE_INT32, GSYNC_OP_SUM, (uint64_t)i);
	}
	got = reap_all(r.ring, c, n);
	for (i = 0; i < got; i++) {
		good &= c[i].seq == (uint64_t)i + 1 && c[i].status == want[i];
		if (!want[i])
			good &= reduced_ok(s[i], d[i], 32) && c[i].len == 128;
		else
			good &= c[i].len == 0;
		if (c[i].status != want[i])
			diag("seq %d: status %d, want %d", i + 1, c[i].status, want[i]);
	}
	ok(got == n && good, "%s", what);
	for (i = 0; i < n; i++) {
		free(s[i]);
		free(d[i]);
	}
	rig_down(&r);
}

static void test_statuses(void)
{
	const int acts1[] = { FAKE_OK, FAKE_OK, FAKE_TIMEOUT, FAKE_OK };
	const int want1[] = { 0, 0, ETIMEDOUT, 0 };
	const int acts2[] = { FAKE_OK, FAKE_TRUNC, FAKE_OK };
	const int want2[] = { 0, EMSGSIZE, 0 };
	const int acts3[] = { FAKE_OK, FAKE_WRONGSEQ, FAKE_OK };
	const int want3[] = { 0, EBADMSG, 0 };

	run_mix("a result status (ETIMEDOUT) reaches its request; neighbours succeed",
		acts1, want1, 4, 0);
	run_mix("same with a slow peer (reap really waits)", acts1, want1, 4, 20000);
	run_mix("MSG_TRUNC written back by io_uring becomes EMSGSIZE", acts2, want2, 3, 0);
	run_mix("a result for another seq is EBADMSG, never silently accepted",
		acts3, want3, 3, 0);
}

/* A send the socket refuses (bigger than SO_SNDBUF) fails alone, in order. */
static void test_send_failure(void)
{
	struct rig r;
	struct gsync_completion c[3];
	int32_t *s[3], *d[3];
	size_t n[3] = { 32, 65536, 32 };
	int i, sndbuf = 4096;

	rig_up(&r, 3, 0);
	setsockopt(r.sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	for (i = 0; i < 3; i++) {
		s[i] = contrib((uint64_t)i + 1, FAKE_OK, n[i]);
		d[i] = calloc(n[i], 4);
		gsync_allreduce_submit(r.ring, (uint64_t)i + 1, s[i], d[i], n[i] * 4,
				       GSYNC_DTYPE_INT32, GSYNC_OP_SUM, (uint64_t)i);
	}
	ok(reap_all(r.ring, c, 3) == 3 && c[0].seq == 1 && c[0].status == 0 &&
	   c[1].seq == 2 && c[1].status == EMSGSIZE && c[2].seq == 3 &&
	   c[2].status == 0 && reduced_ok(s[2], d[2], 32),
	   "a refused send completes as EMSGSIZE between two good requests");
	for (i = 0; i < 3; i++) {
		free(s[i]);
		free(d[i]);
	}
	rig_down(&r);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_teardown(void)
{
	struct rig r;
	struct gsync_completion c[4];
	int32_t *s[3], *d[3];
	double t;
	int i, got, bad = 0;

	/* Exit with a RECVMSG armed that will never complete. */
	rig_up(&r, 4, 0);
	for (i = 0; i < 3; i++) {
		s[i] = contrib((uint64_t)i + 1, FAKE_STALL, 16);
		d[i] = calloc(16, 4);
		gsync_allreduce_submit(r.ring, (uint64_t)i + 1, s[i], d[i], 64,
				       GSYNC_DTYPE_INT32, GSYNC_OP_SUM, 0);
	}
	ok(gsync_reap(r.ring, c, 4, 0) == 0 && gsync_ring_pending(r.ring) == 3,
	   "stalled requests stay pending");
	t = now();
	gsync_ring_exit(r.ring);
	r.ring = NULL;
	ok(now() - t < 1.0, "ring_exit cancels in-flight SQEs and returns promptly");
	rig_down(&r);

	/* The peer goes away: everything pending completes with an error. */
	rig_up(&r, 4, 0);
	for (i = 0; i < 3; i++)
		gsync_allreduce_submit(r.ring, (uint64_t)i + 1, s[i], d[i], 64,
				       GSYNC_DTYPE_INT32, GSYNC_OP_SUM, 0);
	shutdown(r.sv[1], SHUT_RDWR);
	got = reap_all(r.ring, c, 3);
	for (i = 0; i < got; i++)
		bad += c[i].status == 0;
	ok(got == 3 && bad == 0, "a vanished peer fails every pending request, no hang");
	rig_down(&r);
	for (i = 0; i < 3; i++) {
		free(s[i]);
		free(d[i]);
	}
}

static void test_stress(void)
{
	enum { OPS = 2000, DEPTH = 16 };
	struct rig r;
	struct gsync_completion c[DEPTH];
	int32_t *s[DEPTH], *d[DEPTH];
	size_t n[DEPTH];
	unsigned int seed = 7;
	uint64_t next = 1, expect = 1;
	int good = 1, i, rc;

	rig_up(&r, DEPTH, 0);
	memset(s, 0, sizeof(s));
	memset(d, 0, sizeof(d));
	while (expect <= OPS && good) {
		while (next <= OPS && next - expect < DEPTH) {
			int slot = (int)(next % DEPTH);

			free(s[slot]);
			free(d[slot]);
			n[slot] = 2 + (size_t)(rand_r(&seed) % 3000);
			s[slot] = contrib(next, FAKE_OK, n[slot]);
			d[slot] = calloc(n[slot], 4);
			rc = gsync_allreduce_submit(r.ring, next, s[slot], d[slot], n[slot] * 4,
						    GSYNC_DTYPE_INT32, GSYNC_OP_SUM, next);
			if (rc) {
				good = 0;
				break;
			}
			next++;
		}
		rc = gsync_reap(r.ring, c, (unsigned int)(rand_r(&seed) % DEPTH) + 1, 1);
		if (rc <= 0)
			good = 0;
		for (i = 0; i < rc; i++, expect++) {
			int slot = (int)(expect % DEPTH);

			good &= c[i].seq == expect && c[i].user_data == expect &&
				c[i].status == 0 && c[i].len == n[slot] * 4 &&
				reduced_ok(s[slot], d[slot], n[slot]);
		}
	}
	ok(good && expect == OPS + 1,
	   "%d requests of random sizes, depth %d, random reap batches: in order, exact", OPS, DEPTH);
	for (i = 0; i < DEPTH; i++) {
		free(s[i]);
		free(d[i]);
	}
	rig_down(&r);
}

static void test_args(void)
{
	struct rig r;
	struct gsync_ring *ring = (void *)1;
	int32_t b[4];

	ok(gsync_ring_init(&ring, 0, 0) == -EINVAL && ring == (void *)1,
	   "depth 0 is -EINVAL");
	ok(gsync_ring_init(&ring, 0, 4097) == -EINVAL, "depth 4097 is -EINVAL");
	ok(gsync_ring_init(&ring, -1, 4) == -EINVAL, "fd -1 is -EINVAL");
	rig_up(&r, 2, 0);
	ok(gsync_allreduce_submit(r.ring, 1, b, b, 0, GSYNC_DTYPE_FP32, GSYNC_OP_SUM, 0) == -EINVAL &&
	   gsync_allreduce_submit(r.ring, 1, b, b, 6, GSYNC_DTYPE_FP32, GSYNC_OP_SUM, 0) == -EINVAL &&
	   gsync_allreduce_submit(r.ring, 1, b, b, 8, 7, GSYNC_OP_SUM, 0) == -EINVAL &&
	   gsync_allreduce_submit(r.ring, 1, b, b, 8, GSYNC_DTYPE_FP32, 7, 0) == -EINVAL &&
	   gsync_allreduce_submit(r.ring, 0, b, b, 8, GSYNC_DTYPE_FP32, GSYNC_OP_SUM, 0) == -EINVAL &&
	   gsync_allreduce_submit(r.ring, 1, NULL, b, 8, GSYNC_DTYPE_FP32, GSYNC_OP_SUM, 0) == -EINVAL,
	   "bad length, dtype, op, seq or buffer are -EINVAL");
	ok(gsync_ring_pending(r.ring) == 0, "rejected submissions queue nothing");
	ok(gsync_reap(r.ring, NULL, 4, 0) == -EINVAL, "reap into NULL is -EINVAL");
	gsync_ring_exit(NULL);
	ok(1, "gsync_ring_exit(NULL) is a no-op");
	rig_down(&r);
}

int main(void)
{
	struct gsync_ring *ring;
	int sv[2], rc;

	/* Is io_uring usable here at all (seccomp, io_uring_disabled)? */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0) {
		rc = gsync_ring_init(&ring, sv[0], 1);
		if (rc) {
			skip("io_uring ring tests # SKIP io_uring unavailable: %s",
			     strerror(-rc));
			close(sv[0]);
			close(sv[1]);
			return 0;
		}
		gsync_ring_exit(ring);
		close(sv[0]);
		close(sv[1]);
	}
	test_args();
	test_basic();
	test_statuses();
	test_send_failure();
	test_teardown();
	test_stress();
	return tap_done();
}
