// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * opts.c - gsync-offloadd command line.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

void agent_usage(FILE *f, const char *prog)
{
	fprintf(f,
"Usage: %s [OPTION]...\n"
"\n"
"gsync-offloadd is the FPGA offload agent of gsync. It registers with the\n"
"gsync kernel module through " GSYNC_OFFLOAD_DEV ", maps the module's\n"
"shared job region, and computes the all-reduce reductions the module\n"
"hands it (k input buffers -> one output) on a reduction backend, using an\n"
"io_uring event loop (uring_cmd FETCH / COMMIT_FETCH). Results are\n"
"bit-identical to the module's CPU engine. If the agent is stopped, is\n"
"killed, or misses the module's deadline (gsync parameter\n"
"offload_timeout_ms), the module computes the jobs on the CPU instead;\n"
"nothing is lost. Sockets choose an engine with the GSYNC_ENGINE option or\n"
"the module parameter engine=cpu|offload|auto.\n"
"\n"
"Backends:\n"
"  sim   the HLS kernel's own C++ source run on the CPU (no card needed)\n"
"  xrt   a Xilinx card through XRT, loading --xclbin; without a card it\n"
"        fails at start with the reason\n"
"  auto  xrt when --xclbin is given and the card opens, else sim (default)\n"
"\n"
"Options:\n"
"  -b, --backend=NAME      auto, sim or xrt (default auto)\n"
"  -x, --xclbin=PATH       xclbin with the gsync_reduce kernel (xrt)\n"
"      --xrt-device=N      XRT device index (default 0)\n"
"  -d, --device=PATH       offload device (default " GSYNC_OFFLOAD_DEV ")\n"
"  -s, --slots=N           jobs in flight, 1..%u (default 64)\n"
"  -S, --slot-size=BYTES   bytes per job slot; k and M suffixes; a multiple\n"
"                          of 4096, 64k..64M (default 1M). A job larger\n"
"                          than a slot is cut into pieces by the module.\n"
"  -k, --max-k=N           accept jobs of at most N inputs, 1..%u (default\n"
"                          %u, the HLS kernel's limit); the module computes\n"
"                          larger jobs itself\n"
"  -D, --daemon            detach from the terminal; log to syslog unless\n"
"                          --log-file is given\n"
"  -p, --pidfile=PATH      write the process id here (removed at exit)\n"
"  -l, --log-file=PATH     append the log to PATH\n"
"  -v, --verbose           log more (repeat for debug messages)\n"
"  -q, --quiet             log errors only\n"
"      --delay-ms=N        testing: wait N ms before computing each batch\n"
"      --fail-every=N      testing: report failure (-EIO) for every Nth job\n"
"  -h, --help              print this help and exit\n"
"  -V, --version           print the version and exit\n"
"\n"
"Signals: SIGTERM and SIGINT stop the agent cleanly: it sends STOP, the\n"
"module takes back every job the agent holds and computes it on the CPU,\n"
"and the agent exits with status 0.\n"
"\n"
"Exit status: 0 after a clean stop, 1 on an error (logged), 2 on a usage\n"
"error.\n"
"\n"
"Requires CAP_SYS_ADMIN. Counters: " GSYNC_OFFLOAD_STATS ".\n"
"See docs/offload.md.\n",
		prog, GSYNC_OFFLOAD_MAX_SLOTS, GSYNC_RED_MAX_K, GSYNC_RED_MAX_K);
}

int agent_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end == 'k' || *end == 'K') {
		if (v > UINT64_MAX >> 10)
			return -1;
		v <<= 10;
		end++;
	} else if (*end == 'm' || *end == 'M') {
		if (v > UINT64_MAX >> 20)
			return -1;
		v <<= 20;
		end++;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

static int parse_uint(const char *s, unsigned long min, unsigned long max,
		      unsigned long *out)
{
	uint64_t v;

	if (agent_parse_size(s, &v) || strpbrk(s, "kKmM") || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int agent_parse_args(int argc, char **argv, struct agent_opts *o,
		     char *err, size_t errlen)
{
	enum { OPT_XRT_DEV = 256, OPT_DELAY, OPT_FAIL };
	static const struct option longopts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "xclbin", required_argument, NULL, 'x' },
		{ "xrt-device", required_argument, NULL, OPT_XRT_DEV },
		{ "device", required_argument, NULL, 'd' },
		{ "slots", required_argument, NULL, 's' },
		{ "slot-size", required_argument, NULL, 'S' },
		{ "max-k", required_argument, NULL, 'k' },
		{ "daemon", no_argument, NULL, 'D' },
		{ "pidfile", required_argument, NULL, 'p' },
		{ "log-file", required_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "delay-ms", required_argument, NULL, OPT_DELAY },
		{ "fail-every", required_argument, NULL, OPT_FAIL },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	uint64_t size;
	int c;

	memset(o, 0, sizeof(*o));
	o->backend = "auto";
	o->device = GSYNC_OFFLOAD_DEV;
	o->slots = 64;
	o->slot_bytes = 1U << 20;
	o->max_k = GSYNC_RED_MAX_K;
	o->verbosity = LOG_INFO_;
	err[0] = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":b:x:d:s:S:k:Dp:l:vqhV", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'b':
			if (strcmp(optarg, "auto") && strcmp(optarg, "sim") &&
			    strcmp(optarg, "xrt")) {
				snprintf(err, errlen, "unknown backend '%s' (auto, sim or xrt)", optarg);
				return -1;
			}
			o->backend = optarg;
			break;
		case 'x':
			o->xclbin = optarg;
			break;
		case OPT_XRT_DEV:
			if (parse_uint(optarg, 0, 1024, &v)) {
				snprintf(err, errlen, "bad --xrt-device '%s'", optarg);
				return -1;
			}
			o->xrt_device = v;
			break;
		case 'd':
			o->device = optarg;
			break;
		case 's':
			if (parse_uint(optarg, 1, GSYNC_OFFLOAD_MAX_SLOTS, &v)) {
				snprintf(err, errlen, "--slots must be 1..%u, not '%s'",
					 GSYNC_OFFLOAD_MAX_SLOTS, optarg);
				return -1;
			}
			o->slots = v;
			break;
		case 'S':
			if (agent_parse_size(optarg, &size) ||
			    size < GSYNC_OFFLOAD_MIN_SLOT_BYTES ||
			    size > GSYNC_OFFLOAD_MAX_SLOT_BYTES || size % 4096) {
				snprintf(err, errlen,
					 "--slot-size must be a multiple of 4096 in 64k..64M, not '%s'",
					 optarg);
				return -1;
			}
			o->slot_bytes = size;
			break;
		case 'k':
			if (parse_uint(optarg, 1, GSYNC_RED_MAX_K, &v)) {
				snprintf(err, errlen, "--max-k must be 1..%u, not '%s'",
					 GSYNC_RED_MAX_K, optarg);
				return -1;
			}
			o->max_k = v;
			break;
		case 'D':
			o->daemon = 1;
			break;
		case 'p':
			o->pidfile = optarg;
			break;
		case 'l':
			o->log_file = optarg;
			break;
		case 'v':
			if (o->verbosity < LOG_DEBUG_)
				o->verbosity++;
			break;
		case 'q':
			o->verbosity = LOG_ERR_;
			break;
		case OPT_DELAY:
			if (parse_uint(optarg, 0, 600000, &v)) {
				snprintf(err, errlen, "bad --delay-ms '%s'", optarg);
				return -1;
			}
			o->delay_ms = v;
			break;
		case OPT_FAIL:
			if (parse_uint(optarg, 0, UINT_MAX, &v)) {
				snprintf(err, errlen, "bad --fail-every '%s'", optarg);
				return -1;
			}
			o->fail_every = v;
			break;
		case 'h':
			o->help = 1;
			break;
		case 'V':
			o->version = 1;
			break;
		case ':':
			snprintf(err, errlen, "option '%s' needs an argument",
				 argv[optind - 1]);
			return -1;
		default:
			snprintf(err, errlen, "unknown option '%s'", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (!strcmp(o->backend, "xrt") && !o->xclbin) {
		snprintf(err, errlen, "--backend=xrt needs --xclbin");
		return -1;
	}
	if (GSYNC_OFFLOAD_REGION_BYTES(o->slots, o->slot_bytes) >
	    GSYNC_OFFLOAD_MAX_REGION) {
		snprintf(err, errlen, "--slots x --slot-size exceeds the %llu-byte region limit",
			 (unsigned long long)GSYNC_OFFLOAD_MAX_REGION);
		return -1;
	}
	return 0;
}
