/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * agent.h - gsync-offloadd, the offload agent: options, job descriptors,
 * logging and the io_uring loop over /dev/gsync-offload.
 *
 *   opts.c   command line (pure; host-tested)
 *   desc.c   kernel descriptor -> backend job, validated (pure; host-tested)
 *   loop.c   REGISTER, mmap, FETCH / COMMIT_FETCH, STOP on SIGTERM/SIGINT
 *   log.c    stderr, file or syslog
 *   main.c   backend choice, daemon mode, signals
 *
 * Protocol: uapi/linux/gsync_offload.h and docs/offload.md.
 */
#ifndef GSYNC_OFFLOADD_AGENT_H
#define GSYNC_OFFLOADD_AGENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/gsync.h>
#include <linux/gsync_offload.h>

#include "backend_api.h"

#define AGENT_VERSION "1.0"

struct agent_opts {
	const char *backend;	/* "auto", "sim", "xrt" */
	const char *xclbin;
	const char *device;
	const char *pidfile;
	const char *log_file;
	unsigned xrt_device;
	uint32_t slots;
	uint32_t slot_bytes;
	uint32_t max_k;
	int daemon;
	int verbosity;		/* 0 errors, 1 +warnings, 2 +info (default), 3 +debug */
	/* testing aids: make the kernel's fallbacks happen on purpose */
	unsigned delay_ms;	/* sleep before each batch */
	unsigned fail_every;	/* commit -EIO for every Nth job (0: never) */
	int help, version;
};

/*
 * Parse argv into o (defaults first). Returns 0, or -1 with a message in
 * err (the caller prints it and the usage hint).
 */
int agent_parse_args(int argc, char **argv, struct agent_opts *o,
		     char *err, size_t errlen);
void agent_usage(FILE *f, const char *prog);

/* Parse "64", "64k", "1M" (binary multiples) into *out; 0 or -1. */
int agent_parse_size(const char *s, uint64_t *out);

/*
 * Turn desc (as the kernel wrote it into the region of region_len bytes
 * at base) into a backend job, checking every field and that every buffer
 * lies inside the region. Returns 0, -EINVAL (malformed: a kernel/agent
 * mismatch) or -EOPNOTSUPP (well-formed but beyond this agent: k above
 * max_k, avg with a divisor other than k).
 */
int agent_job_from_desc(const struct gsync_offload_desc *desc, void *base,
			size_t region_len, uint32_t max_k,
			struct gsync_offload_job *job);

/* log.c */
enum { LOG_ERR_ = 0, LOG_WARN_ = 1, LOG_INFO_ = 2, LOG_DEBUG_ = 3 };
int agent_log_open(const struct agent_opts *o, const char *prog);
void agent_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void agent_log_close(void);

/* loop.c */
struct agent_stats {
	uint64_t jobs, batches, errors_injected, jobs_refused, bytes;
	uint64_t max_batch;
};

/* Set from the signal handler: stop (STOP, wait, exit 0). */
extern volatile int agent_stop_requested;

/*
 * Register with the device, serve jobs with be until a stop is requested
 * or the kernel shuts the agent down. Returns 0 on a clean stop, else -1
 * (logged).
 */
int agent_run(const struct agent_opts *o, struct gsync_offload_backend *be,
	      struct agent_stats *st);

#endif /* GSYNC_OFFLOADD_AGENT_H */
