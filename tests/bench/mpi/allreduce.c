// SPDX-License-Identifier: GPL-2.0-only
/*
 * mpi-allreduce: time MPI_Allreduce (fp32 sum) the way gsync's WAN benchmark
 * states its figures: for each iteration, the time from a common start to
 * the moment the last rank holds the result.
 *
 *   mpi-allreduce [--sizes LIST] [--iters N] [--warmup N] [--slack-ms MS]
 *
 * LIST is comma-separated byte counts with an optional k, M or G suffix
 * (powers of two), each a multiple of 4. All ranks run in one machine (the
 * island namespaces of one VM), so they share CLOCK_MONOTONIC: rank 0 picks
 * a start time SLACK ms ahead and broadcasts it, every rank sleeps until
 * then and calls MPI_Allreduce, and the latest completion time (MPI_MAX)
 * minus the start is the iteration's time. A rank that learns the start
 * time only after it passed would stretch the figure: the iteration is then
 * repeated with twice the slack. Nothing overlaps the measured call.
 *
 * Inputs are small integers, so the fp32 sum is exact in any order; every
 * rank checks every element, and any mismatch fails the run (exit 1).
 * Rank 0 prints one line per iteration and one summary line per size:
 *   mpi-allreduce: bytes=B iter=I time_s=T
 *   mpi-allreduce: bytes=B nranks=K iters=N median_s=T min_s=T max_s=T check=ok
 */
#include <errno.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end || !v || v % sizeof(float) || v > (1ULL << 31))
		return -1;
	*out = (size_t)v;
	return 0;
}

static void usage_exit(int rank, const char *why)
{
	if (rank == 0)
		fprintf(stderr, "mpi-allreduce: %s\nusage: mpi-allreduce [--sizes LIST] "
			"[--iters N] [--warmup N] [--slack-ms MS]\n", why);
	MPI_Finalize();
	exit(2);
}

/* Element i of rank r: (r + 1) * (i % 1000 + 1); the sum over k ranks is
 * k (k + 1) / 2 * (i % 1000 + 1), below 2^24 (exact in fp32) for k <= 182. */
static float input(int rank, size_t i)
{
	return (float)((rank + 1) * (int)(i % 1000 + 1));
}

static int check(const float *buf, size_t n, int nranks, int rank, size_t bytes)
{
	float tri = (float)(nranks * (nranks + 1) / 2);

	for (size_t i = 0; i < n; i++) {
		float want = tri * (float)(i % 1000 + 1);

		if (buf[i] != want) {
			fprintf(stderr, "mpi-allreduce: rank %d, %zu bytes: element %zu is %.9g, want %.9g\n",
				rank, bytes, i, (double)buf[i], (double)want);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *sizes = "64k,1M,4M";
	long iters = 3, warmup = 1, slack_ms = 1000;
	int rank, nranks, bad = 0;
	char *list, *tok, *save;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	for (int a = 1; a < argc; a++) {
		const char *v = a + 1 < argc ? argv[a + 1] : NULL;
		char *end;
		long *dst = NULL;

		if (!strcmp(argv[a], "--sizes") && v)
			sizes = v;
		else if (!strcmp(argv[a], "--iters") && v)
			dst = &iters;
		else if (!strcmp(argv[a], "--warmup") && v)
			dst = &warmup;
		else if (!strcmp(argv[a], "--slack-ms") && v)
			dst = &slack_ms;
		else
			usage_exit(rank, "bad arguments");
		if (dst) {
			errno = 0;
			*dst = strtol(v, &end, 10);
			if (errno || *end || *dst < 0 || *dst > 1000000)
				usage_exit(rank, "bad number");
		}
		a++;
	}
	if (iters < 1 || slack_ms < 1)
		usage_exit(rank, "--iters and --slack-ms must be at least 1");

	list = strdup(sizes);
	if (!list)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t bytes, n;
		float *in, *out;
		double *times;
		double slack = (double)slack_ms / 1000.0;

		if (parse_size(tok, &bytes))
			usage_exit(rank, "sizes must be positive multiples of 4 bytes (k, M, G suffixes)");
		n = bytes / sizeof(float);
		in = malloc(bytes);
		out = malloc(bytes);
		times = calloc((size_t)iters, sizeof(*times));
		if (!in || !out || !times)
			MPI_Abort(MPI_COMM_WORLD, 1);
		for (size_t i = 0; i < n; i++)
			in[i] = input(rank, i);
		for (long it = -warmup; it < iters; it++) {
			double start, late, end, late_max, end_max;

			memset(out, 0xff, bytes);	/* NaN: a skipped element fails the check */
			MPI_Barrier(MPI_COMM_WORLD);
			start = mono() + slack;
			MPI_Bcast(&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
			late = mono() - start;
			sleep_until(start);
			MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
			end = mono();
			bad |= check(out, n, nranks, rank, bytes);
			MPI_Allreduce(&late, &late_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
			MPI_Allreduce(&end, &end_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
			if (late_max > 0) {
				if (rank == 0)
					fprintf(stderr, "mpi-allreduce: a rank learnt the start %.3f s late; "
						"repeating with %.0f ms slack\n", late_max, slack * 2000);
				slack *= 2;
				it--;
				continue;
			}
			if (it >= 0) {
				times[it] = end_max - start;
				if (rank == 0)
					printf("mpi-allreduce: bytes=%zu iter=%ld time_s=%.6f\n",
					       bytes, it, times[it]);
			}
			fflush(stdout);
		}
		MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
		qsort(times, (size_t)iters, sizeof(*times), cmp_double);
		if (rank == 0) {
			double med = iters % 2 ? times[iters / 2] :
				(times[iters / 2 - 1] + times[iters / 2]) / 2;

			printf("mpi-allreduce: bytes=%zu nranks=%d iters=%ld median_s=%.6f "
			       "min_s=%.6f max_s=%.6f check=%s\n", bytes, nranks, iters, med,
			       times[0], times[iters - 1], bad ? "MISMATCH" : "ok");
			fflush(stdout);
		}
		free(in);
		free(out);
		free(times);
		if (bad)
			break;
	}
	free(list);
	MPI_Finalize();
	return bad ? 1 : 0;
}
