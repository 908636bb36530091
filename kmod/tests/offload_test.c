// SPDX-License-Identifier: GPL-2.0
/*
 * Suite gsync_offload: the offload engine's command validation and job
 * state machine, driven without io_uring. The test plays the agent: it
 * registers an agent object whose parked-command completions are recorded
 * instead of posted to a ring, "fetches" with cookie pointers as commands,
 * computes pieces with the CPU engine on the region, and commits. Results
 * are compared with gsync_reduce_cpu() on the whole job, byte for byte.
 *
 * Runs with no real agent registered (the device is not used in the VM's
 * KUnit stage); counters are global, so every check is on a difference.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/gsync.h>
#include <linux/gsync_offload.h>

#include "offload.h"
#include "reduce.h"

#define T_SLOTS		4
#define T_SLOT_BYTES	(64U << 10)
#define T_MAX_COMPL	32

struct t_agent {
	struct gsync_offload_agent *a;
	int ncompl;
	void *cmd[T_MAX_COMPL];
	int res[T_MAX_COMPL];
};

static struct t_agent *t_cur;

static void t_complete(struct gsync_offload_agent *a, void *cmd, int res)
{
	if (t_cur && t_cur->ncompl < T_MAX_COMPL) {
		t_cur->cmd[t_cur->ncompl] = cmd;
		t_cur->res[t_cur->ncompl++] = res;
	}
}

/* Command cookies: any distinct non-NULL pointers. */
static char t_cmds[T_SLOTS];
#define CMD(s) ((void *)&t_cmds[(s) % T_SLOTS])

static struct gsync_offload_register t_reg(void)
{
	struct gsync_offload_register r = {
		.version = GSYNC_OFFLOAD_VERSION,
		.nslots = T_SLOTS,
		.slot_bytes = T_SLOT_BYTES,
		.max_k = 16,
		.dtypes = 0xf,
		.ops = 0xf,
	};
	return r;
}

static void t_agent_up(struct kunit *test, struct t_agent *ta)
{
	struct gsync_offload_register r = t_reg();

	memset(ta, 0, sizeof(*ta));
	ta->a = gsync_offload_agent_alloc();
	KUNIT_ASSERT_NOT_NULL(test, ta->a);
	ta->a->complete = t_complete;
	t_cur = ta;
	KUNIT_ASSERT_EQ(test, gsync_offload_agent_register(ta->a, &r), 0);
}

static void t_agent_down(struct t_agent *ta)
{
	gsync_offload_agent_release(ta->a);
	gsync_offload_flush();
	t_cur = NULL;
}

static int t_fetch(struct t_agent *ta, u32 slot)
{
	struct gsync_offload_slot_cmd sc = { .slot = slot };

	return gsync_offload_fetch(ta->a, &sc, CMD(slot), false);
}

static int t_commit(struct t_agent *ta, u32 slot, u64 id, s32 status)
{
	struct gsync_offload_slot_cmd sc = {
		.slot = slot, .job_id = id, .status = status,
	};

	return gsync_offload_fetch(ta->a, &sc, CMD(slot), true);
}

static struct gsync_offload_desc *t_desc(struct t_agent *ta, u32 slot)
{
	return (struct gsync_offload_desc *)ta->a->region + slot;
}

/* Compute the piece in a slot as a correct agent would. */
static void t_compute(struct kunit *test, struct t_agent *ta, u32 slot)
{
	struct gsync_offload_desc *d = t_desc(ta, slot);
	const void *in[16];
	struct gsync_reduce_job job = {
		.in = in, .k = d->k, .count = d->count, .dtype = d->dtype,
		.op = d->op, .avg_divisor = d->avg_divisor,
		.out = (u8 *)ta->a->region + d->out_off,
	};
	unsigned int j;

	KUNIT_ASSERT_LE(test, d->k, 16U);
	KUNIT_ASSERT_LE(test, d->out_off + (u64)d->count * 4,
			(u64)ta->a->region_bytes);
	for (j = 0; j < d->k; j++)
		in[j] = (u8 *)ta->a->region + d->in_off + j * d->in_stride;
	KUNIT_ASSERT_EQ(test, gsync_reduce_cpu(&job), 0);
}

/* A job with its buffers, the expected result, and a done recorder. */
struct t_job {
	struct gsync_reduce_job job;
	const void *in[20];
	void *buf[20];
	void *out, *want;
	size_t bytes;
	int ndone;
	struct completion done;
};

static void t_done(struct gsync_reduce_job *job)
{
	struct t_job *tj = container_of(job, struct t_job, job);

	tj->ndone++;
	complete(&tj->done);
}

static struct t_job *t_job_new(struct kunit *test, unsigned int k,
			       size_t count, u8 dtype, u8 op)
{
	struct t_job *tj = kunit_kzalloc(test, sizeof(*tj), GFP_KERNEL);
	unsigned int esize = gsync_dtype_size(dtype), j;
	struct gsync_reduce_job ref;

	KUNIT_ASSERT_NOT_NULL(test, tj);
	tj->bytes = count * esize;
	for (j = 0; j < k; j++) {
		tj->buf[j] = kunit_kmalloc(test, tj->bytes, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, tj->buf[j]);
		get_random_bytes(tj->buf[j], tj->bytes);
		tj->in[j] = tj->buf[j];
	}
	tj->out = kunit_kzalloc(test, tj->bytes, GFP_KERNEL);
	tj->want = kunit_kzalloc(test, tj->bytes, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tj->out);
	KUNIT_ASSERT_NOT_NULL(test, tj->want);
	tj->job = (struct gsync_reduce_job) {
		.in = tj->in, .k = k, .out = tj->out, .count = count,
		.dtype = dtype, .op = op, .avg_divisor = k, .done = t_done,
	};
	init_completion(&tj->done);
	ref = tj->job;
	ref.out = tj->want;
	KUNIT_ASSERT_EQ(test, gsync_reduce_cpu(&ref), 0);
	return tj;
}

static void t_expect_result(struct kunit *test, struct t_job *tj)
{
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&tj->done, 10 * HZ));
	KUNIT_EXPECT_EQ(test, tj->ndone, 1);
	KUNIT_EXPECT_EQ(test, tj->job.status, 0);
	KUNIT_EXPECT_EQ(test, memcmp(tj->out, tj->want, tj->bytes), 0);
}

static struct gsync_reduce_engine *t_engine(struct kunit *test, u32 mode)
{
	struct gsync_reduce_engine *eng = gsync_offload_engine_create(mode);

	KUNIT_ASSERT_NOT_NULL(test, eng);
	return eng;
}

#define DELTA(c, before) (gsync_offload_counter(c) - (before))

static void gsync_offload_register_check(struct kunit *test)
{
	struct gsync_offload_register good = t_reg(), r;

	KUNIT_EXPECT_EQ(test, gsync_offload_check_register(&good), 0);
#define BAD(stmt) do { r = good; stmt; \
	KUNIT_EXPECT_EQ_MSG(test, gsync_offload_check_register(&r), -EINVAL, \
			    #stmt); } while (0)
	BAD(r.version = 2);
	BAD(r.nslots = 0);
	BAD(r.nslots = GSYNC_OFFLOAD_MAX_SLOTS + 1);
	BAD(r.slot_bytes = 4096);
	BAD(r.slot_bytes = T_SLOT_BYTES + 1);
	BAD(r.slot_bytes = GSYNC_OFFLOAD_MAX_SLOT_BYTES + 4096);
	BAD(r.nslots = 1024; r.slot_bytes = 2U << 20);
	BAD(r.max_k = 0);
	BAD(r.max_k = GSYNC_OFFLOAD_MAX_K + 1);
	BAD(r.dtypes = 0);
	BAD(r.dtypes = 0x10);
	BAD(r.ops = 0);
	BAD(r.ops = 0x1f);
	BAD(r.flags = 1);
	BAD(r.reserved[4] = 1);
#undef BAD
}

static void gsync_offload_register_once(struct kunit *test)
{
	struct gsync_offload_register r = t_reg();
	struct gsync_offload_agent *b;
	struct t_agent ta;
	u64 bad = gsync_offload_counter(GSYNC_OC_BAD_CMDS);

	t_agent_up(test, &ta);
	KUNIT_EXPECT_EQ(test, gsync_offload_agent_register(ta.a, &r), -EALREADY);
	b = gsync_offload_agent_alloc();
	KUNIT_ASSERT_NOT_NULL(test, b);
	b->complete = t_complete;
	KUNIT_EXPECT_EQ(test, gsync_offload_agent_register(b, &r), -EBUSY);
	r.version = 0;
	KUNIT_EXPECT_EQ(test, gsync_offload_agent_register(b, &r), -EINVAL);
	KUNIT_EXPECT_EQ(test, DELTA(GSYNC_OC_BAD_CMDS, bad), 1ULL);
	/* an unregistered agent can neither fetch nor stop */
	{
		struct gsync_offload_slot_cmd sc = { .slot = 0 };

		KUNIT_EXPECT_EQ(test, gsync_offload_fetch(b, &sc, CMD(0), false),
				-ENXIO);
		KUNIT_EXPECT_EQ(test, gsync_offload_stop(b), -ENXIO);
	}
	gsync_offload_agent_release(b);
	t_agent_down(&ta);
}

/* k = 3 fp32 over 10000 elements: 3 pieces of <= 4096 through 2 slots. */
static void gsync_offload_roundtrip(struct kunit *test)
{
	struct gsync_reduce_engine *eng = t_engine(test, GSYNC_ENGINE_OFFLOAD);
	struct t_job *tj = t_job_new(test, 3, 10000, GSYNC_DTYPE_FP32,
				     GSYNC_OP_SUM);
	u64 off = gsync_offload_counter(GSYNC_OC_OFFLOADED);
	u64 pieces = gsync_offload_counter(GSYNC_OC_COMMITS);
	struct gsync_offload_desc *d;
	struct t_agent ta;
	u64 id0, id1;

	t_agent_up(test, &ta);
	KUNIT_EXPECT_EQ(test, t_fetch(&ta, 0), -EIOCBQUEUED);
	KUNIT_EXPECT_EQ(test, t_fetch(&ta, 1), -EIOCBQUEUED);
	KUNIT_EXPECT_EQ(test, eng->submit(eng, &tj->job), 0);
	/* both parked commands completed with 0, in slot order */
	KUNIT_ASSERT_EQ(test, ta.ncompl, 2);
	KUNIT_EXPECT_PTR_EQ(test, ta.cmd[0], CMD(0));
	KUNIT_EXPECT_PTR_EQ(test, ta.cmd[1], CMD(1));
	KUNIT_EXPECT_EQ(test, ta.res[0], 0);
	d = t_desc(&ta, 0);
	KUNIT_EXPECT_EQ(test, d->k, 3U);
	KUNIT_EXPECT_EQ(test, d->count, 4096U);
	KUNIT_EXPECT_EQ(test, d->in_off % 64, 0ULL);
	KUNIT_EXPECT_EQ(test, d->out_off, d->in_off + 3 * d->in_stride);
	KUNIT_EXPECT_EQ(test, memcmp((u8 *)ta.a->region + d->in_off + d->in_stride,
				     tj->buf[1], 4096 * 4), 0);
	id0 = d->job_id;
	id1 = t_desc(&ta, 1)->job_id;
	KUNIT_EXPECT_NE(test, id0, id1);

	t_compute(test, &ta, 0);
	/* the commit's own command gets the third piece at once */
	KUNIT_EXPECT_EQ(test, t_commit(&ta, 0, id0, 0), 0);
	KUNIT_EXPECT_EQ(test, t_desc(&ta, 0)->count, 10000U - 8192U);
	t_compute(test, &ta, 1);
	KUNIT_EXPECT_EQ(test, t_commit(&ta, 1, id1, 0), -EIOCBQUEUED);
	KUNIT_EXPECT_EQ(test, tj->ndone, 0);
	t_compute(test, &ta, 0);
	KUNIT_EXPECT_EQ(test, t_commit(&ta, 0, t_desc(&ta, 0)->job_id, 0),
			-EIOCBQUEUED);
	t_expect_result(test, tj);
	KUNIT_EXPECT_EQ(test, DELTA(GSYNC_OC_OFFLOADED, off), 1ULL);
	KUNIT_EXPECT_EQ(test, DELTA(GSYNC_OC_COMMITS, pieces), 3ULL);

	/* stop: the two parked commands come back with -ESHUTDOWN */
	ta.ncompl = 0;
	KUNIT_EXPECT_EQ(test, gsync_offload_stop(ta.a), 0);
	KUNIT_EXPECT_EQ(test, ta.ncompl, 2);
	KUNIT_EXPECT_EQ(test, ta.res[0], -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, t_fetch(&ta, 2), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, gsync_offload_stop(ta.a), -ENXIO);
	t_agent_down(&ta);
	gsync_offload_engine_destroy(eng);
}

static void gsync_offload_bad_commands(struct kunit *test)
{
	struct gsync_reduce_engine *eng = t_engine(test, GSYNC_ENGINE_OFFLOAD);
	struct t_job *tj = t_job_new(test, 2, 100, GSYNC_DTYPE_INT32,
				     GSYNC_OP_MAX);
	u64 bad = gsync_offload_counter(GSYNC_OC_BAD_CMDS);
	struct gsync_offload_slot_cmd sc;
	struct t_agent ta;
	u64 id;

	t_agent_up(test, &ta);
	KUNIT_EXPECT_EQ(test, t_fetch(&ta, T_SLOTS), -EINVAL);	/* 1 */
	KUNIT_EXPECT_EQ(test, t_fetch(&ta, U32_MAX), -EINVAL);	/* 2 */
	sc = (struct gsync_offload_slot_cmd){ .slot = 0, .reserved = 1 };
	KUNIT_EXPECT_EQ(test, gsync_offload_fetch(ta.a, &sc, CMD(0), false),
			-EINVAL);				/* 3 */
	sc = (struct gsync_offload_slot_cmd){ .slot = 0, .job_id = 5 };
	KUNIT_EXPECT_EQ(test, gsync_offload_fetch(ta.a, &sc, CMD(0), false),
			-EINVAL);				/* 4 */
	/* commit of a slot that holds no job */
	KUNIT_EXPECT_EQ(test, t_commit(&ta, 0, 1, 0), -EINVAL);	/* 5 */
	KUNIT_EXPECT_EQ(test, t_fetch(&ta, 0), -EIOCBQUEUED);
	KUNIT_EXPECT_EQ(test, t_fetch(&ta, 0), -EINVAL);	/* 6: parked */
	KUNIT_EXPECT_EQ(test, eng->submit(eng, &tj->job), 0);
	id = t_desc(&ta, 0)->job_id;
	KUNIT_EXPECT_EQ(test, t_commit(&ta, 0, id + 1, 0), -EINVAL); /* 7 */
	KUNIT_EXPECT_EQ(test, t_commit(&ta, 0, id, 1), -EINVAL);	/* 8 */
	KUNIT_EXPECT_EQ(test, t_commit(&ta, 0, id, -MAX_ERRNO - 1),
			-EINVAL);				/* 9 */
	KUNIT_EXPECT_EQ(test, t_fetch(&ta, 0), -EINVAL);	/* 10: busy */
	t_compute(test, &ta, 0);
	KUNIT_EXPECT_EQ(test, t_commit(&ta, 0, id, 0), -EIOCBQUEUED);
	t_expect_result(test, tj);
	KUNIT_EXPECT_EQ(test, t_commit(&ta, 0, id, 0), -EINVAL);	/* 11: double */
	KUNIT_EXPECT_EQ(test, DELTA(GSYNC_OC_BAD_CMDS, bad), 11ULL);
	t_agent_down(&ta);
	gsync_offload_engine_destroy(eng);
}

/* An error commit, a missed deadline, a dead agent: the CPU finishes. */
static void gsync_offload_fallbacks(struct kunit *test)
{
	struct gsync_reduce_engine *eng = t_engine(test, GSYNC_ENGINE_AUTO);
	struct t_job *a = t_job_new(test, 4, 5000, GSYNC_DTYPE_BF16,
				    GSYNC_OP_AVG);
	struct t_job *b = t_job_new(test, 5, 777, GSYNC_DTYPE_FP16,
				    GSYNC_OP_SUM);
	struct t_job *c = t_job_new(test, 16, 3001, GSYNC_DTYPE_FP32,
				    GSYNC_OP_MIN);
	u64 err = gsync_offload_counter(GSYNC_OC_FB_ERROR);
	u64 tmo = gsync_offload_counter(GSYNC_OC_FB_TIMEOUT);
	u64 gone = gsync_offload_counter(GSYNC_OC_FB_GONE);
	u64 late = gsync_offload_counter(GSYNC_OC_LATE_COMMITS);
	unsigned int saved = gsync_offload_timeout_ms();
	struct t_agent ta;
	u64 id;

	t_agent_up(test, &ta);
	KUNIT_EXPECT_EQ(test, t_fetch(&ta, 0), -EIOCBQUEUED);
	KUNIT_EXPECT_EQ(test, eng->submit(eng, &a->job), 0);
	KUNIT_EXPECT_EQ(test, gsync_offload_jobs_held(), 1U);
	id = t_desc(&ta, 0)->job_id;
	/* garbage in the output area must not leak into the result */
	memset((u8 *)ta.a->region + t_desc(&ta, 0)->out_off, 0x5a, 1024);
	KUNIT_EXPECT_EQ(test, t_commit(&ta, 0, id, -EIO), -EIOCBQUEUED);
	t_expect_result(test, a);
	KUNIT_EXPECT_EQ(test, DELTA(GSYNC_OC_FB_ERROR, err), 1ULL);
	KUNIT_EXPECT_EQ(test, gsync_offload_jobs_held(), 0U);

	gsync_offload_set_timeout_ms(1);
	KUNIT_EXPECT_EQ(test, eng->submit(eng, &b->job), 0);
	id = t_desc(&ta, 0)->job_id;
	msleep(20);
	gsync_offload_expire();
	/* taken back: the agent's piece no longer counts as held */
	KUNIT_EXPECT_EQ(test, gsync_offload_jobs_held(), 0U);
	t_expect_result(test, b);
	KUNIT_EXPECT_EQ(test, DELTA(GSYNC_OC_FB_TIMEOUT, tmo), 1ULL);
	gsync_offload_set_timeout_ms(saved);
	/* the late commit only re-arms the slot */
	KUNIT_EXPECT_EQ(test, t_commit(&ta, 0, id, 0), -EIOCBQUEUED);
	KUNIT_EXPECT_EQ(test, DELTA(GSYNC_OC_LATE_COMMITS, late), 1ULL);
	KUNIT_EXPECT_EQ(test, b->ndone, 1);

	/* c has one piece in the slot and more queued when the agent goes */
	KUNIT_EXPECT_EQ(test, eng->submit(eng, &c->job), 0);
	KUNIT_EXPECT_EQ(test, gsync_offload_jobs_held(), 1U);
	gsync_offload_agent_release(ta.a);
	KUNIT_EXPECT_EQ(test, gsync_offload_jobs_held(), 0U);
	t_expect_result(test, c);
	KUNIT_EXPECT_EQ(test, DELTA(GSYNC_OC_FB_GONE, gone), 1ULL);
	gsync_offload_flush();
	t_cur = NULL;
	gsync_offload_engine_destroy(eng);
}

static void gsync_offload_selection(struct kunit *test)
{
	struct gsync_reduce_engine *off = t_engine(test, GSYNC_ENGINE_OFFLOAD);
	struct gsync_reduce_engine *cpu = t_engine(test, GSYNC_ENGINE_CPU);
	struct t_job *tj = t_job_new(test, 3, 64, GSYNC_DTYPE_FP32, GSYNC_OP_SUM);
	struct t_job *big = t_job_new(test, 17, 64, GSYNC_DTYPE_FP32,
				      GSYNC_OP_SUM);
	u64 noag = gsync_offload_counter(GSYNC_OC_NO_AGENT);
	u64 decl = gsync_offload_counter(GSYNC_OC_DECLINED);
	struct t_agent ta;

	/* no agent: offload refuses (the transport uses the CPU) */
	KUNIT_EXPECT_EQ(test, off->submit(off, &tj->job), -ENODEV);
	KUNIT_EXPECT_EQ(test, DELTA(GSYNC_OC_NO_AGENT, noag), 1ULL);
	KUNIT_EXPECT_EQ(test, tj->ndone, 0);
	/* cpu: done before submit returns */
	KUNIT_EXPECT_EQ(test, cpu->submit(cpu, &tj->job), 0);
	t_expect_result(test, tj);
	KUNIT_EXPECT_EQ(test, gsync_offload_engine_set_mode(cpu, 7), -EINVAL);

	t_agent_up(test, &ta);
	/* beyond the agent's k, or avg by something else than k: declined */
	KUNIT_EXPECT_EQ(test, off->submit(off, &big->job), -EOPNOTSUPP);
	tj->job.op = GSYNC_OP_AVG;
	tj->job.avg_divisor = 2;
	KUNIT_EXPECT_EQ(test, off->submit(off, &tj->job), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, DELTA(GSYNC_OC_DECLINED, decl), 2ULL);
	/* an invalid job is refused before anything else */
	tj->job.avg_divisor = 0;
	KUNIT_EXPECT_EQ(test, off->submit(off, &tj->job), -EINVAL);
	t_agent_down(&ta);
	gsync_offload_engine_destroy(off);
	gsync_offload_engine_destroy(cpu);
}

/* A group going away gets its queued jobs back with -ECANCELED. */
static void gsync_offload_quiesce(struct kunit *test)
{
	struct gsync_reduce_engine *eng = t_engine(test, GSYNC_ENGINE_OFFLOAD);
	struct t_job *tj = t_job_new(test, 2, 9000, GSYNC_DTYPE_INT32,
				     GSYNC_OP_SUM);
	u64 canc = gsync_offload_counter(GSYNC_OC_CANCELLED);
	struct t_agent ta;
	u64 id;

	t_agent_up(test, &ta);
	KUNIT_EXPECT_EQ(test, t_fetch(&ta, 0), -EIOCBQUEUED);
	KUNIT_EXPECT_EQ(test, eng->submit(eng, &tj->job), 0);
	id = t_desc(&ta, 0)->job_id;
	gsync_offload_engine_quiesce(eng);
	KUNIT_EXPECT_EQ(test, tj->ndone, 1);
	KUNIT_EXPECT_EQ(test, tj->job.status, -ECANCELED);
	KUNIT_EXPECT_EQ(test, DELTA(GSYNC_OC_CANCELLED, canc), 1ULL);
	/* the agent's commit for it is late, not a crash */
	KUNIT_EXPECT_EQ(test, t_commit(&ta, 0, id, 0), -EIOCBQUEUED);
	t_agent_down(&ta);
	gsync_offload_engine_destroy(eng);
}

static struct kunit_case gsync_offload_cases[] = {
	KUNIT_CASE(gsync_offload_register_check),
	KUNIT_CASE(gsync_offload_register_once),
	KUNIT_CASE(gsync_offload_roundtrip),
	KUNIT_CASE(gsync_offload_bad_commands),
	KUNIT_CASE(gsync_offload_fallbacks),
	KUNIT_CASE(gsync_offload_selection),
	KUNIT_CASE(gsync_offload_quiesce),
	{}
};

static struct kunit_suite gsync_offload_suite = {
	.name = "gsync_offload",
	.test_cases = gsync_offload_cases,
};

kunit_test_suites(&gsync_offload_suite);
