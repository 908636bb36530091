// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Deterministic per-rank data (see pattern.h). */
#include <string.h>
#include <linux/gsync.h>

#include "gsync_fp.h"
#include "pattern.h"

/* splitmix64 finaliser: cheap, well mixed, no state. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* fp32 bits of (v / 8) for an integer |v| <= 1000: exact by construction. */
static uint32_t small_f32(int v)
{
	float f = (float)v / 8.0f;
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

void pattern_fill(void *buf, size_t first, size_t n, unsigned int dtype,
		  unsigned int kind, uint64_t seed, unsigned int rank,
		  uint64_t iter)
{
	uint64_t base = mix(seed ^ mix(((uint64_t)rank << 48) ^ iter));
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t h = mix(base + first + i);
		int small = (int)(h % 2001) - 1000;
		uint32_t f = kind == PATTERN_BITS ? (uint32_t)h : small_f32(small);

		switch (dtype) {
		case GSYNC_DTYPE_FP32:
			((uint32_t *)buf)[i] = f;
			break;
		case GSYNC_DTYPE_BF16:
			((uint16_t *)buf)[i] = kind == PATTERN_BITS ?
				(uint16_t)h : gsync_f32_to_bf16(f);
			break;
		case GSYNC_DTYPE_FP16:
			((uint16_t *)buf)[i] = kind == PATTERN_BITS ?
				(uint16_t)h : gsync_f32_to_f16(f);
			break;
		default:
			((int32_t *)buf)[i] = kind == PATTERN_BITS ?
				(int32_t)(uint32_t)h : small;
			break;
		}
	}
}
