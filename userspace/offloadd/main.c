// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * main.c - gsync-offloadd: options, backend choice, daemon mode, signals.
 * See agent.h for the layout and `gsync-offloadd --help` for usage.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

static void on_stop_signal(int sig)
{
	(void)sig;
	agent_stop_requested = 1;
}

static int install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a blocked io_uring_enter() returns EINTR */
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL))
		return -1;
	sa.sa_handler = SIG_IGN;
	return sigaction(SIGPIPE, &sa, NULL);
}

static int open_backend(const struct agent_opts *o,
			struct gsync_offload_backend **be)
{
	struct gsync_offload_cfg cfg = {
		.xclbin = o->xclbin,
		.device_index = o->xrt_device,
	};
	char err[512];
	int ret;

	if (!strcmp(o->backend, "xrt") ||
	    (!strcmp(o->backend, "auto") && o->xclbin)) {
		ret = gsync_offload_open("xrt", &cfg, be, err, sizeof(err));
		if (!ret)
			return 0;
		if (!strcmp(o->backend, "xrt")) {
			agent_log(LOG_ERR_, "backend xrt: %s", err);
			return -1;
		}
		agent_log(LOG_WARN_, "backend xrt unavailable (%s); using sim", err);
	}
	ret = gsync_offload_open("sim", &cfg, be, err, sizeof(err));
	if (ret) {
		agent_log(LOG_ERR_, "backend sim: %s", err);
		return -1;
	}
	return 0;
}

static int write_pidfile(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "%ld\n", (long)getpid());
	return fclose(f);
}

int main(int argc, char **argv)
{
	struct gsync_offload_backend *be = NULL;
	struct agent_stats st = { 0 };
	struct agent_opts o;
	char err[256];
	int ret;

	if (agent_parse_args(argc, argv, &o, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\nTry '%s --help'.\n", argv[0], err,
			argv[0]);
		return 2;
	}
	if (o.help) {
		agent_usage(stdout, argv[0]);
		return 0;
	}
	if (o.version) {
		printf("gsync-offloadd %s (offload ABI %d)\n", AGENT_VERSION,
		       GSYNC_OFFLOAD_VERSION);
		return 0;
	}
	if (agent_log_open(&o, "gsync-offloadd")) {
		fprintf(stderr, "%s: cannot open log file %s: %s\n", argv[0],
			o.log_file, strerror(errno));
		return 1;
	}
	/* Open the backend first: a missing card fails before we detach. */
	if (open_backend(&o, &be))
		return 1;
	if (o.daemon && daemon(0, 0)) {
		agent_log(LOG_ERR_, "daemon: %s", strerror(errno));
		gsync_offload_close(be);
		return 1;
	}
	if (o.pidfile && write_pidfile(o.pidfile)) {
		agent_log(LOG_ERR_, "pidfile %s: %s", o.pidfile, strerror(errno));
		gsync_offload_close(be);
		return 1;
	}
	if (install_signals()) {
		agent_log(LOG_ERR_, "sigaction: %s", strerror(errno));
		ret = -1;
	} else {
		ret = agent_run(&o, be, &st);
	}
	agent_log(LOG_INFO_, "exiting: %llu jobs in %llu batches (largest %llu), %llu refused, %llu failures injected",
		  (unsigned long long)st.jobs, (unsigned long long)st.batches,
		  (unsigned long long)st.max_batch,
		  (unsigned long long)st.jobs_refused,
		  (unsigned long long)st.errors_injected);
	gsync_offload_close(be);
	if (o.pidfile)
		unlink(o.pidfile);
	agent_log_close();
	return ret ? 1 : 0;
}
