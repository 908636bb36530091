// SPDX-License-Identifier: GPL-2.0
/*
 * Suites gsync_wire (header validation, NACK range generation, ABI sizes)
 * and gsync_join (GSYNC_JOIN validation). Pure functions, no sockets.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/random.h>
#include <linux/gsync.h>
#include <linux/gsync_wire.h>

#include "gsync.h"
#include "group.h"
#include "repair.h"
#include "wire.h"

#define GROUP	0x1234abcdULL
#define NRANKS	4
#define ME	1

/* A valid DATA header: chunk 0 of a 10000-byte fp32 contribution. */
static unsigned int good_data(struct gsync_wire_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->version = GSYNC_WIRE_VERSION;
	h->type = GSYNC_PKT_DATA;
	h->dtype = GSYNC_DTYPE_FP32;
	h->op = GSYNC_OP_SUM;
	h->src_rank = cpu_to_be16(2);
	h->nranks = cpu_to_be16(NRANKS);
	h->group_id = cpu_to_be64(GROUP);
	h->seq = cpu_to_be64(1);
	h->chunk = 0;
	h->nchunks = cpu_to_be32(10);
	h->chunk_bytes = cpu_to_be32(1024);
	h->total_len = cpu_to_be64(10000);
	h->payload_len = cpu_to_be32(1024);
	h->ncontrib = cpu_to_be16(1);
	return GSYNC_WIRE_HDR_LEN + 1024;
}

static int check(struct gsync_wire_hdr *h, unsigned int len)
{
	return gsync_wire_check(h, len, GROUP, NRANKS, ME);
}

static void gsync_wire_abi_sizes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_wire_hdr), GSYNC_WIRE_HDR_LEN);
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_wire_nack), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_wire_range), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_wire_status), 32);
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_wire_abort), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_wire_report), 24);
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_addr), 24);
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_join), 96);
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_op_desc), 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_op_result), 24);
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_info), 96);
	KUNIT_EXPECT_EQ(test, offsetof(struct gsync_info, key_mode), 72);
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_stats),
			(15 + GSYNC_DROP_MAX + 4) * sizeof(u64));
	/* The first 13 reasons keep their place; later ones are at the end. */
	KUNIT_EXPECT_EQ(test, offsetof(struct gsync_stats, reports_sent),
			(15 + 13) * sizeof(u64));
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_wire_sec), GSYNC_WIRE_SEC_LEN);
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_key), 64);
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_key_push), 80);
}

static void gsync_wire_good(struct kunit *test)
{
	struct gsync_wire_hdr h;
	unsigned int len = good_data(&h);

	KUNIT_EXPECT_EQ(test, check(&h, len), GSYNC_DROP_MAX);
	/* Under a schedule: a later step, a partial sum, more chunks. */
	h.sched_tag = cpu_to_be64(7);
	h.round = cpu_to_be16(3);
	h.ncontrib = cpu_to_be16(2);
	h.flags = cpu_to_be16(GSYNC_WF_PARTIAL);
	h.nchunks = cpu_to_be32(12);
	KUNIT_EXPECT_EQ(test, check(&h, len), GSYNC_DROP_MAX);
	len = good_data(&h);
	/* The last chunk is short: 10000 - 9 * 1024 = 784 bytes. */
	h.chunk = cpu_to_be32(9);
	h.payload_len = cpu_to_be32(784);
	KUNIT_EXPECT_EQ(test, check(&h, GSYNC_WIRE_HDR_LEN + 784),
			GSYNC_DROP_MAX);
	h.payload_len = cpu_to_be32(1024);
	KUNIT_EXPECT_EQ(test, check(&h, len), GSYNC_DROP_FIELD);
}

static void gsync_wire_truncated(struct kunit *test)
{
	struct gsync_wire_hdr h;
	unsigned int len = good_data(&h), l;

	for (l = 0; l < GSYNC_WIRE_HDR_LEN; l++)
		KUNIT_EXPECT_EQ(test, check(&h, l), GSYNC_DROP_SHORT);
	/* Payload shorter than payload_len says. */
	KUNIT_EXPECT_EQ(test, check(&h, len - 1), GSYNC_DROP_SHORT);
	/* Longer: trailing bytes are not accepted either. */
	KUNIT_EXPECT_EQ(test, check(&h, len + 1), GSYNC_DROP_FIELD);
}

#define EXPECT_BROKEN(field_stmt, reason) do {				\
	unsigned int __len = good_data(&h);				\
	field_stmt;							\
	KUNIT_EXPECT_EQ_MSG(test, check(&h, __len), reason, #field_stmt); \
} while (0)

static void gsync_wire_bad_fields(struct kunit *test)
{
	struct gsync_wire_hdr h;

	EXPECT_BROKEN(h.version = 0, GSYNC_DROP_VERSION);
	EXPECT_BROKEN(h.version = 1, GSYNC_DROP_VERSION);	/* the 56-byte format */
	/* 2: the same header, but no stamp nor REPORT */
	EXPECT_BROKEN(h.version = 2, GSYNC_DROP_VERSION);
	EXPECT_BROKEN(h.version = 4, GSYNC_DROP_VERSION);
	EXPECT_BROKEN(h.type = 0, GSYNC_DROP_TYPE);
	EXPECT_BROKEN(h.type = 7, GSYNC_DROP_TYPE);
	/* A REPORT names no operation. */
	EXPECT_BROKEN(h.type = GSYNC_PKT_REPORT, GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.group_id = cpu_to_be64(GROUP + 1), GSYNC_DROP_GROUP);
	EXPECT_BROKEN(h.src_rank = cpu_to_be16(NRANKS), GSYNC_DROP_RANK);
	EXPECT_BROKEN(h.src_rank = cpu_to_be16(0xffff), GSYNC_DROP_RANK);
	EXPECT_BROKEN(h.src_rank = cpu_to_be16(ME), GSYNC_DROP_RANK);
	EXPECT_BROKEN(h.nranks = cpu_to_be16(NRANKS + 1), GSYNC_DROP_RANK);
	EXPECT_BROKEN(h.dtype = GSYNC_DTYPE_MAX, GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.op = GSYNC_REDOP_MAX, GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.flags = cpu_to_be16(0x8000), GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.flags = cpu_to_be16(GSYNC_WF_SEALED), GSYNC_DROP_AUTH);
	EXPECT_BROKEN(h.flags = cpu_to_be16(GSYNC_WF_ENCRYPTED), GSYNC_DROP_AUTH);
	/* DATA's stamp may be anything: only DATA carries one. */
	EXPECT_BROKEN(h.stamp = cpu_to_be16(0xffff), GSYNC_DROP_MAX);
	EXPECT_BROKEN((h.type = GSYNC_PKT_POLL, h.payload_len = 0,
		       h.stamp = cpu_to_be16(1)), GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.flags = cpu_to_be16(GSYNC_WF_PARTIAL), GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.round = cpu_to_be16(1), GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.ncontrib = 0, GSYNC_DROP_FIELD);
	/* Without a schedule tag a value covers exactly its sender. */
	EXPECT_BROKEN(h.ncontrib = cpu_to_be16(2), GSYNC_DROP_FIELD);
	EXPECT_BROKEN((h.ncontrib = cpu_to_be16(2),
		       h.flags = cpu_to_be16(GSYNC_WF_PARTIAL)), GSYNC_DROP_FIELD);
	/* Under a schedule: steps bounded, PARTIAL iff ncontrib != 1. */
	EXPECT_BROKEN((h.sched_tag = cpu_to_be64(7),
		       h.round = cpu_to_be16(GSYNC_MAX_STEPS)), GSYNC_DROP_FIELD);
	EXPECT_BROKEN((h.sched_tag = cpu_to_be64(7),
		       h.ncontrib = cpu_to_be16(2)), GSYNC_DROP_FIELD);
	EXPECT_BROKEN((h.sched_tag = cpu_to_be64(7),
		       h.ncontrib = cpu_to_be16(NRANKS + 1),
		       h.flags = cpu_to_be16(GSYNC_WF_PARTIAL)), GSYNC_DROP_FIELD);
	EXPECT_BROKEN((h.sched_tag = cpu_to_be64(7),
		       h.nchunks = cpu_to_be32(9)), GSYNC_DROP_FIELD);
	EXPECT_BROKEN((h.sched_tag = cpu_to_be64(7),
		       h.payload_len = 0), GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.chunk = cpu_to_be32(10), GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.chunk = cpu_to_be32(0xffffffff), GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.nchunks = cpu_to_be32(11), GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.total_len = 0, GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.total_len = cpu_to_be64(10002), GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.total_len = cpu_to_be64(1ULL << 40), GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.chunk_bytes = 0, GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.chunk_bytes = cpu_to_be32(128), GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.chunk_bytes = cpu_to_be32(1026), GSYNC_DROP_FIELD);
	EXPECT_BROKEN(h.chunk_bytes = cpu_to_be32(70000), GSYNC_DROP_FIELD);
}

static void gsync_wire_control(struct kunit *test)
{
	struct gsync_wire_hdr h;
	unsigned int n;

	good_data(&h);
	h.type = GSYNC_PKT_STATUS;
	h.payload_len = cpu_to_be32(32);
	KUNIT_EXPECT_EQ(test, check(&h, GSYNC_WIRE_HDR_LEN + 32), GSYNC_DROP_MAX);
	h.payload_len = cpu_to_be32(31);
	KUNIT_EXPECT_EQ(test, check(&h, GSYNC_WIRE_HDR_LEN + 31),
			GSYNC_DROP_FIELD);

	h.type = GSYNC_PKT_ABORT;
	h.payload_len = cpu_to_be32(8);
	KUNIT_EXPECT_EQ(test, check(&h, GSYNC_WIRE_HDR_LEN + 8), GSYNC_DROP_MAX);
	h.payload_len = 0;
	KUNIT_EXPECT_EQ(test, check(&h, GSYNC_WIRE_HDR_LEN), GSYNC_DROP_FIELD);

	h.type = GSYNC_PKT_POLL;
	KUNIT_EXPECT_EQ(test, check(&h, GSYNC_WIRE_HDR_LEN), GSYNC_DROP_MAX);
	h.total_len = 0;
	KUNIT_EXPECT_EQ(test, check(&h, GSYNC_WIRE_HDR_LEN), GSYNC_DROP_FIELD);

	h.type = GSYNC_PKT_NACK;
	for (n = 0; n <= GSYNC_WIRE_MAX_RANGES + 1; n++) {
		unsigned int plen = 8 + 8 * n;

		h.payload_len = cpu_to_be32(plen);
		KUNIT_EXPECT_EQ_MSG(test, check(&h, GSYNC_WIRE_HDR_LEN + plen),
				    n <= GSYNC_WIRE_MAX_RANGES ?
				    GSYNC_DROP_MAX : GSYNC_DROP_FIELD,
				    "%u ranges", n);
	}
	h.payload_len = cpu_to_be32(12);
	KUNIT_EXPECT_EQ(test, check(&h, GSYNC_WIRE_HDR_LEN + 12),
			GSYNC_DROP_FIELD);

	/* REPORT: 24 bytes of payload, every operation field 0. */
	memset(&h, 0, sizeof(h));
	h.version = GSYNC_WIRE_VERSION;
	h.type = GSYNC_PKT_REPORT;
	h.src_rank = cpu_to_be16(2);
	h.nranks = cpu_to_be16(NRANKS);
	h.group_id = cpu_to_be64(GROUP);
	h.payload_len = cpu_to_be32(24);
	KUNIT_EXPECT_EQ(test, check(&h, GSYNC_WIRE_HDR_LEN + 24), GSYNC_DROP_MAX);
	h.payload_len = cpu_to_be32(16);
	KUNIT_EXPECT_EQ(test, check(&h, GSYNC_WIRE_HDR_LEN + 16),
			GSYNC_DROP_FIELD);
	h.payload_len = cpu_to_be32(24);
	h.seq = cpu_to_be64(1);
	KUNIT_EXPECT_EQ(test, check(&h, GSYNC_WIRE_HDR_LEN + 24),
			GSYNC_DROP_FIELD);
	h.seq = 0;
	h.stamp = cpu_to_be16(5);
	KUNIT_EXPECT_EQ(test, check(&h, GSYNC_WIRE_HDR_LEN + 24),
			GSYNC_DROP_FIELD);
	h.stamp = 0;
	h.chunk_bytes = cpu_to_be32(1024);
	KUNIT_EXPECT_EQ(test, check(&h, GSYNC_WIRE_HDR_LEN + 24),
			GSYNC_DROP_FIELD);
}

/* Random headers: any verdict is fine, but it must be a valid one. */
static void gsync_wire_random(struct kunit *test)
{
	struct gsync_wire_hdr h;
	unsigned int i, len;
	int r;

	for (i = 0; i < 20000; i++) {
		get_random_bytes(&h, sizeof(h));
		if (i & 1) {
			h.version = GSYNC_WIRE_VERSION;
			h.group_id = cpu_to_be64(GROUP);
			h.nranks = cpu_to_be16(NRANKS);
		}
		len = get_random_u32() % 70000;
		r = check(&h, len);
		KUNIT_ASSERT_GE(test, r, 0);
		KUNIT_ASSERT_LE(test, r, GSYNC_DROP_MAX);
		if (r == GSYNC_DROP_MAX)
			KUNIT_ASSERT_EQ(test, be32_to_cpu(h.payload_len),
					len - GSYNC_WIRE_HDR_LEN);
	}
}

static void gsync_nack_ranges_cases(struct kunit *test)
{
	struct gsync_wire_range out[4];
	DECLARE_BITMAP(have, 100);
	unsigned int n;

	bitmap_zero(have, 100);
	n = gsync_nack_ranges(have, 0, 100, out, 4);
	KUNIT_ASSERT_EQ(test, n, 1);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out[0].first), 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out[0].count), 100);

	bitmap_fill(have, 100);
	KUNIT_EXPECT_EQ(test, gsync_nack_ranges(have, 0, 100, out, 4), 0);

	/* Missing: 3, 10..19, 99 (the last chunk). */
	__clear_bit(3, have);
	bitmap_clear(have, 10, 10);
	__clear_bit(99, have);
	n = gsync_nack_ranges(have, 0, 100, out, 4);
	KUNIT_ASSERT_EQ(test, n, 3);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out[0].first), 3);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out[0].count), 1);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out[1].first), 10);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out[1].count), 10);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out[2].first), 99);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out[2].count), 1);

	/* More gaps than room: the first ones are reported. */
	bitmap_fill(have, 100);
	for (n = 0; n < 100; n += 2)
		__clear_bit(n, have);
	n = gsync_nack_ranges(have, 0, 100, out, 4);
	KUNIT_ASSERT_EQ(test, n, 4);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out[3].first), 6);

	/* A window: gaps from 'from' up to (not including) 'to'. */
	n = gsync_nack_ranges(have, 9, 15, out, 4);
	KUNIT_ASSERT_EQ(test, n, 3);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out[0].first), 10);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out[2].first), 14);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out[2].count), 1);
	KUNIT_EXPECT_EQ(test, gsync_nack_ranges(have, 11, 12, out, 4), 0);
	KUNIT_EXPECT_EQ(test, gsync_nack_ranges(have, 50, 50, out, 4), 0);
}

/*
 * Which gaps a receiver asks for: while a stream flows, those that chunks
 * sent after them passed a repair interval ago (aged), not the ones just
 * passed (up to highest), which may be reordered; during the hold-off only
 * those not asked for yet.
 */
static void gsync_nack_span_cases(struct kunit *test)
{
	static const struct {
		u32 highest, aged, asked;
		bool done, stalled, held, ask;
		u32 from, to;
	} cases[] = {
		/* Flowing: up to aged, whatever was seen since. */
		{ 60, 40, 0, false, false, false, true, 0, 40 },
		/* Nothing aged yet (first interval of the stream): nothing. */
		{ 60, 0, 0, false, false, false, false, 0, 0 },
		/* Held off: only what was not asked for, all of it after. */
		{ 80, 60, 40, false, false, true, true, 40, 60 },
		{ 80, 60, 60, false, false, true, false, 60, 60 },
		{ 80, 60, 60, false, false, false, true, 0, 60 },
		/* Stalled for an interval: up to the highest seen. */
		{ 80, 60, 60, false, true, true, true, 60, 80 },
		/* The sender POLLed: up to the end, past a stale highest. */
		{ 80, 60, 60, true, false, true, true, 60, 100 },
		/* Never past the stream, whatever the marks say. */
		{ 120, 110, 150, false, true, true, false, 100, 100 },
		{ 120, 110, 0, false, false, false, true, 0, 100 },
	};
	unsigned int i;
	u32 from, to;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		KUNIT_EXPECT_EQ_MSG(test, gsync_nack_span(100, cases[i].highest,
							  cases[i].aged,
							  cases[i].asked,
							  cases[i].done,
							  cases[i].stalled,
							  cases[i].held,
							  &from, &to),
				    cases[i].ask, "case %u", i);
		if (!cases[i].ask && !cases[i].from && !cases[i].to)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, from, cases[i].from, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, to, cases[i].to, "case %u", i);
	}
}

static struct kunit_case gsync_wire_cases[] = {
	KUNIT_CASE(gsync_wire_abi_sizes),
	KUNIT_CASE(gsync_wire_good),
	KUNIT_CASE(gsync_wire_truncated),
	KUNIT_CASE(gsync_wire_bad_fields),
	KUNIT_CASE(gsync_wire_control),
	KUNIT_CASE(gsync_wire_random),
	KUNIT_CASE(gsync_nack_ranges_cases),
	KUNIT_CASE(gsync_nack_span_cases),
	{}
};

static struct kunit_suite gsync_wire_suite = {
	.name = "gsync_wire",
	.test_cases = gsync_wire_cases,
};

/* ---- GSYNC_JOIN validation ---------------------------------------------- */

static void v4(struct gsync_addr *a, u8 last, u16 port)
{
	memset(a, 0, sizeof(*a));
	a->family = AF_INET;
	a->port = htons(port);
	a->addr[0] = 198;
	a->addr[1] = 18;
	a->addr[3] = last;
}

static void good_join(struct gsync_join *j, struct gsync_addr *m)
{
	int i;

	memset(j, 0, sizeof(*j));
	j->group_id = 7;
	j->rank = 1;
	j->nranks = 3;
	for (i = 0; i < 3; i++)
		v4(&m[i], i + 1, 7000);
	v4(&j->mcast, 0, 7100);
	j->mcast.addr[0] = 239;
}

static void gsync_join_valid_and_defaults(struct kunit *test)
{
	struct gsync_addr m[3];
	struct gsync_join j;

	good_join(&j, m);
	KUNIT_ASSERT_EQ(test, gsync_join_check(&j, m), 0);
	KUNIT_EXPECT_EQ(test, j.window, 4);
	KUNIT_EXPECT_EQ(test, j.max_op_bytes, 64U << 20);
	KUNIT_EXPECT_EQ(test, j.op_timeout_ms, 10000);
	KUNIT_EXPECT_EQ(test, j.repair_ms, 20);
	KUNIT_EXPECT_EQ(test, j.ttl, 1);

	good_join(&j, m);
	j.flags = GSYNC_JOIN_UNICAST;
	memset(&j.mcast, 0, sizeof(j.mcast));
	KUNIT_EXPECT_EQ(test, gsync_join_check(&j, m), 0);
}

#define EXPECT_JOIN(stmt, err) do {					\
	good_join(&j, m);						\
	stmt;								\
	KUNIT_EXPECT_EQ_MSG(test, gsync_join_check(&j, m), err, #stmt);	\
} while (0)

static void gsync_join_rejects(struct kunit *test)
{
	struct gsync_addr m[3];
	struct gsync_join j;

	EXPECT_JOIN(j.nranks = 1, -ERANGE);
	EXPECT_JOIN(j.nranks = GSYNC_MAX_RANKS + 1, -ERANGE);
	EXPECT_JOIN(j.rank = 3, -EINVAL);
	EXPECT_JOIN(j.flags = 1U << 7, -EINVAL);
	EXPECT_JOIN(j.reserved0[1] = 1, -EINVAL);
	EXPECT_JOIN(j.reserved1[0] = 1, -EINVAL);
	EXPECT_JOIN(j.reserved2 = 1, -EINVAL);
	EXPECT_JOIN(j.mtu = 575, -EINVAL);
	EXPECT_JOIN(j.mtu = 65536, -EINVAL);
	EXPECT_JOIN(j.window = GSYNC_MAX_WINDOW + 1, -EINVAL);
	EXPECT_JOIN(j.max_op_bytes = GSYNC_MAX_OP_BYTES + 1, -EINVAL);
	EXPECT_JOIN(j.op_timeout_ms = 9, -EINVAL);
	EXPECT_JOIN(j.op_timeout_ms = 3600001, -EINVAL);
	EXPECT_JOIN((j.op_timeout_ms = 100, j.repair_ms = 101), -EINVAL);
	EXPECT_JOIN(m[2].family = AF_INET6, -EINVAL);
	EXPECT_JOIN(m[0].family = 99, -EINVAL);
	EXPECT_JOIN(m[1].port = 0, -EINVAL);
	EXPECT_JOIN(m[1].addr[0] = 224, -EINVAL);
	EXPECT_JOIN(memset(m[1].addr, 0, 4), -EINVAL);
	EXPECT_JOIN(memset(m[1].addr, 0xff, 4), -EINVAL);
	EXPECT_JOIN(m[1].addr[7] = 1, -EINVAL);
	EXPECT_JOIN(m[1].scope_id = 2, -EINVAL);
	EXPECT_JOIN(m[2] = m[0], -EINVAL);
	EXPECT_JOIN(j.mcast.addr[0] = 198, -EINVAL);
	EXPECT_JOIN(j.mcast.port = 0, -EINVAL);
	EXPECT_JOIN(j.mcast.family = AF_INET6, -EINVAL);
	EXPECT_JOIN(j.flags = GSYNC_JOIN_UNICAST, -EINVAL);
}

static void gsync_join_ipv6(struct kunit *test)
{
	struct gsync_addr m[3];
	struct gsync_join j;
	int i;

	good_join(&j, m);
	for (i = 0; i < 3; i++) {
		memset(&m[i], 0, sizeof(m[i]));
		m[i].family = AF_INET6;
		m[i].port = htons(7000);
		m[i].addr[0] = 0x20;
		m[i].addr[1] = 0x01;
		m[i].addr[3] = 0x02;
		m[i].addr[15] = i + 1;
	}
	memset(&j.mcast, 0, sizeof(j.mcast));
	j.mcast.family = AF_INET6;
	j.mcast.port = htons(7100);
	j.mcast.addr[0] = 0xff;
	j.mcast.addr[1] = 0x15;
	j.mcast.addr[15] = 0x77;
	KUNIT_EXPECT_EQ(test, gsync_join_check(&j, m), 0);
	/* A scope id only makes sense for link-local members. */
	m[0].scope_id = 3;
	KUNIT_EXPECT_EQ(test, gsync_join_check(&j, m), -EINVAL);
	m[0].addr[0] = 0xfe;
	m[0].addr[1] = 0x80;
	m[0].addr[3] = 0;
	KUNIT_EXPECT_EQ(test, gsync_join_check(&j, m), 0);
}

static struct kunit_case gsync_join_cases[] = {
	KUNIT_CASE(gsync_join_valid_and_defaults),
	KUNIT_CASE(gsync_join_rejects),
	KUNIT_CASE(gsync_join_ipv6),
	{}
};

static struct kunit_suite gsync_join_suite = {
	.name = "gsync_join",
	.test_cases = gsync_join_cases,
};

kunit_test_suites(&gsync_wire_suite, &gsync_join_suite);
