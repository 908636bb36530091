/* baselines.c - the reference points every optimized schedule is compared
 * with, all evaluated by the same model on the same topology: one clique of
 * all islands running ring (best order), tree, unicast full mesh,
 * multicast, or multicast + aggregation; and the colocated datacenter. */
#include "gs.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static void one_clique(gs_model *m, const gs_topo *t, gs_baseline *b, const char *name, int pat)
{
	int N = t->n_islands;
	gs_err e;
	gs_result res;
	snprintf(b->name, sizeof(b->name), "%s", name);
	gs_sched_init(&b->s, 1);
	b->s.chunk_bytes = gs_model_params(m)->chunk;
	snprintf(b->s.name, sizeof(b->s.name), "%s", name);
	gs_clique *q = gs_sched_add_clique(&b->s, 0, N);
	for (int i = 0; i < N; i++)
		q->m[i] = i;
	if (pat == GS_PAT_RING)
		gs_ring_order(t, q->m, N);
	else if (pat == GS_PAT_TREE)
		gs_tree_order(t, q->m, N);
	if (pat == GS_PAT_AUTO) {
		/* multicast + aggregation: the better of in-line and via an
		 * aggregation point, only where the network has both */
		gs_ceval a, c;
		int ha = 0, hc = 0;
		int mc = 1;
		for (int i = 0; i < N; i++)
			mc &= gs_topo_reach(t, i) > 0;
		if (!mc || t->n_aggs == 0) {
			b->have = 0;
			snprintf(b->note, sizeof(b->note), "needs multicast and aggregation points");
			return;
		}
		ha = !gs_clique_eval(m, q->m, N, GS_PAT_INLINE, -1, &a);
		hc = !gs_clique_eval(m, q->m, N, GS_PAT_AGGREGATOR, -1, &c);
		if (hc && t->agg_of_node[c.agg] < 0)
			hc = 0;             /* a software aggregator is not in-network */
		if (ha && (!hc || a.t_iso <= c.t_iso)) {
			q->pat = GS_PAT_INLINE;
		} else {
			q->pat = GS_PAT_AGGREGATOR;
			q->agg = c.agg;
		}
		if (ha)
			gs_ceval_free(&a);
		if (hc || c.res)
			gs_ceval_free(&c);
	} else
		q->pat = pat;
	if (gs_simulate(m, &b->s, &res, &e)) {
		b->have = 0;
		snprintf(b->note, sizeof(b->note), "%s", pat == GS_PAT_MULTICAST ? "needs multicast" : "infeasible");
		return;
	}
	b->have = 1;
	b->time = res.time;
	gs_result_free(&res);
}

void gs_baselines(gs_model *m, const gs_topo *t, gs_baseline out[GS_BASE_N])
{
	memset(out, 0, sizeof(gs_baseline) * GS_BASE_N);
	one_clique(m, t, &out[GS_BASE_RING], "ring all-reduce (best order)", GS_PAT_RING);
	one_clique(m, t, &out[GS_BASE_TREE], "tree (binary, unicast)", GS_PAT_TREE);
	one_clique(m, t, &out[GS_BASE_UNICAST], "unicast full mesh", GS_PAT_UNICAST);
	one_clique(m, t, &out[GS_BASE_MCAST], "one-clique multicast", GS_PAT_MULTICAST);
	one_clique(m, t, &out[GS_BASE_MCAST_AGG], "multicast + aggregation", GS_PAT_AUTO);
}

void gs_baselines_free(gs_baseline b[GS_BASE_N])
{
	for (int i = 0; i < GS_BASE_N; i++)
		gs_sched_free(&b[i].s);
}

/* the gold standard: same bytes, ring all-reduce inside one datacenter at
 * 400 Gb/s per node and 10 us per hop: 2(N-1) (l + (M/N)/B) */
double gs_colocated_time(int N, const gs_params *p)
{
	const double B = GS_GBPS_TO_BPS(400.0), l = 10e-6;
	if (N < 2)
		return 0;
	return 2.0 * (N - 1) * (l + (p->M / N) / B);
}
