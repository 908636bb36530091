/* model.c - cost of one synchronization under a schedule (formulas in
 * docs/schedules.md).  Every byte is put on the resources it crosses:
 * island access links (egress, ingress), directed WAN links along the
 * shortest-path routes, and aggregation throughput.  Multicast is laid as
 * the union of the sender's shortest-path routes, so a byte crosses each
 * tree link once; with a reach limit R the sender emits ceil(n/R) copies,
 * each a tree to up to R receivers.  Concurrent cliques of a round add
 * their loads on shared resources; a clique's bandwidth time is its most
 * loaded resource.  Rounds are pipelined by chunks. */
#include "gs.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct gs_model {
	const gs_topo *t;
	gs_params p;
	int nres, L2, NN;
	double *rate;                       /* bytes/s per resource, 0 = unlimited */
	double *acc;                        /* scratch: loads of the clique being built */
	unsigned *stamp; unsigned cur;
	int *touched; int ntouched;
	unsigned *lstamp; unsigned lcur;    /* multicast tree link dedupe */
	double *racc; unsigned *rstamp; unsigned rcur;   /* round accumulation */
	double *tacc; unsigned *tstamp; unsigned tcur;   /* every round's load */
	int *tmp;
	int kernel;                         /* cost cliques as the kernel runs them */
	int blocks;                         /* the block model: rs_multicast owners
					     * charged the blocks they own */
};

#define RES_EGR(m, n) ((m)->L2 + (n))
#define RES_ING(m, n) ((m)->L2 + (m)->NN + (n))
#define RES_AGG(m, a) ((m)->L2 + 2 * (m)->NN + (a))

gs_model *gs_model_new(const gs_topo *t, const gs_params *p)
{
	gs_model *m = gs_xcalloc(1, sizeof(*m));
	m->t = t;
	m->p = *p;
	m->L2 = 2 * t->n_links;
	m->NN = t->n_nodes;
	m->nres = m->L2 + 2 * m->NN + t->n_aggs;
	m->rate = gs_xcalloc((size_t)m->nres, sizeof(double));
	for (int l = 0; l < t->n_links; l++)
		m->rate[2 * l] = m->rate[2 * l + 1] = GS_GBPS_TO_BPS(t->links[l].bandwidth_gbps);
	for (int n = 0; n < t->n_nodes; n++) {
		m->rate[RES_EGR(m, n)] = GS_GBPS_TO_BPS(t->nodes[n].egress_gbps);
		m->rate[RES_ING(m, n)] = GS_GBPS_TO_BPS(t->nodes[n].ingress_gbps);
	}
	for (int a = 0; a < t->n_aggs; a++)
		m->rate[RES_AGG(m, a)] = GS_GBPS_TO_BPS(t->aggs[a].throughput_gbps);
	m->acc = gs_xcalloc((size_t)m->nres, sizeof(double));
	m->stamp = gs_xcalloc((size_t)m->nres, sizeof(unsigned));
	m->touched = gs_xcalloc((size_t)m->nres, sizeof(int));
	m->lstamp = gs_xcalloc((size_t)m->nres, sizeof(unsigned));
	m->racc = gs_xcalloc((size_t)m->nres, sizeof(double));
	m->rstamp = gs_xcalloc((size_t)m->nres, sizeof(unsigned));
	m->tacc = gs_xcalloc((size_t)m->nres, sizeof(double));
	m->tstamp = gs_xcalloc((size_t)m->nres, sizeof(unsigned));
	m->tmp = gs_xcalloc((size_t)t->n_nodes * 2 + 4, sizeof(int));
	return m;
}

void gs_model_free(gs_model *m)
{
	if (!m)
		return;
	free(m->rate);
	free(m->acc);
	free(m->stamp);
	free(m->touched);
	free(m->lstamp);
	free(m->racc);
	free(m->rstamp);
	free(m->tacc);
	free(m->tstamp);
	free(m->tmp);
	free(m);
}

const gs_params *gs_model_params(const gs_model *m) { return &m->p; }
void gs_model_set_chunk(gs_model *m, double chunk) { m->p.chunk = chunk; }
int gs_model_nres(const gs_model *m) { return m->nres; }
double gs_model_rate(const gs_model *m, int res) { return m->rate[res]; }

void gs_model_res_name(const gs_model *m, int res, char *buf, size_t n)
{
	const gs_topo *t = m->t;
	if (res < 0)
		snprintf(buf, n, "-");
	else if (res < m->L2) {
		const gs_link *l = &t->links[res / 2];
		int a = res & 1 ? l->b : l->a, b = res & 1 ? l->a : l->b;
		snprintf(buf, n, "link %s->%s", t->nodes[a].id, t->nodes[b].id);
	} else if (res < m->L2 + m->NN)
		snprintf(buf, n, "%s egress", t->nodes[res - m->L2].id);
	else if (res < m->L2 + 2 * m->NN)
		snprintf(buf, n, "%s ingress", t->nodes[res - m->L2 - m->NN].id);
	else
		snprintf(buf, n, "aggregator@%s", t->nodes[t->aggs[res - m->L2 - 2 * m->NN].node].id);
}

/* ---- load accumulation ---- */
static void begin(gs_model *m)
{
	if (++m->cur == 0) {
		memset(m->stamp, 0, sizeof(unsigned) * (size_t)m->nres);
		m->cur = 1;
	}
	m->ntouched = 0;
}

static void add(gs_model *m, int res, double bytes)
{
	if (m->rate[res] <= 0 || bytes <= 0)
		return;             /* unlimited resource: never a bottleneck */
	if (m->stamp[res] != m->cur) {
		m->stamp[res] = m->cur;
		m->acc[res] = 0;
		m->touched[m->ntouched++] = res;
	}
	m->acc[res] += bytes;
}

static int dirres(const gs_topo *t, int l, int from)
{
	return t->links[l].a == from ? 2 * l : 2 * l + 1;
}

static void path_add(gs_model *m, int s, int d, double bytes)
{
	const gs_topo *t = m->t;
	size_t base = (size_t)s * t->n_nodes;
	for (int v = d; v != s;) {
		int l = t->pred_link[base + v], u = t->pred[base + v];
		add(m, dirres(t, l, u), bytes);
		v = u;
	}
}

/* one multicast tree from s to dests: the union of s's shortest-path
 * routes; paths of one source share a predecessor tree, so once we reach
 * a link already in the tree the rest of the way to s is in it too */
static void tree_add(gs_model *m, int s, const int *dests, int nd, double bytes)
{
	const gs_topo *t = m->t;
	size_t base = (size_t)s * t->n_nodes;
	if (++m->lcur == 0) {
		memset(m->lstamp, 0, sizeof(unsigned) * (size_t)m->nres);
		m->lcur = 1;
	}
	for (int i = 0; i < nd; i++)
		for (int v = dests[i]; v != s;) {
			int l = t->pred_link[base + v], u = t->pred[base + v];
			int r = dirres(t, l, u);
			if (m->lstamp[r] == m->lcur)
				break;
			m->lstamp[r] = m->lcur;
			add(m, r, bytes);
			v = u;
		}
}

static void ucast(gs_model *m, int s, int d, double bytes, int src_acc, int dst_acc)
{
	if (src_acc)
		add(m, RES_EGR(m, s), bytes);
	path_add(m, s, d, bytes);
	if (dst_acc)
		add(m, RES_ING(m, d), bytes);
}

/* reach 0 = no multicast: the sender replicates (one unicast per receiver) */
static void mcast(gs_model *m, int s, const int *dests, int nd, double bytes, int src_acc,
		  int dst_acc)
{
	int reach = gs_topo_reach(m->t, s);
	int g = reach <= 0 ? 1 : reach;
	int copies = 0;
	for (int i = 0; i < nd; i += g) {
		int n = nd - i < g ? nd - i : g;
		tree_add(m, s, dests + i, n, bytes);
		copies++;
	}
	if (src_acc)
		add(m, RES_EGR(m, s), bytes * copies);
	for (int i = 0; dst_acc && i < nd; i++)
		add(m, RES_ING(m, dests[i]), bytes);
}

static double maxlat(const gs_topo *t, const int *mem, int k)
{
	double x = 0;
	for (int i = 0; i < k; i++)
		for (int j = 0; j < k; j++)
			if (gs_lat(t, mem[i], mem[j]) > x)
				x = gs_lat(t, mem[i], mem[j]);
	return x;
}

/* the others of member i, into buf */
static int others(const int *mem, int k, int i, int *buf)
{
	int n = 0;
	for (int j = 0; j < k; j++)
		if (j != i)
			buf[n++] = mem[j];
	return n;
}

int gs_model_chunks(const gs_params *p)
{
	double c = ceil(p->M / p->chunk);
	return c < 1 ? 1 : c > 1e9 ? 1000000000 : (int)c;
}

int gs_model_set_kernel(gs_model *m, int on)
{
	int was = m->kernel;
	m->kernel = on;
	return was;
}

int gs_model_kernel(const gs_model *m)
{
	return m->kernel;
}

int gs_model_set_block_model(gs_model *m, int on)
{
	int was = m->blocks;
	m->blocks = on;
	return was;
}

int gs_model_block_model(const gs_model *m)
{
	return m->blocks;
}

double gs_owned_bytes(double bytes, double block, int k, int pos)
{
	if (k < 1 || pos < 0 || pos >= k || !(bytes > 0))
		return 0;
	if (!(block > 0) || block >= bytes)
		return pos == 0 ? bytes : 0;        /* one block, owned by position 0 */
	double nb = ceil(bytes / block);        /* blocks; the last may be partial */
	double each = floor(nb / k), extra = nb - each * k;
	double own = (each + (pos < extra)) * block;
	if (fmod(nb - 1, k) == pos)
		own -= nb * block - bytes;          /* the last block is short */
	return own;
}

/* the block the shares are cut in: the kernel's for this operation, or
 * the model's chunk (the same thing for the block sizes the kernel takes) */
static double block_of(const gs_model *m)
{
	return m->kernel ? gs_kernel_block(m->p.chunk, m->p.M) : fmin(m->p.chunk, m->p.M);
}

/* position of mem[j] in the clique's members by ascending rank; export
 * gives islands their topology index as rank (without --ranks) */
static int rank_pos(const int *mem, int k, int j)
{
	int pos = 0;
	for (int i = 0; i < k; i++)
		pos += mem[i] < mem[j];
	return pos;
}

int gs_pat_feasible(const gs_model *m, const int *mem, int k, int pat, int agg)
{
	const gs_topo *t = m->t;
	if (k <= 1)
		return 1;
	switch (pat) {
	case GS_PAT_RS_MULTICAST:
		if (m->kernel)
			return 1;           /* all-gather by unicast without multicast */
		/* fall through */
	case GS_PAT_MULTICAST:
		for (int i = 0; i < k; i++)
			if (gs_topo_reach(t, mem[i]) <= 0)
				return 0;
		return 1;
	case GS_PAT_INLINE:
		if (t->n_aggs == 0 || m->kernel)
			return 0;           /* kernel: no in-line aggregation */
		for (int i = 0; i < k; i++)
			if (gs_topo_reach(t, mem[i]) <= 0)
				return 0;
		return 1;
	case GS_PAT_AGGREGATOR:
		if (agg < 0)
			return 1;
		for (int i = 0; i < k; i++)
			if (mem[i] == agg)
				return 1;
		/* the kernel's aggregator is a rank: a member, or a relay at a
		 * network node; another island's rank contributes its own value */
		if (m->kernel)
			return !t->nodes[agg].is_island;
		return t->agg_of_node[agg] >= 0;
	default:
		return 1;
	}
}

/* Streams of the members climb X's shortest-path tree towards X.  A node
 * on the way that has its own FPGA merges what passes through it (K at a
 * time: ceil(n/K) streams leave), so a link carries M per stream still
 * separate, not M per member: hierarchical in-network aggregation when the
 * PoPs on the way have FPGAs, plain forwarding otherwise.  Returns how many
 * partial sums X sends back (1 unless fan-in limits it); adds the FPGA
 * delays of the deepest merge chain to *prop. */
static int reduce_up(gs_model *m, const int *mem, int k, int X, double *prop)
{
	const gs_topo *t = m->t;
	const gs_params *p = &m->p;
	int n = t->n_nodes;
	size_t base = (size_t)X * n;
	int *in = gs_xcalloc((size_t)n, sizeof(int)), *ord = gs_xmalloc(sizeof(int) * (size_t)n);
	double *dly = gs_xcalloc((size_t)n, sizeof(double));
	char *on = gs_xcalloc((size_t)n, 1);
	int no = 0;
	for (int i = 0; i < k; i++) {
		in[mem[i]]++;
		for (int v = mem[i]; !on[v]; v = t->pred[base + v]) {
			on[v] = 1;
			ord[no++] = v;
			if (v == X)
				break;
		}
	}
	if (!on[X])
		ord[no++] = X;
	/* farthest first: every node is processed after its whole subtree */
	for (int i = 1; i < no; i++)
		for (int j = i; j > 0 && gs_lat(t, X, ord[j]) > gs_lat(t, X, ord[j - 1]); j--) {
			int x = ord[j];
			ord[j] = ord[j - 1];
			ord[j - 1] = x;
		}
	int g = 1;
	for (int i = 0; i < no; i++) {
		int v = ord[i], ai = t->agg_of_node[v], out = in[v];
		if (ai >= 0 && in[v] > 0) {
			const gs_agg *a = &t->aggs[ai];
			if (in[v] > 1 || v == X)
				add(m, RES_AGG(m, ai), p->M * in[v]);
			out = (in[v] + a->fan_in - 1) / a->fan_in;
			if (in[v] > 1 && v != X)
				dly[v] += a->delay_us * 1e-6;
		}
		if (v == X) {
			g = out;
			*prop += dly[v];
			break;
		}
		int l = t->pred_link[base + v], u = t->pred[base + v];
		add(m, dirres(t, l, v), p->M * out);
		in[u] += out;
		if (dly[v] > dly[u])
			dly[u] = dly[v];
	}
	free(in);
	free(ord);
	free(dly);
	free(on);
	return g;
}

/* flows and latency of one clique through aggregator node X */
static void via_aggregator(gs_model *m, const int *mem, int k, int X, gs_ceval *o)
{
	const gs_topo *t = m->t;
	const gs_params *p = &m->p;
	int ai = t->agg_of_node[X];
	double in = 0, out = 0;
	for (int i = 0; i < k; i++) {
		if (gs_lat(t, mem[i], X) > in)
			in = gs_lat(t, mem[i], X);
		if (gs_lat(t, X, mem[i]) > out)
			out = gs_lat(t, X, mem[i]);
	}
	o->prop = in + out;
	o->steps = 2;
	if (ai >= 0 && !m->kernel) {
		/* FPGA at X: every member streams to it (the island at X too,
		 * over its access link); it sums K at a time, so with k > K
		 * members receive ceil(k/K) partial sums and finish locally */
		const gs_agg *a = &t->aggs[ai];
		for (int i = 0; i < k; i++)
			add(m, RES_EGR(m, mem[i]), p->M);
		int g = reduce_up(m, mem, k, X, &o->prop);
		mcast(m, X, mem, k, p->M * g, 0, 1);
		o->prop += a->delay_us * 1e-6;
	} else {
		/* software reduction at X: a member island, or (kernel) any
		 * aggregator rank, whose streams nothing merges on the way */
		int *buf = m->tmp, n = 0;
		for (int i = 0; i < k; i++)
			if (mem[i] != X) {
				ucast(m, mem[i], X, p->M, 1, 1);
				buf[n++] = mem[i];
			}
		mcast(m, X, buf, n, p->M, 1, 1);
	}
}

static void in_line(gs_model *m, const int *mem, int k, gs_ceval *o)
{
	const gs_topo *t = m->t;
	const gs_params *p = &m->p;
	int *near = m->tmp;                 /* k entries: agg index serving member */
	int *set = m->tmp + k, ns = 0;      /* distinct agg nodes */
	double d = 0, pr = 0;
	for (int j = 0; j < k; j++) {
		int best = 0;
		for (int a = 1; a < t->n_aggs; a++)
			if (gs_lat(t, t->aggs[a].node, mem[j]) < gs_lat(t, t->aggs[best].node, mem[j]))
				best = a;
		near[j] = best;
		int f = 0;
		for (int s = 0; s < ns && !f; s++)
			f = set[s] == t->aggs[best].node;
		if (!f)
			set[ns++] = t->aggs[best].node;
	}
	for (int i = 0; i < k; i++) {
		mcast(m, mem[i], set, ns, p->M, 1, 0);
		for (int j = 0; j < k; j++) {
			int an = t->aggs[near[j]].node;
			double v = gs_lat(t, mem[i], an) + gs_lat(t, an, mem[j]);
			if (v > pr)
				pr = v;
		}
	}
	/* each aggregation point in use sums all k streams once and sends the
	 * total (or ceil(k/K) partial sums) to the members it serves */
	int *served = gs_xmalloc(sizeof(int) * (size_t)k);
	for (int a = 0; a < t->n_aggs; a++) {
		int ns2 = 0;
		for (int j = 0; j < k; j++)
			if (near[j] == a)
				served[ns2++] = mem[j];
		if (!ns2)
			continue;
		const gs_agg *ag = &t->aggs[a];
		int g = k > ag->fan_in ? (k + ag->fan_in - 1) / ag->fan_in : 1;
		add(m, RES_AGG(m, a), p->M * k);
		mcast(m, ag->node, served, ns2, p->M * g, 0, 1);
		if (ag->delay_us * 1e-6 > d)
			d = ag->delay_us * 1e-6;
	}
	free(served);
	o->prop = pr + d;
	o->steps = 1;
}

static void finish(gs_model *m, gs_ceval *o)
{
	const gs_params *p = &m->p;
	double bw = 0;
	o->nres = m->ntouched;
	o->res = gs_xmalloc(sizeof(int) * (size_t)(o->nres + 1));
	o->load = gs_xmalloc(sizeof(double) * (size_t)(o->nres + 1));
	for (int i = 0; i < o->nres; i++) {
		int r = m->touched[i];
		o->res[i] = r;
		o->load[i] = m->acc[r];
		if (m->acc[r] / m->rate[r] > bw)
			bw = m->acc[r] / m->rate[r];
	}
	o->t_iso = o->prop + bw + gs_model_chunks(p) * o->steps * p->o;
}

static void eval_fixed(gs_model *m, const int *mem, int k, int pat, int agg, gs_ceval *o)
{
	const gs_topo *t = m->t;
	const gs_params *p = &m->p;
	int *buf = gs_xmalloc(sizeof(int) * (size_t)(k + 1));
	begin(m);
	o->pat = pat;
	o->agg = -1;
	o->k = k;
	o->feasible = 1;
	o->prop = 0;
	o->steps = 0;
	o->order = gs_xmalloc(sizeof(int) * (size_t)k);
	memcpy(o->order, mem, sizeof(int) * (size_t)k);
	if (k > 1)
		switch (pat) {
		case GS_PAT_MULTICAST:
			for (int i = 0; i < k; i++)
				mcast(m, mem[i], buf, others(mem, k, i, buf), p->M, 1, 1);
			o->prop = maxlat(t, mem, k);
			o->steps = 1;
			break;
		case GS_PAT_UNICAST:
			for (int i = 0; i < k; i++)
				for (int j = 0; j < k; j++)
					if (i != j)
						ucast(m, mem[i], mem[j], p->M, 1, 1);
			o->prop = maxlat(t, mem, k);
			o->steps = 1;
			break;
		case GS_PAT_RS_MULTICAST: {
			/* member j reduces its share: every other member sends
			 * it that, it multicasts the sum back.  Under the block
			 * model the share is the whole blocks j owns
			 * (gs_owned_bytes), so with few blocks the most loaded
			 * owner bounds the step; otherwise M/k each. */
			double blk = block_of(m);
			double *own = gs_xmalloc(sizeof(double) * (size_t)k);
			for (int j = 0; j < k; j++)
				own[j] = m->blocks ? gs_owned_bytes(p->M, blk, k, rank_pos(mem, k, j)) : p->M / k;
			for (int i = 0; i < k; i++)
				for (int j = 0; j < k; j++)
					if (i != j)
						ucast(m, mem[i], mem[j], own[j], 1, 1);
			for (int j = 0; j < k; j++)
				mcast(m, mem[j], buf, others(mem, k, j, buf), own[j], 1, 1);
			free(own);
			o->prop = 2 * maxlat(t, mem, k);
			o->steps = 2;
			break;
		}
		case GS_PAT_RING: {
			double hop = 0;
			for (int i = 0; i < k; i++) {
				int a = mem[i], b = mem[(i + 1) % k];
				ucast(m, a, b, 2.0 * (k - 1) / k * p->M, 1, 1);
				if (gs_lat(t, a, b) > hop)
					hop = gs_lat(t, a, b);
			}
			o->prop = 2.0 * (k - 1) * hop;
			o->steps = 2 * (k - 1);
			break;
		}
		case GS_PAT_TREE: {
			/* heap layout: parent of position i is (i-1)/2; reduce up,
			 * broadcast down, by unicast (a tree needs no multicast) */
			double *depth_lat = gs_xcalloc((size_t)k, sizeof(double));
			int depth = 0;
			for (int i = 1; i < k; i++) {
				int par = (i - 1) / 2, d = 0;
				ucast(m, mem[i], mem[par], p->M, 1, 1);
				ucast(m, mem[par], mem[i], p->M, 1, 1);
				depth_lat[i] = depth_lat[par] + gs_lat(t, mem[par], mem[i]);
				if (depth_lat[i] > o->prop)
					o->prop = depth_lat[i];
				for (int x = i; x; x = (x - 1) / 2)
					d++;
				if (d > depth)
					depth = d;
			}
			o->prop *= 2;
			o->steps = 2 * depth;
			free(depth_lat);
			break;
		}
		case GS_PAT_AGGREGATOR:
			via_aggregator(m, mem, k, agg, o);
			o->agg = agg;
			break;
		case GS_PAT_INLINE:
			in_line(m, mem, k, o);
			break;
		}
	free(buf);
	finish(m, o);
}

void gs_ceval_free(gs_ceval *c)
{
	free(c->res);
	free(c->load);
	free(c->order);
	c->res = c->order = NULL;
	c->load = NULL;
}

void gs_ceval_copy(gs_ceval *d, const gs_ceval *s)
{
	*d = *s;
	d->res = gs_xmalloc(sizeof(int) * (size_t)(s->nres + 1));
	d->load = gs_xmalloc(sizeof(double) * (size_t)(s->nres + 1));
	d->order = gs_xmalloc(sizeof(int) * (size_t)(s->k + 1));
	memcpy(d->res, s->res, sizeof(int) * (size_t)s->nres);
	memcpy(d->load, s->load, sizeof(double) * (size_t)s->nres);
	memcpy(d->order, s->order, sizeof(int) * (size_t)s->k);
}

int gs_clique_eval(gs_model *m, const int *mem, int k, int pat, int agg, gs_ceval *out)
{
	const gs_topo *t = m->t;
	memset(out, 0, sizeof(*out));
	if (pat == GS_PAT_AGGREGATOR && agg < 0 && k > 1) {
		/* candidates: aggregation points and member islands, the ones
		 * with the smallest in+out latency first (at most 8 tried) */
		int nc = 0, *cand = gs_xmalloc(sizeof(int) * (size_t)(t->n_aggs + k));
		double *key = gs_xmalloc(sizeof(double) * (size_t)(t->n_aggs + k));
		for (int a = 0; a < t->n_aggs + k; a++) {
			int X = a < t->n_aggs ? t->aggs[a].node : mem[a - t->n_aggs];
			if (a >= t->n_aggs && t->agg_of_node[X] >= 0)
				continue;           /* already a candidate as a point */
			if (a < t->n_aggs && !gs_pat_feasible(m, mem, k, pat, X))
				continue;           /* kernel: another island's point */
			double in = 0, ou = 0;
			for (int i = 0; i < k; i++) {
				if (gs_lat(t, mem[i], X) > in)
					in = gs_lat(t, mem[i], X);
				if (gs_lat(t, X, mem[i]) > ou)
					ou = gs_lat(t, X, mem[i]);
			}
			int j = nc++;
			while (j > 0 && key[j - 1] > in + ou) {
				key[j] = key[j - 1];
				cand[j] = cand[j - 1];
				j--;
			}
			key[j] = in + ou;
			cand[j] = X;
		}
		int lim = nc < 8 ? nc : 8;
		for (int c = 0; c < lim; c++) {
			gs_ceval e;
			eval_fixed(m, mem, k, pat, cand[c], &e);
			if (c == 0 || e.t_iso < out->t_iso) {
				if (c)
					gs_ceval_free(out);
				*out = e;
			} else
				gs_ceval_free(&e);
		}
		free(cand);
		free(key);
		return 0;
	}
	if (!gs_pat_feasible(m, mem, k, pat, agg)) {
		out->pat = pat;
		out->k = k;
		out->feasible = 0;
		out->t_iso = INFINITY;
		return -1;
	}
	if (pat == GS_PAT_AGGREGATOR && agg < 0)
		agg = mem[0];               /* k == 1: trivial */
	eval_fixed(m, mem, k, pat, agg, out);
	return 0;
}

/* every allowed pattern of one clique (infeasible ones: feasible = 0) */
int gs_clique_all(gs_model *m, const int *mem, int k, unsigned mask, gs_ceval out[GS_PAT_N])
{
	int *ord = gs_xmalloc(sizeof(int) * (size_t)(k + 1)), have = 0;
	for (int p = 0; p < GS_PAT_N; p++) {
		memset(&out[p], 0, sizeof(out[p]));
		out[p].t_iso = INFINITY;
		if (!(mask & (1u << p)))
			continue;
		memcpy(ord, mem, sizeof(int) * (size_t)k);
		if (k > 1 && p == GS_PAT_RING)
			gs_ring_order_lim(m->t, ord, k, 8);
		else if (k > 1 && p == GS_PAT_TREE)
			gs_tree_order(m->t, ord, k);
		if (gs_clique_eval(m, ord, k, p, -1, &out[p])) {
			out[p].feasible = 0;
			out[p].t_iso = INFINITY;
		} else
			have = 1;
	}
	free(ord);
	return have ? 0 : -1;
}

/* Two rules to pick a clique's pattern without knowing the rest of the
 * schedule: GS_PICK_ISO, least time alone (right for one round); and
 * GS_PICK_LAT, least latency (propagation + per-chunk overheads), ties by
 * time alone: right when chunk pipelining hides most rounds' bandwidth. */
int gs_clique_pick(const gs_ceval all[GS_PAT_N], int rule, int chunks, double o)
{
	int b = -1;
	for (int p = 0; p < GS_PAT_N; p++) {
		if (!all[p].feasible)
			continue;
		if (b < 0) {
			b = p;
			continue;
		}
		double x = all[p].t_iso, y = all[b].t_iso;
		if (rule == GS_PICK_LAT) {
			double lx = all[p].prop + all[p].steps * o * chunks, ly = all[b].prop + all[b].steps * o * chunks;
			if (lx < ly * (1 - 1e-12) || (lx <= ly * (1 + 1e-12) && x < y * (1 - 1e-12)))
				b = p;
		} else if (x < y * (1 - 1e-12))
			b = p;
	}
	return b;
}

int gs_clique_best(gs_model *m, const int *mem, int k, unsigned mask, gs_ceval *out)
{
	int *ord = gs_xmalloc(sizeof(int) * (size_t)(k + 1));
	int have = 0;
	memset(out, 0, sizeof(*out));
	if (k <= 1) {
		eval_fixed(m, mem, k, GS_PAT_UNICAST, -1, out);
		free(ord);
		return 0;
	}
	for (int p = 0; p < GS_PAT_N; p++) {
		gs_ceval e;
		if (!(mask & (1u << p)))
			continue;
		memcpy(ord, mem, sizeof(int) * (size_t)k);
		if (p == GS_PAT_RING)
			gs_ring_order_lim(m->t, ord, k, 8);
		else if (p == GS_PAT_TREE)
			gs_tree_order(m->t, ord, k);
		if (gs_clique_eval(m, ord, k, p, -1, &e))
			continue;
		if (!have || e.t_iso < out->t_iso * (1 - 1e-12)) {
			if (have)
				gs_ceval_free(out);
			*out = e;
			have = 1;
		} else
			gs_ceval_free(&e);
	}
	free(ord);
	return have ? 0 : -1;
}

/* Round r: P_r = max_c prop_c; per chunk stage S_r = max_c (bw_c/C +
 * steps_c * o) where bw_c = max over the clique's resources of (round load
 * / rate).  Pipelined, every round works on some chunk at once, so a
 * resource that several rounds use carries all their loads together: in
 * steady state a chunk leaves every D = max_x (sum_r load_rx / rate_x) / C
 * (an island's access link is in a clique of every round).
 * T = sum_r P_r + sum_r S_r + (C-1) max(max_r S_r, D). */
double gs_rounds_time(gs_model *m, gs_ceval **cev, const int *nc, int nr, gs_result *res)
{
	const gs_params *p = &m->p;
	int C = gs_model_chunks(p);
	double sumP = 0, sumS = 0, maxS = 0, nopipe = 0;
	double Dbw = 0;                     /* max_x sum_r load_rx / rate_x */
	int Dx = -1;                        /* that x; ties: the lowest */
	if (++m->tcur == 0) {
		memset(m->tstamp, 0, sizeof(unsigned) * (size_t)m->nres);
		m->tcur = 1;
	}
	if (res) {
		memset(res, 0, sizeof(*res));
		res->nr = nr;
		res->prop = gs_xcalloc((size_t)nr, sizeof(double));
		res->stage = gs_xcalloc((size_t)nr, sizeof(double));
		res->bw = gs_xcalloc((size_t)nr, sizeof(double));
		res->bottleneck = gs_xcalloc((size_t)nr, sizeof(int));
		res->chunks = C;
	}
	for (int r = 0; r < nr; r++) {
		if (++m->rcur == 0) {
			memset(m->rstamp, 0, sizeof(unsigned) * (size_t)m->nres);
			m->rcur = 1;
		}
		for (int c = 0; c < nc[r]; c++) {
			const gs_ceval *e = &cev[r][c];
			for (int i = 0; i < e->nres; i++) {
				int x = e->res[i];
				if (m->rstamp[x] != m->rcur) {
					m->rstamp[x] = m->rcur;
					m->racc[x] = 0;
				}
				m->racc[x] += e->load[i];
				if (m->tstamp[x] != m->tcur) {
					m->tstamp[x] = m->tcur;
					m->tacc[x] = 0;
				}
				m->tacc[x] += e->load[i];
				double v = m->tacc[x] / m->rate[x];
				if (v > Dbw || (v == Dbw && x < Dx)) {
					Dbw = v;
					Dx = x;
				}
			}
		}
		double P = 0, S = 0, B = 0, worst = 0;
		int bott = -1;
		for (int c = 0; c < nc[r]; c++) {
			const gs_ceval *e = &cev[r][c];
			double bw = 0;
			for (int i = 0; i < e->nres; i++) {
				int x = e->res[i];
				double v = m->racc[x] / m->rate[x];
				if (v > bw)
					bw = v;
				if (v > worst) {
					worst = v;
					bott = x;
				}
			}
			double s = bw / C + e->steps * p->o;
			if (e->prop > P)
				P = e->prop;
			if (s > S)
				S = s;
			if (bw > B)
				B = bw;
		}
		sumP += P;
		sumS += S;
		if (S > maxS)
			maxS = S;
		nopipe += P + C * S;
		if (res) {
			res->prop[r] = P;
			res->stage[r] = S;
			res->bw[r] = B;
			res->bottleneck[r] = bott;
		}
	}
	double D = Dbw / C;
	double T = sumP + sumS + (C - 1) * (D > maxS ? D : maxS);
	if (res) {
		res->shared = D;
		res->shared_bottleneck = Dx;
		res->time = T;
		res->time_nopipe = nopipe;
	}
	return T;
}

void gs_result_free(gs_result *r)
{
	free(r->prop);
	free(r->stage);
	free(r->bw);
	free(r->bottleneck);
	memset(r, 0, sizeof(*r));
}

/* reorder members (and their weights) of q to the order chosen by the model */
static void apply_order(gs_clique *q, const int *order)
{
	double *w = gs_xmalloc(sizeof(double) * (size_t)q->k);
	for (int i = 0; i < q->k; i++)
		for (int j = 0; j < q->k; j++)
			if (q->m[j] == order[i])
				w[i] = q->w[j];
	memcpy(q->m, order, sizeof(int) * (size_t)q->k);
	memcpy(q->w, w, sizeof(double) * (size_t)q->k);
	free(w);
}

int gs_simulate(gs_model *m, gs_sched *s, gs_result *res, gs_err *e)
{
	const gs_topo *t = m->t;
	gs_ceval **cev = gs_xcalloc((size_t)s->nr, sizeof(*cev));
	int *nc = gs_xcalloc((size_t)s->nr, sizeof(int));
	int rc = 0;
	if (gs_sched_validate(t, s, e)) {
		free(cev);
		free(nc);
		return -1;
	}
	for (int r = 0; r < s->nr; r++) {
		nc[r] = s->r[r].nc;
		cev[r] = gs_xcalloc((size_t)nc[r], sizeof(gs_ceval));
		for (int c = 0; c < nc[r] && !rc; c++) {
			gs_clique *q = &s->r[r].c[c];
			gs_ceval *ce = &cev[r][c];
			if (q->pat == GS_PAT_AUTO) {
				if (gs_clique_best(m, q->m, q->k,
						   m->kernel ? GS_KERNEL_PATS : (1u << GS_PAT_N) - 1, ce)) {
					gs_seterr(e, "rounds[%d].cliques[%d]: no feasible pattern", r, c);
					rc = -1;
					break;
				}
			} else if (gs_clique_eval(m, q->m, q->k, q->pat, q->agg, ce)) {
				gs_seterr(e, "rounds[%d].cliques[%d]: pattern \"%s\" is not feasible on this topology (%s)",
					  r, c, gs_pat_name[q->pat],
					  q->pat == GS_PAT_INLINE && t->n_aggs == 0
						  ? "it has no aggregation points"
					  : q->pat == GS_PAT_AGGREGATOR
						  ? "the aggregator is neither a member nor an aggregation point"
						  : "a member cannot multicast");
				rc = -1;
				break;
			}
			if (q->k > 1) {
				q->pat = ce->pat;
				q->agg = ce->agg;
				apply_order(q, ce->order);
			}
		}
	}
	if (!rc)
		gs_rounds_time(m, cev, nc, s->nr, res);
	for (int r = 0; r < s->nr; r++) {
		for (int c = 0; c < nc[r]; c++)
			gs_ceval_free(&cev[r][c]);
		free(cev[r]);
	}
	free(cev);
	free(nc);
	return rc;
}
