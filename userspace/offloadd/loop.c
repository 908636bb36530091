// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * loop.c - the agent's io_uring event loop over /dev/gsync-offload.
 *
 * One ring (SQE128: command payloads do not fit a 64-byte SQE). liburing
 * 2.3 has no io_uring_prep_uring_cmd(), so SQEs are filled by hand.
 *
 *   REGISTER, then mmap() the region; one FETCH per slot.
 *   Each wakeup reaps every completion at once: the FETCHes that completed
 *   with 0 form one batch, which the backend runs in one call (one kernel
 *   launch on a card), and one COMMIT_FETCH per job goes back in a single
 *   io_uring_enter(). Per-job cost is therefore a CQE and an SQE.
 *   On SIGTERM/SIGINT: STOP (the module takes back what we hold and
 *   computes it on the CPU), then wait until every slot's command has come
 *   back (-ESHUTDOWN), so nothing of ours is left inside the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

volatile int agent_stop_requested;

enum { UD_FETCH = 1, UD_REGISTER = 2, UD_STOP = 3 };
#define UD(kind, slot) (((uint64_t)(kind) << 32) | (uint32_t)(slot))

struct agent_loop {
	const struct agent_opts *o;
	struct gsync_offload_backend *be;
	struct agent_stats *st;
	struct io_uring ring;
	int fd;
	void *region;
	size_t region_len;
	uint32_t parked;		/* slot commands in the kernel */
	uint64_t seen;			/* jobs received, for --fail-every */
	struct gsync_offload_job *jobs;	/* [slots] */
	uint32_t *batch;		/* [slots]: slots with a job */
	uint64_t *ids;			/* [slots] */
	int32_t *status;		/* [slots] */
	struct gsync_offload_job **valid;	/* [slots] */
};

static struct io_uring_sqe *get_sqe(struct agent_loop *l)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&l->ring);

	if (!sqe) {
		io_uring_submit(&l->ring);
		sqe = io_uring_get_sqe(&l->ring);
	}
	return sqe;
}

/* A uring_cmd SQE with payload in its 80-byte command area. */
static int queue_cmd(struct agent_loop *l, uint32_t op, const void *payload,
		     size_t len, uint64_t ud)
{
	struct io_uring_sqe *sqe = get_sqe(l);

	if (!sqe || len > 80)
		return -1;
	memset(sqe, 0, 128);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = l->fd;
	sqe->cmd_op = op;
	if (len)
		memcpy(sqe->cmd, payload, len);
	sqe->user_data = ud;
	return 0;
}

static int queue_slot(struct agent_loop *l, uint32_t op, uint32_t slot,
		      uint64_t id, int32_t status)
{
	struct gsync_offload_slot_cmd sc = {
		.slot = slot, .status = status, .job_id = id,
	};

	if (queue_cmd(l, op, &sc, sizeof(sc), UD(UD_FETCH, slot)))
		return -1;
	l->parked++;
	return 0;
}

/* Submit one command and wait for its completion; returns its res. */
static int sync_cmd(struct agent_loop *l, uint32_t op, const void *payload,
		    size_t len, int kind)
{
	struct io_uring_cqe *cqe;
	int ret;

	if (queue_cmd(l, op, payload, len, UD(kind, 0)))
		return -ENOSPC;
	ret = io_uring_submit_and_wait(&l->ring, 1);
	while (ret >= 0 || ret == -EINTR) {
		ret = io_uring_wait_cqe(&l->ring, &cqe);
		if (ret == -EINTR)
			continue;
		if (ret)
			break;
		if (cqe->user_data == UD(kind, 0)) {
			ret = cqe->res;
			io_uring_cqe_seen(&l->ring, cqe);
			return ret;
		}
		io_uring_cqe_seen(&l->ring, cqe);
	}
	return ret;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR && !agent_stop_requested)
		;
}

/* Compute the jobs in batch[0..n) and queue their COMMIT_FETCHes. */
static int serve_batch(struct agent_loop *l, uint32_t n)
{
	const struct agent_opts *o = l->o;
	size_t nvalid = 0;
	uint32_t i;
	int ret;

	if (o->delay_ms)
		sleep_ms(o->delay_ms);
	if (agent_stop_requested) {
		/* not computed, not committed: STOP hands them back */
		agent_log(LOG_INFO_, "%u fetched jobs left to the kernel", n);
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct gsync_offload_desc d;

		memcpy(&d, (const struct gsync_offload_desc *)l->region +
		       l->batch[i], sizeof(d));
		l->ids[i] = d.job_id;
		l->status[i] = agent_job_from_desc(&d, l->region,
						   l->region_len, o->max_k,
						   &l->jobs[i]);
		l->seen++;
		if (l->status[i]) {
			l->st->jobs_refused++;
			agent_log(l->status[i] == -EOPNOTSUPP ? LOG_DEBUG_ : LOG_WARN_,
				  "slot %u job %llu refused (%s)", l->batch[i],
				  (unsigned long long)d.job_id,
				  strerror(-l->status[i]));
			continue;
		}
		if (o->fail_every && l->seen % o->fail_every == 0) {
			l->status[i] = -EIO;
			l->st->errors_injected++;
			continue;
		}
		l->valid[nvalid++] = &l->jobs[i];
		l->st->bytes += (uint64_t)l->jobs[i].n *
				gsync_red_elem_size(l->jobs[i].dtype) *
				(l->jobs[i].k + 1);
	}
	if (nvalid) {
		/* the backend API takes an array of jobs: compact, run, copy */
		struct gsync_offload_job *run = malloc(nvalid * sizeof(*run));
		size_t v;

		if (!run) {
			ret = -ENOMEM;
		} else {
			for (v = 0; v < nvalid; v++)
				run[v] = *l->valid[v];
			ret = gsync_offload_run(l->be, run, nvalid);
			for (v = 0; v < nvalid; v++)
				l->valid[v]->status = ret < 0 ? ret : run[v].status;
			free(run);
		}
		if (ret < 0)
			agent_log(LOG_ERR_, "backend %s failed a batch of %zu: %s",
				  gsync_offload_name(l->be), nvalid,
				  gsync_offload_last_error(l->be));
		for (i = 0; i < n; i++)
			if (!l->status[i])
				l->status[i] = l->jobs[i].status;
		l->st->batches++;
		l->st->jobs += nvalid;
		if (nvalid > l->st->max_batch)
			l->st->max_batch = nvalid;
	}
	for (i = 0; i < n; i++) {
		if (queue_slot(l, GSYNC_OFFLOAD_CMD_COMMIT_FETCH, l->batch[i],
			       l->ids[i], l->status[i])) {
			agent_log(LOG_ERR_, "no SQE for slot %u", l->batch[i]);
			return -1;
		}
	}
	return 0;
}

static int serve(struct agent_loop *l)
{
	struct __kernel_timespec ts = { 0, 200 * 1000000 };
	int stop_sent = 0, stop_done = 0, shut = 0, lost = 0;
	struct io_uring_cqe *cqe;
	unsigned head, seen;
	uint32_t n;
	int ret;

	for (;;) {
		if (agent_stop_requested && !stop_sent) {
			agent_log(LOG_INFO_, "stopping: handing pending jobs back to the kernel");
			if (queue_cmd(l, GSYNC_OFFLOAD_CMD_STOP, NULL, 0,
				      UD(UD_STOP, 0)))
				return -1;
			stop_sent = 1;
		}
		ret = io_uring_submit_and_wait_timeout(&l->ring, &cqe, 1, &ts,
						       NULL);
		if (ret < 0 && ret != -ETIME && ret != -EINTR) {
			agent_log(LOG_ERR_, "io_uring: %s", strerror(-ret));
			return -1;
		}
		n = 0;
		seen = 0;
		io_uring_for_each_cqe(&l->ring, head, cqe) {
			uint32_t kind = cqe->user_data >> 32;
			uint32_t slot = (uint32_t)cqe->user_data;

			seen++;
			if (kind == UD_STOP) {
				stop_done = 1;
				if (cqe->res)
					agent_log(LOG_WARN_, "STOP: %s", strerror(-cqe->res));
				continue;
			}
			if (kind != UD_FETCH)
				continue;
			l->parked--;
			if (cqe->res == 0) {
				/* after STOP the kernel has taken it back */
				if (!stop_sent)
					l->batch[n++] = slot;
			} else if (cqe->res == -ESHUTDOWN ||
				   cqe->res == -ECANCELED) {
				shut = 1;
			} else {
				lost++;
				agent_log(LOG_ERR_, "kernel refused the command of slot %u: %s",
					  slot, strerror(-cqe->res));
			}
		}
		io_uring_cq_advance(&l->ring, seen);
		if (n && agent_stop_requested) {
			agent_log(LOG_INFO_, "%u fetched jobs left to the kernel", n);
		} else if (n && serve_batch(l, n)) {
			return -1;
		}
		if ((stop_done || shut) && !l->parked) {
			if (!stop_sent)
				agent_log(LOG_WARN_, "the kernel shut the agent down");
			return stop_sent && !lost ? 0 : -1;
		}
		if (!l->parked && !stop_sent) {
			agent_log(LOG_ERR_, "no slot left in the kernel (%d refused)",
				  lost);
			return -1;
		}
	}
}

int agent_run(const struct agent_opts *o, struct gsync_offload_backend *be,
	      struct agent_stats *st)
{
	struct gsync_offload_register reg = {
		.version = GSYNC_OFFLOAD_VERSION,
		.nslots = o->slots,
		.slot_bytes = o->slot_bytes,
		.max_k = o->max_k,
		.dtypes = (1U << GSYNC_DTYPE_MAX) - 1,
		.ops = (1U << GSYNC_REDOP_MAX) - 1,
	};
	struct agent_loop l = { .o = o, .be = be, .st = st, .fd = -1 };
	int ret = -1;
	uint32_t s;

	l.jobs = calloc(o->slots, sizeof(*l.jobs));
	l.batch = calloc(o->slots, sizeof(*l.batch));
	l.ids = calloc(o->slots, sizeof(*l.ids));
	l.status = calloc(o->slots, sizeof(*l.status));
	l.valid = calloc(o->slots, sizeof(*l.valid));
	if (!l.jobs || !l.batch || !l.ids || !l.status || !l.valid) {
		agent_log(LOG_ERR_, "out of memory");
		goto out_free;
	}
	l.fd = open(o->device, O_RDWR | O_CLOEXEC);
	if (l.fd < 0) {
		agent_log(LOG_ERR_, "cannot open %s: %s%s", o->device,
			  strerror(errno),
			  errno == ENOENT ? " (is gsync.ko loaded?)" : "");
		goto out_free;
	}
	ret = io_uring_queue_init(o->slots + 8, &l.ring, IORING_SETUP_SQE128);
	if (ret) {
		agent_log(LOG_ERR_, "io_uring_queue_init: %s", strerror(-ret));
		ret = -1;
		goto out_close;
	}
	ret = sync_cmd(&l, GSYNC_OFFLOAD_CMD_REGISTER, &reg, sizeof(reg),
		       UD_REGISTER);
	if (ret) {
		agent_log(LOG_ERR_, "register with %s: %s%s", o->device,
			  strerror(-ret),
			  ret == -EBUSY ? " (another agent is registered)" :
			  ret == -EPERM ? " (needs CAP_SYS_ADMIN)" : "");
		ret = -1;
		goto out_ring;
	}
	l.region_len = GSYNC_OFFLOAD_REGION_BYTES(o->slots, o->slot_bytes);
	l.region = mmap(NULL, l.region_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			l.fd, 0);
	if (l.region == MAP_FAILED) {
		agent_log(LOG_ERR_, "mmap of the %zu-byte region: %s",
			  l.region_len, strerror(errno));
		l.region = NULL;
		ret = -1;
		goto out_ring;
	}
	ret = gsync_offload_map_region(be, l.region, l.region_len);
	if (ret) {
		agent_log(LOG_ERR_, "backend %s: %s", gsync_offload_name(be),
			  gsync_offload_last_error(be));
		ret = -1;
		goto out_unmap;
	}
	for (s = 0; s < o->slots; s++) {
		if (queue_slot(&l, GSYNC_OFFLOAD_CMD_FETCH, s, 0, 0)) {
			agent_log(LOG_ERR_, "no SQE for slot %u", s);
			ret = -1;
			goto out_unmap;
		}
	}
	agent_log(LOG_INFO_, "serving %s with backend %s: %u slots of %u bytes, k <= %u",
		  o->device, gsync_offload_name(be), o->slots, o->slot_bytes,
		  o->max_k);
	ret = serve(&l);
out_unmap:
	if (l.region)
		munmap(l.region, l.region_len);
out_ring:
	io_uring_queue_exit(&l.ring);
out_close:
	close(l.fd);
out_free:
	free(l.jobs);
	free(l.batch);
	free(l.ids);
	free(l.status);
	free(l.valid);
	return ret;
}
