/* optimize.c - search for the schedule with the least time per exact
 * all-reduce.  For every shape (structure.c: one clique, grids over all
 * factorizations of N, two-level shapes for any N) islands are assigned to
 * positions: a few latency-aware starting assignments, then hill climbing
 * by swapping two islands (every assignment of a shape is exact, so the
 * search only trades time).  The RNG is seeded: same --seed, same answer.
 * Shapes are searched at the model's chunk (--chunk); the winner is
 * polished: each clique's pattern is re-chosen with the round's shared
 * links in view, then the chunk size is picked (polish_chunk).  Under the
 * block model (gs_model_set_block_model: gsync-sched's default with
 * --kernel) shapes are searched at a chunk that depends only on the
 * operation size (search_chunk_start) and the polish re-chooses the
 * patterns for every block size blocks.c proposes (powers of two from
 * GS_OPT_MIN_BLOCK, and the even splits of the operation among each
 * clique size), keeping the fastest (search_chunk), for every shape's best
 * assignment when N is small (search_shapes; the shapes are then searched
 * again at the winner's chunk), so the optimum does not depend on --chunk.
 * There an rs_multicast clique never has fewer blocks than members
 * (gs_opt_idle_owner): the kernel would run it with members reducing
 * nothing, and export warns about it.
 * cfg->kernel restricts both searches to what the kernel executes: shapes
 * whose cliques combine disjoint groups, GS_KERNEL_PATS, and the model in
 * kernel mode (software aggregators at members or relays). */
#include "gs.h"
#include "structure.h"
#include "ccache.h"
#include "blocks.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EX_MAX 12
/* optimize also runs exhaustive search up to this many islands (<= 10 ms) */
#define GS_EXACT_SEARCH_MAX 8

void gs_opt_defaults(gs_opt_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->seed = 1;
	c->effort = 1;
	c->pat_mask = (1u << GS_PAT_N) - 1;
	c->max_rounds = 32;
	c->target_rho = 0.05;
}

void gs_opt_out_free(gs_opt_out *o)
{
	gs_sched_free(&o->best);
}

/* greedy nearest-neighbour chain through the islands from start */
static void chain(const gs_topo *t, int start, int *out)
{
	int N = t->n_islands;
	char *used = gs_xcalloc((size_t)N, 1);
	out[0] = start;
	used[start] = 1;
	for (int i = 1; i < N; i++) {
		int nx = -1;
		for (int c = 0; c < N; c++)
			if (!used[c] && (nx < 0 || gs_lat(t, out[i - 1], c) < gs_lat(t, out[i - 1], nx)))
				nx = c;
		out[i] = nx;
		used[nx] = 1;
	}
	free(used);
}

/* island_at so that round t's cliques are consecutive runs of the chain:
 * those cliques are then geographically tight */
static void local_in_round(const gs_struct *st, int t, const int *ch, int *island_at)
{
	int N = st->N, k = 0;
	for (int c = 0; c < st->ncl[t]; c++)
		for (int p = 0; p < N; p++)
			if (st->cl[t * N + p] == c)
				island_at[p] = ch[k++];
}

static int same_everywhere(const gs_struct *st, int p, int q)
{
	for (int r = 0; r < st->nr; r++)
		if (st->cl[r * st->N + p] != st->cl[r * st->N + q])
			return 0;
	return 1;
}

static long budget(int N, int effort)
{
	long b = N <= 16 ? 1500 : N <= 64 ? 60L * N : 12L * N;
	return b * (effort > 0 ? effort : 1);
}

/* best assignment for one shape; returns its time */
static double search_struct(gs_ccache *cc, const gs_topo *t, const gs_struct *st, uint64_t *rng,
			    int effort, double incumbent, int *best_at, long *evals)
{
	int N = st->N;
	int *at = gs_xmalloc(sizeof(int) * (size_t)N), *ch = gs_xmalloc(sizeof(int) * (size_t)N);
	double best = INFINITY;
	/* starting points: chains from the two ends of the map, each laid so
	 * that one round (at most four tried) is the local one */
	int far = 0;
	for (int i = 0; i < N; i++)
		if (gs_lat(t, 0, i) > gs_lat(t, 0, far))
			far = i;
	int starts[2] = { 0, far };
	for (int s = 0; s < 2; s++) {
		chain(t, starts[s], ch);
		for (int r = 0; r < st->nr && r < 4; r++) {
			local_in_round(st, r, ch, at);
			double v = gs_struct_eval(cc, st, at, NULL);
			(*evals)++;
			/* the first start even if infeasible: the climb
			 * starts from best_at */
			if (v < best || (!s && !r)) {
				best = v;
				memcpy(best_at, at, sizeof(int) * (size_t)N);
			}
		}
	}
	/* a shape whose best start is far behind the best shape so far is
	 * not refined: local search gains a few tens of percent, not 2x */
	if (st->nr == 1 || N < 2 || (N > 16 && best > 1.5 * incumbent))
		goto out;
	/* hill climbing with sideways moves, restarted: first from the best
	 * start, then from seeded random assignments (local optima of single
	 * swaps are common when latency, not bandwidth, decides) */
	long B = budget(N, effort);
	int restarts = N <= 16 ? 4 : 1;
	for (int rs = 0; rs < restarts; rs++) {
	if (rs == 0)
		memcpy(at, best_at, sizeof(int) * (size_t)N);
	else {
		for (int i = 0; i < N; i++)
			at[i] = i;
		for (int i = N - 1; i > 0; i--) {
			int j = gs_rng_below(rng, i + 1), x = at[i];
			at[i] = at[j];
			at[j] = x;
		}
	}
	double cur = gs_struct_eval(cc, st, at, NULL);
	(*evals)++;
	if (cur < best) {
		best = cur;
		memcpy(best_at, at, sizeof(int) * (size_t)N);
	}
	for (long it = 0; it < B / restarts; it++) {
		int p = gs_rng_below(rng, N), q = gs_rng_below(rng, N);
		if (p == q || same_everywhere(st, p, q))
			continue;
		int x = at[p];
		at[p] = at[q];
		at[q] = x;
		double v = gs_struct_eval(cc, st, at, NULL);
		(*evals)++;
		if (v <= cur) {
			cur = v;
			if (v < best) {
				best = v;
				memcpy(best_at, at, sizeof(int) * (size_t)N);
			}
		} else {
			at[q] = at[p];
			at[p] = x;
		}
	}
	}
out:
	free(at);
	free(ch);
	return best;
}

static double sim_time(gs_model *m, const gs_sched *s, gs_sched *out_resolved)
{
	gs_sched c;
	gs_result res;
	gs_err e;
	gs_sched_copy(&c, s);
	double T = INFINITY;
	if (!gs_simulate(m, &c, &res, &e)) {
		T = res.time;
		gs_result_free(&res);
	}
	if (out_resolved) {
		gs_sched_free(out_resolved);
		*out_resolved = c;
	} else
		gs_sched_free(&c);
	return T;
}

/* a polish trial: the schedule's time, and how many rs_multicast cliques
 * leave a member without a block (gs_opt_idle_cliques: 0 without the
 * block model) */
typedef struct {
	int idle;
	double T;
} trial_cost;

static trial_cost cost_of(gs_model *m, const gs_sched *s, gs_sched *out_resolved)
{
	trial_cost c = { 0, sim_time(m, s, out_resolved) };
	c.idle = gs_opt_idle_cliques(m, out_resolved ? out_resolved : s);
	return c;
}

/* fewer idle cliques first, then the time */
static int cheaper(trial_cost a, trial_cost b)
{
	return a.idle < b.idle || (a.idle == b.idle && a.T < b.T * (1 - 1e-9));
}

/* re-choose each clique's pattern with the other cliques of its round in
 * view (shared links), at the model's chunk; returns the time, INFINITY
 * if a clique is still rs_multicast over fewer blocks than members (the
 * block model: that pattern is replaced first, whatever it costs) */
static double polish_patterns(gs_model *m, const gs_topo *t, const gs_opt_cfg *cfg, gs_sched *s)
{
	trial_cost T = cost_of(m, s, NULL);
	int total = 0;
	for (int r = 0; r < s->nr; r++)
		total += s->r[r].nc;
	for (int pass = 0; pass < 2 && (total <= 64 || T.idle); pass++) {
		int improved = 0;
		for (int r = 0; r < s->nr; r++)
			for (int c = 0; c < s->r[r].nc; c++) {
				gs_clique *q = &s->r[r].c[c];
				if (q->k < 2)
					continue;
				for (int p = 0; p < GS_PAT_N; p++) {
					if (!(cfg->pat_mask & (1u << p)) || p == q->pat)
						continue;
					gs_sched trial, resolved;
					memset(&resolved, 0, sizeof(resolved));
					gs_sched_copy(&trial, s);
					gs_clique *tq = &trial.r[r].c[c];
					tq->pat = p;
					tq->agg = -1;
					if (p == GS_PAT_RING)
						gs_ring_order(t, tq->m, tq->k);
					else if (p == GS_PAT_TREE)
						gs_tree_order(t, tq->m, tq->k);
					/* weights follow members: recompute from the original */
					for (int i = 0; i < tq->k; i++)
						for (int j = 0; j < q->k; j++)
							if (q->m[j] == tq->m[i])
								tq->w[i] = q->w[j];
					trial_cost v = cost_of(m, &trial, &resolved);
					gs_sched_free(&trial);
					if (cheaper(v, T)) {
						T = v;
						gs_sched_free(s);
						*s = resolved;
						q = &s->r[r].c[c];
						improved = 1;
					} else
						gs_sched_free(&resolved);
				}
			}
		if (!improved)
			break;
	}
	return T.idle ? INFINITY : T.T;
}

/* Without the block model: the patterns re-chosen at the model's chunk,
 * then the chunk alone, powers of two from GS_OPT_MIN_CHUNK up to the whole
 * operation, the model's chunk the incumbent (what gsync-sched has always
 * done: which schedule wins can depend on --chunk).  Records the size. */
static double polish_chunk(gs_model *m, const gs_topo *t, const gs_opt_cfg *cfg, gs_sched *s)
{
	double T = polish_patterns(m, t, cfg, s);
	double keep = gs_model_params(m)->chunk, bestc = keep;
	double M = gs_model_params(m)->M;
	for (double ch = GS_OPT_MIN_CHUNK; ch < 2 * M; ch *= 2) {
		gs_model_set_chunk(m, ch);
		double v = sim_time(m, s, NULL);
		if (v < T * (1 - 1e-9)) {
			T = v;
			bestc = ch;
		}
	}
	gs_model_set_chunk(m, keep);
	s->chunk_bytes = bestc;
	s->bytes = M;                       /* the size it was optimized for */
	return T;
}

/* The chunk the shapes are searched at: the smallest candidate that cuts
 * the operation into at most this many blocks (4 MiB for 256 MiB, 64 KiB
 * for 4 MiB): enough blocks to spread rs_multicast over the members and to
 * pipeline rounds, few enough that per-message overheads do not decide the
 * shape.  The chunk search then tries every candidate. */
#define SEARCH_BLOCKS 64
static double search_chunk_start(const gs_model *m)
{
	double c[GS_OPT_MAX_CHUNKS], M = gs_model_params(m)->M;
	int n = gs_opt_chunk_candidates(m, NULL, c), i = 0;
	while (i < n - 1 && ceil(M / c[i]) > SEARCH_BLOCKS)
		i++;
	return c[i];
}

/* Under the block model, the chunk size: for every candidate
 * (gs_opt_chunk_candidates for S's clique sizes), the clique patterns
 * re-chosen at that chunk (blocks change what rs_multicast costs, and
 * where it leaves a member without a block it is replaced), the fastest
 * kept (the smaller chunk on a tie).  Leaves the model at its chunk;
 * records the size. */
static double search_chunk(gs_model *m, const gs_topo *t, const gs_opt_cfg *cfg, gs_sched *s)
{
	double c[GS_OPT_MAX_CHUNKS], keep = gs_model_params(m)->chunk, best = INFINITY;
	int n = gs_opt_chunk_candidates(m, s, c);
	gs_sched win;
	memset(&win, 0, sizeof(win));
	for (int i = 0; i < n; i++) {
		gs_sched trial;
		gs_model_set_chunk(m, c[i]);
		gs_sched_copy(&trial, s);
		trial.chunk_bytes = c[i];
		double v = polish_patterns(m, t, cfg, &trial);
		if (!win.r || v < best * (1 - 1e-9)) {
			best = v;
			if (win.r)
				gs_sched_free(&win);
			win = trial;
		} else
			gs_sched_free(&trial);
	}
	gs_model_set_chunk(m, keep);
	gs_sched_free(s);
	*s = win;
	s->bytes = gs_model_params(m)->M;
	return best;
}

/* the polish of the winner: search_chunk under the block model, else
 * polish_chunk */
static double polish(gs_model *m, const gs_topo *t, const gs_opt_cfg *cfg, gs_sched *s)
{
	return gs_model_block_model(m) ? search_chunk(m, t, cfg, s) : polish_chunk(m, t, cfg, s);
}

/* the chunk the shapes are searched at: search_chunk_start() under the
 * block model, else the model's; *KEEP: the chunk to restore */
static void search_at_start(gs_model *m, double *keep)
{
	*keep = gs_model_params(m)->chunk;
	if (gs_model_block_model(m))
		gs_model_set_chunk(m, search_chunk_start(m));
}

/* cfg with the kernel's patterns only, if it asks for kernel schedules */
static const gs_opt_cfg *kernel_cfg(const gs_opt_cfg *cfg, gs_opt_cfg *copy)
{
	*copy = *cfg;
	if (cfg->kernel)
		copy->pat_mask &= GS_KERNEL_PATS;
	return copy;
}

/* Under the block model, up to this many islands (where a search takes
 * milliseconds), every shape's best assignment gets its own chunk search
 * before the shapes are compared: which shape wins depends on the block
 * (a clique of nine wants 9 blocks or a multiple, a 3x3 grid 3), so
 * comparing them at one chunk would hand the winner a block chosen for
 * another.  Beyond, and without the block model, only the winner is
 * polished.  Also the island count up to which the shapes are searched
 * again at the chunk the search settled on (gs_optimize_exact). */
#define GS_RESEARCH_MAX 16

/* shape ST at assignment AT, polished (its chunk searched): into O if
 * faster than what O holds */
static void keep_polished(gs_model *m, const gs_topo *t, const gs_opt_cfg *cfg, gs_ccache *cc,
			  const gs_struct *st, const int *at, gs_opt_out *o)
{
	gs_sched s;
	gs_struct_eval(cc, st, at, &s);
	double T = polish(m, t, cfg, &s);
	if (!o->best.r || T < o->time * (1 - 1e-9)) {
		gs_sched_free(&o->best);
		o->best = s;
		o->time = T;
		snprintf(o->best.name, sizeof(o->best.name), "optimum (%s)", st->desc);
	} else
		gs_sched_free(&s);
}

/* the shapes searched at the model's chunk, the best one then polished
 * (polish: its chunk searched), or each one (GS_RESEARCH_MAX); O->best
 * and O->time, INFINITY if none */
static void search_shapes(gs_model *m, const gs_topo *t, const gs_opt_cfg *cfg, gs_struct *sts, int ns,
			  gs_opt_out *o)
{
	int N = t->n_islands, bi = -1;
	int each = gs_model_block_model(m) && N <= GS_RESEARCH_MAX;
	gs_ccache cc;
	uint64_t rng = cfg->seed;
	int *at = gs_xmalloc(sizeof(int) * (size_t)N), *best_at = gs_xmalloc(sizeof(int) * (size_t)N);
	double best = INFINITY;
	memset(o, 0, sizeof(*o));
	o->time = INFINITY;
	gs_cc_init(&cc, m, cfg->pat_mask);
	for (int i = 0; i < ns; i++) {
		if (cfg->kernel && !sts[i].disjoint)
			continue;
		double v = search_struct(&cc, t, &sts[i], &rng, cfg->effort, best, at, &o->evals);
		if (cfg->verbose)
			fprintf(stderr, "# %-24s %.6f s\n", sts[i].desc, v);
		if (each && isfinite(v))
			keep_polished(m, t, cfg, &cc, &sts[i], at, o);
		if (v < best) {
			best = v;
			bi = i;
			memcpy(best_at, at, sizeof(int) * (size_t)N);
		}
	}
	o->structures = ns;
	if (!each && bi >= 0 && isfinite(best))
		keep_polished(m, t, cfg, &cc, &sts[bi], best_at, o);
	gs_cc_free(&cc);
	free(at);
	free(best_at);
}

/* Under the block model the shapes are searched at search_chunk_start();
 * when the chunk search then settles on another chunk, they are searched
 * again at that one (up to GS_RESEARCH_MAX islands), since which
 * assignments win depends on the chunk; the faster is kept.  Without it
 * they are searched once, at the model's chunk. */
int gs_optimize_exact(gs_model *m, const gs_topo *t, const gs_opt_cfg *cfg_in, gs_opt_out *o)
{
	gs_opt_cfg kc;
	const gs_opt_cfg *cfg = kernel_cfg(cfg_in, &kc);
	int N = t->n_islands, was_kernel = gs_model_set_kernel(m, cfg->kernel);
	int blocks = gs_model_block_model(m), nat = 1;
	double keep = gs_model_params(m)->chunk, at[2] = { blocks ? search_chunk_start(m) : keep, 0 };
	gs_struct *sts;
	int ns = gs_struct_all(N, &sts);
	long evals = 0;
	memset(o, 0, sizeof(*o));
	o->time = INFINITY;
	for (int i = 0; i < nat; i++) {
		gs_opt_out x;
		gs_model_set_chunk(m, at[i]);
		search_shapes(m, t, cfg, sts, ns, &x);
		evals += x.evals;
		if (blocks && !i && x.best.r && x.best.chunk_bytes != at[0] && N <= GS_RESEARCH_MAX)
			at[nat++] = x.best.chunk_bytes;
		if (x.best.r && (!o->best.r || x.time < o->time * (1 - 1e-9))) {
			gs_opt_out_free(o);
			*o = x;
		} else
			gs_opt_out_free(&x);
	}
	o->evals = evals;
	o->structures = ns;
	int rc = o->best.r && isfinite(o->time) ? 0 : -1;
	/* small enough for exhaustive search within a few milliseconds: take
	 * its answer when better (the heuristic's shapes have balanced groups;
	 * exhaustive search also tries unbalanced two-round schedules) */
	if (N <= GS_EXACT_SEARCH_MAX) {
		gs_opt_out x;
		if (!gs_exhaustive(m, t, cfg, &x) && x.time < o->time * (1 - 1e-9)) {
			gs_sched_free(&o->best);
			o->best = x.best;
			o->time = x.time;
			o->evals += x.evals;
		} else
			gs_opt_out_free(&x);
		if (rc && isfinite(o->time))
			rc = 0;
	}
	for (int i = 0; i < ns; i++)
		gs_struct_free(&sts[i]);
	free(sts);
	gs_model_set_chunk(m, keep);
	gs_model_set_kernel(m, was_kernel);
	return rc;
}

/* ---------------- exhaustive search (small N) ---------------------------
 * Space: one clique of all N, and every two-round schedule whose first
 * round is any set partition into >= 2 blocks of >= 2 islands and whose
 * second round is any partition into >= 2 cliques that each meet every
 * first-round block (weights as in structure.c).  That contains every grid
 * and two-level shape of the heuristic, with every assignment.  Each clique
 * gets its best isolated pattern (same rule as the heuristic), memoized by
 * member bitmask; both searches get the same polish. */

typedef struct {
	gs_model *m;
	gs_ccache *cc;
	int N, best_rule;
	gs_ceval *memo;                    /* [set * GS_PICK_N + rule] */
	char *have;
	unsigned *p1; int n1;              /* current first round */
	unsigned p2[EX_MAX]; int n2;
	unsigned best1[EX_MAX], best2[EX_MAX]; int bn1, bn2;
	double best;
	long evals;
	unsigned mask;
	int kernel;                        /* one member of every first-round block */
} ex_ctx;

static const gs_ceval *ex_get(ex_ctx *x, unsigned set, int rule)
{
	if (!x->have[set]) {
		int mem[EX_MAX], k = 0;
		for (int i = 0; i < x->N; i++)
			if (set & (1u << i))
				mem[k++] = i;
		/* struct copies: the arrays they point to live in the cache */
		for (int r = 0; r < GS_PICK_N; r++)
			x->memo[(size_t)set * GS_PICK_N + r] = *gs_cc_get(x->cc, mem, k, r);
		x->have[set] = 1;
	}
	return &x->memo[(size_t)set * GS_PICK_N + rule];
}

static void ex_eval(ex_ctx *x)
{
	gs_ceval r0[EX_MAX], r1[EX_MAX], *cev[2] = { r0, r1 };
	int nc[2] = { x->n1, x->n2 };
	for (int rule = 0; rule < GS_PICK_N; rule++) {
		int feas = 1;
		for (int i = 0; i < x->n1 && feas; i++) {
			r0[i] = *ex_get(x, x->p1[i], rule);
			feas = r0[i].feasible;
		}
		for (int i = 0; i < x->n2 && feas; i++) {
			r1[i] = *ex_get(x, x->p2[i], rule);
			feas = r1[i].feasible;
		}
		if (!feas)
			continue;
		double T = gs_rounds_time(x->m, cev, nc, 2, NULL);
		x->evals++;
		if (T < x->best) {
			x->best = T;
			x->best_rule = rule;
			memcpy(x->best1, x->p1, sizeof(unsigned) * (size_t)x->n1);
			memcpy(x->best2, x->p2, sizeof(unsigned) * (size_t)x->n2);
			x->bn1 = x->n1;
			x->bn2 = x->n2;
		}
	}
}

static int transversal(const ex_ctx *x, unsigned set)
{
	for (int i = 0; i < x->n1; i++) {
		int meet = __builtin_popcount(set & x->p1[i]);
		if (!meet || (x->kernel && meet > 1))
			return 0;
	}
	return 1;
}

static void ex_p2(ex_ctx *x, unsigned rest)
{
	if (!rest) {
		if (x->n2 >= 2)
			ex_eval(x);
		return;
	}
	unsigned low = rest & -rest, others = rest & ~low;
	/* every subset of the remaining islands that holds the lowest one */
	for (unsigned sub = others;; sub = (sub - 1) & others) {
		unsigned blk = sub | low;
		if (transversal(x, blk) && !(x->n2 == 0 && blk == rest)) {
			x->p2[x->n2++] = blk;
			ex_p2(x, rest & ~blk);
			x->n2--;
		}
		if (!sub)
			break;
	}
}

static void ex_p1(ex_ctx *x, unsigned rest, unsigned *buf)
{
	if (!rest) {
		if (x->n1 >= 2) {
			x->p1 = buf;
			x->n2 = 0;
			ex_p2(x, (1u << x->N) - 1);
		}
		return;
	}
	unsigned low = rest & -rest, others = rest & ~low;
	for (unsigned sub = others;; sub = (sub - 1) & others) {
		unsigned blk = sub | low;
		if (__builtin_popcount(blk) >= 2 && !(x->n1 == 0 && blk == rest)) {
			buf[x->n1++] = blk;
			ex_p1(x, rest & ~blk, buf);
			x->n1--;
		}
		if (!sub)
			break;
	}
}

int gs_exhaustive(gs_model *m, const gs_topo *t, const gs_opt_cfg *cfg_in, gs_opt_out *o)
{
	gs_opt_cfg kc;
	const gs_opt_cfg *cfg = kernel_cfg(cfg_in, &kc);
	int N = t->n_islands;
	memset(o, 0, sizeof(*o));
	if (N > EX_MAX || N < 1)
		return -1;
	ex_ctx x;
	unsigned buf[EX_MAX];
	memset(&x, 0, sizeof(x));
	x.m = m;
	x.N = N;
	x.mask = cfg->pat_mask;
	x.kernel = cfg->kernel;
	int was_kernel = gs_model_set_kernel(m, cfg->kernel);
	double keep;
	search_at_start(m, &keep);
	gs_ccache cc;
	gs_cc_init(&cc, m, cfg->pat_mask);
	x.cc = &cc;
	x.memo = gs_xcalloc(((size_t)1 << N) * GS_PICK_N, sizeof(gs_ceval));
	x.have = gs_xcalloc((size_t)1 << N, 1);
	x.best = INFINITY;
	/* one clique */
	{
		const gs_ceval *e = ex_get(&x, (1u << N) - 1, GS_PICK_ISO);
		if (e->feasible) {
			gs_ceval one = *e, *cev[1] = { &one };
			int nc[1] = { 1 };
			x.best = gs_rounds_time(m, cev, nc, 1, NULL);
			x.bn1 = 1;
			x.best1[0] = (1u << N) - 1;
			x.bn2 = 0;
		}
	}
	if (N >= 4)
		ex_p1(&x, (1u << N) - 1, buf);
	int rc = -1;
	if (isfinite(x.best)) {
		gs_sched *s = &o->best;
		int nr = x.bn2 ? 2 : 1;
		gs_sched_init(s, nr);
		s->chunk_bytes = gs_model_params(m)->chunk;
		for (int r = 0; r < nr; r++) {
			unsigned *blk = r ? x.best2 : x.best1;
			int nb = r ? x.bn2 : x.bn1;
			for (int b = 0; b < nb; b++) {
				const gs_ceval *e = ex_get(&x, blk[b], nr == 1 ? GS_PICK_ISO : x.best_rule);
				gs_clique *q = gs_sched_add_clique(s, r, e->k);
				q->pat = e->pat;
				q->agg = e->agg;
				for (int i = 0; i < e->k; i++) {
					int isl = e->order[i];
					q->m[i] = isl;
					if (r == 1) {
						/* weight: |G_a| / (N * members of G_a here) */
						for (int g = 0; g < x.bn1; g++)
							if (x.best1[g] & (1u << isl))
								q->w[i] = (double)__builtin_popcount(x.best1[g]) /
									  ((double)N * __builtin_popcount(x.best1[g] & blk[b]));
					}
				}
			}
		}
		o->evals = x.evals;
		o->time = polish(m, t, cfg, s);
		snprintf(s->name, sizeof(s->name), "exhaustive optimum");
		rc = 0;
	}
	gs_cc_free(&cc);
	free(x.memo);
	free(x.have);
	gs_model_set_chunk(m, keep);
	gs_model_set_kernel(m, was_kernel);
	return rc;
}
