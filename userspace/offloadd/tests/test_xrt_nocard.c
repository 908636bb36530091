// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_xrt_nocard.c - with no card and no emulation the xrt backend must
 * fail fast with a clear message, not abort or crash:
 *   1. XILINX_XRT unset        -> error naming XILINX_XRT
 *   2. XILINX_XRT set, no card -> error naming the device and the noop hint
 *   3. the benchmark program asked for the xrt backend exits non-zero with
 *      that message (a real process, checked for death by signal)
 * Each XRT case runs in a child process: XRT caches device enumeration per
 * process, so the cases would otherwise influence each other.
 *
 * usage: test_xrt_nocard XCLBIN BENCH_PROGRAM
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../backend_api.h"
#include "../../../xrt_kernels/tests/tap.h"
#include "xrt_env.h"

/* Child: try to open the xrt backend, print the error, exit 0 iff the open
 * failed and the message contains `expect`. */
static int child_open(const char *xclbin, const char *expect)
{
	struct gsync_offload_cfg cfg = { .xclbin = xclbin };
	struct gsync_offload_backend *be = NULL;
	char err[512] = "";
	int ret = gsync_offload_open("xrt", &cfg, &be, err, sizeof(err));

	printf("# child: ret %d: %s\n", ret, err);
	fflush(stdout);
	if (be)
		gsync_offload_close(be);
	return (ret != 0 && !be && strstr(err, expect)) ? 0 : 1;
}

static int run_child(const char *xclbin, const char *expect, int with_env)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		unsetenv("XCL_EMULATION_MODE");
		if (with_env) {
			if (xrt_env_setup())
				_exit(3);
		} else {
			unsetenv("XILINX_XRT");
		}
		st = child_open(xclbin, expect);
		xrt_env_cleanup();      /* _exit skips atexit handlers */
		_exit(st);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFSIGNALED(st))
		printf("# child killed by signal %d\n", WTERMSIG(st));
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_bench(const char *xclbin, const char *bench)
{
	char cmd[1024];
	FILE *p;
	char line[512];
	int found = 0, st;

	/* environment: XILINX_XRT valid, no emulation -> "no card" path */
	if (xrt_env_setup()) {
		tap_result(0, "bench --backend xrt without a card");
		return;
	}
	unsetenv("XCL_EMULATION_MODE");
	snprintf(cmd, sizeof(cmd), "%s --backend xrt --xclbin %s 2>&1", bench, xclbin);
	p = popen(cmd, "r");
	if (!p) {
		tap_result(0, "bench --backend xrt without a card (popen)");
		return;
	}
	while (fgets(line, sizeof(line), p)) {
		printf("# bench: %s", line);
		if (strstr(line, "Could not open device"))
			found = 1;
	}
	st = pclose(p);
	tap_result(found && WIFEXITED(st) && WEXITSTATUS(st) != 0,
		   "bench --backend xrt without a card: clear message, exit %d, no crash",
		   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s XCLBIN BENCH_PROGRAM\n", argv[0]);
		return 2;
	}
	tap_result(run_child(argv[1], "XILINX_XRT", 0) == 0,
		   "XILINX_XRT unset: open fails, message names XILINX_XRT");
	tap_result(run_child(argv[1], "Could not open device", 1) == 0,
		   "no card, no emulation: open fails fast with 'Could not open device' + hint");
	test_bench(argv[1], argv[2]);
	return tap_done();
}
