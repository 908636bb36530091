/* gossip.c - schedules for gossip-style training, where each round is its
 * own synchronization (local steps run in between, so rounds are not
 * pipelined into each other) and what matters is the time until the
 * islands' models are mixed to rho <= target.  Rounds repeat cyclically.
 * Candidates: the best exact schedule of every shape, and rotating cliques
 * of size s (periodic partitions) improved by swapping islands within a
 * round. */
#include "gs.h"
#include "structure.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* time of one round alone (its own sync, chunk-pipelined within itself) */
static double round_time(gs_model *m, const gs_sched *s, int r)
{
	gs_sched one;
	gs_result res;
	gs_err e;
	double T = INFINITY;
	gs_sched_init(&one, 1);
	one.chunk_bytes = s->chunk_bytes;
	for (int c = 0; c < s->r[r].nc; c++) {
		const gs_clique *a = &s->r[r].c[c];
		gs_clique *b = gs_sched_add_clique(&one, 0, a->k);
		memcpy(b->m, a->m, sizeof(int) * (size_t)a->k);
		memcpy(b->w, a->w, sizeof(double) * (size_t)a->k);
		b->pat = a->pat;
		b->agg = a->agg;
	}
	if (!gs_simulate(m, &one, &res, &e)) {
		T = res.time;
		gs_result_free(&res);
	}
	gs_sched_free(&one);
	return T;
}

double gs_gossip_time(gs_model *m, const gs_sched *s, int N, double target, int max_rounds,
		      int *rounds_used, double *rho_out)
{
	double *rt = gs_xmalloc(sizeof(double) * (size_t)s->nr), T = 0, rho = 1;
	int t;
	for (int r = 0; r < s->nr; r++)
		rt[r] = round_time(m, s, r);
	for (t = 1; t <= max_rounds; t++) {
		T += rt[(t - 1) % s->nr];
		rho = gs_rho(s, N, 0, t, 7);
		if (rho <= target)
			break;
	}
	free(rt);
	if (rounds_used)
		*rounds_used = t > max_rounds ? max_rounds : t;
	if (rho_out)
		*rho_out = rho;
	return rho <= target ? T : INFINITY;
}

/* rotating cliques of size sz: period rounds, each a partition of a
 * seeded random permutation into runs of sz (the last run takes the rest) */
static void rotating(int N, int sz, int period, uint64_t *rng, gs_sched *s)
{
	int *perm = gs_xmalloc(sizeof(int) * (size_t)N);
	gs_sched_init(s, period);
	snprintf(s->name, sizeof(s->name), "rotating cliques of %d", sz);
	for (int r = 0; r < period; r++) {
		for (int i = 0; i < N; i++)
			perm[i] = i;
		for (int i = N - 1; i > 0; i--) {
			int j = gs_rng_below(rng, i + 1), x = perm[i];
			perm[i] = perm[j];
			perm[j] = x;
		}
		for (int i = 0; i < N;) {
			int k = N - i < 2 * sz ? N - i : sz;
			gs_clique *q = gs_sched_add_clique(s, r, k);
			memcpy(q->m, perm + i, sizeof(int) * (size_t)k);
			i += k;
		}
	}
	free(perm);
}

int gs_optimize_gossip(gs_model *m, const gs_topo *t, const gs_opt_cfg *cfg, gs_opt_out *o)
{
	int N = t->n_islands;
	uint64_t rng = cfg->seed ^ 0x6055;
	gs_opt_out ex;
	double best = INFINITY;
	memset(o, 0, sizeof(*o));
	/* the exact optimum is always a candidate: rho = 0 after its rounds */
	if (!gs_optimize_exact(m, t, cfg, &ex)) {
		int used;
		double rho;
		best = gs_gossip_time(m, &ex.best, N, cfg->target_rho, cfg->max_rounds, &used, &rho);
		gs_sched_copy(&o->best, &ex.best);
		o->rounds_used = used;
		o->rho_reached = rho;
		o->evals = ex.evals;
		gs_opt_out_free(&ex);
	}
	/* rotating cliques of small sizes, with local search (swaps within a
	 * round); the budget shrinks with N because each evaluation computes
	 * rho of every prefix */
	long budget = (N <= 16 ? 150 : N <= 64 ? 40 : 8) * (long)(cfg->effort > 0 ? cfg->effort : 1);
	for (int sz = 2; sz <= 4 && sz < N; sz++) {
		int period = 1;
		for (int p = sz; p < N; p *= sz)
			period++;
		gs_sched s;
		rotating(N, sz, period, &rng, &s);
		s.chunk_bytes = gs_model_params(m)->chunk;
		/* resolve patterns once so evaluations below are comparable */
		gs_result res;
		gs_err e;
		if (gs_simulate(m, &s, &res, &e)) {
			gs_sched_free(&s);
			continue;
		}
		gs_result_free(&res);
		int used;
		double rho, cur = gs_gossip_time(m, &s, N, cfg->target_rho, cfg->max_rounds, &used, &rho);
		o->evals++;
		for (long it = 0; it < budget; it++) {
			int r = gs_rng_below(&rng, s.nr);
			gs_round *rd = &s.r[r];
			if (rd->nc < 2)
				break;
			int c1 = gs_rng_below(&rng, rd->nc), c2 = gs_rng_below(&rng, rd->nc);
			if (c1 == c2)
				continue;
			int i1 = gs_rng_below(&rng, rd->c[c1].k), i2 = gs_rng_below(&rng, rd->c[c2].k);
			gs_sched trial;
			gs_sched_copy(&trial, &s);
			int x = trial.r[r].c[c1].m[i1];
			trial.r[r].c[c1].m[i1] = trial.r[r].c[c2].m[i2];
			trial.r[r].c[c2].m[i2] = x;
			trial.r[r].c[c1].pat = trial.r[r].c[c2].pat = GS_PAT_AUTO;
			trial.r[r].c[c1].agg = trial.r[r].c[c2].agg = -1;
			if (gs_simulate(m, &trial, &res, &e)) {
				gs_sched_free(&trial);
				continue;
			}
			gs_result_free(&res);
			int u2;
			double r2, v = gs_gossip_time(m, &trial, N, cfg->target_rho, cfg->max_rounds, &u2, &r2);
			o->evals++;
			if (v <= cur || (!isfinite(cur) && r2 < rho)) {
				gs_sched_free(&s);
				s = trial;
				cur = v;
				used = u2;
				rho = r2;
			} else
				gs_sched_free(&trial);
		}
		if (cur < best) {
			best = cur;
			gs_sched_free(&o->best);
			o->best = s;
			o->rounds_used = used;
			o->rho_reached = rho;
		} else
			gs_sched_free(&s);
	}
	o->time = best;
	o->best.bytes = gs_model_params(m)->M;
	return isfinite(best) ? 0 : -1;
}
