// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_agent.c - gsync-offloadd's pure parts on the host: command line
 * parsing and the descriptor checks that keep the backend inside the
 * region; and a kernel-shaped descriptor run through the sim backend and
 * compared with the reference, which is what the agent does per job.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../agent.h"
#include "../../../xrt_kernels/tests/tap.h"

static int parse(struct agent_opts *o, char *err, ...)
{
	char *argv[32];
	va_list ap;
	int argc = 0;

	argv[argc++] = "gsync-offloadd";
	va_start(ap, err);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	return agent_parse_args(argc, argv, o, err, 256);
}

static void test_args(void)
{
	struct agent_opts o;
	char err[256];
	uint64_t v;

	tap_result(!parse(&o, err, NULL) && !strcmp(o.backend, "auto") &&
		   o.slots == 64 && o.slot_bytes == 1U << 20 && o.max_k == 16 &&
		   !o.daemon && o.verbosity == LOG_INFO_ &&
		   !strcmp(o.device, GSYNC_OFFLOAD_DEV),
		   "defaults");
	tap_result(!parse(&o, err, "-b", "sim", "-s", "8", "-S", "256k", "-k",
			  "4", "-D", "-p", "/tmp/p", "-l", "/tmp/l", "-vv",
			  "--delay-ms=5", "--fail-every", "3", "-d", "/dev/x",
			  NULL) &&
		   !strcmp(o.backend, "sim") && o.slots == 8 &&
		   o.slot_bytes == 256 << 10 && o.max_k == 4 && o.daemon &&
		   !strcmp(o.pidfile, "/tmp/p") && !strcmp(o.log_file, "/tmp/l") &&
		   o.verbosity == LOG_DEBUG_ && o.delay_ms == 5 &&
		   o.fail_every == 3 && !strcmp(o.device, "/dev/x"),
		   "every option parsed");
	tap_result(!parse(&o, err, "--backend=xrt", "--xclbin=/x.xclbin",
			  "--xrt-device=1", NULL) &&
		   !strcmp(o.xclbin, "/x.xclbin") && o.xrt_device == 1,
		   "xrt options");
	tap_result(parse(&o, err, "--backend=xrt", NULL) &&
		   strstr(err, "--xclbin"), "xrt without --xclbin refused: %s", err);
	tap_result(parse(&o, err, "-b", "fpga", NULL) && strstr(err, "fpga"),
		   "unknown backend refused: %s", err);
	tap_result(parse(&o, err, "-s", "0", NULL) && parse(&o, err, "-s", "1025", NULL) &&
		   parse(&o, err, "-s", "x", NULL) && parse(&o, err, "-s", "-1", NULL) &&
		   parse(&o, err, "-s", "4k", NULL),
		   "bad --slots refused");
	tap_result(parse(&o, err, "-S", "60k", NULL) && parse(&o, err, "-S", "65M", NULL) &&
		   parse(&o, err, "-S", "65537", NULL) && parse(&o, err, "-S", "1G", NULL) &&
		   !parse(&o, err, "-S", "64k", NULL) && !parse(&o, err, "-s", "1", "-S", "64M", NULL),
		   "--slot-size limits and alignment");
	tap_result(parse(&o, err, "-k", "17", NULL) && parse(&o, err, "-k", "0", NULL) &&
		   !parse(&o, err, "-k", "16", NULL), "--max-k 1..16");
	tap_result(parse(&o, err, "-s", "1024", "-S", "64M", NULL) &&
		   strstr(err, "region"), "region limit: %s", err);
	tap_result(parse(&o, err, "--bogus", NULL) && strstr(err, "--bogus"),
		   "unknown option: %s", err);
	tap_result(parse(&o, err, "-s", NULL) && strstr(err, "argument"),
		   "missing argument: %s", err);
	tap_result(parse(&o, err, "extra", NULL) && strstr(err, "extra"),
		   "stray argument: %s", err);
	tap_result(!parse(&o, err, "-h", NULL) && o.help &&
		   !parse(&o, err, "--version", NULL) && o.version, "--help, --version");
	tap_result(!agent_parse_size("1M", &v) && v == 1 << 20 &&
		   !agent_parse_size("3k", &v) && v == 3072 &&
		   agent_parse_size("", &v) && agent_parse_size("1T", &v) &&
		   agent_parse_size("99999999999999999999", &v) &&
		   agent_parse_size("18014398509481984M", &v),
		   "sizes, overflow");
}

#define NSLOTS 4
#define SLOT (64u << 10)
static uint8_t *region;
static size_t region_len;

/* A descriptor laid out as the kernel does for slot s. */
static struct gsync_offload_desc kdesc(uint32_t s, uint32_t k, uint32_t n,
				       uint8_t dtype, uint8_t op)
{
	struct gsync_offload_desc d = { 0 };
	uint64_t stride = ((uint64_t)n * gsync_red_elem_size(dtype) + 63) & ~63ULL;

	d.job_id = 100 + s;
	d.k = k;
	d.count = n;
	d.dtype = dtype;
	d.op = op;
	d.avg_divisor = op == GSYNC_RED_AVG ? k : 1;
	d.in_off = GSYNC_OFFLOAD_DATA_OFF(NSLOTS) + (uint64_t)s * SLOT;
	d.in_stride = stride;
	d.out_off = d.in_off + k * stride;
	return d;
}

static void test_desc(void)
{
	struct gsync_offload_job j;
	struct gsync_offload_desc d, b;

	d = kdesc(1, 3, 1001, GSYNC_RED_BF16, GSYNC_RED_SUM);
	tap_result(!agent_job_from_desc(&d, region, region_len, 16, &j) &&
		   j.k == 3 && j.n == 1001 && j.in[2] == region + d.in_off + 2 * d.in_stride &&
		   j.out == region + d.out_off, "kernel-shaped descriptor accepted");
	b = d; b.job_id = 0;
	tap_result(agent_job_from_desc(&b, region, region_len, 16, &j) == -EINVAL, "job id 0");
	b = d; b.flags = 1;
	tap_result(agent_job_from_desc(&b, region, region_len, 16, &j) == -EINVAL, "flags");
	b = d; b.reserved[1] = 1;
	tap_result(agent_job_from_desc(&b, region, region_len, 16, &j) == -EINVAL, "reserved");
	b = d; b.dtype = 4;
	tap_result(agent_job_from_desc(&b, region, region_len, 16, &j) == -EINVAL, "dtype");
	b = d; b.op = 4;
	tap_result(agent_job_from_desc(&b, region, region_len, 16, &j) == -EINVAL, "op");
	b = d; b.count = 0;
	tap_result(agent_job_from_desc(&b, region, region_len, 16, &j) == -EINVAL, "count 0");
	b = d; b.k = 0;
	tap_result(agent_job_from_desc(&b, region, region_len, 16, &j) == -EINVAL, "k 0");
	b = kdesc(0, 17, 10, GSYNC_RED_FP32, GSYNC_RED_SUM);
	tap_result(agent_job_from_desc(&b, region, region_len, 16, &j) == -EOPNOTSUPP,
		   "k 17 > HLS limit: refused, not invalid");
	b = kdesc(0, 5, 10, GSYNC_RED_FP32, GSYNC_RED_SUM);
	tap_result(agent_job_from_desc(&b, region, region_len, 4, &j) == -EOPNOTSUPP,
		   "k above --max-k");
	b = kdesc(0, 4, 10, GSYNC_RED_FP32, GSYNC_RED_AVG);
	b.avg_divisor = 3;
	tap_result(agent_job_from_desc(&b, region, region_len, 16, &j) == -EOPNOTSUPP,
		   "avg with divisor != k");
	b = d; b.out_off = region_len - 4;
	tap_result(agent_job_from_desc(&b, region, region_len, 16, &j) == -EINVAL,
		   "output past the region");
	b = d; b.in_off = region_len;
	tap_result(agent_job_from_desc(&b, region, region_len, 16, &j) == -EINVAL,
		   "input past the region");
	b = d; b.in_stride = UINT64_MAX / 2;
	tap_result(agent_job_from_desc(&b, region, region_len, 16, &j) == -EINVAL,
		   "stride overflow");
	b = d; b.in_stride = 64;
	tap_result(agent_job_from_desc(&b, region, region_len, 16, &j) == -EINVAL,
		   "stride shorter than a buffer");
	b = d; b.out_off = d.in_off + d.in_stride;
	tap_result(agent_job_from_desc(&b, region, region_len, 16, &j) == -EINVAL,
		   "output overlapping an input");
	b = d; b.in_off += 2;
	tap_result(agent_job_from_desc(&b, region, region_len, 16, &j) == -EINVAL,
		   "misaligned input");
}

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (uint32_t)(rs >> 16);
}

/* What the agent does per batch: desc -> job -> sim, against the reference. */
static void test_sim_batch(void)
{
	struct gsync_offload_backend *be;
	struct gsync_offload_job jobs[NSLOTS];
	char err[256];
	int dt, op, bad = 0;

	if (gsync_offload_open("sim", NULL, &be, err, sizeof(err)) ||
	    gsync_offload_map_region(be, region, region_len)) {
		tap_result(0, "sim backend opens: %s", err);
		return;
	}
	for (dt = 0; dt < GSYNC_RED_NDTYPES; dt++) {
		for (op = 0; op < GSYNC_RED_NOPS; op++) {
			unsigned es = gsync_red_elem_size(dt), s, r;
			const void *in[16];
			uint8_t *want = malloc(SLOT);

			for (s = 0; s < NSLOTS; s++) {
				uint32_t k = 1 + s * 5, n = 1 + rnd() % 900;
				struct gsync_offload_desc d = kdesc(s, k, n, dt, op);
				size_t i;

				for (i = 0; i < k * d.in_stride; i++)
					region[d.in_off + i] = rnd();
				if (agent_job_from_desc(&d, region, region_len, 16, &jobs[s]))
					bad++;
			}
			if (gsync_offload_run(be, jobs, NSLOTS))
				bad++;
			for (s = 0; s < NSLOTS && want; s++) {
				for (r = 0; r < jobs[s].k; r++)
					in[r] = jobs[s].in[r];
				gsync_reduce_ref(want, in, jobs[s].k, jobs[s].n, dt, op);
				if (jobs[s].status ||
				    memcmp(want, jobs[s].out, (size_t)jobs[s].n * es))
					bad++;
			}
			free(want);
		}
	}
	tap_result(!bad, "descriptor -> sim batch equals the reference, every dtype x op, k 1..16");
	gsync_offload_close(be);
}

int main(void)
{
	region_len = GSYNC_OFFLOAD_REGION_BYTES(NSLOTS, SLOT);
	region = aligned_alloc(4096, region_len);
	if (!region)
		return 1;
	memset(region, 0, region_len);
	test_args();
	test_desc();
	test_sim_batch();
	free(region);
	return tap_done();
}
