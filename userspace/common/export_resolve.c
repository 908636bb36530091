/* export_resolve.c - before a schedule goes to the kernel, "auto" cliques
 * get the kernel pattern the cost model (in kernel mode, without multicast
 * under --no-multicast) finds fastest for them in isolation, the
 * simulator's rule restricted to multicast, unicast, rs_multicast and
 * aggregator; aggregator cliques without an aggregator get the fastest
 * member island or relay node. */
#include "sched_export.h"
#include <math.h>
#include <stdlib.h>

/* time alone of Q under PAT with aggregator AGG; INFINITY if infeasible */
static double cost(gs_model *m, const gs_clique *q, int pat, int agg)
{
	gs_ceval ce;
	double t = INFINITY;
	if (!gs_clique_eval(m, q->m, q->k, pat, agg, &ce) && ce.feasible)
		t = ce.t_iso;
	gs_ceval_free(&ce);
	return t;
}

/* the best aggregator among member islands and relay nodes, -1 if none */
static int best_agg(gs_model *m, const gs_topo *t, const gs_rankmap *rm, const gs_clique *q,
		    double *tbest)
{
	int best = -1;
	*tbest = INFINITY;
	for (int i = 0; i < q->k + rm->nrelays; i++) {
		int X = i < q->k ? q->m[i] : rm->node_of_rank[t->n_islands + i - q->k];
		double c = cost(m, q, GS_PAT_AGGREGATOR, X);
		if (c < *tbest) {
			*tbest = c;
			best = X;
		}
	}
	return best;
}

static void resolve_auto(gs_model *m, const gs_topo *t, const gs_rankmap *rm, gs_clique *q)
{
	double tbest = INFINITY;
	int pbest = GS_PAT_AUTO, abest = -1;
	for (int p = 0; p < GS_PAT_N; p++) {
		double c;
		int agg = -1;
		if (!(GS_KERNEL_PATS & (1u << p)))
			continue;
		if (p == GS_PAT_AGGREGATOR)
			agg = best_agg(m, t, rm, q, &c);
		else
			c = cost(m, q, p, -1);
		if (c < tbest) {
			tbest = c;
			pbest = p;
			abest = agg;
		}
	}
	q->pat = pbest;
	q->agg = abest;
}

int gs_export_resolve(const gs_topo *t_in, gs_sched *s, const gs_rankmap *rm, int no_multicast,
		      double size, gs_err *e)
{
	gs_topo nomc;
	const gs_topo *t = t_in;
	/* without multicast the model must cost results sent back by unicast */
	if (no_multicast && !gs_topo_clone(t_in, &nomc)) {
		nomc.mc_mode = GS_MC_NONE;
		for (int i = 0; i < nomc.n_nodes; i++)
			nomc.nodes[i].mc_mode = GS_MC_INHERIT;
		t = &nomc;
	}
	gs_params p = { size > 0 ? size : 256.0 * 1024 * 1024, s->chunk_bytes, t->overhead_us * 1e-6 };
	gs_model *m = gs_model_new(t, &p);
	int rc = 0;
	gs_model_set_kernel(m, 1);
	for (int r = 0; r < s->nr && !rc; r++)
		for (int c = 0; c < s->r[r].nc && !rc; c++) {
			gs_clique *q = &s->r[r].c[c];
			double tb;
			if (q->k < 2)
				continue;
			if (q->pat == GS_PAT_AUTO) {
				resolve_auto(m, t, rm, q);
				if (q->pat == GS_PAT_AUTO)
					gs_seterr(e, "rounds[%d].cliques[%d]: pattern \"auto\": none of the patterns the kernel executes is feasible here",
						  r, c), rc = -1;
			} else if (q->pat == GS_PAT_AGGREGATOR && q->agg < 0) {
				q->agg = best_agg(m, t, rm, q, &tb);
				if (q->agg < 0)
					gs_seterr(e, "rounds[%d].cliques[%d]: no aggregator: name one (a member island, or a node given --relay)",
						  r, c), rc = -1;
			}
		}
	gs_model_free(m);
	if (t == &nomc)
		gs_topo_free(&nomc);
	return rc;
}
