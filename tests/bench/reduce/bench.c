// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of the CPU reduction (kmod/reduce_cpu*.c built in userspace):
 * GB/s per dtype, implementation and k (2, 4, 8), printed next to memcpy
 * bandwidth measured in the same run, and the ratio to the memory-bandwidth
 * bound (docs/reduction-cpu.md explains it):
 *
 *   moved = (k + 1) * n * size bytes per reduction (k reads, one write)
 *   bound = memcpy's moved bytes per second (2 * n per copy of n bytes)
 *   ratio = reduction moved-bytes per second / bound
 *
 *   gsync-reduce-bench [-m MiB per buffer] [-r repetitions] [-a]
 *   (-a: every op, not just sum; -s: include the scalar implementation)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../../kmod/reduce_cpu.h"
#include "../../../kmod/tests/reduce_oracle.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *xalloc(size_t bytes)
{
	void *p;

	if (posix_memalign(&p, 4096, bytes)) {
		perror("posix_memalign");
		exit(2);
	}
	memset(p, 0, bytes);	/* fault the pages in before timing */
	return p;
}

/* Best memcpy bandwidth over reps copies, counting read + write. */
static double memcpy_gbs(void *dst, const void *src, size_t bytes,
			 unsigned int reps)
{
	double best = 1e9, t;
	unsigned int r;

	for (r = 0; r < reps; r++) {
		t = now();
		memcpy(dst, src, bytes);
		t = now() - t;
		best = t < best ? t : best;
	}
	return 2.0 * bytes / best / 1e9;
}

int main(int argc, char **argv)
{
	static const unsigned int ks[] = { 2, 4, 8 };
	size_t mib = 64, bytes, n;
	unsigned int reps = 5, r, dt, op, ki, j, nops = 1;
	int c, with_scalar = 0;
	unsigned char *in[8], *out, *src, *dst;
	const void *inp[8];
	double best, t, memcpy_bw;
	uint64_t seed = 1;
	enum gsync_reduce_impl impl;

	while ((c = getopt(argc, argv, "m:r:as")) != -1) {
		switch (c) {
		case 'm':
			mib = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			reps = strtoul(optarg, NULL, 0);
			break;
		case 'a':
			nops = GSYNC_REDOP_MAX;
			break;
		case 's':
			with_scalar = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-m MiB] [-r reps] [-a] [-s]\n",
				argv[0]);
			return 2;
		}
	}
	bytes = mib << 20;
	for (j = 0; j < 8; j++) {
		in[j] = xalloc(bytes);
		inp[j] = in[j];
	}
	out = xalloc(bytes);
	src = xalloc(2 * bytes);
	dst = xalloc(2 * bytes);
	memset(src, 1, 2 * bytes);

	memcpy_bw = memcpy_gbs(dst, src, 2 * bytes, reps);
	printf("buffers: %zu MiB each, best of %u; memcpy %zu MiB: %.2f GB/s moved (read + write)\n",
	       mib, reps, 2 * mib, memcpy_bw);
	printf("%-6s %-5s %-4s %-3s %10s %10s %7s\n", "impl", "dtype", "op", "k",
	       "out GB/s", "moved GB/s", "ratio");

	for (dt = 0; dt < GSYNC_DTYPE_MAX; dt++) {
		n = bytes / gsync_reduce_esize(dt);
		for (j = 0; j < 8; j++)
			gsync_rng_fill(&seed, in[j], n, dt);
		for (impl = GSYNC_REDUCE_IMPL_SCALAR; impl < GSYNC_REDUCE_NIMPL;
		     impl++) {
			if (!gsync_reduce_impl_usable(impl) ||
			    (impl == GSYNC_REDUCE_IMPL_SCALAR && !with_scalar))
				continue;
			for (op = 0; op < nops; op++) {
				for (ki = 0; ki < 3; ki++) {
					struct gsync_reduce_job job = {
						.in = inp, .k = ks[ki],
						.out = out, .count = n,
						.dtype = dt, .op = op,
						.avg_divisor = ks[ki],
					};
					double moved = (double)(ks[ki] + 1) * bytes;

					best = 1e9;
					for (r = 0; r < reps; r++) {
						t = now();
						gsync_reduce_cpu_run(&job, impl);
						t = now() - t;
						best = t < best ? t : best;
					}
					printf("%-6s %-5s %-4s %-3u %10.2f %10.2f %7.2f\n",
					       gsync_reduce_impl_name(impl),
					       gsync_red_dtype_name(dt),
					       gsync_red_op_name(op), ks[ki],
					       bytes / best / 1e9,
					       moved / best / 1e9,
					       moved / best / 1e9 / memcpy_bw);
				}
			}
		}
	}
	t = memcpy_gbs(dst, src, 2 * bytes, reps);
	printf("memcpy again at the end: %.2f GB/s (ratios above use the first)\n",
	       t);
	return 0;
}
