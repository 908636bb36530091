// SPDX-License-Identifier: GPL-2.0
/*
 * Schedules: validating a user's blob (uapi/linux/gsync_sched.h) and
 * compiling it into per-round tables, the default one-clique schedule,
 * and the arithmetic of cutting buffers into blocks and chunks.
 *
 * Validation is strict and total: every field is checked before any is
 * used, sizes are checked before anything is read, and the schedule is
 * simulated (coverage of contributors and the expression each rank ends
 * with) so that only exact, bit-identical all-reduces are accepted. A
 * rejected blob is -EINVAL (or -EOPNOTSUPP for multicast in a unicast
 * group) with the reason in the kernel log, rate limited.
 *
 * Locking: none. Compiling allocates with GFP_KERNEL (process context);
 * a compiled schedule is immutable and reference counted.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/gsync.h>

#include "gsync.h"
#include "sched.h"

/* Any rate_kbit is a valid pacing rate. */
static_assert((u64)U32_MAX * 1000 / 8 <= GSYNC_MAX_PACING_RATE);

static void gsync_sched_free(struct kref *ref)
{
	struct gsync_sched *s = container_of(ref, struct gsync_sched, ref);

	kfree(s->cliques);
	kfree(s->clique_of);
	kfree(s->cov);
	kfree(s->tables);
	kvfree(s->blob);
	kfree(s);
}

void gsync_sched_put(struct gsync_sched *s)
{
	if (s)
		kref_put(&s->ref, gsync_sched_free);
}
GSYNC_EXPORT_FOR_TESTS(gsync_sched_put);

int gsync_sclique_pos(const struct gsync_sclique *q, unsigned int rank)
{
	unsigned int lo = 0, hi = q->nmembers;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (q->members[mid] == rank)
			return mid;
		if (q->members[mid] < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Per-rank state while simulating a schedule. */
struct gsync_sim {
	unsigned long cov[BITS_TO_LONGS(GSYNC_MAX_RANKS)];
	u64 id;			/* expression; 0 = covers nobody */
};

static u64 gsync_mix(u64 h, u64 v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

#define GSYNC_SCHED_BAD(fmt, ...) ({					\
	pr_info_ratelimited("schedule rejected: " fmt "\n", ##__VA_ARGS__); \
	-EINVAL; })

static int gsync_sched_check_hdr(const struct gsync_sched_hdr *h, u32 len,
				 u16 nranks)
{
	unsigned int r;

	if (h->magic != GSYNC_SCHED_MAGIC || h->version != GSYNC_SCHED_VERSION ||
	    h->hdr_len != sizeof(*h))
		return GSYNC_SCHED_BAD("bad magic, version or hdr_len");
	if (h->nranks != nranks)
		return GSYNC_SCHED_BAD("nranks %u, the group has %u",
				       h->nranks, nranks);
	if (!h->nrounds || h->nrounds > GSYNC_SCHED_MAX_ROUNDS ||
	    !h->ncliques || h->ncliques > GSYNC_SCHED_MAX_CLIQUES ||
	    h->nmembers > GSYNC_SCHED_MAX_MEMBERS)
		return GSYNC_SCHED_BAD("rounds, cliques or members out of range");
	if (len != GSYNC_SCHED_BLOB_LEN(h->ncliques, h->nmembers))
		return GSYNC_SCHED_BAD("length %u does not match its counts",
				       len);
	if (h->flags & ~GSYNC_SCHF_ALL)
		return GSYNC_SCHED_BAD("unknown flags %#x", h->flags);
	if (!(h->flags & GSYNC_SCHF_CLIQUE_GROUPS) &&
	    memchr_inv(h->group_base, 0, sizeof(h->group_base)))
		return GSYNC_SCHED_BAD("group_base set without clique groups");
	if (h->block_bytes < GSYNC_SCHED_MIN_BLOCK || h->block_bytes % 16 ||
	    h->block_bytes > GSYNC_MAX_OP_BYTES)
		return GSYNC_SCHED_BAD("block_bytes %u", h->block_bytes);
	for (r = nranks; r < GSYNC_MAX_RANKS; r++)
		if (h->idle[r / 8] & (1U << (r % 8)))
			return GSYNC_SCHED_BAD("idle rank %u >= nranks", r);
	return 0;
}

/* The low 32 bits of an address (6.1 and 6.12 differ on unaligned.h). */
static u32 gsync_addr_low(const u8 *a, unsigned int alen)
{
	__be32 v;

	memcpy(&v, a + alen - 4, sizeof(v));
	return be32_to_cpu(v);
}

static void gsync_addr_set_low(u8 *a, unsigned int alen, u32 low)
{
	__be32 v = cpu_to_be32(low);

	memcpy(a + alen - 4, &v, sizeof(v));
}

/*
 * Clique groups: the address of clique 0 (the given base, or the group's
 * address + 1) into s, after checking that every clique's address is a
 * multicast address of the group's family other than the group's own.
 */
static int gsync_sched_check_cgroups(const struct gsync_sched_hdr *h,
				     const struct gsync_addr *mcast,
				     struct gsync_sched *s)
{
	unsigned int alen = mcast->family == AF_INET ? 4 : 16;
	u32 first, last, own, off = 0;
	u8 *base = s->cbase;

	if (mcast->family != AF_INET && mcast->family != AF_INET6)
		return GSYNC_SCHED_BAD("clique groups without a group address");
	if (memchr_inv(h->group_base + alen, 0, 16 - alen))
		return GSYNC_SCHED_BAD("group_base is not an IPv4 address");
	if (memchr_inv(h->group_base, 0, alen)) {
		memcpy(base, h->group_base, alen);
	} else {
		memcpy(base, mcast->addr, alen);
		off = 1;
	}
	first = gsync_addr_low(base, alen);
	if (first > U32_MAX - off - (h->ncliques - 1))
		return GSYNC_SCHED_BAD("clique addresses carry out of 32 bits");
	first += off;
	last = first + h->ncliques - 1;
	gsync_addr_set_low(base, alen, first);
	if (alen == 4 ? first < 0xe0000100U || last > 0xefffffffU :
	    base[0] != 0xff)
		return GSYNC_SCHED_BAD("clique addresses not all multicast");
	own = gsync_addr_low(mcast->addr, alen);
	if (!memcmp(base, mcast->addr, alen - 4) && own >= first && own <= last)
		return GSYNC_SCHED_BAD("a clique address is the group's");
	s->cgroups = true;
	s->cfamily = mcast->family;
	return 0;
}

bool gsync_sched_caddr(const struct gsync_sched *s,
		       const struct gsync_sclique *q, u8 addr[16])
{
	unsigned int alen = s->cfamily == AF_INET ? 4 : 16;

	if (!s->cgroups)
		return false;
	memcpy(addr, s->cbase, alen);
	gsync_addr_set_low(addr, alen, gsync_addr_low(s->cbase, alen) +
					   (u32)(q - s->cliques));
	return true;
}
GSYNC_EXPORT_FOR_TESTS(gsync_sched_caddr);

/* Structure of the cliques: rounds, patterns, members, tiling. */
static int gsync_sched_check_cliques(const struct gsync_sched_hdr *h,
				     const struct gsync_sched_clique *c,
				     const u16 *m, bool unicast_group)
{
	unsigned long seen[BITS_TO_LONGS(GSYNC_MAX_RANKS)];
	unsigned int i, j, next = 0, round = 0;

	bitmap_zero(seen, GSYNC_MAX_RANKS);
	for (i = 0; i < h->ncliques; i++) {
		const struct gsync_sched_clique *q = &c[i];
		bool mcast;

		if (q->round >= h->nrounds || q->round < round)
			return GSYNC_SCHED_BAD("clique %u: round %u out of order",
					       i, q->round);
		if (q->round != round) {
			round = q->round;
			bitmap_zero(seen, GSYNC_MAX_RANKS);
		}
		if (!q->pattern || q->pattern >= GSYNC_PAT_MAX ||
		    q->flags & ~GSYNC_SCF_UNICAST || q->reserved0)
			return GSYNC_SCHED_BAD("clique %u: pattern or flags", i);
		if ((q->flags & GSYNC_SCF_UNICAST) &&
		    q->pattern != GSYNC_PAT_RS_MULTICAST &&
		    q->pattern != GSYNC_PAT_AGGREGATOR)
			return GSYNC_SCHED_BAD("clique %u: UNICAST flag on a pattern without results to send back",
					       i);
		if (q->nmembers < 2 || q->nmembers > h->nranks ||
		    q->first != next || q->first + q->nmembers > h->nmembers)
			return GSYNC_SCHED_BAD("clique %u: members [%u, +%u) do not follow the previous clique's",
					       i, q->first, q->nmembers);
		next = q->first + q->nmembers;
		for (j = 0; j < q->nmembers; j++) {
			u16 r = m[q->first + j];

			if (r >= h->nranks || (j && r <= m[q->first + j - 1]))
				return GSYNC_SCHED_BAD("clique %u: members not ascending ranks < nranks",
						       i);
			if (__test_and_set_bit(r, seen))
				return GSYNC_SCHED_BAD("round %u: rank %u in two cliques",
						       round, r);
		}
		if (q->pattern == GSYNC_PAT_AGGREGATOR) {
			for (j = 0; j < q->nmembers; j++)
				if (m[q->first + j] == q->aggregator)
					break;
			if (j == q->nmembers)
				return GSYNC_SCHED_BAD("clique %u: aggregator %u is not a member",
						       i, q->aggregator);
		} else if (q->aggregator) {
			return GSYNC_SCHED_BAD("clique %u: aggregator set", i);
		}
		mcast = q->pattern == GSYNC_PAT_MULTICAST ||
			((q->pattern == GSYNC_PAT_RS_MULTICAST ||
			  q->pattern == GSYNC_PAT_AGGREGATOR) &&
			 !(q->flags & GSYNC_SCF_UNICAST));
		if (mcast && unicast_group) {
			pr_info_ratelimited("schedule rejected: clique %u multicasts in a unicast group\n",
					    i);
			return -EOPNOTSUPP;
		}
	}
	if (next != h->nmembers)
		return GSYNC_SCHED_BAD("%u members not in any clique",
				       h->nmembers - next);
	return 0;
}

/* Lowest rank a value covers: the key of the canonical order. */
static unsigned int gsync_sim_key(const struct gsync_sim *v)
{
	return find_first_bit(v->cov, GSYNC_MAX_RANKS);
}

/*
 * Simulate the schedule: fill the coverage table and each clique's
 * reduction order, and check exactness and that every rank ends with the
 * same expression. s->cliques[].members already point into tables.
 */
static int gsync_sched_simulate(struct gsync_sched *s,
				const struct gsync_sched_hdr *h,
				const struct gsync_sched_clique *c, u16 *orders)
{
	unsigned long all[BITS_TO_LONGS(GSYNC_MAX_RANKS)];
	unsigned long uni[BITS_TO_LONGS(GSYNC_MAX_RANKS)];
	unsigned int n = s->nranks, r, i, j, k, t;
	struct gsync_sim *sim;
	u16 *ord = orders;
	int err = 0;

	sim = kcalloc(n, sizeof(*sim), GFP_KERNEL);
	if (!sim)
		return -ENOMEM;
	bitmap_zero(all, GSYNC_MAX_RANKS);
	for (r = 0; r < n; r++) {
		if (h->idle[r / 8] & (1U << (r % 8)))
			continue;
		__set_bit(r, sim[r].cov);
		__set_bit(r, all);
		sim[r].id = r + 1;
	}
	s->ncontrib = bitmap_weight(all, GSYNC_MAX_RANKS);
	if (!s->ncontrib) {
		err = GSYNC_SCHED_BAD("every rank is idle");
		goto out;
	}
	for (r = 0; r < n; r++)
		s->cov[r] = bitmap_weight(sim[r].cov, GSYNC_MAX_RANKS);

	i = 0;
	for (t = 0; t < s->nrounds; t++) {
		for (; i < h->ncliques && c[i].round == t; i++) {
			struct gsync_sclique *q = &s->cliques[i];
			u64 id = 0x6773796e63ULL;

			/* Disjoint coverage, then the canonical order. */
			bitmap_zero(uni, GSYNC_MAX_RANKS);
			q->order = ord;
			q->ninputs = 0;
			for (j = 0; j < q->nmembers; j++) {
				struct gsync_sim *v = &sim[q->members[j]];

				if (bitmap_intersects(uni, v->cov, GSYNC_MAX_RANKS)) {
					err = GSYNC_SCHED_BAD("round %u, clique %u: rank %u's value overlaps another member's (counted twice)",
							      t, i, q->members[j]);
					goto out;
				}
				bitmap_or(uni, uni, v->cov, GSYNC_MAX_RANKS);
				if (!v->id)
					continue;
				/* Insertion by key: cliques are small. */
				for (k = q->ninputs; k > 0 &&
				     gsync_sim_key(&sim[ord[k - 1]]) >
				     gsync_sim_key(v); k--)
					ord[k] = ord[k - 1];
				ord[k] = q->members[j];
				q->ninputs++;
			}
			if (!q->ninputs) {
				err = GSYNC_SCHED_BAD("round %u, clique %u: no member covers a contributor",
						      t, i);
				goto out;
			}
			if (q->ninputs == 1)
				id = sim[ord[0]].id;
			else
				for (k = 0; k < q->ninputs; k++)
					id = gsync_mix(id, sim[ord[k]].id);
			q->cov_out = bitmap_weight(uni, GSYNC_MAX_RANKS);
			q->final = bitmap_equal(uni, all, GSYNC_MAX_RANKS);
			/* One input covering everyone was divided already. */
			q->divides = q->final && q->ninputs > 1;
			ord += q->ninputs;
			for (j = 0; j < q->nmembers; j++) {
				bitmap_copy(sim[q->members[j]].cov, uni,
					    GSYNC_MAX_RANKS);
				sim[q->members[j]].id = id;
			}
		}
		for (r = 0; r < n; r++)
			s->cov[(t + 1) * n + r] =
				bitmap_weight(sim[r].cov, GSYNC_MAX_RANKS);
	}
	for (r = 0; r < n; r++) {
		if (!bitmap_equal(sim[r].cov, all, GSYNC_MAX_RANKS)) {
			err = GSYNC_SCHED_BAD("rank %u ends without every contribution (not an all-reduce)",
					      r);
			goto out;
		}
		if (sim[r].id != sim[0].id) {
			err = GSYNC_SCHED_BAD("rank %u ends with a different expression than rank 0 (results would differ in the last bits)",
					      r);
			goto out;
		}
	}
out:
	kfree(sim);
	return err;
}

/*
 * A schedule's tag: 64-bit FNV-1a of its blob, never 0 (no schedule).
 * Ranks that loaded different blobs disagree on it (EPROTO); two blobs
 * share a tag with probability 2^-64.
 */
static u64 gsync_sched_tag(const void *blob, u32 len)
{
	const u8 *p = blob;
	u64 h = 0xcbf29ce484222325ULL;
	u32 i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h ? h : 1;
}

/*
 * Validate and compile a blob for a group of nranks. On success *out holds
 * a schedule with one reference; the blob is copied.
 */
int gsync_sched_compile(const void *blob, u32 len, u16 nranks,
			const struct gsync_addr *mcast,
			struct gsync_sched **out)
{
	bool unicast_group = !mcast;
	const struct gsync_sched_hdr *h = blob;
	const struct gsync_sched_clique *c;
	struct gsync_sched *s;
	const u16 *m;
	unsigned int i, r;
	int err;

	*out = NULL;
	if (len < sizeof(*h))
		return GSYNC_SCHED_BAD("%u bytes, shorter than the header", len);
	err = gsync_sched_check_hdr(h, len, nranks);
	if (err)
		return err;
	c = (const void *)(h + 1);
	m = (const void *)(c + h->ncliques);
	err = gsync_sched_check_cliques(h, c, m, unicast_group);
	if (err)
		return err;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	kref_init(&s->ref);
	s->nranks = nranks;
	s->nrounds = h->nrounds;
	s->block_bytes = h->block_bytes;
	s->start_seq = h->start_seq;
	s->cliques = kcalloc(h->ncliques, sizeof(*s->cliques), GFP_KERNEL);
	s->clique_of = kmalloc_array(s->nrounds * nranks, sizeof(u16),
				     GFP_KERNEL);
	s->cov = kcalloc((s->nrounds + 1) * nranks, sizeof(u16), GFP_KERNEL);
	/* members, then reduction orders (at most as many) */
	s->tables = kmalloc_array(2 * max_t(u32, h->nmembers, 1), sizeof(u16),
				  GFP_KERNEL);
	s->blob = kvmalloc(len, GFP_KERNEL);	/* 6.1 has no kvmemdup() */
	err = -ENOMEM;
	if (!s->cliques || !s->clique_of || !s->cov || !s->tables || !s->blob)
		goto fail;
	s->blob_len = len;
	memcpy(s->blob, blob, len);
	memcpy(s->tables, m, h->nmembers * sizeof(u16));
	memset(s->clique_of, 0xff, s->nrounds * nranks * sizeof(u16));
	for (i = 0; i < h->ncliques; i++) {
		struct gsync_sclique *q = &s->cliques[i];

		q->pattern = c[i].pattern;
		q->unicast = c[i].pattern == GSYNC_PAT_UNICAST ||
			     (c[i].flags & GSYNC_SCF_UNICAST) || unicast_group;
		q->nmembers = c[i].nmembers;
		q->aggregator = c[i].aggregator;
		q->rate = (u64)c[i].rate_kbit * 1000 / 8;
		q->members = s->tables + c[i].first;
		for (r = 0; r < q->nmembers; r++)
			s->clique_of[c[i].round * nranks + q->members[r]] = i;
	}
	err = gsync_sched_simulate(s, h, c, s->tables + h->nmembers);
	if (!err && mcast && (h->flags & GSYNC_SCHF_CLIQUE_GROUPS))
		err = gsync_sched_check_cgroups(h, mcast, s);
	if (err)
		goto fail;
	s->tag = gsync_sched_tag(blob, len);
	*out = s;
	return 0;
fail:
	gsync_sched_put(s);
	return err;
}
GSYNC_EXPORT_FOR_TESTS(gsync_sched_compile);

/*
 * The schedule of a group that loaded none: one round, every rank in one
 * clique, multicast (unicast fan-out in a unicast group), the whole buffer
 * one block, tag 0. NULL without memory.
 */
struct gsync_sched *gsync_sched_default(u16 nranks, bool unicast_group)
{
	static const struct gsync_addr none;	/* no clique groups */
	struct {
		struct gsync_sched_hdr h;
		struct gsync_sched_clique c;
		u16 m[GSYNC_MAX_RANKS];
	} *b;
	struct gsync_sched *s = NULL;
	unsigned int r;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return NULL;
	b->h.magic = GSYNC_SCHED_MAGIC;
	b->h.version = GSYNC_SCHED_VERSION;
	b->h.hdr_len = sizeof(b->h);
	b->h.block_bytes = GSYNC_SCHED_MIN_BLOCK;
	b->h.nranks = nranks;
	b->h.nrounds = 1;
	b->h.ncliques = 1;
	b->h.nmembers = nranks;
	b->c.pattern = unicast_group ? GSYNC_PAT_UNICAST : GSYNC_PAT_MULTICAST;
	b->c.nmembers = nranks;
	for (r = 0; r < nranks; r++)
		b->m[r] = r;
	if (!gsync_sched_compile(b, GSYNC_SCHED_BLOB_LEN(1, nranks), nranks,
				 unicast_group ? NULL : &none, &s)) {
		s->tag = 0;
		s->block_bytes = 0;
	}
	kfree(b);
	return s;
}
GSYNC_EXPORT_FOR_TESTS(gsync_sched_default);

/* Block size for an operation of len bytes under s (at most MAX_BLOCKS). */
u32 gsync_sched_block(const struct gsync_sched *s, u32 len)
{
	u32 min;

	if (!s->block_bytes)
		return len;
	min = round_up(DIV_ROUND_UP(len, GSYNC_SCHED_MAX_BLOCKS), 16);
	return min_t(u32, len, max(s->block_bytes, min));
}

u32 gsync_chunk_count(u32 len, u32 block, u32 cb)
{
	u32 nb = gsync_blocks(len, block), last = len - (nb - 1) * block;

	return (nb - 1) * gsync_chunks_per_block(block, cb) +
	       DIV_ROUND_UP(last, cb);
}
GSYNC_EXPORT_FOR_TESTS(gsync_chunk_count);

/* Byte range of a chunk; false if there is no such chunk. */
bool gsync_chunk_span(u32 len, u32 block, u32 cb, u32 chunk, u32 *off,
		      u32 *plen)
{
	u32 ppb = gsync_chunks_per_block(block, cb);
	u32 b = chunk / ppb, in = (chunk % ppb) * cb, bend;

	if (b >= gsync_blocks(len, block))
		return false;
	bend = min(block, len - b * block);
	if (in >= bend)
		return false;
	*off = b * block + in;
	*plen = min(cb, bend - in);
	return true;
}
GSYNC_EXPORT_FOR_TESTS(gsync_chunk_span);
