// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * tb_gsync_reduce.cpp - C-simulation testbench: runs the HLS kernel source
 * (hls/gsync_reduce.cpp, compiled by g++) on a memory region laid out like
 * the agent's shared mmap and compares every output with the scalar
 * reference (ref/gsync_reduce_ref.c).  Covers every dtype x op, k = 1..16,
 * odd lengths and 16-bit tails, multi-chunk lengths, NaN/Inf/subnormals,
 * RNE ties, signed zeros, batching, guard bytes and bad descriptors.
 */
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../hls/gsync_reduce_hw.h"
#include "../ref/gsync_reduce_ref.h"
#include "oracle.h"
#include "tap.h"

namespace {

const uint8_t GUARD = 0xa5;

/* A region with buffers placed at deliberately uneven (but 4-byte aligned)
 * offsets and GUARD bytes between them. */
struct Region {
	std::vector<uint8_t> mem;
	size_t used = 0;

	explicit Region(size_t bytes) : mem(bytes, GUARD) {}
	size_t place(size_t bytes)
	{
		size_t off = (used + 4 + 4 * (rand() % 5)) & ~(size_t)3;

		used = off + bytes;
		if (used + 64 > mem.size())
			abort();
		return off;
	}
	void *at(size_t off) { return mem.data() + off; }
};

/* Elements biased toward the interesting cases of each dtype. */
void fill(void *buf, size_t n, unsigned dt, int flavour)
{
	static const uint16_t sp16[] = { 0x0000, 0x8000, 0x0001, 0x8001, 0x03ff,
		0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x3c00, 0x3c01 };
	static const uint16_t spbf[] = { 0x0000, 0x8000, 0x0001, 0x807f, 0x0080,
		0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x3f80, 0x3f81 };

	for (size_t i = 0; i < n; i++) {
		uint64_t r = rng();

		switch (dt) {
		case GSYNC_RED_FP32:
			if (flavour == 1)       /* zeros of both signs only */
				((uint32_t *)buf)[i] = (uint32_t)(r & 1) << 31;
			else if (flavour == 2)  /* same-magnitude ties/cancellation */
				((uint32_t *)buf)[i] = (uint32_t)(r & 0x80000000u) |
					(0x3f800000u + (uint32_t)(r >> 40) % 3);
			else
				((uint32_t *)buf)[i] = rand_f32();
			break;
		case GSYNC_RED_INT32:
			((uint32_t *)buf)[i] = (r & 8) ? (uint32_t)(0x7ffffffeu + (r >> 60))
					       : (uint32_t)(r >> 16);
			break;
		case GSYNC_RED_BF16:
			((uint16_t *)buf)[i] = flavour == 1 ? (uint16_t)((r & 1) << 15)
				: (r & 3) == 0 ? spbf[(r >> 8) % (sizeof(spbf) / 2)]
				: (uint16_t)(r >> 32);
			break;
		default:
			((uint16_t *)buf)[i] = flavour == 1 ? (uint16_t)((r & 1) << 15)
				: (r & 3) == 0 ? sp16[(r >> 8) % (sizeof(sp16) / 2)]
				: (uint16_t)(r >> 32);
			break;
		}
	}
}

struct Job {
	unsigned dt, op, k;
	uint32_t n;
	size_t out, in[GSYNC_HW_MAX_K];
};

/* Run a batch through the kernel and check outputs, inputs and guards.
 * Returns the number of mismatching jobs. */
unsigned run_batch(std::vector<Job> &jobs, int flavour, bool diag = true)
{
	size_t bytes = 4096;

	for (auto &j : jobs)
		bytes += (j.k + 1) * ((size_t)j.n * 4 + 64);
	Region reg(bytes);
	std::vector<uint64_t> desc(jobs.size() * GSYNC_HW_DESC_WORDS, 0);

	for (size_t b = 0; b < jobs.size(); b++) {
		Job &j = jobs[b];
		size_t es = gsync_red_elem_size(j.dt);
		uint64_t *d = &desc[b * GSYNC_HW_DESC_WORDS];

		for (unsigned r = 0; r < j.k; r++) {
			j.in[r] = reg.place(j.n * es);
			fill(reg.at(j.in[r]), j.n, j.dt, flavour);
			d[2 + r] = j.in[r];
		}
		j.out = reg.place(j.n * es);
		d[0] = gsync_hw_desc_word0(j.dt, j.op, j.k, j.n);
		d[1] = j.out;
	}
	std::vector<uint8_t> before = reg.mem;

	gsync_reduce((const uint32_t *)reg.mem.data(), (uint32_t *)reg.mem.data(),
		     desc.data(), (uint32_t)jobs.size());

	unsigned bad = 0;
	std::vector<uint8_t> want = before;
	for (auto &j : jobs) {
		const void *in[GSYNC_HW_MAX_K];

		for (unsigned r = 0; r < j.k; r++)
			in[r] = before.data() + j.in[r];
		gsync_reduce_ref(want.data() + j.out, in, j.k, j.n, j.dt, j.op);
	}
	/* whole-region compare: outputs right, inputs and guard bytes intact */
	for (auto &j : jobs) {
		size_t es = gsync_red_elem_size(j.dt);

		if (memcmp(reg.mem.data() + j.out, want.data() + j.out, j.n * es)) {
			if (diag && bad < 3) {
				size_t i = 0;
				while (!memcmp(reg.mem.data() + j.out + i * es,
					       want.data() + j.out + i * es, es))
					i++;
				uint32_t g = 0, w = 0;
				memcpy(&g, reg.mem.data() + j.out + i * es, es);
				memcpy(&w, want.data() + j.out + i * es, es);
				tap_diag("%s %s k=%u n=%u: elem %zu got %08x want %08x",
					 gsync_red_dtype_name(j.dt), gsync_red_op_name(j.op),
					 j.k, j.n, i, g, w);
			}
			bad++;
		}
	}
	if (memcmp(reg.mem.data(), want.data(), reg.mem.size())) {
		if (diag)
			tap_diag("bytes outside outputs changed (guard/tail/input clobbered)");
		bad++;
	}
	return bad;
}

const uint32_t lengths[] = { 1, 2, 3, 7, 31, 64, 511, 1023, 1024, 1025, 2049 };

void test_dtype_op(unsigned dt, unsigned op)
{
	unsigned bad = 0;

	for (unsigned k = 1; k <= GSYNC_HW_MAX_K; k++) {
		std::vector<Job> jobs;

		for (uint32_t n : lengths) {
			/* full length set for a few k, short ones elsewhere: keeps
			 * the run short under ASan while still crossing chunks */
			if (n > 64 && k % 5 != 1 && k != GSYNC_HW_MAX_K)
				continue;
			Job j = {};
			j.dt = dt; j.op = op; j.k = k; j.n = n;
			jobs.push_back(j);
		}
		bad += run_batch(jobs, 0);
	}
	tap_result(bad == 0, "csim %s %s: k=1..16, n in {1..2049}, odd tails, specials",
		   gsync_red_dtype_name(dt), gsync_red_op_name(op));
}

void test_flavour(int flavour, const char *what)
{
	unsigned bad = 0;

	for (unsigned dt = 0; dt < GSYNC_RED_NDTYPES; dt++) {
		if (dt == GSYNC_RED_INT32)
			continue;
		for (unsigned op = 0; op < GSYNC_RED_NOPS; op++) {
			std::vector<Job> jobs;

			for (unsigned k = 1; k <= GSYNC_HW_MAX_K; k += 3) {
				Job j = {};
				j.dt = dt; j.op = op; j.k = k; j.n = 257;
				jobs.push_back(j);
			}
			bad += run_batch(jobs, flavour);
		}
	}
	tap_result(bad == 0, "csim %s", what);
}

/* Mixed dtypes/ops in one invocation: descriptors are independent. */
void test_mixed_batch()
{
	std::vector<Job> jobs;

	for (int b = 0; b < 40; b++) {
		Job j = {};
		j.dt = (unsigned)(rng() % GSYNC_RED_NDTYPES);
		j.op = (unsigned)(rng() % GSYNC_RED_NOPS);
		j.k = 1 + (unsigned)(rng() % GSYNC_HW_MAX_K);
		j.n = 1 + (uint32_t)(rng() % 700);
		jobs.push_back(j);
	}
	tap_result(run_batch(jobs, 0) == 0, "csim batch of 40 mixed dtype/op/k/n jobs");
}

/* Hand-built vectors whose answers are known without the reference. */
void test_known_answers()
{
	/* fp16: 2048 + 1 = 2049 -> tie between 2048 and 2050 -> 2048 (even);
	 * 2050 + 1 = 2051 -> tie -> 2052.  bf16 sum of -0 and -0 is -0. */
	alignas(8) uint16_t mem[16] = { 0x6800, 0x6801, 0x3c00, 0x3c00, 0, 0,
					 0x8000, 0x8000, 0x8000, 0x8000, 0, 0 };
	uint64_t d[2 * GSYNC_HW_DESC_WORDS] = {};

	d[0] = gsync_hw_desc_word0(GSYNC_RED_FP16, GSYNC_RED_SUM, 2, 2);
	d[1] = 8; d[2] = 0; d[3] = 4;
	d[GSYNC_HW_DESC_WORDS + 0] = gsync_hw_desc_word0(GSYNC_RED_BF16, GSYNC_RED_SUM, 2, 2);
	d[GSYNC_HW_DESC_WORDS + 1] = 20;
	d[GSYNC_HW_DESC_WORDS + 2] = 12;
	d[GSYNC_HW_DESC_WORDS + 3] = 16;
	gsync_reduce((const uint32_t *)mem, (uint32_t *)mem, d, 2);
	tap_result(mem[4] == 0x6800 && mem[5] == 0x6802 && mem[10] == 0x8000 &&
		   mem[11] == 0x8000,
		   "csim known answers: fp16 RNE ties 2048+1, 2049+1; bf16 -0 + -0 = -0");
}

/* Descriptors the hardware must refuse: nothing may be written. */
void test_bad_descriptors()
{
	alignas(8) uint32_t mem[64];
	uint64_t d[4 * GSYNC_HW_DESC_WORDS] = {};
	const uint64_t w0[4] = {
		gsync_hw_desc_word0(4, GSYNC_RED_SUM, 1, 4),               /* dtype */
		gsync_hw_desc_word0(GSYNC_RED_FP32, 4, 1, 4),              /* op */
		gsync_hw_desc_word0(GSYNC_RED_FP32, GSYNC_RED_SUM, 0, 4),  /* k=0 */
		gsync_hw_desc_word0(GSYNC_RED_FP32, GSYNC_RED_SUM, 17, 4), /* k>16 */
	};

	for (unsigned i = 0; i < 64; i++)
		mem[i] = 0x11111111u * (i & 7);
	uint32_t copy[64];
	memcpy(copy, mem, sizeof(mem));
	for (int b = 0; b < 4; b++) {
		d[b * GSYNC_HW_DESC_WORDS + 0] = w0[b];
		d[b * GSYNC_HW_DESC_WORDS + 1] = 128;   /* output words 32.. */
	}
	gsync_reduce(mem, mem, d, 4);
	tap_result(memcmp(mem, copy, sizeof(mem)) == 0,
		   "csim ignores descriptors with bad dtype/op/k (no writes)");
}

/* The testbench itself must be able to fail: corrupt one output word of a
 * kernel result and confirm run_batch-style comparison notices. */
void test_tb_detects_errors()
{
	alignas(8) uint32_t mem[8] = { 0x3f800000u, 0x40000000u, 0, 0 };
	uint64_t d[GSYNC_HW_DESC_WORDS] = {};
	const void *in[2] = { &mem[0], &mem[1] };
	uint32_t want;

	d[0] = gsync_hw_desc_word0(GSYNC_RED_FP32, GSYNC_RED_SUM, 2, 1);
	d[1] = 8; d[2] = 0; d[3] = 4;
	gsync_reduce(mem, mem, d, 1);
	gsync_reduce_ref(&want, in, 2, 1, GSYNC_RED_FP32, GSYNC_RED_SUM);
	mem[2] ^= 1;    /* a one-ulp error */
	tap_result(want == 0x40400000u && mem[2] != want,
		   "testbench comparison detects a 1-ulp corruption");
}

} // namespace

int main()
{
	srand(12345);
	for (unsigned dt = 0; dt < GSYNC_RED_NDTYPES; dt++)
		for (unsigned op = 0; op < GSYNC_RED_NOPS; op++)
			test_dtype_op(dt, op);
	test_flavour(1, "signed zeros only: sum/avg/min/max keep -0/+0 rules");
	test_flavour(2, "near-cancelling fp32 magnitudes (ties, exact zeros)");
	test_mixed_batch();
	test_known_answers();
	test_bad_descriptors();
	test_tb_detects_errors();
	return tap_done();
}
