/* export.c - a schedule on a topology as the kernel's blob: cliques in
 * round order with their members' ranks ascending, patterns mapped
 * (ring, tree and inline refused), relay ranks added for network-node
 * aggregators, results by unicast where multicast is missing, a multicast
 * address per clique (GSYNC_SCHF_CLIQUE_GROUPS) unless told not to; then the
 * kernel's acceptance rules (blob_check.c) with JSON paths in messages and
 * given weights checked against the sums the kernel computes. */
#include "sched_export.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int not_kernel(int r, int c, int pat, gs_err *e)
{
	gs_seterr(e, "rounds[%d].cliques[%d]: pattern \"%s\" cannot be executed by the kernel (multicast, unicast, rs_multicast, aggregator)",
		  r, c, gs_pat_name[pat]);
	return -1;
}

int gs_kernel_patterns(const gs_sched *s, gs_err *e)
{
	for (int r = 0; r < s->nr; r++)
		for (int c = 0; c < s->r[r].nc; c++) {
			const gs_clique *q = &s->r[r].c[c];
			if (q->k > 1 && q->pat != GS_PAT_AUTO && !(GS_KERNEL_PATS & (1u << q->pat)))
				return not_kernel(r, c, q->pat, e);
		}
	return 0;
}

static int can_mc(const gs_topo *t, int node, int no_mc)
{
	return !no_mc && gs_topo_reach(t, node) > 0;
}

/* kernel pattern and flags of clique Q (rounds[r].cliques[c]) */
static int kpattern(const gs_topo *t, const gs_clique *q, int no_mc, int r, int c,
		    struct gsync_sched_clique *k, gs_err *e)
{
	int lacks = -1;
	for (int i = 0; i < q->k && lacks < 0; i++)
		if (!can_mc(t, q->m[i], no_mc))
			lacks = q->m[i];
	switch (q->pat) {
	case GS_PAT_MULTICAST:
		if (lacks >= 0) {
			if (no_mc)
				gs_seterr(e, "rounds[%d].cliques[%d]: pattern \"multicast\" needs multicast, which --no-multicast rules out (use unicast, rs_multicast or aggregator)",
					  r, c);
			else
				gs_seterr(e, "rounds[%d].cliques[%d]: pattern \"multicast\" needs multicast, which island \"%s\" does not have in this topology (use unicast, rs_multicast or aggregator)",
					  r, c, t->nodes[lacks].id);
			return -1;
		}
		k->pattern = GSYNC_PAT_MULTICAST;
		return 0;
	case GS_PAT_UNICAST:
		k->pattern = GSYNC_PAT_UNICAST;
		return 0;
	case GS_PAT_RS_MULTICAST:
		k->pattern = GSYNC_PAT_RS_MULTICAST;
		k->flags = lacks >= 0 ? GSYNC_SCF_UNICAST : 0;
		return 0;
	case GS_PAT_AGGREGATOR:
		k->pattern = GSYNC_PAT_AGGREGATOR;
		k->flags = can_mc(t, q->agg, no_mc) ? 0 : GSYNC_SCF_UNICAST;
		return 0;
	}
	return not_kernel(r, c, q->pat, e);
}

/* the aggregator's rank; *extra: a relay rank to add as a member, or -1 */
static int kaggregator(const gs_topo *t, const gs_rankmap *rm, const gs_clique *q, int r, int c,
		       int *extra, gs_err *e)
{
	int X = q->agg;
	*extra = -1;
	for (int i = 0; i < q->k; i++)
		if (q->m[i] == X)
			return rm->rank_of_node[X];
	if (t->nodes[X].is_island)
		gs_seterr(e, "rounds[%d].cliques[%d].aggregator: island \"%s\" is not a member; the kernel's aggregator is a member or a relay rank at a network node",
			  r, c, t->nodes[X].id);
	else if (rm->rank_of_node[X] < 0)
		gs_seterr(e, "rounds[%d].cliques[%d].aggregator: \"%s\" is a network node: run a gsync rank there and give --relay %s=RANK",
			  r, c, t->nodes[X].id, t->nodes[X].id);
	else
		return *extra = rm->rank_of_node[X];
	return -1;
}

static int cmp_u16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* one clique into x->cl[x->ncl], its members at x->mem[*nm] */
static int add_clique(gs_export_ctx *x, int no_mc, int r, int c, int round, int *nm, gs_err *e)
{
	const gs_clique *q = &x->s.r[r].c[c];
	struct gsync_sched_clique *k = &x->cl[x->ncl];
	uint16_t *m = x->mem + *nm;
	int n = q->k, extra;
	if (kpattern(x->t, q, no_mc, r, c, k, e))
		return -1;
	for (int i = 0; i < q->k; i++)
		m[i] = (uint16_t)x->rm.rank_of_node[q->m[i]];
	if (q->pat == GS_PAT_AGGREGATOR) {
		int agg = kaggregator(x->t, &x->rm, q, r, c, &extra, e);
		if (agg < 0)
			return -1;
		k->aggregator = (uint16_t)agg;
		if (extra >= 0)
			m[n++] = (uint16_t)extra;
	}
	qsort(m, (size_t)n, sizeof(*m), cmp_u16);
	k->round = (uint16_t)round;
	k->first = (uint16_t)*nm;
	k->nmembers = (uint16_t)n;
	x->jr[x->ncl] = r;
	x->jc[x->ncl++] = c;
	*nm += n;
	return 0;
}

/* min over nonzero rates (0: unlimited) */
static double min_rate(double a, double b)
{
	return a <= 0 ? b : b <= 0 ? a : fmin(a, b);
}

/*
 * Per member and unit of time, what each pattern has every member send
 * and receive, all members sending at rate r (M: the buffer):
 *   multicast      send M once, receive (k-1) M: r <= U, (k-1) r <= D
 *   unicast        send (k-1) M, receive (k-1) M: r <= U, r <= D
 *   rs_multicast   send M ((k-1)/k to owners, 1/k multicast), receive
 *                  2 (k-1)/k M: r <= U, 2 (k-1)/k r <= D; the kernel
 *                  paces a packet by the downloads it lands on, so a
 *                  member sending blocks to owners alone (no result yet)
 *                  sends at 2 (k-1)/k r: also 2 (k-1)/k r <= U; results
 *                  by unicast: send and receive 2 (k-1)/k M, paced by
 *                  bytes: r <= U, D
 *   aggregator     the k-1 others send M to the aggregator at once:
 *                  r <= U, (k-1) r <= D of the aggregator, r <= D of
 *                  the others (its results come at r)
 * U, D: the smallest egress, ingress among the members concerned.
 */
uint32_t gs_export_rate_kbit(const gs_topo *t, const gs_rankmap *rm,
			     const struct gsync_sched_clique *k, const uint16_t *mem)
{
	double up = 0, down = 0, agg_down = 0, n = k->nmembers, r;
	for (unsigned i = 0; i < k->nmembers; i++) {
		const gs_node *nd = &t->nodes[rm->node_of_rank[mem[k->first + i]]];
		up = min_rate(up, nd->egress_gbps);
		if (k->pattern == GSYNC_PAT_AGGREGATOR && mem[k->first + i] == k->aggregator)
			agg_down = nd->ingress_gbps;
		else
			down = min_rate(down, nd->ingress_gbps);
	}
	switch (k->pattern) {
	case GSYNC_PAT_MULTICAST:
		r = min_rate(up, down / (n - 1));
		break;
	case GSYNC_PAT_RS_MULTICAST:
		r = k->flags & GSYNC_SCF_UNICAST ? min_rate(up, down) :
			min_rate(up, down) * n / (2 * (n - 1));
		break;
	case GSYNC_PAT_AGGREGATOR:
		r = min_rate(min_rate(up, down), agg_down / (n - 1));
		break;
	default:
		r = min_rate(up, down);
	}
	if (r <= 0)
		return 0;
	return (uint32_t)fmax(1, fmin(UINT32_MAX, floor(r * GS_RATE_HEADROOM * 1e6)));
}

static uint32_t block_bytes(double chunk)
{
	double b = fmin(fmax(ceil(chunk), GSYNC_SCHED_MIN_BLOCK), 1u << 30);
	return ((uint32_t)b + 15u) & ~15u;
}

double gs_kernel_block(double chunk, double size)
{
	double b = block_bytes(chunk);
	double fit = ceil(ceil(size / GSYNC_SCHED_MAX_BLOCKS) / 16) * 16;
	return fmax(fmin(fmax(b, fit), size), 1);
}

static int limits(int nr, int nc, int nm, gs_err *e)
{
	if (!nc)
		gs_seterr(e, "rounds: no clique has two or more members: nothing for the kernel to run");
	else if (nr > GSYNC_SCHED_MAX_ROUNDS)
		gs_seterr(e, "rounds: %d rounds with cliques; the kernel runs at most %d", nr, GSYNC_SCHED_MAX_ROUNDS);
	else if (nc > GSYNC_SCHED_MAX_CLIQUES)
		gs_seterr(e, "rounds: %d cliques; the kernel takes at most %d", nc, GSYNC_SCHED_MAX_CLIQUES);
	else if (nm > GSYNC_SCHED_MAX_MEMBERS)
		gs_seterr(e, "rounds: %d members in all cliques; the kernel takes at most %d", nm,
			  GSYNC_SCHED_MAX_MEMBERS);
	else
		return 0;
	return -1;
}

/* --group-base: given with clique groups, and good for NCL cliques */
static int group_base(const gs_export_opts *o, int ncl, gs_err *e)
{
	static const uint8_t zero[16];
	gs_err why;
	if (!memcmp(o->group_base, zero, sizeof(zero)))
		return 0;
	if (o->no_clique_groups)
		gs_seterr(e, "--group-base: clique 0's address, but --no-clique-groups has every clique multicast to the group's");
	else if (gs_blob_group_base_check(o->group_base, (unsigned)ncl, &why))
		gs_seterr(e, "--group-base: %s", why.msg);
	else
		return 0;
	return -1;
}

static void serialize(gs_export_ctx *x, int nr, int nm, const gs_export_opts *o)
{
	struct gsync_sched_hdr h;
	memset(&h, 0, sizeof(h));
	h.magic = GSYNC_SCHED_MAGIC;
	h.version = GSYNC_SCHED_VERSION;
	h.hdr_len = sizeof(h);
	h.start_seq = o->start_seq;
	h.block_bytes = block_bytes(x->s.chunk_bytes);
	h.nranks = (uint16_t)x->rm.nranks;
	h.nrounds = (uint16_t)nr;
	h.ncliques = (uint16_t)x->ncl;
	h.nmembers = (uint16_t)nm;
	for (int r = x->t->n_islands; r < x->rm.nranks; r++)
		h.idle[r / 8] |= (uint8_t)(1u << (r % 8));
	if (!o->no_clique_groups) {
		h.flags = GSYNC_SCHF_CLIQUE_GROUPS;
		memcpy(h.group_base, o->group_base, sizeof(h.group_base));
	}
	x->len = GSYNC_SCHED_BLOB_LEN((size_t)x->ncl, (size_t)nm);
	x->blob = gs_xmalloc(x->len);
	memcpy(x->blob, &h, sizeof(h));
	memcpy(x->blob + sizeof(h), x->cl, sizeof(*x->cl) * (size_t)x->ncl);
	memcpy(x->blob + sizeof(h) + sizeof(*x->cl) * (size_t)x->ncl, x->mem, sizeof(*x->mem) * (size_t)nm);
}

int gs_export_build(gs_export_ctx *x, const gs_topo *t, const gs_sched *s, const gs_export_opts *o,
		    gs_err *e)
{
	int totc = 0, totm = 0, nr = 0, nm = 0;
	memset(x, 0, sizeof(*x));
	x->t = t;
	if (gs_rankmap_build(t, o->ranks, o->relays, o->nrelays, &x->rm, e))
		return GS_EXPORT_BADOPT;
	gs_sched_copy(&x->s, s);
	if (gs_export_resolve(t, &x->s, &x->rm, o->no_multicast, o->size, e))
		return GS_EXPORT_REFUSED;
	for (int r = 0; r < x->s.nr; r++)
		for (int c = 0; c < x->s.r[r].nc; c++, totc++)
			totm += x->s.r[r].c[c].k + 1;
	x->cl = gs_xcalloc((size_t)totc, sizeof(*x->cl));
	x->mem = gs_xcalloc((size_t)totm, sizeof(*x->mem));
	x->jr = gs_xcalloc((size_t)totc, sizeof(int));
	x->jc = gs_xcalloc((size_t)totc, sizeof(int));
	for (int r = 0; r < x->s.nr; r++) {
		int before = x->ncl;
		for (int c = 0; c < x->s.r[r].nc; c++)
			if (x->s.r[r].c[c].k >= 2 && add_clique(x, o->no_multicast, r, c, nr, &nm, e))
				return GS_EXPORT_REFUSED;
		nr += x->ncl > before;
	}
	if (limits(nr, x->ncl, nm, e))
		return GS_EXPORT_REFUSED;
	if (group_base(o, x->ncl, e))
		return GS_EXPORT_BADOPT;
	for (int i = 0; i < x->ncl && !o->no_rates; i++)
		x->cl[i].rate_kbit = gs_export_rate_kbit(t, &x->rm, &x->cl[i], x->mem);
	serialize(x, nr, nm, o);
	return GS_EXPORT_OK;
}

/* ---------------- hooks: JSON paths, island names, weights ---------------- */

static void h_clique(void *arg, unsigned ci, char *buf, size_t n)
{
	const gs_export_ctx *x = arg;
	snprintf(buf, n, "rounds[%d].cliques[%d]", x->jr[ci], x->jc[ci]);
}

static void h_rank(void *arg, unsigned r, char *buf, size_t n)
{
	const gs_export_ctx *x = arg;
	int node = x->rm.node_of_rank[r];
	snprintf(buf, n, "%s\"%s\" (rank %u)", x->t->nodes[node].is_island ? "" : "relay ",
		 x->t->nodes[node].id, r);
}

static int h_weights(void *arg, unsigned ci, const unsigned *cov, gs_err *e)
{
	const gs_export_ctx *x = arg;
	const gs_clique *q = &x->s.r[x->jr[ci]].c[x->jc[ci]];
	const struct gsync_sched_clique *k = &x->cl[ci];
	unsigned sum = 0;
	if (!q->w_given)
		return 0;
	for (unsigned i = 0; i < k->nmembers; i++)
		sum += cov[i];
	for (unsigned i = 0; i < k->nmembers && sum; i++) {
		int node = x->rm.node_of_rank[x->mem[k->first + i]];
		for (int j = 0; j < q->k; j++) {
			double share = (double)cov[i] / sum;
			if (q->m[j] != node || fabs(q->w[j] - share) <= 1e-6)
				continue;
			gs_seterr(e, "rounds[%d].cliques[%d].weights[%d]: %.6g for \"%s\", but its value holds %u of the %u contributions the clique combines (share %.6g): the kernel sums, so its weights are these shares; weighted gossip mixing is simulated only",
				 x->jr[ci], x->jc[ci], j, q->w[j], x->t->nodes[node].id, cov[i], sum, share);
			return -1;
		}
	}
	return 0;
}

void gs_export_hooks(gs_export_ctx *x, gs_blob_hooks *h)
{
	h->arg = x;
	h->clique_name = h_clique;
	h->rank_name = h_rank;
	h->clique_check = h_weights;
}

int gs_export(gs_export_ctx *x, const gs_topo *t, const gs_sched *s, const gs_export_opts *o,
	      gs_err *e)
{
	gs_blob_hooks h;
	int rc = gs_export_build(x, t, s, o, e);
	if (rc)
		return rc;
	gs_export_hooks(x, &h);
	return gs_blob_check(x->blob, x->len, &h, e) ? GS_EXPORT_REFUSED : 0;
}

int gs_export_few_blocks(const gs_export_ctx *x, double size, char *msg, size_t n)
{
	int count = 0, worst = -1;
	if (msg && n)
		msg[0] = 0;
	if (!(size > 0) || !x->cl)
		return 0;
	double block = gs_kernel_block(x->s.chunk_bytes, size), nb = ceil(size / block);
	for (int i = 0; i < x->ncl; i++)
		if (x->cl[i].pattern == GSYNC_PAT_RS_MULTICAST && x->cl[i].nmembers > nb) {
			count++;
			if (worst < 0 || x->cl[i].nmembers > x->cl[worst].nmembers)
				worst = i;
		}
	if (!count || !msg || !n)
		return count;
	int k = x->cl[worst].nmembers, idle = k - (int)nb;
	char fix[160], more[48] = "";
	/* the largest power of two that gives every member a block */
	double b = pow(2, floor(log2(size / k)));
	if (b >= GSYNC_SCHED_MIN_BLOCK)
		snprintf(fix, sizeof(fix), "export with --chunk %.0f or smaller", b);
	else
		snprintf(fix, sizeof(fix), "blocks are at least %d bytes: use another pattern or cliques of at most %.0f",
			 GSYNC_SCHED_MIN_BLOCK, fmax(1, floor(size / GSYNC_SCHED_MIN_BLOCK)));
	if (count > 1)
		snprintf(more, sizeof(more), " (and %d more clique%s)", count - 1, count > 2 ? "s" : "");
	snprintf(msg, n, "rounds[%d].cliques[%d]%s: rs_multicast over %d members, but %.0f bytes in blocks of %.0f make %.0f block%s, so %d member%s reduce%s nothing (block b goes to member b mod %d); %s",
		 x->jr[worst], x->jc[worst], more, k, size, block, nb, nb == 1 ? "" : "s", idle,
		 idle == 1 ? "" : "s", idle == 1 ? "s" : "", k, fix);
	return count;
}

void gs_export_free(gs_export_ctx *x)
{
	gs_rankmap_free(&x->rm);
	if (x->s.r)
		gs_sched_free(&x->s);
	free(x->jr);
	free(x->jc);
	free(x->cl);
	free(x->mem);
	free(x->blob);
	memset(x, 0, sizeof(*x));
}
