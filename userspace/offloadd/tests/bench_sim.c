// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_sim.c - throughput of an offload backend (default: sim) per dtype
 * for k = 2, 4, 8, next to memcpy bandwidth measured in the same run.
 *
 * "in GB/s" counts the k input buffers read per second (the rate at which
 * the backend can absorb inbound streams); "out GB/s" the reduced output
 * written.  memcpy GB/s is bytes copied per second on a buffer of the same
 * order of size (one read + one write per byte).
 *
 * usage: bench_sim [--backend sim|xrt] [--xclbin PATH] [--quick]
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../backend_api.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double memcpy_gbps(size_t bytes, double min_s)
{
	char *a = malloc(bytes), *b = malloc(bytes);
	double t0, t;
	size_t iters = 0;

	if (!a || !b)
		exit(1);
	memset(a, 1, bytes);
	memset(b, 2, bytes);
	t0 = now();
	do {
		memcpy(iters & 1 ? a : b, iters & 1 ? b : a, bytes);
		iters++;
		t = now() - t0;
	} while (t < min_s);
	/* keep the copies observable */
	if (a[bytes / 2] == 3)
		puts("");
	free(a);
	free(b);
	return (double)bytes * iters / t / 1e9;
}

int main(int argc, char **argv)
{
	const char *name = "sim", *xclbin = NULL;
	struct gsync_offload_cfg cfg = { 0 };
	struct gsync_offload_backend *be;
	const size_t per_input = 4u << 20;      /* bytes per input buffer */
	const unsigned ks[3] = { 2, 4, 8 };
	double min_s = 0.3;
	char err[512];
	unsigned char *region;
	size_t region_len = per_input * 9 + 4096;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--backend") && i + 1 < argc)
			name = argv[++i];
		else if (!strcmp(argv[i], "--xclbin") && i + 1 < argc)
			xclbin = argv[++i];
		else if (!strcmp(argv[i], "--quick"))
			min_s = 0.05;
		else {
			fprintf(stderr, "usage: %s [--backend sim|xrt] [--xclbin PATH] [--quick]\n",
				argv[0]);
			return 2;
		}
	}
	cfg.xclbin = xclbin;
	if (gsync_offload_open(name, &cfg, &be, err, sizeof(err))) {
		fprintf(stderr, "bench: cannot open backend: %s\n", err);
		return 1;
	}
	region = aligned_alloc(4096, region_len);
	if (!region || gsync_offload_map_region(be, region, region_len)) {
		fprintf(stderr, "bench: cannot map region: %s\n", gsync_offload_last_error(be));
		return 1;
	}
	for (size_t i = 0; i < region_len; i++)
		region[i] = (unsigned char)(i * 2654435761u >> 13);

	printf("# backend %s; %zu MiB per input; memcpy on %zu MiB\n", name,
	       per_input >> 20, (size_t)64);
	double mc = memcpy_gbps(64u << 20, min_s);
	printf("memcpy: %.2f GB/s\n", mc);
	printf("%-6s %-4s %3s %10s %10s %8s\n", "dtype", "op", "k", "in GB/s", "out GB/s",
	       "vs memcpy");
	for (unsigned dt = 0; dt < GSYNC_RED_NDTYPES; dt++)
		for (unsigned ki = 0; ki < 3; ki++) {
			struct gsync_offload_job j = { 0 };
			unsigned k = ks[ki];
			double t0, t;
			size_t iters = 0;

			j.k = k;
			j.dtype = (uint8_t)dt;
			j.op = GSYNC_RED_SUM;
			j.n = (uint32_t)(per_input / gsync_red_elem_size(dt));
			for (unsigned r = 0; r < k; r++)
				j.in[r] = region + r * per_input;
			j.out = region + 8 * per_input;
			t0 = now();
			do {
				if (gsync_offload_run(be, &j, 1) != 0) {
					fprintf(stderr, "bench: run failed: %d %s\n", j.status,
						gsync_offload_last_error(be));
					return 1;
				}
				iters++;
				t = now() - t0;
			} while (t < min_s);
			double in = (double)per_input * k * iters / t / 1e9;
			double out = (double)per_input * iters / t / 1e9;
			printf("%-6s %-4s %3u %10.3f %10.3f %7.1f%%\n", gsync_red_dtype_name(dt),
			       "sum", k, in, out, 100.0 * in / mc);
		}
	printf("memcpy: %.2f GB/s (again, after the runs)\n", memcpy_gbps(64u << 20, min_s));
	gsync_offload_close(be);
	free(region);
	return 0;
}
