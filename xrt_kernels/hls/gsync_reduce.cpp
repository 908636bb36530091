// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gsync_reduce.cpp - Vitis HLS kernel: batched k-way reductions
 * (sum/avg/min/max over fp32/bf16/fp16/int32) from AXI memory.
 *
 * The same file is synthesised by v++ and compiled by g++ for the C
 * simulation testbench and the agent's `sim` backend, so the CPU path runs
 * exactly the arithmetic the FPGA would.  It therefore uses only standard
 * C++ types (no ap_int.h / hls_stream.h); `#pragma HLS` lines are ignored
 * by g++ (-Wno-unknown-pragmas).
 *
 * Structure (why it can reach II=1):
 *   for each job (descriptor):
 *     for each chunk of CHUNK 32-bit words of the output:
 *       for r = 0..k-1 (rank order):            <- canonical order
 *         burst-read CHUNK words of input r, combine into acc[] (II=1)
 *       burst-write CHUNK finished words                  (II=1)
 * The loop-carried dependency of acc[i] is across the *rank* loop, not the
 * pipelined element loop, so the fp adder's latency never stalls the
 * pipeline (declared with DEPENDENCE inter false).  Each element still sees
 * in0, in1, ... in(k-1) strictly left to right.
 *
 * Arithmetic is integer-only (ref/gsync_fp.h): it does not depend on the
 * vendor floating-point IP's subnormal handling and is bit-identical to the
 * reference and to the kernel's CPU backend.
 */
#include "gsync_reduce_hw.h"
#include "../ref/gsync_fp.h"
#include "../ref/gsync_reduce_ref.h"

#if !defined(__SYNTHESIS__) && defined(__GNUC__)
/* Loop labels name the loops in HLS reports; g++ sees them as unused. */
#pragma GCC diagnostic ignored "-Wunused-label"
#endif

/* Words per chunk: two BRAM accumulators of CHUNK x 64 bit; 512 words keep
 * AXI bursts long (256 beats max) while the BRAM cost stays small. */
#define GSYNC_HW_CHUNK 512

namespace {

inline bool is16(unsigned dt)
{
	return dt == GSYNC_RED_BF16 || dt == GSYNC_RED_FP16;
}

/* Widen one lane to the accumulator domain: fp32 bits for float types,
 * a sign-extended 64-bit integer for int32 (so avg can use the exact sum). */
inline uint64_t lane_in(uint32_t bits, unsigned dt)
{
	switch (dt) {
	case GSYNC_RED_BF16:
		return gsync_bf16_to_f32((uint16_t)bits);
	case GSYNC_RED_FP16:
		return gsync_f16_to_f32((uint16_t)bits);
	case GSYNC_RED_INT32:
		return (uint64_t)(int64_t)(int32_t)bits;
	default:
		return bits;
	}
}

inline uint64_t lane_combine(uint64_t acc, uint64_t x, unsigned dt,
			     unsigned op)
{
	if (dt == GSYNC_RED_INT32) {
		int64_t a = (int64_t)acc, b = (int64_t)x;

		if (op == GSYNC_RED_MIN)
			return (uint64_t)(b < a ? b : a);
		if (op == GSYNC_RED_MAX)
			return (uint64_t)(b > a ? b : a);
		return acc + x;         /* |sum| < 2^35 for k <= 16: exact */
	}
	if (op == GSYNC_RED_MIN)
		return gsync_f32_min((uint32_t)acc, (uint32_t)x);
	if (op == GSYNC_RED_MAX)
		return gsync_f32_max((uint32_t)acc, (uint32_t)x);
	return gsync_f32_add((uint32_t)acc, (uint32_t)x);
}

/* Final step for one lane: avg division, then the single narrowing. */
inline uint32_t lane_out(uint64_t acc, unsigned dt, unsigned op, unsigned k)
{
	uint32_t v;

	if (dt == GSYNC_RED_INT32) {
		if (op == GSYNC_RED_AVG)
			return (uint32_t)((int64_t)acc / (int64_t)k); /* toward 0 */
		return (uint32_t)acc;                       /* mod 2^32 */
	}
	v = (uint32_t)acc;
	if (op == GSYNC_RED_AVG)
		v = gsync_f32_div_u(v, k);
	if (dt == GSYNC_RED_BF16)
		return gsync_f32_to_bf16(v);
	if (dt == GSYNC_RED_FP16)
		return gsync_f32_to_f16(v);
	return gsync_f32_canon(v);
}

/* Fold one 32-bit word of input into the lane accumulators.  16-bit types
 * carry two elements per word (low half = lower index, little-endian). */
inline void word_combine(uint64_t &a0, uint64_t &a1, uint32_t w, bool first,
			 unsigned dt, unsigned op)
{
	bool two = is16(dt);
	uint64_t x0 = lane_in(two ? (w & 0xffffu) : w, dt);
	uint64_t x1 = lane_in(w >> 16, dt);

	a0 = first ? x0 : lane_combine(a0, x0, dt, op);
	if (two)
		a1 = first ? x1 : lane_combine(a1, x1, dt, op);
}

/* By reference: the upper-lane accumulator is never initialised (nor read)
 * for 32-bit types. */
inline uint32_t word_out(const uint64_t &a0, const uint64_t &a1, unsigned dt,
			 unsigned op, unsigned k)
{
	if (!is16(dt))
		return lane_out(a0, dt, op, k);
	return lane_out(a0, dt, op, k) | (lane_out(a1, dt, op, k) << 16);
}

} // namespace

extern "C" void gsync_reduce(const uint32_t *src, uint32_t *dst,
			     const uint64_t *desc, uint32_t njobs)
{
	// Two AXI masters for the region (concurrent read and write bursts),
	// a third small one for descriptors; all offsets set via s_axilite.
#pragma HLS INTERFACE m_axi port=src  offset=slave bundle=gmem0 max_read_burst_length=256 num_read_outstanding=16 depth=65536
#pragma HLS INTERFACE m_axi port=dst  offset=slave bundle=gmem1 max_write_burst_length=256 num_write_outstanding=16 depth=65536
#pragma HLS INTERFACE m_axi port=desc offset=slave bundle=gmem2 max_read_burst_length=32 depth=18
#pragma HLS INTERFACE s_axilite port=src    bundle=control
#pragma HLS INTERFACE s_axilite port=dst    bundle=control
#pragma HLS INTERFACE s_axilite port=desc   bundle=control
#pragma HLS INTERFACE s_axilite port=njobs  bundle=control
#pragma HLS INTERFACE s_axilite port=return bundle=control

	uint64_t acc0[GSYNC_HW_CHUNK], acc1[GSYNC_HW_CHUNK];
#pragma HLS BIND_STORAGE variable=acc0 type=ram_2p impl=bram
#pragma HLS BIND_STORAGE variable=acc1 type=ram_2p impl=bram

jobs:
	for (uint32_t j = 0; j < njobs; j++) {
		uint64_t d[GSYNC_HW_DESC_WORDS];

	read_desc:
		for (unsigned w = 0; w < GSYNC_HW_DESC_WORDS; w++) {
#pragma HLS PIPELINE II=1
			d[w] = desc[(uint64_t)j * GSYNC_HW_DESC_WORDS + w];
		}

		unsigned dt = (unsigned)(d[0] & 0xff);
		unsigned op = (unsigned)((d[0] >> 8) & 0xff);
		unsigned k = (unsigned)((d[0] >> 16) & 0xff);
		uint64_t n = d[0] >> 32;

		// The host validates descriptors; hardware just refuses to act on
		// one it cannot interpret rather than write garbage.
		if (dt >= GSYNC_RED_NDTYPES || op >= GSYNC_RED_NOPS || k < 1 ||
		    k > GSYNC_HW_MAX_K || n == 0)
			continue;

		bool two = is16(dt);
		uint64_t nwords = two ? (n + 1) / 2 : n;
		bool odd_tail = two && (n & 1);
		uint64_t out_w = d[1] >> 2;
		// Upper half of the last output word belongs to whatever follows
		// the buffer: read it now, merge it back on the final store.
		uint32_t keep = odd_tail ? (dst[out_w + nwords - 1] & 0xffff0000u) : 0;

	chunks:
		for (uint64_t base = 0; base < nwords; base += GSYNC_HW_CHUNK) {
			unsigned len = (nwords - base < GSYNC_HW_CHUNK) ?
				       (unsigned)(nwords - base) : GSYNC_HW_CHUNK;

		ranks:
			for (unsigned r = 0; r < k; r++) {
				const uint32_t *p = src + (d[2 + r] >> 2) + base;

			accumulate:
				for (unsigned i = 0; i < len; i++) {
#pragma HLS PIPELINE II=1
#pragma HLS LOOP_TRIPCOUNT min=1 max=512
#pragma HLS DEPENDENCE variable=acc0 inter false
#pragma HLS DEPENDENCE variable=acc1 inter false
					word_combine(acc0[i], acc1[i], p[i], r == 0, dt, op);
				}
			}

		store:
			for (unsigned i = 0; i < len; i++) {
#pragma HLS PIPELINE II=1
#pragma HLS LOOP_TRIPCOUNT min=1 max=512
				uint32_t o = word_out(acc0[i], acc1[i], dt, op, k);

				if (odd_tail && base + i == nwords - 1)
					o = (o & 0xffffu) | keep;
				dst[out_w + base + i] = o;
			}
		}
	}
}
