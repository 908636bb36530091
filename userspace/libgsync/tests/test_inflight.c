// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Many operations in flight on a gsync_ring: the window (learned through
 * GSYNC_INFO, here a stand-in), sequence numbers kept by the library, and
 * the chains of sends and receives that reach the kernel without further
 * calls into the library. The "kernel" is the fake of fake_peer.h; see
 * there for why its results describe themselves.
 */
#include <signal.h>

#include "fake_peer.h"
#include "tap.h"

/* GSYNC_INFO stand-in. */
struct info {
	uint32_t state;
	uint32_t window;
	uint64_t next_seq;
	unsigned int calls;
};

static int info_get(void *arg, int fd, struct gsync_info *out)
{
	struct info *i = arg;

	(void)fd;
	i->calls++;
	memset(out, 0, sizeof(*out));
	out->state = i->state;
	out->window = i->window;
	out->next_seq = i->next_seq;
	return 0;
}

struct rig {
	int sv[2];
	struct fake *fake;
	struct gsync_ring *ring;
};

/* A ring of DEPTH on a socketpair; SNDBUF > 0 shrinks the send buffer. */
static void rig_up(struct rig *r, unsigned int depth, int sndbuf,
		   unsigned int burst, struct info *info)
{
	memset(r, 0, sizeof(*r));
	socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, r->sv);
	if (sndbuf)
		setsockopt(r->sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (gsync_ring_init(&r->ring, r->sv[0], depth))
		abort();	/* main() checked that io_uring works */
	gsync_ring_set_decoder(r->ring, fake_decode, NULL);
	if (info)
		gsync_ring_set_info_source(r->ring, info_get, info);
	r->fake = fake_start(r->sv[1], burst);
}

static void rig_down(struct rig *r)
{
	gsync_ring_exit(r->ring);
	fake_stop(r->fake, r->sv[0]);
	close(r->sv[0]);
	close(r->sv[1]);
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

static void free_all(int32_t **s, int32_t **d, int n)
{
	for (int i = 0; i < n; i++) {
		free(s[i]);
		free(d[i]);
	}
}

/* The window and the sequence numbers come from GSYNC_INFO. */
static void test_window(void)
{
	struct info info = { GSYNC_STATE_JOINED, 4, 41, 0 };
	struct gsync_completion c[8];
	int32_t *s[6], *d[6];
	uint64_t seq[6], seq_bad = 0;
	int i, rc = 0, good = 1;
	struct rig r;

	rig_up(&r, 16, 0, 1, &info);
	ok(gsync_ring_window(r.ring) == 4 && gsync_ring_next_seq(r.ring) == 41,
	   "a joined socket's window (4) caps depth 16; numbering starts at its next_seq (41)");
	fake_gate(r.fake, &r.fake->reply_gate, 0);
	for (i = 0; i < 6; i++) {
		s[i] = fake_contrib(41 + (uint64_t)i, FAKE_OK, 64);
		d[i] = calloc(64, 4);
	}
	for (i = 0; i < 4 && rc == 0; i++)
		rc = gsync_allreduce_submit_next(r.ring, s[i], d[i], 256, GSYNC_DTYPE_INT32,
						 GSYNC_OP_SUM, (uint64_t)i, &seq[i]);
	ok(rc == 0 && seq[0] == 41 && seq[1] == 42 && seq[2] == 43 && seq[3] == 44,
	   "submit_next numbers 4 requests 41, 42, 43, 44");
	ok(gsync_allreduce_submit_next(r.ring, s[4], d[4], 256, GSYNC_DTYPE_INT32,
				       GSYNC_OP_SUM, 4, &seq_bad) == -EAGAIN &&
	   gsync_allreduce_submit(r.ring, 45, s[4], d[4], 256, GSYNC_DTYPE_INT32,
				  GSYNC_OP_SUM, 4) == -EAGAIN && seq_bad == 0,
	   "a 5th request is -EAGAIN with 4 (the window) unreaped, both ways of numbering");
	ok(gsync_allreduce_submit(r.ring, 45, s[4], d[4], 6, GSYNC_DTYPE_INT32,
				  GSYNC_OP_SUM, 4) == -EINVAL,
	   "bad arguments are -EINVAL even when the window is full");
	ok(gsync_ring_pending(r.ring) == 4 && gsync_ring_next_seq(r.ring) == 45,
	   "refused submissions queue nothing and take no seq");
	fake_gate(r.fake, &r.fake->reply_gate, 1);
	rc = gsync_reap(r.ring, c, 1, 1);
	ok(rc == 1 && c[0].seq == 41 && c[0].status == 0 &&
	   gsync_allreduce_submit_next(r.ring, s[4], d[4], 256, GSYNC_DTYPE_INT32,
				       GSYNC_OP_SUM, 4, &seq[4]) == 0 && seq[4] == 45,
	   "after reaping one, the next request is accepted as seq 45");
	ok(gsync_reap(r.ring, c + 1, 1, 1) == 1 &&
	   gsync_allreduce_submit(r.ring, 46, s[5], d[5], 256, GSYNC_DTYPE_INT32,
				  GSYNC_OP_SUM, 5) == 0 && gsync_ring_next_seq(r.ring) == 47,
	   "an explicit seq (46) moves the numbering on (next 47)");
	rc = 2 + reap_all(r.ring, c + 2, 4);
	for (i = 0; i < rc; i++)
		good &= c[i].seq == 41 + (uint64_t)i && c[i].user_data == (uint64_t)i &&
			c[i].status == 0 && fake_reduced_ok(s[i], d[i], 64);
	ok(rc == 6 && good && r.fake->got == 6 && !r.fake->out_of_order,
	   "all 6 complete in seq order 41..46, each result in its own buffer");
	ok(info.calls == 1, "GSYNC_INFO is read once, when first needed (%u)", info.calls);
	free_all(s, d, 6);
	rig_down(&r);
}

/* Before GSYNC_JOIN the socket has no window: depth rules until it has one. */
static void test_window_later(void)
{
	struct info info = { GSYNC_STATE_UNCONFIGURED, 0, 0, 0 };
	struct gsync_completion c[2];
	int32_t *s = fake_contrib(1, FAKE_OK, 8), *d = calloc(8, 4);
	struct rig r;

	rig_up(&r, 8, 0, 1, &info);
	ok(gsync_ring_window(r.ring) == 8 && gsync_ring_next_seq(r.ring) == 1,
	   "not joined: the ring accepts depth (8) requests, numbering from 1");
	info.state = GSYNC_STATE_JOINED;
	info.window = 2;
	info.next_seq = 1;
	ok(gsync_ring_window(r.ring) == 2, "joined later: the window (2) is learned then");
	ok(gsync_allreduce_submit_next(r.ring, s, d, 32, GSYNC_DTYPE_INT32,
				       GSYNC_OP_SUM, 0, NULL) == 0 &&
	   reap_all(r.ring, c, 1) == 1 && c[0].seq == 1 && c[0].status == 0 &&
	   fake_reduced_ok(s, d, 8), "and the first request is seq 1");
	free(s);
	free(d);
	rig_down(&r);
}

/*
 * Sends that wait for room (the socket buffer is full and the fake reads
 * nothing) all go out, in seq order, once the fake reads, without any call
 * into the library: they are one IOSQE_IO_LINK chain in the kernel.
 */
static void test_send_chain(void)
{
	enum { N = 8, ELEMS = 1000 };
	struct gsync_completion c[N];
	int32_t *s[N], *d[N];
	int i, rc = 0, good = 1;
	struct rig r;

	rig_up(&r, N, 4096, 4, NULL);
	fake_gate(r.fake, &r.fake->read_gate, 0);
	for (i = 0; i < N && rc == 0; i++) {
		s[i] = fake_contrib((uint64_t)i + 1, FAKE_OK, ELEMS);
		d[i] = calloc(ELEMS, 4);
		rc = gsync_allreduce_submit(r.ring, (uint64_t)i + 1, s[i], d[i], ELEMS * 4,
					    GSYNC_DTYPE_INT32, GSYNC_OP_SUM, (uint64_t)i);
	}
	ok(rc == 0 && i == N, "%d submissions return at once though the socket is full", N);
	ok(r.ring->sends > 1, "the waiting sends are one chain in the kernel (%u SQEs)",
	   r.ring->sends);
	fake_gate(r.fake, &r.fake->read_gate, 1);
	ok(fake_wait_count(r.fake, &r.fake->got, N) && !r.fake->out_of_order,
	   "once the peer reads, all %d contributions arrive in seq order without a call "
	   "into the library", N);
	rc = reap_all(r.ring, c, N);
	for (i = 0; i < rc; i++)
		good &= c[i].seq == (uint64_t)i + 1 && c[i].status == 0 &&
			c[i].len == ELEMS * 4 && fake_reduced_ok(s[i], d[i], ELEMS);
	ok(rc == N && good, "and all %d complete in order into their own buffers", N);
	free_all(s, d, i);
	rig_down(&r);
}

/*
 * Receives for every sent request wait as one chain: when the results
 * come, all are received (CQEs posted) without a call into the library.
 */
static void test_recv_chain(void)
{
	enum { N = 8, ELEMS = 64 };
	struct __kernel_timespec ts = { .tv_sec = FAKE_WAIT_S };
	struct gsync_completion c[N];
	struct io_uring_cqe *cqe;
	int32_t *s[N], *d[N];
	int i, rc = 0, good = 1;
	struct rig r;

	rig_up(&r, N, 0, FAKE_BURST_MAX, NULL);
	fake_gate(r.fake, &r.fake->reply_gate, 0);
	for (i = 0; i < N && rc == 0; i++) {
		s[i] = fake_contrib((uint64_t)i + 1, FAKE_OK, ELEMS);
		d[i] = calloc(ELEMS, 4);
		rc = gsync_allreduce_submit(r.ring, (uint64_t)i + 1, s[i], d[i], ELEMS * 4,
					    GSYNC_DTYPE_INT32, GSYNC_OP_SUM, (uint64_t)i);
	}
	ok(rc == 0 && r.ring->sends == 0 && r.ring->recvs == N,
	   "with %d requests sent, %d receives wait as one chain (%u)", N, N, r.ring->recvs);
	fake_gate(r.fake, &r.fake->reply_gate, 1);
	rc = io_uring_wait_cqes(&r.ring->uring, &cqe, N, &ts, NULL);
	ok(rc == 0 && io_uring_cq_ready(&r.ring->uring) == N,
	   "all %d results are received without a call into the library (%u CQEs)",
	   N, io_uring_cq_ready(&r.ring->uring));
	rc = reap_all(r.ring, c, N);
	for (i = 0; i < rc; i++)
		good &= c[i].seq == (uint64_t)i + 1 && c[i].user_data == (uint64_t)i &&
			c[i].status == 0 && fake_reduced_ok(s[i], d[i], ELEMS);
	ok(rc == N && good, "each result is in its own request's buffer, in seq order");
	free_all(s, d, i);
	rig_down(&r);
}

/*
 * A send that fails inside a chain (EMSGSIZE: bigger than the socket
 * buffer) cancels the links after it; they are sent again and succeed.
 */
static void test_chain_failure(void)
{
	enum { N = 5 };
	const size_t elems[N] = { 1000, 1000, 1000, 4000, 1000 };
	const int want[N] = { 0, 0, 0, EMSGSIZE, 0 };
	struct gsync_completion c[N];
	int32_t *s[N], *d[N];
	int i, rc = 0, good = 1;
	unsigned int sends;
	struct rig r;

	rig_up(&r, N, 4096, 1, NULL);
	fake_gate(r.fake, &r.fake->read_gate, 0);
	for (i = 0; i < N && rc == 0; i++) {
		s[i] = fake_contrib((uint64_t)i + 1, FAKE_OK, elems[i]);
		d[i] = calloc(elems[i], 4);
		rc = gsync_allreduce_submit(r.ring, (uint64_t)i + 1, s[i], d[i], elems[i] * 4,
					    GSYNC_DTYPE_INT32, GSYNC_OP_SUM, (uint64_t)i);
	}
	sends = r.ring->sends;
	fake_gate(r.fake, &r.fake->read_gate, 1);
	rc = reap_all(r.ring, c, N);
	for (i = 0; i < rc; i++) {
		good &= c[i].seq == (uint64_t)i + 1 && c[i].status == want[i];
		if (!want[i])
			good &= fake_reduced_ok(s[i], d[i], elems[i]);
		if (c[i].status != want[i])
			diag("seq %d: status %d, want %d", i + 1, c[i].status, want[i]);
	}
	ok(sends >= 3 && rc == N && good && r.fake->got == N - 1 && !r.fake->out_of_order,
	   "a failed send in a chain of %u fails alone; the links after it are sent again",
	   sends);
	free_all(s, d, i);
	rig_down(&r);
}

/*
 * More requests than the longest chain (no window known, depth 100): one
 * chain of 64 receives waits, the rest after it, and the ring does not
 * keep cancelling a chain that cannot grow.
 */
static void test_long_chains(void)
{
	enum { N = 100, ELEMS = 16 };
	struct gsync_completion c[N];
	int32_t *s[N], *d[N];
	int i, rc = 0, good = 1;
	struct rig r;

	rig_up(&r, N, 0, 1, NULL);
	fake_gate(r.fake, &r.fake->reply_gate, 0);
	for (i = 0; i < N && rc == 0; i++) {
		s[i] = fake_contrib((uint64_t)i + 1, FAKE_OK, ELEMS);
		d[i] = calloc(ELEMS, 4);
		rc = gsync_allreduce_submit(r.ring, (uint64_t)i + 1, s[i], d[i], ELEMS * 4,
					    GSYNC_DTYPE_INT32, GSYNC_OP_SUM, (uint64_t)i);
	}
	ok(rc == 0 && r.ring->recvs == GSYNC_MAX_WINDOW && !r.ring->rechain &&
	   !r.ring->cancels, "%d sent: a chain of %d receives waits, no cancel in flight "
	   "(%u receives, %u cancels)", N, GSYNC_MAX_WINDOW, r.ring->recvs, r.ring->cancels);
	fake_gate(r.fake, &r.fake->reply_gate, 1);
	rc = reap_all(r.ring, c, N);
	for (i = 0; i < rc; i++)
		good &= c[i].seq == (uint64_t)i + 1 && c[i].status == 0 &&
			fake_reduced_ok(s[i], d[i], ELEMS);
	ok(rc == N && good, "all %d complete in order into their own buffers", N);
	free_all(s, d, i);
	rig_down(&r);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Exit with a chain of sends and a chain of receives waiting. */
static void test_exit(void)
{
	enum { N = 6, ELEMS = 1000 };
	int32_t *s[N], *d[N];
	unsigned int sends, recvs;
	struct rig r;
	double t;
	int i;

	rig_up(&r, N, 4096, 1, NULL);
	fake_gate(r.fake, &r.fake->reply_gate, 0);
	for (i = 0; i < N; i++) {
		s[i] = fake_contrib((uint64_t)i + 1, FAKE_OK, ELEMS);
		d[i] = calloc(ELEMS, 4);
		gsync_allreduce_submit(r.ring, (uint64_t)i + 1, s[i], d[i], ELEMS * 4,
				       GSYNC_DTYPE_INT32, GSYNC_OP_SUM, 0);
	}
	sends = r.ring->sends;
	recvs = r.ring->recvs;
	t = now();
	gsync_ring_exit(r.ring);
	r.ring = NULL;
	ok(sends > 1 && recvs >= 1 && now() - t < 1.0,
	   "ring_exit with %u sends and %u receives waiting returns promptly", sends, recvs);
	rig_down(&r);
	free_all(s, d, N);
}

/*
 * Thousands of requests of random sizes through a window of 16, the fake
 * answering in bursts, random reap batches, seqs from the library and
 * from the caller alternately: every completion in order, exact.
 */
static void test_stress(void)
{
	enum { OPS = 3000, WIN = 16 };
	struct info info = { GSYNC_STATE_JOINED, WIN, 1, 0 };
	struct gsync_completion c[WIN];
	int32_t *s[WIN] = { 0 }, *d[WIN] = { 0 };
	size_t n[WIN];
	unsigned int seed = 12, max_pending = 0;
	uint64_t next = 1, expect = 1, seq, refused = 0;
	int good = 1, i, rc;
	struct rig r;

	rig_up(&r, 64, 0, 7, &info);
	while (expect <= OPS && good) {
		for (;;) {
			int slot = (int)(next % WIN);

			if (next > OPS)
				break;
			if (!s[slot]) {	/* free once its last occupant was reaped */
				n[slot] = 2 + (size_t)(rand_r(&seed) % 3000);
				s[slot] = fake_contrib(next, FAKE_OK, n[slot]);
				d[slot] = calloc(n[slot], 4);
			}
			if (next % 2)
				rc = gsync_allreduce_submit_next(r.ring, s[slot], d[slot],
								 n[slot] * 4, GSYNC_DTYPE_INT32,
								 GSYNC_OP_SUM, next, &seq);
			else
				rc = gsync_allreduce_submit(r.ring, seq = next, s[slot], d[slot],
							    n[slot] * 4, GSYNC_DTYPE_INT32,
							    GSYNC_OP_SUM, next);
			if (rc == -EAGAIN) {
				refused++;
				good &= next - expect == WIN;
				break;
			}
			good &= rc == 0 && seq == next;
			if (!good)
				break;
			next++;
			if (gsync_ring_pending(r.ring) > max_pending)
				max_pending = gsync_ring_pending(r.ring);
		}
		rc = gsync_reap(r.ring, c, (unsigned int)(rand_r(&seed) % WIN) + 1, 1);
		if (rc <= 0)
			good = 0;
		for (i = 0; i < rc; i++, expect++) {
			int slot = (int)(expect % WIN);

			good &= c[i].seq == expect && c[i].user_data == expect &&
				c[i].status == 0 && c[i].len == n[slot] * 4 &&
				fake_reduced_ok(s[slot], d[slot], n[slot]);
			free(s[slot]);
			free(d[slot]);
			s[slot] = NULL;
			d[slot] = NULL;
		}
	}
	/* The fake counts a burst as answered after its last reply went out,
	 * so the last completion can be reaped first: wait for the count. */
	ok(good && expect == OPS + 1 && fake_wait_count(r.fake, &r.fake->answered, OPS) &&
	   r.fake->got == OPS && r.fake->answered == OPS && !r.fake->out_of_order,
	   "%d requests, random sizes, window %d, mixed numbering: in order, exact", OPS, WIN);
	ok(max_pending == WIN && refused > 0,
	   "the window is used to the full (%u in flight at most, %llu refusals)",
	   max_pending, (unsigned long long)refused);
	free_all(s, d, WIN);
	rig_down(&r);
}

int main(void)
{
	struct gsync_ring *ring;
	int sv[2], rc;

	/* A hang is a failure, not a stuck check. */
	alarm(120);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0) {
		rc = gsync_ring_init(&ring, sv[0], 1);
		if (rc) {
			skip("in-flight ring tests # SKIP io_uring unavailable: %s",
			     strerror(-rc));
			close(sv[0]);
			close(sv[1]);
			return 0;
		}
		gsync_ring_exit(ring);
		close(sv[0]);
		close(sv[1]);
	}
	test_window();
	test_window_later();
	test_send_chain();
	test_recv_chain();
	test_chain_failure();
	test_long_chains();
	test_exit();
	test_stress();
	return tap_done();
}
