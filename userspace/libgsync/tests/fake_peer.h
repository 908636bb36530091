/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A stand-in for the gsync kernel for the in-flight tests: a thread on the
 * far end of an AF_UNIX SOCK_SEQPACKET pair. Every message carries its own
 * result description, so a result that lands in the wrong request's buffer
 * is seen as such (unlike a side queue, which would follow completion
 * order):
 *
 *   contribution (int32): [0] = seq, [1] = FAKE_* action, [2..] payload
 *   reply: success  the contribution with [1] = 0 and [2..] + 1000
 *          failure  8 bytes: [0] = seq, [1] = the status (a positive errno)
 *
 * fake_decode() (the library's decoder seam) reads that header from the
 * buffer the result landed in. Gates let a test hold the fake: while
 * read_gate is closed it reads nothing (sends fill the socket and wait);
 * while reply_gate is closed it reads but does not answer. It answers in
 * bursts of up to `burst` contributions, so several results are ready at
 * once. Condition waits are bounded (FAKE_WAIT_S); nothing sleeps.
 */
#ifndef LIBGSYNC_FAKE_PEER_H
#define LIBGSYNC_FAKE_PEER_H

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

enum { FAKE_OK = 0, FAKE_TIMEOUT = 1, FAKE_TRUNC = 2 };

#define FAKE_BUF (1 << 20)
#define FAKE_BURST_MAX 16
#define FAKE_WAIT_S 10

struct fake {
	int fd;
	pthread_t thr;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int read_gate, reply_gate;	/* 1 = open */
	unsigned int burst;		/* answer after this many (1..16) */
	uint64_t got;			/* contributions read */
	uint64_t answered;		/* replies sent */
	uint64_t last_seq;		/* seq of the last contribution read */
	int out_of_order;		/* a seq not above the one before */
};

static inline void fake_wait_gate(struct fake *f, const int *gate)
{
	pthread_mutex_lock(&f->lock);
	while (!*gate)
		pthread_cond_wait(&f->cond, &f->lock);
	pthread_mutex_unlock(&f->lock);
}

static inline void fake_reply(struct fake *f, int32_t *b, ssize_t n)
{
	int32_t hdr[2];
	ssize_t i;

	if (b[1] == FAKE_TIMEOUT) {
		hdr[0] = b[0];
		hdr[1] = ETIMEDOUT;
		send(f->fd, hdr, sizeof(hdr), MSG_NOSIGNAL);
		return;
	}
	for (i = 2; i < n / 4; i++)
		b[i] += 1000;
	if (b[1] == FAKE_TRUNC) {
		b[1] = 0;
		send(f->fd, b, (size_t)n + 4, MSG_NOSIGNAL);
		return;
	}
	b[1] = 0;
	send(f->fd, b, (size_t)n, MSG_NOSIGNAL);
}

/* Account one contribution read. */
static inline void fake_note(struct fake *f, const int32_t *b)
{
	pthread_mutex_lock(&f->lock);
	if ((uint64_t)b[0] <= f->last_seq)
		f->out_of_order = 1;
	f->last_seq = (uint64_t)b[0];
	f->got++;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

static inline void *fake_main(void *arg)
{
	struct fake *f = arg;
	int32_t *bufs[FAKE_BURST_MAX];
	ssize_t lens[FAKE_BURST_MAX];
	unsigned int i, k;

	for (i = 0; i < FAKE_BURST_MAX; i++)
		bufs[i] = malloc(FAKE_BUF + 64);
	for (;;) {
		fake_wait_gate(f, &f->read_gate);
		/* One blocking read, then what is there, up to a burst. */
		lens[0] = recv(f->fd, bufs[0], FAKE_BUF, 0);
		if (lens[0] <= 0)
			break;		/* the library's end shut down */
		if (lens[0] < 8)
			continue;	/* too short to be ours */
		fake_note(f, bufs[0]);
		for (k = 1; k < f->burst; k++) {
			lens[k] = recv(f->fd, bufs[k], FAKE_BUF, MSG_DONTWAIT);
			if (lens[k] < 8)
				break;
			fake_note(f, bufs[k]);
		}
		fake_wait_gate(f, &f->reply_gate);
		for (i = 0; i < k; i++)
			fake_reply(f, bufs[i], lens[i]);
		pthread_mutex_lock(&f->lock);
		f->answered += k;
		pthread_cond_broadcast(&f->cond);
		pthread_mutex_unlock(&f->lock);
	}
	for (i = 0; i < FAKE_BURST_MAX; i++)
		free(bufs[i]);
	return NULL;
}

/* The decoder seam: the header of the message in the request's buffer. */
static inline int fake_decode(void *arg, int res, const struct msghdr *msg,
		       struct gsync_op_result *out)
{
	int32_t hdr[2];

	(void)arg;
	if (res < 8 || msg->msg_iovlen < 1 || msg->msg_iov[0].iov_len < 8)
		return -EBADMSG;
	memcpy(hdr, msg->msg_iov[0].iov_base, sizeof(hdr));
	out->seq = (uint64_t)hdr[0];
	out->status = hdr[1];
	out->len = hdr[1] ? 0 : (uint64_t)res;
	return 0;
}

/* Open or close a gate. */
static inline void fake_gate(struct fake *f, int *gate, int open)
{
	pthread_mutex_lock(&f->lock);
	*gate = open;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

/*
 * Wait until *counter >= want, at most FAKE_WAIT_S seconds. 1 if reached.
 * The library is not called meanwhile: what happens is io_uring's doing.
 */
static inline int fake_wait_count(struct fake *f, const uint64_t *counter,
			   uint64_t want)
{
	struct timespec until;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += FAKE_WAIT_S;
	pthread_mutex_lock(&f->lock);
	while (*counter < want && rc == 0)
		rc = pthread_cond_timedwait(&f->cond, &f->lock, &until);
	rc = *counter >= want;
	pthread_mutex_unlock(&f->lock);
	return rc;
}

/* Start the fake on FD with open gates. */
static inline struct fake *fake_start(int fd, unsigned int burst)
{
	struct fake *f = calloc(1, sizeof(*f));

	f->fd = fd;
	f->read_gate = 1;
	f->reply_gate = 1;
	f->burst = burst ? burst : 1;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	pthread_create(&f->thr, NULL, fake_main, f);
	return f;
}

/* Open its gates, let it see end of file on PEER_FD's shutdown, free it. */
static inline void fake_stop(struct fake *f, int peer_fd)
{
	shutdown(peer_fd, SHUT_RDWR);
	fake_gate(f, &f->read_gate, 1);
	fake_gate(f, &f->reply_gate, 1);
	pthread_join(f->thr, NULL);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cond);
	free(f);
}

/* An int32 contribution of N elements for SEQ with fake action ACT. */
static inline int32_t *fake_contrib(uint64_t seq, int act, size_t n)
{
	int32_t *b = malloc(n * 4);

	b[0] = (int32_t)seq;
	b[1] = act;
	for (size_t i = 2; i < n; i++)
		b[i] = (int32_t)(seq * 7 + i);
	return b;
}

/* 1 if RCV is SND's reply: same seq, status 0, every payload element + 1000. */
static inline int fake_reduced_ok(const int32_t *snd, const int32_t *rcv, size_t n)
{
	for (size_t i = 2; i < n; i++)
		if (rcv[i] != snd[i] + 1000)
			return 0;
	return rcv[0] == snd[0] && rcv[1] == 0;
}

#endif
