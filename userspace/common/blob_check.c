/* blob_check.c - a kernel schedule blob's structure and the kernel's
 * acceptance rules (uapi/linux/gsync_sched.h), mirrored in userspace so a
 * user gets a precise message instead of the kernel's EINVAL.
 *
 * Values are tracked symbolically: for every rank the set of contributing
 * ranks its value covers and a structural id (initially the rank; a
 * clique's result is a hash of the ordered ids of its nonempty inputs,
 * ordered by the lowest rank each covers; a single nonempty input keeps
 * its id).  Equal ids mean the same sums in the same order, hence the same
 * bits.  The rules follow the kernel's kmod/sched.c, which has the last
 * word (and also checks what only a running group knows: nranks equal to
 * the group's, no multicast in a GSYNC_JOIN_UNICAST group, clique group
 * addresses in the group's family and not its own address, and those
 * derived from it). */
#include "sched_blob.h"
#include <arpa/inet.h>
#include <linux/gsync.h>
#include <stdlib.h>
#include <string.h>

#define MAXR ((unsigned)sizeof(((struct gsync_sched_hdr *)0)->idle) * 8)   /* 256 ranks */
#define NW (MAXR / 64)

typedef struct { uint64_t w[NW]; } rset;
typedef struct { rset cov; uint64_t id; } value;

/* set the error and evaluate to -1 */
#define FAIL(e, ...) (gs_seterr((e), __VA_ARGS__), -1)

int gs_blob_is(const void *data, size_t len)
{
	uint32_t m;
	if (len < sizeof(m))
		return 0;
	memcpy(&m, data, sizeof(m));
	return m == GSYNC_SCHED_MAGIC;
}

const char *gs_blob_pat_name(unsigned pat)
{
	static const char *const names[GSYNC_PAT_MAX] = {
		[GSYNC_PAT_MULTICAST] = "multicast", [GSYNC_PAT_UNICAST] = "unicast",
		[GSYNC_PAT_RS_MULTICAST] = "rs_multicast", [GSYNC_PAT_AGGREGATOR] = "aggregator",
	};
	return pat > 0 && pat < GSYNC_PAT_MAX ? names[pat] : "?";
}

void gs_blob_clique_name(const gs_blob_view *v, const gs_blob_hooks *h, unsigned ci, char *buf,
			 size_t n)
{
	unsigned r = v->cl[ci].round, c = 0;
	if (h && h->clique_name) {
		h->clique_name(h->arg, ci, buf, n);
		return;
	}
	for (unsigned i = ci; i > 0 && v->cl[i - 1].round == r; i--)
		c++;
	snprintf(buf, n, "rounds[%u].cliques[%u]", r, c);
}

void gs_blob_rank_name(const gs_blob_hooks *h, unsigned rank, char *buf, size_t n)
{
	if (h && h->rank_name)
		h->rank_name(h->arg, rank, buf, n);
	else
		snprintf(buf, n, "rank %u", rank);
}

void gs_blob_view_free(gs_blob_view *v)
{
	free(v->cl);
	free(v->mem);
	v->cl = NULL;
	v->mem = NULL;
}

static int idle(const struct gsync_sched_hdr *h, unsigned r)
{
	return h->idle[r / 8] >> (r % 8) & 1;
}

/* ---------------- clique groups (GSYNC_SCHF_CLIQUE_GROUPS) ---------------- */

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* An explicit group_base is IPv4 when bytes 4..15 are zero, except that
 * ff00:: and the like (also zero there) can only be IPv6 multicast: as
 * IPv4, 255.x.x.x, never multicast.  Without the group's address this
 * is all that tells the family. */
static int base_is_v4(const uint8_t *base)
{
	return all_zero(base + 4, 12) && base[0] != 0xff;
}

/* the low 32 bits of the address BASE stands for (network byte order) */
static uint32_t base_low(const uint8_t *base)
{
	const uint8_t *p = base + (base_is_v4(base) ? 0 : 12);
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* BASE with I added to its low 32 bits (no carry out of them), as text */
static void base_text(const uint8_t *base, uint32_t i, char *buf, size_t n)
{
	uint8_t a[16];
	int v4 = base_is_v4(base);
	uint32_t low = base_low(base) + i;
	uint8_t *p = a + (v4 ? 0 : 12);
	char t[INET6_ADDRSTRLEN];
	memcpy(a, base, sizeof(a));
	p[0] = (uint8_t)(low >> 24);
	p[1] = (uint8_t)(low >> 16);
	p[2] = (uint8_t)(low >> 8);
	p[3] = (uint8_t)low;
	if (!inet_ntop(v4 ? AF_INET : AF_INET6, a, t, sizeof(t)))
		snprintf(t, sizeof(t), "?");
	snprintf(buf, n, "%s", t);
}

/* an IPv6 group_base A (as text), NC cliques, LAST the low 32 bits of
 * the last clique's address (before any carry) */
static int v6_base(const uint8_t *base, const char *a, unsigned nc, uint64_t last, gs_err *e)
{
	if (base[0] != 0xff)
		return FAIL(e, "%s is neither an IPv4 address (bytes 4..15 zero) nor IPv6 multicast "
			    "(ff00::/8): clique addresses must be multicast", a);
	if (last > UINT32_MAX)
		return FAIL(e, "the %u clique addresses %s + 0..%u carry out of the low 32 bits "
			    "(clique i adds i to them, without carry)", nc, a, nc - 1);
	return 0;
}

int gs_blob_group_base_check(const uint8_t *base, unsigned ncliques, gs_err *e)
{
	char a[INET6_ADDRSTRLEN];
	unsigned nc = ncliques ? ncliques : 1;
	uint64_t first = base_low(base), last = first + nc - 1;
	base_text(base, 0, a, sizeof(a));
	if (!base_is_v4(base))
		return v6_base(base, a, nc, last, e);
	if (first >= 0xe0000100u && last <= 0xefffffffu)
		return 0;
	if (nc == 1)
		return FAIL(e, "%s is not an IPv4 multicast address a clique may use (224.0.1.0 to "
			    "239.255.255.255)", a);
	return FAIL(e, "the %u clique addresses %s + 0..%u are not all IPv4 multicast addresses a "
		    "clique may use (224.0.1.0 to 239.255.255.255)", nc, a, nc - 1);
}

void gs_blob_clique_group(const struct gsync_sched_hdr *h, unsigned ci, char *buf, size_t n)
{
	if (!(h->flags & GSYNC_SCHF_CLIQUE_GROUPS))
		snprintf(buf, n, "group");
	else if (all_zero(h->group_base, sizeof(h->group_base)))
		snprintf(buf, n, "group+%u", ci + 1);
	else
		base_text(h->group_base, ci, buf, n);
}

/* flags and group_base; H's ncliques is in range */
static int check_groups(const struct gsync_sched_hdr *h, gs_err *e)
{
	gs_err why;
	if (h->flags & ~GSYNC_SCHF_ALL)
		return FAIL(e, "header.flags: unknown flags 0x%x (this tool knows 0x%x, "
			    "GSYNC_SCHF_CLIQUE_GROUPS)", h->flags & ~GSYNC_SCHF_ALL, GSYNC_SCHF_ALL);
	if (all_zero(h->group_base, sizeof(h->group_base)))
		return 0;
	if (!(h->flags & GSYNC_SCHF_CLIQUE_GROUPS))
		return FAIL(e, "header.group_base: set without GSYNC_SCHF_CLIQUE_GROUPS in "
			    "header.flags (it must be 0 then)");
	if (gs_blob_group_base_check(h->group_base, h->ncliques, &why))
		return FAIL(e, "header.group_base: %s", why.msg);
	return 0;
}

static int parse_hdr(const struct gsync_sched_hdr *h, size_t len, gs_err *e)
{
	size_t want = GSYNC_SCHED_BLOB_LEN((size_t)h->ncliques, (size_t)h->nmembers);
	if (h->magic != GSYNC_SCHED_MAGIC)
		return FAIL(e, "header.magic: 0x%08x is not a gsync schedule (0x%08x, \"GSCH\")",
			    h->magic, GSYNC_SCHED_MAGIC);
	if (h->version != GSYNC_SCHED_VERSION)
		return FAIL(e, "header.version: %u, this tool knows version %d", h->version,
			    GSYNC_SCHED_VERSION);
	if (h->hdr_len != sizeof(*h))
		return FAIL(e, "header.hdr_len: %u, expected %zu", h->hdr_len, sizeof(*h));
	if (h->nranks < 2 || h->nranks > MAXR)
		return FAIL(e, "header.nranks: %u, must be 2..%u", h->nranks, MAXR);
	if (h->nrounds < 1 || h->nrounds > GSYNC_SCHED_MAX_ROUNDS)
		return FAIL(e, "header.nrounds: %u rounds, the kernel runs 1..%d", h->nrounds,
			    GSYNC_SCHED_MAX_ROUNDS);
	if (h->ncliques < 1 || h->ncliques > GSYNC_SCHED_MAX_CLIQUES)
		return FAIL(e, "header.ncliques: %u cliques, the kernel takes 1..%d", h->ncliques,
			    GSYNC_SCHED_MAX_CLIQUES);
	if (h->nmembers > GSYNC_SCHED_MAX_MEMBERS)
		return FAIL(e, "header.nmembers: %u, the kernel takes at most %d", h->nmembers,
			    GSYNC_SCHED_MAX_MEMBERS);
	if (check_groups(h, e))
		return -1;
	if (h->block_bytes < GSYNC_SCHED_MIN_BLOCK || h->block_bytes % 16 ||
	    h->block_bytes > GSYNC_MAX_OP_BYTES)
		return FAIL(e, "header.block_bytes: %u, must be a multiple of 16 in %d..%u",
			    h->block_bytes, GSYNC_SCHED_MIN_BLOCK, GSYNC_MAX_OP_BYTES);
	if (len != want)
		return FAIL(e, "blob: %zu bytes, but the header describes %zu (%u cliques, %u members)",
			    len, want, h->ncliques, h->nmembers);
	for (unsigned r = h->nranks; r < MAXR; r++)
		if (idle(h, r))
			return FAIL(e, "header.idle: bit %u is set but there are %u ranks", r, h->nranks);
	return 0;
}

/* clique CI; *next: where its members must start (they tile members[]) */
static int parse_clique(const gs_blob_view *v, const gs_blob_hooks *h, unsigned ci,
			unsigned *next, gs_err *e)
{
	const struct gsync_sched_clique *q = &v->cl[ci];
	const struct gsync_sched_hdr *hd = &v->hdr;
	char name[128];
	int is_member = 0;
	gs_blob_clique_name(v, h, ci, name, sizeof(name));
	if (q->round >= hd->nrounds)
		return FAIL(e, "%s: round %u, but the blob has %u rounds", name, q->round, hd->nrounds);
	if (ci && q->round < v->cl[ci - 1].round)
		return FAIL(e, "%s: round %u after round %u: cliques must be sorted by round", name,
			    q->round, v->cl[ci - 1].round);
	if (q->pattern < 1 || q->pattern >= GSYNC_PAT_MAX)
		return FAIL(e, "%s: unknown pattern %u", name, q->pattern);
	if (q->flags & ~GSYNC_SCF_UNICAST)
		return FAIL(e, "%s: unknown flags 0x%x", name, q->flags);
	if (q->flags && q->pattern != GSYNC_PAT_RS_MULTICAST && q->pattern != GSYNC_PAT_AGGREGATOR)
		return FAIL(e, "%s: results by unicast (GSYNC_SCF_UNICAST) apply to rs_multicast and aggregator only",
			    name);
	if (q->reserved0)
		return FAIL(e, "%s: reserved fields must be 0", name);
	if (q->nmembers < 2 || q->nmembers > hd->nranks)
		return FAIL(e, "%s: %u members, must be 2..%u (nranks)", name, q->nmembers, hd->nranks);
	if (q->first != *next)
		return FAIL(e, "%s: members start at %u, not at %u where the previous clique's end (cliques take consecutive runs of members[])",
			    name, q->first, *next);
	if ((unsigned)q->first + q->nmembers > hd->nmembers)
		return FAIL(e, "%s: members %u..%u lie outside members[] (%u entries)", name, q->first,
			    q->first + q->nmembers - 1, hd->nmembers);
	*next += q->nmembers;
	for (unsigned i = 0; i < q->nmembers; i++) {
		unsigned r = v->mem[q->first + i];
		if (r >= hd->nranks)
			return FAIL(e, "%s: member %u is not a rank (there are %u)", name, r, hd->nranks);
		if (i && r <= v->mem[q->first + i - 1])
			return FAIL(e, "%s: members must be distinct ranks in ascending order (%u after %u)",
				    name, r, v->mem[q->first + i - 1]);
		is_member |= r == q->aggregator;
	}
	if (q->pattern == GSYNC_PAT_AGGREGATOR && !is_member)
		return FAIL(e, "%s: aggregator %u is not a member of the clique", name, q->aggregator);
	if (q->pattern != GSYNC_PAT_AGGREGATOR && q->aggregator)
		return FAIL(e, "%s: aggregator must be 0 for pattern %s", name,
			    gs_blob_pat_name(q->pattern));
	return 0;
}

int gs_blob_parse(const void *data, size_t len, const gs_blob_hooks *h, gs_blob_view *v,
		  gs_err *e)
{
	const unsigned char *p = data;
	memset(v, 0, sizeof(*v));
	if (len < sizeof(v->hdr))
		return FAIL(e, "blob: %zu bytes, shorter than the %zu-byte header", len,
			    sizeof(v->hdr));
	memcpy(&v->hdr, p, sizeof(v->hdr));
	if (parse_hdr(&v->hdr, len, e))
		return -1;
	v->cl = calloc(v->hdr.ncliques, sizeof(*v->cl));
	v->mem = calloc(v->hdr.nmembers + 1u, sizeof(*v->mem));
	if (!v->cl || !v->mem)
		return FAIL(e, "out of memory");
	memcpy(v->cl, p + sizeof(v->hdr), v->hdr.ncliques * sizeof(*v->cl));
	memcpy(v->mem, p + sizeof(v->hdr) + v->hdr.ncliques * sizeof(*v->cl),
	       v->hdr.nmembers * sizeof(*v->mem));
	unsigned next = 0;
	for (unsigned ci = 0; ci < v->hdr.ncliques; ci++)
		if (parse_clique(v, h, ci, &next, e))
			return -1;
	if (next != v->hdr.nmembers)
		return FAIL(e, "members[]: %u of its %u entries belong to no clique",
			    v->hdr.nmembers - next, v->hdr.nmembers);
	return 0;
}

/* ---------------- the acceptance rules ---------------- */

static int rs_count(const rset *s)
{
	int c = 0;
	for (unsigned i = 0; i < NW; i++)
		c += __builtin_popcountll(s->w[i]);
	return c;
}

static int rs_lowest(const rset *s)    /* -1 if empty */
{
	for (unsigned i = 0; i < NW; i++)
		if (s->w[i])
			return (int)(i * 64 + (unsigned)__builtin_ctzll(s->w[i]));
	return -1;
}

static rset rs_and(const rset *a, const rset *b, int invert_b)
{
	rset r;
	for (unsigned i = 0; i < NW; i++)
		r.w[i] = a->w[i] & (invert_b ? ~b->w[i] : b->w[i]);
	return r;
}

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* the id of the ordered list of input ids */
static uint64_t combine(const uint64_t *ids, unsigned n)
{
	uint64_t h = mix64(0x67737963680000ULL + n);
	for (unsigned i = 0; i < n; i++)
		h = mix64(h ^ mix64(ids[i] + 0x9e3779b97f4a7c15ULL));
	return h;
}

/* overlap between member I's value and an earlier member's: name both */
static int overlap(const gs_blob_view *v, const gs_blob_hooks *h, unsigned ci, const value *val,
		   unsigned i, gs_err *e)
{
	const struct gsync_sched_clique *q = &v->cl[ci];
	unsigned ri = v->mem[q->first + i], rj = ri;
	rset both = { { 0 } };
	for (unsigned j = 0; j < i; j++) {
		rj = v->mem[q->first + j];
		both = rs_and(&val[ri].cov, &val[rj].cov, 0);
		if (rs_lowest(&both) >= 0)
			break;
	}
	char name[128], a[96], b[96], c[96];
	gs_blob_clique_name(v, h, ci, name, sizeof(name));
	gs_blob_rank_name(h, rj, a, sizeof(a));
	gs_blob_rank_name(h, ri, b, sizeof(b));
	gs_blob_rank_name(h, (unsigned)rs_lowest(&both), c, sizeof(c));
	return FAIL(e, "%s: the values of %s and %s both cover %s, which would be counted twice "
		    "(a clique must combine disjoint sets of contributing ranks)", name, a, b, c);
}

static int run_clique(const gs_blob_view *v, const gs_blob_hooks *h, unsigned ci, value *val,
		      gs_err *e)
{
	const struct gsync_sched_clique *q = &v->cl[ci];
	unsigned k = q->nmembers, cov[MAXR], nin = 0;
	int low[MAXR];
	uint64_t ids[MAXR];
	rset all = { { 0 } };
	for (unsigned i = 0; i < k; i++) {
		const value *x = &val[v->mem[q->first + i]];
		rset both = rs_and(&all, &x->cov, 0);
		if (rs_lowest(&both) >= 0)
			return overlap(v, h, ci, val, i, e);
		for (unsigned w = 0; w < NW; w++)
			all.w[w] |= x->cov.w[w];
		cov[i] = (unsigned)rs_count(&x->cov);
		int lo = rs_lowest(&x->cov);
		if (lo < 0)
			continue;
		/* insert by the lowest covered rank (distinct: covers are disjoint) */
		unsigned j = nin++;
		for (; j > 0 && low[j - 1] > lo; j--) {
			low[j] = low[j - 1];
			ids[j] = ids[j - 1];
		}
		low[j] = lo;
		ids[j] = x->id;
	}
	if (!nin) {
		char name[128];
		gs_blob_clique_name(v, h, ci, name, sizeof(name));
		return FAIL(e, "%s: no member's value covers a contributing rank (idle ranks only)",
			    name);
	}
	if (h && h->clique_check && h->clique_check(h->arg, ci, cov, e))
		return -1;
	uint64_t id = nin == 1 ? ids[0] : combine(ids, nin);
	for (unsigned i = 0; i < k; i++) {
		val[v->mem[q->first + i]].cov = all;
		val[v->mem[q->first + i]].id = id;
	}
	return 0;
}

/* a rank in two cliques of one round */
static int twice(const gs_blob_view *v, const gs_blob_hooks *h, unsigned ci, int *in_clique,
		 gs_err *e)
{
	const struct gsync_sched_clique *q = &v->cl[ci];
	for (unsigned i = 0; i < q->nmembers; i++) {
		unsigned r = v->mem[q->first + i];
		if (in_clique[r] >= 0 && v->cl[in_clique[r]].round == q->round) {
			char name[128], other[128], rn[96];
			gs_blob_clique_name(v, h, ci, name, sizeof(name));
			gs_blob_clique_name(v, h, (unsigned)in_clique[r], other, sizeof(other));
			gs_blob_rank_name(h, r, rn, sizeof(rn));
			return FAIL(e, "%s: %s is also in %s (a rank is in at most one clique per round)",
				    name, rn, other);
		}
		in_clique[r] = (int)ci;
	}
	return 0;
}

static int final_state(const gs_blob_view *v, const gs_blob_hooks *h, const value *val,
		       const rset *contrib, gs_err *e)
{
	unsigned N = v->hdr.nranks;
	char a[96], b[96];
	for (unsigned r = 0; r < N; r++) {
		rset miss = rs_and(contrib, &val[r].cov, 1);
		if (rs_lowest(&miss) >= 0) {
			gs_blob_rank_name(h, r, a, sizeof(a));
			gs_blob_rank_name(h, (unsigned)rs_lowest(&miss), b, sizeof(b));
			return FAIL(e, "after the last round %s covers %d of the %d contributing ranks "
				    "(%s is missing): not an all-reduce", a, rs_count(&val[r].cov),
				    rs_count(contrib), b);
		}
	}
	for (unsigned r = 1; r < N; r++)
		if (val[r].id != val[0].id) {
			gs_blob_rank_name(h, 0, a, sizeof(a));
			gs_blob_rank_name(h, r, b, sizeof(b));
			return FAIL(e, "%s and %s end with different expressions (same ranks, combined "
				    "in another grouping or order): their results could differ in the last "
				    "bits", a, b);
		}
	return 0;
}

int gs_blob_rules(const gs_blob_view *v, const gs_blob_hooks *h, gs_err *e)
{
	unsigned N = v->hdr.nranks;
	value val[MAXR];
	int in_clique[MAXR];
	rset contrib = { { 0 } };
	memset(val, 0, sizeof(val));
	for (unsigned r = 0; r < N; r++) {
		in_clique[r] = -1;
		val[r].id = r;
		if (!idle(&v->hdr, r)) {
			val[r].cov.w[r / 64] |= 1ULL << (r % 64);
			contrib.w[r / 64] |= 1ULL << (r % 64);
		}
	}
	if (rs_lowest(&contrib) < 0)
		return FAIL(e, "header.idle: every rank is idle, nothing to reduce");
	for (unsigned ci = 0; ci < v->hdr.ncliques; ci++)
		if (twice(v, h, ci, in_clique, e) || run_clique(v, h, ci, val, e))
			return -1;
	return final_state(v, h, val, &contrib, e);
}

int gs_blob_check(const void *data, size_t len, const gs_blob_hooks *h, gs_err *e)
{
	gs_blob_view v;
	int rc = gs_blob_parse(data, len, h, &v, e);
	if (!rc)
		rc = gs_blob_rules(&v, h, e);
	gs_blob_view_free(&v);
	return rc;
}
