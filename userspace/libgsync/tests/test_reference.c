// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The example's reference reduction and data pattern: agrees bit for bit
 * with the project's oracle (xrt_kernels/ref) wherever the oracle applies
 * (k <= 16), handles k up to 256, and pieces of the pattern equal the whole.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/gsync.h>

#include "gsync_reduce_ref.h"
#include "pattern.h"
#include "reference.h"
#include "tap.h"

#define N 1031	/* odd, not a multiple of any vector width */

int main(void)
{
	static const unsigned int ks[] = { 1, 2, 3, 4, 9, 16 };
	size_t esz;
	unsigned int d, op, kind, ki, j;

	for (d = 0; d < GSYNC_DTYPE_MAX; d++) {
		esz = (d == GSYNC_DTYPE_FP32 || d == GSYNC_DTYPE_INT32) ? 4 : 2;
		for (op = 0; op < GSYNC_REDOP_MAX; op++) {
			int same = 1;

			for (kind = 0; kind < 2; kind++)
				for (ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++) {
					unsigned int k = ks[ki];
					char *in = malloc(k * N * esz);
					char *a = malloc(N * esz), *b = malloc(N * esz);
					const void *inp[16];

					for (j = 0; j < k; j++) {
						inp[j] = in + j * N * esz;
						pattern_fill(in + j * N * esz, 0, N, d, kind, 99, j, 3);
					}
					same &= reference_reduce(a, inp, k, N, d, op) == 0 &&
						gsync_reduce_ref(b, inp, k, N, d, op) == 0 &&
						memcmp(a, b, N * esz) == 0;
					free(in);
					free(a);
					free(b);
				}
			ok(same, "reference == gsync_reduce_ref for %s %s, k in 1..16, small and bit-pattern data",
			   gsync_red_dtype_name(d), gsync_red_op_name(op));
		}
	}
	{
		/* k = 256 > the oracle's limit: int32 sum of 256 ones is 256. */
		const void *inp[256];
		int32_t one = 1, out = 0, big = 0x7fffffff;

		for (j = 0; j < 256; j++)
			inp[j] = &one;
		ok(reference_reduce(&out, inp, 256, 1, GSYNC_DTYPE_INT32, GSYNC_OP_SUM) == 0 &&
		   out == 256, "k = 256 works (int32 sum of 256 ones)");
		for (j = 0; j < 256; j++)
			inp[j] = &big;
		reference_reduce(&out, inp, 256, 1, GSYNC_DTYPE_INT32, GSYNC_OP_AVG);
		ok(out == 0x7fffffff, "int32 avg of 256 x INT32_MAX does not overflow");
		reference_reduce(&out, inp, 256, 1, GSYNC_DTYPE_INT32, GSYNC_OP_SUM);
		ok(out == (int32_t)0xffffff00, "int32 sum wraps modulo 2^32");
	}
	{
		uint32_t whole[N], part[N];

		pattern_fill(whole, 0, N, GSYNC_DTYPE_FP32, PATTERN_BITS, 5, 2, 8);
		pattern_fill(part, 0, 500, GSYNC_DTYPE_FP32, PATTERN_BITS, 5, 2, 8);
		pattern_fill(part + 500, 500, N - 500, GSYNC_DTYPE_FP32, PATTERN_BITS, 5, 2, 8);
		ok(memcmp(whole, part, sizeof(whole)) == 0,
		   "pattern generated in pieces equals the whole (chunked --check)");
		pattern_fill(part, 0, N, GSYNC_DTYPE_FP32, PATTERN_BITS, 5, 3, 8);
		ok(memcmp(whole, part, sizeof(whole)) != 0, "different ranks get different data");
		pattern_fill(part, 0, N, GSYNC_DTYPE_FP32, PATTERN_BITS, 5, 2, 9);
		ok(memcmp(whole, part, sizeof(whole)) != 0, "different iterations get different data");
	}
	ok(reference_reduce(NULL, NULL, 1, 1, 0, 0) == -1, "bad arguments are rejected");
	return tap_done();
}
