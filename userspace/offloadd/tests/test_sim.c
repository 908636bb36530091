// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_sim.c - the `sim` backend through the public backend API, compared
 * with the scalar reference for every dtype x op, plus the API's job
 * validation (out-of-region, misaligned, overlapping, bad k/dtype/op),
 * batches larger than one kernel invocation, and n == 0.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../backend_api.h"
#include "../../../xrt_kernels/tests/tap.h"

static uint64_t rs = 0x123456789abcdefull;
static uint64_t rng(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

#define REGION (8u << 20)
static uint8_t *region;
static size_t used;

/* Carve a 4-byte aligned buffer from the region with a random gap. */
static void *carve(size_t bytes)
{
	size_t off = (used + 4 + 4 * (rng() % 8)) & ~(size_t)3;

	used = off + ((bytes + 3) & ~(size_t)3);
	if (used > REGION)
		abort();
	return region + off;
}

static void fill(void *p, size_t bytes)
{
	for (size_t i = 0; i < bytes; i++)
		((uint8_t *)p)[i] = (uint8_t)rng();
}

static struct gsync_offload_backend *open_sim(void)
{
	struct gsync_offload_backend *be = NULL;
	char err[256];

	if (gsync_offload_open("sim", NULL, &be, err, sizeof(err))) {
		tap_diag("open sim: %s", err);
		return NULL;
	}
	if (gsync_offload_map_region(be, region, REGION)) {
		tap_diag("map: %s", gsync_offload_last_error(be));
		gsync_offload_close(be);
		return NULL;
	}
	return be;
}

static void test_every_dtype_op(struct gsync_offload_backend *be)
{
	for (unsigned dt = 0; dt < GSYNC_RED_NDTYPES; dt++)
		for (unsigned op = 0; op < GSYNC_RED_NOPS; op++) {
			struct gsync_offload_job jobs[GSYNC_RED_MAX_K];
			unsigned es = gsync_red_elem_size(dt), bad = 0;
			int ret;

			used = 0;
			for (unsigned k = 1; k <= GSYNC_RED_MAX_K; k++) {
				struct gsync_offload_job *j = &jobs[k - 1];

				memset(j, 0, sizeof(*j));
				j->k = k;
				j->n = 1 + (uint32_t)(rng() % 3000);
				j->dtype = (uint8_t)dt;
				j->op = (uint8_t)op;
				for (unsigned r = 0; r < k; r++) {
					j->in[r] = carve(j->n * es);
					fill((void *)j->in[r], j->n * es);
				}
				j->out = carve(j->n * es);
			}
			ret = gsync_offload_run(be, jobs, GSYNC_RED_MAX_K);
			for (unsigned k = 1; k <= GSYNC_RED_MAX_K; k++) {
				struct gsync_offload_job *j = &jobs[k - 1];
				void *want = malloc((size_t)j->n * es);

				gsync_reduce_ref(want, j->in, j->k, j->n, dt, op);
				if (j->status || memcmp(want, j->out, (size_t)j->n * es)) {
					if (bad++ < 2)
						tap_diag("%s %s k=%u n=%u status %d mismatch",
							 gsync_red_dtype_name(dt),
							 gsync_red_op_name(op), k, j->n, j->status);
				}
				free(want);
			}
			tap_result(ret == 0 && bad == 0,
				   "sim backend %s %s k=1..16 equals reference",
				   gsync_red_dtype_name(dt), gsync_red_op_name(op));
		}
}

static void test_validation(struct gsync_offload_backend *be)
{
	static uint32_t outside[16];
	struct gsync_offload_job j[8];
	uint8_t *a, *b, *o;
	int ret;

	used = 0;
	a = carve(64);
	b = carve(64);
	o = carve(64);
	memset(j, 0, sizeof(j));
	for (int i = 0; i < 8; i++) {
		j[i].k = 2; j[i].n = 16; j[i].dtype = GSYNC_RED_FP32;
		j[i].op = GSYNC_RED_SUM; j[i].in[0] = a; j[i].in[1] = b; j[i].out = o;
	}
	j[0].in[1] = outside;                           /* not in region */
	j[1].out = a + 2;                               /* misaligned + overlap */
	j[2].out = a + 32;                              /* overlaps input a */
	j[3].k = 0;
	j[4].k = 17;
	j[5].dtype = 9;
	j[6].out = region + REGION - 32;                /* runs past the end */
	/* j[7] is valid */
	ret = gsync_offload_run(be, j, 8);
	int ok = ret == 7;
	for (int i = 0; i < 7; i++)
		ok &= j[i].status == -EINVAL;
	ok &= j[7].status == 0;
	tap_result(ok, "invalid jobs rejected with -EINVAL, valid one still runs (ret %d)", ret);
}

/* 600 jobs > GSYNC_OFFLOAD_MAX_BATCH: several kernel invocations. */
static void test_large_batch(struct gsync_offload_backend *be)
{
	enum { NJ = 600 };
	static struct gsync_offload_job j[NJ];
	struct gsync_offload_stats st0, st1;
	unsigned bad = 0;

	used = 0;
	gsync_offload_get_stats(be, &st0);
	for (int i = 0; i < NJ; i++) {
		memset(&j[i], 0, sizeof(j[i]));
		j[i].k = 3; j[i].n = 1 + (i % 5); j[i].dtype = GSYNC_RED_INT32;
		j[i].op = GSYNC_RED_SUM;
		for (int r = 0; r < 3; r++) {
			j[i].in[r] = carve(4 * j[i].n);
			fill((void *)j[i].in[r], 4 * j[i].n);
		}
		j[i].out = carve(4 * j[i].n);
	}
	int ret = gsync_offload_run(be, j, NJ);
	for (int i = 0; i < NJ; i++) {
		int32_t want[5];

		gsync_reduce_ref(want, j[i].in, 3, j[i].n, GSYNC_RED_INT32, GSYNC_RED_SUM);
		bad += j[i].status != 0 || memcmp(want, j[i].out, 4 * j[i].n) != 0;
	}
	gsync_offload_get_stats(be, &st1);
	tap_result(ret == 0 && bad == 0 && st1.batches - st0.batches == 3 &&
		   st1.jobs - st0.jobs == NJ,
		   "600 jobs split into 3 kernel invocations, all correct");
}

static void test_zero_len_and_unknown(void)
{
	struct gsync_offload_backend *be = open_sim(), *x = NULL;
	struct gsync_offload_job j;
	char err[256] = "";
	int ok;

	memset(&j, 0, sizeof(j));
	j.k = 1; j.n = 0; j.in[0] = region; j.out = region + 64;
	ok = be && gsync_offload_run(be, &j, 1) == 0 && j.status == 0;
	ok &= gsync_offload_open("nope", NULL, &x, err, sizeof(err)) == -ENOENT &&
	      !x && strstr(err, "unknown backend") != NULL;
	gsync_offload_close(be);
	tap_result(ok, "n == 0 is a no-op success; unknown backend name is refused");
}

int main(void)
{
	struct gsync_offload_backend *be;

	region = aligned_alloc(4096, REGION);
	if (!region)
		return 1;
	be = open_sim();
	if (!tap_result(be != NULL, "open sim backend and map a region"))
		return tap_done();
	test_every_dtype_op(be);
	test_validation(be);
	test_large_batch(be);
	gsync_offload_close(be);
	test_zero_len_and_unknown();
	free(region);
	return tap_done();
}
