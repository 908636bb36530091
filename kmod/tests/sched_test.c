// SPDX-License-Identifier: GPL-2.0
/*
 * Suites gsync_sched (schedule blob validation, fuzzed blobs, block and
 * chunk arithmetic) and gsync_sched_op (the per-operation round/clique
 * state machine: which blocks wait for what, and when an operation is
 * done), driven directly on a group that sends nothing.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/gsync.h>
#include <linux/gsync_sched.h>

#include "gsync.h"
#include "group.h"
#include "op.h"
#include "route.h"

struct tcl {
	u16 round;
	u8 pattern;
	u8 flags;
	u16 agg;
	u8 n;
	u16 m[9];
};

#define TBLOB_MAX	GSYNC_SCHED_BLOB_LEN(16, 64)

/* Pack a blob: header, cliques, members. Returns its length. */
static unsigned int tbuild(u8 *buf, u16 nranks, u16 nrounds,
			   const struct tcl *cl, unsigned int ncl)
{
	struct gsync_sched_hdr *h = (void *)buf;
	struct gsync_sched_clique *c = (void *)(h + 1);
	unsigned int i, j, nm = 0;
	u16 *m;

	memset(buf, 0, TBLOB_MAX);
	for (i = 0; i < ncl; i++)
		nm += cl[i].n;
	m = (u16 *)(c + ncl);
	h->magic = GSYNC_SCHED_MAGIC;
	h->version = GSYNC_SCHED_VERSION;
	h->hdr_len = sizeof(*h);
	h->block_bytes = 4096;
	h->nranks = nranks;
	h->nrounds = nrounds;
	h->ncliques = ncl;
	h->nmembers = nm;
	nm = 0;
	for (i = 0; i < ncl; i++) {
		c[i].round = cl[i].round;
		c[i].pattern = cl[i].pattern;
		c[i].flags = cl[i].flags;
		c[i].aggregator = cl[i].agg;
		c[i].first = nm;
		c[i].nmembers = cl[i].n;
		for (j = 0; j < cl[i].n; j++)
			m[nm++] = cl[i].m[j];
	}
	return GSYNC_SCHED_BLOB_LEN(ncl, nm);
}

#define M GSYNC_PAT_MULTICAST
#define U GSYNC_PAT_UNICAST
#define RS GSYNC_PAT_RS_MULTICAST
#define AG GSYNC_PAT_AGGREGATOR

static const struct tcl grid[] = {
	{ 0, U, 0, 0, 3, { 0, 1, 2 } }, { 0, U, 0, 0, 3, { 3, 4, 5 } },
	{ 0, U, 0, 0, 3, { 6, 7, 8 } },
	{ 1, RS, 0, 0, 3, { 0, 3, 6 } }, { 1, RS, 0, 0, 3, { 1, 4, 7 } },
	{ 1, AG, 0, 5, 3, { 2, 5, 8 } },
};

/* Rows and columns over a scrambled assignment of ranks to positions. */
static const struct tcl scrambled[] = {
	{ 0, M, 0, 0, 3, { 0, 4, 8 } }, { 0, M, 0, 0, 3, { 1, 5, 6 } },
	{ 0, M, 0, 0, 3, { 2, 3, 7 } },
	{ 1, M, 0, 0, 3, { 0, 1, 2 } }, { 1, M, 0, 0, 3, { 3, 4, 5 } },
	{ 1, M, 0, 0, 3, { 6, 7, 8 } },
};

/* The group's multicast address in these tests: 239.1.1.1:7400. */
static const struct gsync_addr tmcast4 = {
	.family = AF_INET, .port = htons(7400), .addr = { 239, 1, 1, 1 },
};

static int tcompile(u8 *buf, unsigned int len, u16 nranks, bool unicast,
		    struct gsync_sched **s)
{
	return gsync_sched_compile(buf, len, nranks,
				   unicast ? NULL : &tmcast4, s);
}

static void gsync_sched_abi(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_sched_hdr), 80);
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_sched_clique), 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct gsync_sched_push), 16);
}

static void gsync_sched_grid(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, TBLOB_MAX, GFP_KERNEL);
	struct gsync_sched *s;
	unsigned int len, r;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = tbuild(buf, 9, 2, grid, ARRAY_SIZE(grid));
	KUNIT_ASSERT_EQ(test, tcompile(buf, len, 9, false, &s), 0);
	KUNIT_EXPECT_NE(test, s->tag, 0);
	KUNIT_EXPECT_EQ(test, s->ncontrib, 9);
	for (r = 0; r < 9; r++) {
		KUNIT_EXPECT_EQ(test, gsync_sched_cov(s, 0, r), 1);
		KUNIT_EXPECT_EQ(test, gsync_sched_cov(s, 1, r), 3);
		KUNIT_EXPECT_EQ(test, gsync_sched_cov(s, 2, r), 9);
	}
	/* Round 0 only sums rows; round 1 divides an AVG, once. */
	KUNIT_EXPECT_FALSE(test, gsync_sched_clique(s, 0, 4)->divides);
	KUNIT_EXPECT_TRUE(test, gsync_sched_clique(s, 1, 4)->divides);
	KUNIT_EXPECT_EQ(test, gsync_sclique_owner(gsync_sched_clique(s, 1, 4),
						  4), 4);
	KUNIT_EXPECT_EQ(test, gsync_sclique_owner(gsync_sched_clique(s, 1, 8),
						  0), 5);
	KUNIT_EXPECT_EQ(test, gsync_sched_clique(s, 1, 4)->rate, 0);
	gsync_sched_put(s);

	/* Rates: kbit/s in the blob, bytes/s in the compiled cliques. */
	((struct gsync_sched_clique *)(buf + sizeof(struct gsync_sched_hdr)))[3].rate_kbit = 8000;
	((struct gsync_sched_clique *)(buf + sizeof(struct gsync_sched_hdr)))[4].rate_kbit = U32_MAX;
	KUNIT_ASSERT_EQ(test, tcompile(buf, len, 9, false, &s), 0);
	KUNIT_EXPECT_EQ(test, gsync_sched_clique(s, 1, 0)->rate, 1000000);
	KUNIT_EXPECT_EQ(test, gsync_sched_clique(s, 1, 4)->rate,
			(u64)U32_MAX * 125);
	KUNIT_EXPECT_EQ(test, gsync_sched_clique(s, 0, 0)->rate, 0);
	gsync_sched_put(s);
	len = tbuild(buf, 9, 2, grid, ARRAY_SIZE(grid));

	/* Only unicast cliques can run in a group without multicast. */
	KUNIT_EXPECT_EQ(test, tcompile(buf, len, 9, true, &s), -EOPNOTSUPP);
	KUNIT_EXPECT_NULL(test, s);
	/* The same blob for another group size. */
	KUNIT_EXPECT_EQ(test, tcompile(buf, len, 10, false, &s), -EINVAL);
}

/* Scrambled rows: the canonical order makes every column's sum alike. */
static void gsync_sched_canonical_order(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, TBLOB_MAX, GFP_KERNEL);
	const struct gsync_sclique *q;
	struct gsync_sched *s;
	unsigned int len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = tbuild(buf, 9, 2, scrambled, ARRAY_SIZE(scrambled));
	KUNIT_ASSERT_EQ(test, tcompile(buf, len, 9, false, &s), 0);
	/* Column {3, 4, 5} holds rows (2,3,7), (0,4,8), (1,5,6). */
	q = gsync_sched_clique(s, 1, 3);
	KUNIT_ASSERT_EQ(test, q->ninputs, 3);
	KUNIT_EXPECT_EQ(test, q->order[0], 4);
	KUNIT_EXPECT_EQ(test, q->order[1], 5);
	KUNIT_EXPECT_EQ(test, q->order[2], 3);
	gsync_sched_put(s);
}

static void gsync_sched_aggregator_relay(struct kunit *test)
{
	static const struct tcl agg[] = { { 0, AG, 0, 2, 3, { 0, 1, 2 } } };
	u8 *buf = kunit_kzalloc(test, TBLOB_MAX, GFP_KERNEL);
	struct gsync_sched_hdr *h = (void *)buf;
	struct gsync_sched *s;
	unsigned int len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = tbuild(buf, 3, 1, agg, 1);
	h->idle[0] = 1 << 2;	/* rank 2 stands for a PoP: it only sums */
	KUNIT_ASSERT_EQ(test, tcompile(buf, len, 3, false, &s), 0);
	KUNIT_EXPECT_EQ(test, s->ncontrib, 2);
	KUNIT_EXPECT_EQ(test, gsync_sched_clique(s, 0, 0)->ninputs, 2);
	KUNIT_EXPECT_EQ(test, gsync_sched_cov(s, 0, 2), 0);
	KUNIT_EXPECT_EQ(test, gsync_sched_cov(s, 1, 2), 2);
	gsync_sched_put(s);
	h->idle[0] = 7;
	KUNIT_EXPECT_EQ(test, tcompile(buf, len, 3, false, &s), -EINVAL);
	h->idle[0] = 0;
	h->idle[1] = 1;		/* rank 8 of a 3-rank group */
	KUNIT_EXPECT_EQ(test, tcompile(buf, len, 3, false, &s), -EINVAL);
}

#define EXPECT_REJECTED(nranks, nrounds, cl) do {			\
	unsigned int __l = tbuild(buf, nranks, nrounds, cl, ARRAY_SIZE(cl)); \
	KUNIT_EXPECT_EQ_MSG(test, tcompile(buf, __l, nranks, false, &s), \
			    -EINVAL, #cl);				\
	KUNIT_EXPECT_NULL(test, s);					\
} while (0)

/* Schedules that are not an exact, bit-identical all-reduce. */
static void gsync_sched_not_exact(struct kunit *test)
{
	static const struct tcl twice[] = {
		{ 0, M, 0, 0, 2, { 0, 1 } }, { 0, M, 0, 0, 2, { 2, 3 } },
		{ 1, M, 0, 0, 2, { 0, 1 } }, { 1, M, 0, 0, 2, { 2, 3 } },
	};
	static const struct tcl partial[] = {
		{ 0, M, 0, 0, 2, { 0, 1 } }, { 0, M, 0, 0, 2, { 2, 3 } },
	};
	/* Rank 0 ends with ((a+b)+c)+d, rank 1 with ((a+b)+d)+c. */
	static const struct tcl trees[] = {
		{ 0, M, 0, 0, 2, { 0, 1 } },
		{ 1, M, 0, 0, 2, { 0, 2 } }, { 1, M, 0, 0, 2, { 1, 3 } },
		{ 2, M, 0, 0, 2, { 0, 3 } }, { 2, M, 0, 0, 2, { 1, 2 } },
	};
	u8 *buf = kunit_kzalloc(test, TBLOB_MAX, GFP_KERNEL);
	struct gsync_sched *s;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	EXPECT_REJECTED(4, 2, twice);
	EXPECT_REJECTED(4, 1, partial);
	EXPECT_REJECTED(4, 3, trees);
}

/* Malformed structure, field by field. */
static void gsync_sched_malformed(struct kunit *test)
{
	static const struct tcl two_cliques[] = {
		{ 0, M, 0, 0, 2, { 0, 1 } }, { 0, M, 0, 0, 2, { 1, 2 } },
	};
	static const struct tcl unsorted[] = { { 0, M, 0, 0, 3, { 1, 0, 2 } } };
	static const struct tcl dup[] = { { 0, M, 0, 0, 3, { 0, 0, 2 } } };
	static const struct tcl out[] = { { 0, M, 0, 0, 3, { 0, 1, 3 } } };
	static const struct tcl agg_out[] = { { 0, AG, 0, 7, 3, { 0, 1, 2 } } };
	static const struct tcl agg_set[] = { { 0, M, 0, 1, 3, { 0, 1, 2 } } };
	static const struct tcl pat0[] = { { 0, 0, 0, 0, 3, { 0, 1, 2 } } };
	static const struct tcl pat9[] = { { 0, 9, 0, 0, 3, { 0, 1, 2 } } };
	static const struct tcl uflag[] = { { 0, M, 1, 0, 3, { 0, 1, 2 } } };
	static const struct tcl xflag[] = { { 0, RS, 2, 0, 3, { 0, 1, 2 } } };
	static const struct tcl single[] = {
		{ 0, M, 0, 0, 1, { 0 } }, { 0, M, 0, 0, 2, { 1, 2 } },
	};
	static const struct tcl late[] = { { 1, M, 0, 0, 3, { 0, 1, 2 } } };
	static const struct tcl good[] = { { 0, M, 0, 0, 3, { 0, 1, 2 } } };
	u8 *buf = kunit_kzalloc(test, TBLOB_MAX, GFP_KERNEL);
	struct gsync_sched_hdr *h = (void *)buf;
	struct gsync_sched_clique *c = (void *)(h + 1);
	struct gsync_sched *s;
	unsigned int len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	EXPECT_REJECTED(3, 1, two_cliques);
	EXPECT_REJECTED(3, 1, unsorted);
	EXPECT_REJECTED(3, 1, dup);
	EXPECT_REJECTED(3, 1, out);
	EXPECT_REJECTED(3, 1, agg_out);
	EXPECT_REJECTED(3, 1, agg_set);
	EXPECT_REJECTED(3, 1, pat0);
	EXPECT_REJECTED(3, 1, pat9);
	EXPECT_REJECTED(3, 1, uflag);
	EXPECT_REJECTED(3, 1, xflag);
	EXPECT_REJECTED(3, 1, single);
	EXPECT_REJECTED(3, 1, late);

#define BREAK(stmt) do {						\
	len = tbuild(buf, 3, 1, good, 1);				\
	stmt;								\
	KUNIT_EXPECT_EQ_MSG(test, tcompile(buf, len, 3, false, &s),	\
			    -EINVAL, #stmt);				\
} while (0)
	len = tbuild(buf, 3, 1, good, 1);
	KUNIT_ASSERT_EQ(test, tcompile(buf, len, 3, false, &s), 0);
	gsync_sched_put(s);
	BREAK(h->magic++);
	BREAK(h->version = 2);
	BREAK(h->hdr_len = 72);
	BREAK(h->flags = 2);
	BREAK(h->flags = 1U << 31);
	BREAK(h->group_base[15] = 1);
	BREAK(h->block_bytes = 4095);
	BREAK(h->block_bytes = 4104 + 1);
	BREAK(h->nrounds = 0);
	BREAK(h->nrounds = GSYNC_SCHED_MAX_ROUNDS + 1);
	BREAK(h->ncliques = 0);
	BREAK(h->ncliques = 2);
	BREAK(h->nmembers = 4);
	BREAK(h->nmembers = 2);
	BREAK(len--);
	BREAK(len++);
	BREAK(len = sizeof(*h) - 1);
	BREAK(len = 0);
	BREAK(c->reserved0 = 1);
	BREAK(c->first = 1);
	BREAK(c->nmembers = 4);
	BREAK(c->round = 1);
#undef BREAK
}

/* xorshift32: reproducible and the same on every kernel version. */
static u32 trand(u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* Random corruption of valid blobs: an error or a schedule, nothing else. */
static void gsync_sched_fuzz(struct kunit *test)
{
	u8 *good = kunit_kzalloc(test, TBLOB_MAX, GFP_KERNEL);
	u8 *buf = kunit_kzalloc(test, TBLOB_MAX, GFP_KERNEL);
	unsigned int len, l, i, k, accepted = 0;
	struct gsync_sched *s;
	u32 x = 0x9e3779b9;
	int err;

	KUNIT_ASSERT_NOT_NULL(test, good);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = tbuild(good, 9, 2, grid, ARRAY_SIZE(grid));
	for (i = 0; i < 20000; i++) {
		memcpy(buf, good, TBLOB_MAX);
		l = len;
		for (k = 0; k <= i % 4; k++)
			buf[trand(&x) % len] = trand(&x);
		if (i % 7 == 0)
			l = trand(&x) % TBLOB_MAX;
		err = tcompile(buf, l, 9, i % 3 == 0, &s);
		if (!err) {
			KUNIT_EXPECT_NE(test, s->tag, 0);
			KUNIT_EXPECT_EQ(test, s->ncontrib,
					(u16)(9 - hweight8(buf[32]) -
					 hweight8(buf[33] & 1)));
			accepted++;
			gsync_sched_put(s);
		} else {
			KUNIT_EXPECT_TRUE(test, err == -EINVAL ||
					  err == -EOPNOTSUPP);
			KUNIT_EXPECT_NULL(test, s);
		}
	}
	kunit_info(test, "%u of 20000 corrupted blobs still valid", accepted);
}

static void gsync_sched_check_chunks(struct kunit *test, u32 len, u32 blk,
				     u32 cb)
{
	u32 n = gsync_chunk_count(len, blk, cb), i, off, plen, next = 0;

	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_TRUE(test, gsync_chunk_span(len, blk, cb, i, &off,
							 &plen));
		KUNIT_ASSERT_EQ(test, off, next);
		KUNIT_ASSERT_TRUE(test, plen > 0 && plen <= cb);
		/* No chunk straddles a block boundary. */
		KUNIT_ASSERT_EQ(test, off / blk, (off + plen - 1) / blk);
		next += plen;
	}
	KUNIT_EXPECT_EQ(test, next, len);
	KUNIT_EXPECT_FALSE(test, gsync_chunk_span(len, blk, cb, n, &off, &plen));
}

/* Blocks cut into chunks cover the buffer exactly, in order. */
static void gsync_sched_chunks(struct kunit *test)
{
	static const u32 lens[] = { 4, 1000, 4096, 10000, 65536, 1048580 };
	static const u32 blocks[] = { 4096, 8192, 65536, 1 << 20 };
	static const u32 cbs[] = { 256, 1024, 1408, 8944 };
	unsigned int a, b, c, i;

	for (i = 0; i < ARRAY_SIZE(lens) * ARRAY_SIZE(blocks) * ARRAY_SIZE(cbs);
	     i++) {
		a = i % ARRAY_SIZE(lens);
		b = i / ARRAY_SIZE(lens) % ARRAY_SIZE(blocks);
		c = i / ARRAY_SIZE(lens) / ARRAY_SIZE(blocks);
		gsync_sched_check_chunks(test, lens[a], min(blocks[b], lens[a]),
					 cbs[c]);
	}
}

/* Compile grid (6 cliques) with clique groups in a group of mcast. */
static int tcgroups(u8 *buf, const struct gsync_addr *mcast, const u8 *base,
		    unsigned int blen, struct gsync_sched **s)
{
	unsigned int len = tbuild(buf, 9, 2, grid, ARRAY_SIZE(grid));
	struct gsync_sched_hdr *h = (void *)buf;

	h->flags = GSYNC_SCHF_CLIQUE_GROUPS;
	memcpy(h->group_base, base, blen);
	return gsync_sched_compile(buf, len, 9, mcast, s);
}

/* Clique i's address: the base (or the group's address + 1) plus i. */
static void gsync_sched_clique_groups(struct kunit *test)
{
	static const struct gsync_addr m6 = {
		.family = AF_INET6, .port = htons(7400),
		.addr = { 0xff, 0x12, [15] = 1 },
	};
	static const u8 b4[] = { 239, 2, 0, 0 };
	static const u8 over[] = { 239, 1, 0, 254 };	/* ...1.1.1 in range */
	static const u8 low[] = { 224, 0, 0, 250 };	/* link-local block */
	static const u8 high[] = { 239, 255, 255, 252 };	/* past 239/8 */
	static const u8 uni[] = { 223, 255, 255, 255 };
	static const u8 wide[] = { 239, 2, 0, 0, 1 };	/* byte 4 set */
	static const u8 b6[] = { 0xff, 0x15, [14] = 0xab, [15] = 0 };
	static const u8 b6carry[] = { 0xff, 0x15, [12] = 0xff, 0xff, 0xff,
				      0xfc };
	static const u8 b6uni[] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const struct tcl ucl[] = { { 0, U, 0, 0, 3, { 0, 1, 2 } } };
	u8 *buf = kunit_kzalloc(test, TBLOB_MAX, GFP_KERNEL);
	static const u8 zero[16];
	struct gsync_sched *s;
	unsigned int len;
	u8 a[16];

	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* Derived: 239.1.1.2 for clique 0, 239.1.1.7 for clique 5. */
	KUNIT_ASSERT_EQ(test, tcgroups(buf, &tmcast4, zero, 16, &s), 0);
	KUNIT_EXPECT_TRUE(test, gsync_sched_caddr(s, &s->cliques[0], a));
	KUNIT_EXPECT_EQ(test, memcmp(a, "\xef\x01\x01\x02", 4), 0);
	KUNIT_EXPECT_TRUE(test, gsync_sched_caddr(s, &s->cliques[5], a));
	KUNIT_EXPECT_EQ(test, memcmp(a, "\xef\x01\x01\x07", 4), 0);
	gsync_sched_put(s);
	/* Explicit base: 239.2.0.3 for clique 3. */
	KUNIT_ASSERT_EQ(test, tcgroups(buf, &tmcast4, b4, 4, &s), 0);
	KUNIT_EXPECT_TRUE(test, gsync_sched_caddr(s, &s->cliques[3], a));
	KUNIT_EXPECT_EQ(test, memcmp(a, "\xef\x02\x00\x03", 4), 0);
	gsync_sched_put(s);
	KUNIT_EXPECT_EQ(test, tcgroups(buf, &tmcast4, over, 4, &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, tcgroups(buf, &tmcast4, low, 4, &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, tcgroups(buf, &tmcast4, high, 4, &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, tcgroups(buf, &tmcast4, uni, 4, &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, tcgroups(buf, &tmcast4, wide, 5, &s), -EINVAL);
	/* IPv6: ff12::2 for clique 0 (derived), ff15::ab05 for clique 5. */
	KUNIT_ASSERT_EQ(test, tcgroups(buf, &m6, zero, 16, &s), 0);
	KUNIT_EXPECT_TRUE(test, gsync_sched_caddr(s, &s->cliques[0], a));
	KUNIT_EXPECT_EQ(test, a[15], 2);
	KUNIT_EXPECT_EQ(test, memcmp(a, m6.addr, 15), 0);
	gsync_sched_put(s);
	KUNIT_ASSERT_EQ(test, tcgroups(buf, &m6, b6, 16, &s), 0);
	KUNIT_EXPECT_TRUE(test, gsync_sched_caddr(s, &s->cliques[5], a));
	KUNIT_EXPECT_EQ(test, a[14], 0xab);
	KUNIT_EXPECT_EQ(test, a[15], 5);
	gsync_sched_put(s);
	KUNIT_EXPECT_EQ(test, tcgroups(buf, &m6, b6carry, 16, &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, tcgroups(buf, &m6, b6uni, 16, &s), -EINVAL);
	/* A unicast group has nothing to multicast: the flag does nothing. */
	len = tbuild(buf, 3, 1, ucl, 1);
	((struct gsync_sched_hdr *)buf)->flags = GSYNC_SCHF_CLIQUE_GROUPS;
	KUNIT_ASSERT_EQ(test, tcompile(buf, len, 3, true, &s), 0);
	KUNIT_EXPECT_FALSE(test, gsync_sched_caddr(s, &s->cliques[0], a));
	gsync_sched_put(s);
	/* Without the flag, the group's address. */
	len = tbuild(buf, 3, 1, ucl, 1);
	KUNIT_ASSERT_EQ(test, tcompile(buf, len, 3, false, &s), 0);
	KUNIT_EXPECT_FALSE(test, gsync_sched_caddr(s, &s->cliques[0], a));
	gsync_sched_put(s);
}

static struct kunit_case gsync_sched_cases[] = {
	KUNIT_CASE(gsync_sched_abi),
	KUNIT_CASE(gsync_sched_grid),
	KUNIT_CASE(gsync_sched_canonical_order),
	KUNIT_CASE(gsync_sched_aggregator_relay),
	KUNIT_CASE(gsync_sched_not_exact),
	KUNIT_CASE(gsync_sched_malformed),
	KUNIT_CASE(gsync_sched_clique_groups),
	KUNIT_CASE(gsync_sched_fuzz),
	KUNIT_CASE(gsync_sched_chunks),
	{}
};

static struct kunit_suite gsync_sched_suite = {
	.name = "gsync_sched",
	.test_cases = gsync_sched_cases,
};

/* ---- gsync_sched_op: the state machine of one operation ------------- */

struct top {
	struct gsync_group *g;
	struct gsync_sched *s;
	struct gsync_op *op;
};

/* Rank me of the grid, a 3-block operation, started. */
static void top_start(struct kunit *test, struct top *t, unsigned int me)
{
	u8 *buf = kunit_kzalloc(test, TBLOB_MAX, GFP_KERNEL);
	unsigned int len;
	void *sendbuf;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = tbuild(buf, 9, 2, grid, ARRAY_SIZE(grid));
	KUNIT_ASSERT_EQ(test, tcompile(buf, len, 9, false, &t->s), 0);
	t->g = kunit_kzalloc(test, sizeof(*t->g), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->g);
	t->g->cfg.rank = me;
	t->g->cfg.nranks = 9;
	t->g->cfg.op_timeout_ms = 1000;
	t->g->chunk_bytes = 1024;
	t->g->dead = true;	/* nothing is sent or queued */
	spin_lock_init(&t->g->lock);
	sendbuf = kvmalloc(3 * 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sendbuf);
	t->op = gsync_op_alloc(t->g, 5, GSYNC_DTYPE_FP32, GSYNC_OP_SUM,
			       3 * 4096, sendbuf, t->s, U64_MAX);
	if (IS_ERR(t->op)) {
		kvfree(sendbuf);
		t->op = NULL;
	}
	KUNIT_ASSERT_NOT_NULL(test, t->op);
	KUNIT_ASSERT_EQ(test, t->op->nblocks, 3);
	KUNIT_ASSERT_EQ(test, t->op->ppb, 4);
	spin_lock_bh(&t->g->lock);
	gsync_op_start(t->g, t->op);
	spin_unlock_bh(&t->g->lock);
}

static void top_end(struct top *t)
{
	gsync_op_free(t->g, t->op);
	gsync_sched_put(t->s);
}

static bool reducible(struct top *t, unsigned int round, u32 b)
{
	return test_bit(b, t->op->reducible[round]);
}

/* Block b of the row (round 0): both other members' values, reduced. */
static void top_row_block(struct top *t, u32 b)
{
	gsync_op_block_in(t->g, t->op, 0, b);
	gsync_op_block_in(t->g, t->op, 0, b);
	gsync_op_reduced(t->g, t->op, 0, b);
}

/* Rank 4: row {3,4,5} by unicast, then owns block 1 of column {1,4,7}. */
static void gsync_sched_op_grid(struct kunit *test)
{
	struct top t;
	struct gsync_op *op;
	u32 b;

	top_start(test, &t, 4);
	op = t.op;
	/* Round 0: every member's value goes to every other member. */
	KUNIT_EXPECT_TRUE(test, gsync_op_sends_to(t.g, op, 0, 2, 3));
	KUNIT_EXPECT_TRUE(test, gsync_op_sends_to(t.g, op, 0, 2, 5));
	KUNIT_EXPECT_FALSE(test, gsync_op_sends_to(t.g, op, 0, 2, 1));
	KUNIT_EXPECT_FALSE(test, op->step[1].sends);
	KUNIT_EXPECT_FALSE(test, op->step[1].receives);
	KUNIT_EXPECT_NULL(test, gsync_op_stream(op, 0, 1));
	KUNIT_EXPECT_NULL(test, gsync_op_stream(op, 0, 4));
	KUNIT_EXPECT_NOT_NULL(test, gsync_op_stream(op, 0, 5));
	/* Round 1 (RS): block b is owned by member b % 3: rank 4 owns 1. */
	KUNIT_EXPECT_TRUE(test, gsync_op_sends_to(t.g, op, 2, 0, 1));
	KUNIT_EXPECT_FALSE(test, gsync_op_sends_to(t.g, op, 2, 1, 1));
	KUNIT_EXPECT_TRUE(test, gsync_op_sends_to(t.g, op, 2, 2, 7));
	KUNIT_EXPECT_TRUE(test, gsync_op_sends_to(t.g, op, 3, 1, 7));
	KUNIT_EXPECT_FALSE(test, gsync_op_sends_to(t.g, op, 3, 0, 1));
	KUNIT_EXPECT_TRUE(test, gsync_op_expects(t.g, op, 2, 7, 1));
	KUNIT_EXPECT_FALSE(test, gsync_op_expects(t.g, op, 2, 7, 0));
	KUNIT_EXPECT_TRUE(test, gsync_op_expects(t.g, op, 3, 1, 0));
	KUNIT_EXPECT_FALSE(test, gsync_op_expects(t.g, op, 3, 1, 2));
	KUNIT_EXPECT_EQ(test, gsync_op_step_cov(op, 2, 1), 3);
	KUNIT_EXPECT_EQ(test, gsync_op_step_cov(op, 3, 1), 9);
	/* Jumps over blocks not ours to send (3 = none left). */
	KUNIT_EXPECT_EQ(test, gsync_op_next_block_to(t.g, op, 0, 0, 3), 1);
	KUNIT_EXPECT_EQ(test, gsync_op_next_block_to(t.g, op, 2, 0, 7), 2);
	KUNIT_EXPECT_EQ(test, gsync_op_next_block_to(t.g, op, 2, 0, 1), 3);
	KUNIT_EXPECT_EQ(test, gsync_op_next_block_to(t.g, op, 2, 2, 7), 3);
	KUNIT_EXPECT_EQ(test, gsync_op_next_block_to(t.g, op, 3, 0, 1), 1);
	KUNIT_EXPECT_EQ(test, gsync_op_next_block_to(t.g, op, 3, 1, 7), 3);
	/* Round 1's walk starts at the owner after us: block 2 (rank 7). */
	KUNIT_EXPECT_EQ(test, gsync_walk_chunk(op, 2, 0), 2 * op->ppb);
	KUNIT_EXPECT_EQ(test, gsync_walk_chunk(op, 2, 1), 0);
	/* Nothing to ourselves or to a rank outside the step's clique. */
	KUNIT_EXPECT_EQ(test, gsync_op_next_block_to(t.g, op, 0, 0, 1), 3);
	KUNIT_EXPECT_EQ(test, gsync_op_next_block_to(t.g, op, 0, 0, 4), 3);
	KUNIT_EXPECT_EQ(test, gsync_op_next_block_to(t.g, op, 2, 0, 3), 3);
	KUNIT_EXPECT_EQ(test, gsync_op_next_block_to(t.g, op, 3, 1, 5), 3);

	/* Our own value is in; the row's two others are not yet. */
	KUNIT_EXPECT_FALSE(test, reducible(&t, 0, 0));
	spin_lock_bh(&t.g->lock);
	gsync_op_block_in(t.g, op, 0, 0);
	KUNIT_EXPECT_FALSE(test, reducible(&t, 0, 0));
	gsync_op_block_in(t.g, op, 0, 0);
	KUNIT_EXPECT_TRUE(test, reducible(&t, 0, 0));
	/* Block 0 of round 0 reduced: round 1 does not reduce block 0 here. */
	gsync_op_reduced(t.g, op, 0, 0);
	KUNIT_EXPECT_TRUE(test, test_bit(0, op->ready[1]));
	KUNIT_EXPECT_FALSE(test, reducible(&t, 1, 0));
	/* Block 1: after the row, it waits for ranks 1 and 7. */
	for (b = 1; b < 3; b++)
		top_row_block(&t, b);
	KUNIT_EXPECT_FALSE(test, reducible(&t, 1, 1));
	gsync_op_block_in(t.g, op, 2, 1);
	gsync_op_block_in(t.g, op, 2, 1);
	KUNIT_EXPECT_TRUE(test, reducible(&t, 1, 1));
	KUNIT_EXPECT_EQ(test, op->state, GSYNC_OPS_OPEN);
	gsync_op_reduced(t.g, op, 1, 1);
	/* Blocks 0 and 2 come back reduced from their owners. */
	gsync_op_block_in(t.g, op, 3, 0);
	KUNIT_EXPECT_EQ(test, op->state, GSYNC_OPS_OPEN);
	gsync_op_block_in(t.g, op, 3, 2);
	KUNIT_EXPECT_EQ(test, op->state, GSYNC_OPS_DONE);
	KUNIT_EXPECT_EQ(test, op->nready, 3);
	spin_unlock_bh(&t.g->lock);
	top_end(&t);
}

/* Rank 5 aggregates column {2,5,8}: it reduces every block. */
static void gsync_sched_op_aggregator(struct kunit *test)
{
	struct top t;
	u32 b;

	top_start(test, &t, 5);
	KUNIT_EXPECT_FALSE(test, t.op->step[2].sends);
	KUNIT_EXPECT_TRUE(test, t.op->step[3].sends);
	KUNIT_EXPECT_TRUE(test, test_bit(2, t.op->step[3].need_ack));
	KUNIT_EXPECT_TRUE(test, test_bit(8, t.op->step[3].need_ack));
	KUNIT_EXPECT_FALSE(test, test_bit(5, t.op->step[3].need_ack));
	spin_lock_bh(&t.g->lock);
	for (b = 0; b < 3; b++) {
		top_row_block(&t, b);
		KUNIT_EXPECT_FALSE(test, reducible(&t, 1, b));
		gsync_op_block_in(t.g, t.op, 2, b);
		gsync_op_block_in(t.g, t.op, 2, b);
		KUNIT_EXPECT_TRUE(test, reducible(&t, 1, b));
		gsync_op_reduced(t.g, t.op, 1, b);
	}
	KUNIT_EXPECT_EQ(test, t.op->state, GSYNC_OPS_DONE);
	spin_unlock_bh(&t.g->lock);
	top_end(&t);
}

/* Rank 8 in the aggregator's column: sends everything, reduces nothing. */
static void gsync_sched_op_member(struct kunit *test)
{
	struct top t;
	u32 b;

	top_start(test, &t, 8);
	KUNIT_EXPECT_TRUE(test, t.op->step[2].sends);
	KUNIT_EXPECT_FALSE(test, t.op->step[2].receives);
	KUNIT_EXPECT_TRUE(test, test_bit(5, t.op->step[2].need_ack));
	KUNIT_EXPECT_FALSE(test, test_bit(2, t.op->step[2].need_ack));
	/* Every block goes to the aggregator, none to the other member. */
	KUNIT_EXPECT_EQ(test, gsync_op_next_block_to(t.g, t.op, 2, 0, 5), 1);
	KUNIT_EXPECT_EQ(test, gsync_op_next_block_to(t.g, t.op, 2, 0, 2), 3);
	KUNIT_EXPECT_EQ(test, gsync_op_next_block_to(t.g, t.op, 3, 0, 2), 3);
	spin_lock_bh(&t.g->lock);
	for (b = 0; b < 3; b++) {
		top_row_block(&t, b);
		KUNIT_EXPECT_FALSE(test, reducible(&t, 1, b));
	}
	for (b = 0; b < 3; b++)
		gsync_op_block_in(t.g, t.op, 3, b);
	KUNIT_EXPECT_EQ(test, t.op->state, GSYNC_OPS_DONE);
	spin_unlock_bh(&t.g->lock);
	top_end(&t);
}

/* The default schedule: one block, every other rank an input. */
static void gsync_sched_op_default(struct kunit *test)
{
	struct gsync_sched *s = gsync_sched_default(4, false);
	struct gsync_group *g;
	struct gsync_op *op;
	void *sendbuf;
	unsigned int r;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, s->tag, 0);
	g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g);
	g->cfg.rank = 2;
	g->cfg.nranks = 4;
	g->chunk_bytes = 1024;
	g->dead = true;
	spin_lock_init(&g->lock);
	sendbuf = kvmalloc(100000, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sendbuf);
	op = gsync_op_alloc(g, 5, GSYNC_DTYPE_FP32, GSYNC_OP_AVG, 100000,
			    sendbuf, s, U64_MAX);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, op);
	KUNIT_EXPECT_EQ(test, op->nblocks, 1);
	KUNIT_EXPECT_EQ(test, op->nchunks, 98);
	KUNIT_EXPECT_EQ(test, op->nsteps, 2);
	spin_lock_bh(&g->lock);
	gsync_op_start(g, op);
	for (r = 0; r < 3; r++) {
		KUNIT_EXPECT_FALSE(test, test_bit(0, op->reducible[0]));
		gsync_op_block_in(g, op, 0, 0);
	}
	KUNIT_EXPECT_TRUE(test, test_bit(0, op->reducible[0]));
	gsync_op_reduced(g, op, 0, 0);
	KUNIT_EXPECT_EQ(test, op->state, GSYNC_OPS_DONE);
	spin_unlock_bh(&g->lock);
	KUNIT_EXPECT_TRUE(test, op->step[0].q->divides);
	gsync_op_free(g, op);
	gsync_sched_put(s);
}

/*
 * The walk of a reduce-scatter step: 3 members, 7 blocks of 2 chunks, the
 * last block 1 chunk. Each row of 3 blocks is dealt out a chunk per owner
 * in turn; the member at position 0 starts each row at owner 1, the one
 * at position 2 at owner 0.
 */
static void gsync_sched_walk(struct kunit *test)
{
	static const u16 members[] = { 0, 1, 2 };
	/* Place w -> chunk (13 and up: none) for position 0. */
	static const u32 want[18] = { 2, 4, 0, 3, 5, 1, 8, 10, 6, 9, 11, 7,
				      13, 13, 12, 13, 13, 13 };
	struct gsync_sclique q = {
		.pattern = GSYNC_PAT_RS_MULTICAST,
		.nmembers = 3,
		.members = members,
	};
	struct gsync_op *op = kunit_kzalloc(test, sizeof(*op), GFP_KERNEL);
	DECLARE_BITMAP(seen, 13);
	u32 w, c;

	KUNIT_ASSERT_NOT_NULL(test, op);
	op->nblocks = 7;
	op->ppb = 2;
	op->nchunks = 13;
	op->nsteps = 2;
	op->step[0].q = &q;
	op->step[1].q = &q;

	KUNIT_ASSERT_EQ(test, gsync_walk_len(op, 0), 18);
	bitmap_zero(seen, 13);
	for (w = 0; w < 18; w++) {
		c = gsync_walk_chunk(op, 0, w);
		KUNIT_EXPECT_EQ_MSG(test, min(c, 13U), want[w], "place %u", w);
		if (c < 13) {
			KUNIT_EXPECT_FALSE(test, test_bit(c, seen));
			__set_bit(c, seen);
		}
		/* Sent: exactly what the walk has passed. */
		op->step[0].tx_walk = w + 1;
		if (c < 13)
			KUNIT_EXPECT_TRUE_MSG(test, gsync_walk_sent(op, 0, c),
					      "place %u", w);
		if (w + 1 < 18 && want[w + 1] < 13)
			KUNIT_EXPECT_FALSE_MSG(test,
				gsync_walk_sent(op, 0, want[w + 1]),
				"place %u", w + 1);
		/* A place with nothing to send is left for the next one. */
		KUNIT_EXPECT_EQ(test, gsync_walk_skip(op, 0, w), w + 1);
	}
	KUNIT_EXPECT_EQ(test, bitmap_weight(seen, 13), 13);

	/* Sent: a prefix of each owner's chunks, not of the chunk numbers. */
	op->step[0].tx_walk = 6;
	KUNIT_EXPECT_TRUE(test, gsync_walk_sent(op, 0, 0));
	KUNIT_EXPECT_TRUE(test, gsync_walk_sent(op, 0, 5));
	KUNIT_EXPECT_FALSE(test, gsync_walk_sent(op, 0, 6));
	KUNIT_EXPECT_FALSE(test, gsync_walk_sent(op, 0, 8));
	op->step[0].tx_walk = 9;
	KUNIT_EXPECT_TRUE(test, gsync_walk_sent(op, 0, 10));
	KUNIT_EXPECT_TRUE(test, gsync_walk_sent(op, 0, 6));
	KUNIT_EXPECT_FALSE(test, gsync_walk_sent(op, 0, 11));
	KUNIT_EXPECT_FALSE(test, gsync_walk_sent(op, 0, 7));
	KUNIT_EXPECT_FALSE(test, gsync_walk_sent(op, 0, 12));
	op->step[0].tx_done = true;
	KUNIT_EXPECT_TRUE(test, gsync_walk_sent(op, 0, 12));

	/* The results step walks in order and skips a whole block. */
	KUNIT_EXPECT_EQ(test, gsync_walk_len(op, 1), 13);
	KUNIT_EXPECT_EQ(test, gsync_walk_chunk(op, 1, 4), 4);
	KUNIT_EXPECT_EQ(test, gsync_walk_skip(op, 1, 4), 6);
	KUNIT_EXPECT_EQ(test, gsync_walk_skip(op, 1, 5), 6);
	op->step[1].tx_walk = 5;
	KUNIT_EXPECT_TRUE(test, gsync_walk_sent(op, 1, 4));
	KUNIT_EXPECT_FALSE(test, gsync_walk_sent(op, 1, 5));
	/* Position 2 starts each row at owner 0, position 1 at owner 2. */
	op->step[0].pos = 2;
	op->step[0].tx_done = false;
	KUNIT_EXPECT_EQ(test, gsync_walk_len(op, 0), 18);
	KUNIT_EXPECT_EQ(test, gsync_walk_chunk(op, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, gsync_walk_chunk(op, 0, 1), 2);
	KUNIT_EXPECT_EQ(test, gsync_walk_chunk(op, 0, 3), 1);
	op->step[0].pos = 1;
	KUNIT_EXPECT_EQ(test, gsync_walk_chunk(op, 0, 0), 4);
	KUNIT_EXPECT_EQ(test, gsync_walk_chunk(op, 0, 1), 0);
	KUNIT_EXPECT_EQ(test, gsync_walk_chunk(op, 0, 2), 2);
	KUNIT_EXPECT_EQ(test, gsync_walk_chunk(op, 0, 3), 5);
}

/*
 * What a packet costs the sender's bucket: in a reduce-scatter clique of
 * 9, k/(2(k-1)) = 9/16 of its length per download it lands on, so that a
 * mix of 8 blocks to owners and one result to 8 costs what it sends;
 * elsewhere, and with results by unicast, its length.
 */
static void gsync_sched_cost(struct kunit *test)
{
	struct gsync_sclique q = {
		.pattern = GSYNC_PAT_RS_MULTICAST,
		.nmembers = 9,
	};
	u32 mix;

	KUNIT_EXPECT_EQ(test, gsync_route_cost(&q, 1, 1600), 900);
	KUNIT_EXPECT_EQ(test, gsync_route_cost(&q, 8, 1600), 7200);
	mix = 8 * gsync_route_cost(&q, 1, 1600) + gsync_route_cost(&q, 8, 1600);
	KUNIT_EXPECT_EQ(test, mix, 9 * 1600);
	/* The largest: 256 members, a result to 255 of them. */
	q.nmembers = 256;
	KUNIT_EXPECT_EQ(test, gsync_route_cost(&q, 255, 65600), 65600 * 128);
	KUNIT_EXPECT_EQ(test, gsync_route_cost(&q, 0, 1600), 1600);
	q.nmembers = 2;
	KUNIT_EXPECT_EQ(test, gsync_route_cost(&q, 1, 1600), 1600);
	q.nmembers = 9;
	q.unicast = true;
	KUNIT_EXPECT_EQ(test, gsync_route_cost(&q, 1, 1600), 1600);
	q.unicast = false;
	q.pattern = GSYNC_PAT_MULTICAST;
	KUNIT_EXPECT_EQ(test, gsync_route_cost(&q, 8, 1600), 1600);
	q.pattern = GSYNC_PAT_AGGREGATOR;
	KUNIT_EXPECT_EQ(test, gsync_route_cost(&q, 8, 1600), 1600);
	KUNIT_EXPECT_EQ(test, gsync_route_cost(NULL, 1, 1600), 1600);
}

static struct kunit_case gsync_sched_op_cases[] = {
	KUNIT_CASE(gsync_sched_op_grid),
	KUNIT_CASE(gsync_sched_walk),
	KUNIT_CASE(gsync_sched_cost),
	KUNIT_CASE(gsync_sched_op_aggregator),
	KUNIT_CASE(gsync_sched_op_member),
	KUNIT_CASE(gsync_sched_op_default),
	{}
};

static struct kunit_suite gsync_sched_op_suite = {
	.name = "gsync_sched_op",
	.test_cases = gsync_sched_op_cases,
};

kunit_test_suites(&gsync_sched_suite, &gsync_sched_op_suite);
