// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of the CPU reduction: kmod/reduce_cpu*.c built in userspace
 * (with ASan and UBSan by the Makefile) against the reference, every
 * implementation this CPU has, on random and special inputs. TAP output;
 * exit status 1 if anything differs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../kmod/reduce_cpu.h"
#include "../../../kmod/tests/reduce_oracle.h"
#include "../../../xrt_kernels/tests/tap.h"

#define GUARD 64	/* bytes checked on both sides of the output */

struct bufs {
	unsigned char *in[GSYNC_REDUCE_MAX_K];
	const void *inp[GSYNC_REDUCE_MAX_K];
	unsigned char *out, *want;
};

static uint64_t seed = 0x9e3779b97f4a7c15ULL;

/*
 * Run one job with impl; compare with the oracle. off (in elements) makes
 * the buffers start off any vector alignment. Returns 1 if equal.
 */
static int run_case(enum gsync_reduce_impl impl, unsigned int dtype,
		    unsigned int op, unsigned int k, size_t n, u32 divisor,
		    unsigned int off, int fill)
{
	static struct bufs b;
	unsigned int es = gsync_reduce_esize(dtype), j;
	size_t bytes = n * es, i;
	struct gsync_reduce_job job = {
		.in = b.inp, .k = k, .count = n, .dtype = dtype, .op = op,
		.avg_divisor = divisor,
	};
	int ok;

	for (j = 0; j < k; j++) {
		if (fill) {
			free(b.in[j]);
			b.in[j] = malloc(bytes + off * es);
			gsync_rng_fill(&seed, b.in[j] + off * es, n, dtype);
		}
		b.inp[j] = b.in[j] + off * es;
	}
	free(b.out);
	free(b.want);
	b.out = malloc(bytes + 2 * GUARD);
	b.want = malloc(bytes);
	memset(b.out, 0xa5, bytes + 2 * GUARD);
	job.out = b.out + GUARD + off * es;
	if (off * es >= GUARD)
		abort();
	gsync_oracle(b.want, b.inp, k, n, dtype, op, divisor);
	if (gsync_reduce_cpu_run(&job, impl))
		return 0;
	ok = !memcmp(job.out, b.want, bytes);
	for (i = 0; i < GUARD + off * es; i++)
		ok &= b.out[i] == 0xa5;
	for (i = 0; i < GUARD - off * es; i++)
		ok &= ((unsigned char *)job.out)[bytes + i] == 0xa5;
	if (!ok) {
		for (i = 0; i < n; i++) {
			if (memcmp((char *)job.out + i * es, b.want + i * es, es)) {
				u32 g = 0, w = 0;

				memcpy(&g, (char *)job.out + i * es, es);
				memcpy(&w, b.want + i * es, es);
				tap_diag("%s %s k=%u n=%zu d=%u: [%zu] got %08x want %08x",
					 gsync_red_dtype_name(dtype),
					 gsync_red_op_name(op), k, n, divisor,
					 i, g, w);
				break;
			}
		}
	}
	return ok;
}

/* The fallback oracle agrees with gsync_reduce_ref where both apply. */
static void test_oracle(void)
{
	unsigned int dt, op, k;
	int ok = 1;

	for (dt = 0; dt < GSYNC_RED_NDTYPES; dt++)
		for (op = 0; op < GSYNC_RED_NOPS; op++)
			for (k = 1; k <= GSYNC_RED_MAX_K; k++) {
				u32 in[GSYNC_RED_MAX_K][64], a[64], b[64];
				const void *p[GSYNC_RED_MAX_K];
				size_t i;
				unsigned int j;

				for (j = 0; j < k; j++) {
					gsync_rng_fill(&seed, in[j], 64, dt);
					p[j] = in[j];
				}
				gsync_reduce_ref(a, p, k, 64, dt, op);
				for (i = 0; i < 64; i++)
					gsync_oracle_elem(b, p, k, i, dt, op, k);
				ok &= !memcmp(a, b, 64 * gsync_reduce_esize(dt));
			}
	tap_result(ok, "fallback oracle == gsync_reduce_ref (k <= 16)");
}

static void test_impl(enum gsync_reduce_impl impl)
{
	static const unsigned int ks[] = { 1, 2, 3, 4, 5, 8, 9, 16, 17, 33, 256 };
	static const u32 divs[] = { 1, 3, 7, 1000, 65536 };
	const char *name = gsync_reduce_impl_name(impl);
	unsigned int dt, op, ki, d;
	size_t n;
	int ok;

	for (dt = 0; dt < GSYNC_RED_NDTYPES; dt++) {
		for (op = 0; op < GSYNC_RED_NOPS; op++) {
			ok = 1;
			for (ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++) {
				unsigned int k = ks[ki];
				size_t top = k > 64 ? 40 : 300;

				for (n = 1; n <= top && ok; n++)
					ok &= run_case(impl, dt, op, k, n, k,
						       n % 3, 1);
				if (ok && k <= 9)
					ok &= run_case(impl, dt, op, k, 100003,
						       k, 1, 1);
			}
			for (d = 0; op == GSYNC_OP_AVG && d < 5; d++)
				ok &= run_case(impl, dt, op, 3, 4099, divs[d],
					       0, 1);
			tap_result(ok, "%s %s %s against the reference", name,
				   gsync_red_dtype_name(dt),
				   gsync_red_op_name(op));
		}
	}
}

/* Every 16-bit pattern, divided: all narrowing paths of bf16 and fp16. */
static void test_narrowing(enum gsync_reduce_impl impl)
{
	static const u32 divs[] = { 1, 3, 7, 10, 65536 };
	unsigned int dt, d, i;
	int ok = 1;

	for (dt = GSYNC_DTYPE_BF16; dt <= GSYNC_DTYPE_FP16; dt++) {
		static u16 all[65536];

		for (i = 0; i < 65536; i++)
			all[i] = (u16)i;
		for (d = 0; d < 5; d++) {
			const void *p[1] = { all };
			u16 got[65536], want[65536];
			struct gsync_reduce_job job = {
				.in = p, .k = 1, .out = got, .count = 65536,
				.dtype = dt, .op = GSYNC_OP_AVG,
				.avg_divisor = divs[d],
			};

			gsync_oracle(want, p, 1, 65536, dt, GSYNC_OP_AVG,
				     divs[d]);
			gsync_reduce_cpu_run(&job, impl);
			ok &= !memcmp(got, want, sizeof(got));
		}
	}
	tap_result(ok, "%s: every bf16/fp16 pattern / {1,3,7,10,65536}",
		   gsync_reduce_impl_name(impl));
}

int main(void)
{
	enum gsync_reduce_impl impl;

	test_oracle();
	for (impl = GSYNC_REDUCE_IMPL_SCALAR; impl < GSYNC_REDUCE_NIMPL; impl++) {
		if (!gsync_reduce_impl_usable(impl)) {
			tap_skip("not on this CPU", "%s",
				 gsync_reduce_impl_name(impl));
			continue;
		}
		test_narrowing(impl);
		test_impl(impl);
	}
	printf("1..%d\n", tap_n);
	return tap_done();
}
