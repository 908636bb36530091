/* structure.c - shapes of exact schedules.
 * grid r_0 x ... x r_{d-1} = N: position p has mixed-radix digits; round t
 *   averages (uniform weights) the positions that differ only in digit t,
 *   so after the d rounds every island holds the global mean.
 * two-level, m groups (any N): round 0 averages each group (sizes differ by
 *   at most one); round 1 cliques take every group's slot j with j mod
 *   s_min == c, so each clique meets every group, and a member of group a
 *   gets weight s_a / (N * its group's count in the clique): the weighted
 *   sum of group means is the global mean.  Covers primes.
 * one clique of all N.
 * Islands are assigned to positions by the optimizer; any assignment is
 * exact, so the search never has to check exactness again. */
#include "structure.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void alloc(gs_struct *s, int N, int nr)
{
	memset(s, 0, sizeof(*s));
	s->N = N;
	s->nr = nr;
	s->disjoint = 1;
	s->cl = gs_xcalloc((size_t)N * nr, sizeof(int));
	s->w = gs_xcalloc((size_t)N * nr, sizeof(double));
	s->ncl = gs_xcalloc((size_t)nr, sizeof(int));
}

void gs_struct_free(gs_struct *s)
{
	free(s->cl);
	free(s->w);
	free(s->ncl);
	memset(s, 0, sizeof(*s));
}

int gs_struct_one(gs_struct *s, int N)
{
	alloc(s, N, 1);
	s->ncl[0] = 1;
	for (int p = 0; p < N; p++)
		s->w[p] = 1.0 / N;
	snprintf(s->desc, sizeof(s->desc), "1x%d", N);
	return 0;
}

int gs_struct_grid(gs_struct *s, int N, const int *radix, int d)
{
	int prod = 1;
	for (int i = 0; i < d; i++)
		prod *= radix[i];
	if (prod != N || d < 1)
		return -1;
	alloc(s, N, d);
	size_t o = 0;
	for (int i = 0; i < d; i++)
		o += (size_t)snprintf(s->desc + o, sizeof(s->desc) - o, "%s%d", i ? "x" : "grid ", radix[i]);
	for (int t = 0; t < d; t++) {
		s->ncl[t] = N / radix[t];
		for (int p = 0; p < N; p++) {
			/* clique id: the number formed by the other digits */
			int id = 0, mul = 1, x = p;
			for (int i = 0; i < d; i++) {
				int dig = x % radix[i];
				x /= radix[i];
				if (i != t) {
					id += dig * mul;
					mul *= radix[i];
				}
			}
			s->cl[t * N + p] = id;
			s->w[t * N + p] = 1.0 / radix[t];
		}
	}
	return 0;
}

int gs_struct_twolevel(gs_struct *s, int N, int m)
{
	if (m < 2 || m > N / 2)
		return -1;
	alloc(s, N, 2);
	int base = N / m, extra = N % m, smin = base;
	snprintf(s->desc, sizeof(s->desc), "2-level %d groups", m);
	s->disjoint = N % m == 0;       /* else some clique meets a group twice */
	s->ncl[0] = m;
	s->ncl[1] = smin;
	int p = 0;
	for (int a = 0; a < m; a++) {
		int sa = base + (a < extra);
		/* count of group a's slots in round-1 clique c */
		for (int j = 0; j < sa; j++, p++) {
			int c = j % smin;
			int cnt = sa / smin + (c < sa % smin);
			s->cl[p] = a;
			s->w[p] = 1.0 / sa;
			s->cl[N + p] = c;
			s->w[N + p] = (double)sa / ((double)N * cnt);
		}
	}
	return 0;
}

/* multiplicative partitions of N into factors >= 2, non-increasing */
static void factorizations(int n, int maxf, int *cur, int d, gs_struct **out, int *cnt, int *cap,
			   int N)
{
	if (n == 1) {
		if (d >= 2) {
			if (*cnt == *cap) {
				*cap *= 2;
				*out = gs_xrealloc(*out, sizeof(gs_struct) * (size_t)*cap);
			}
			gs_struct_grid(&(*out)[(*cnt)++], N, cur, d);
		}
		return;
	}
	for (int f = maxf < n ? maxf : n; f >= 2; f--)
		if (n % f == 0 && d < 16) {
			cur[d] = f;
			factorizations(n / f, f, cur, d + 1, out, cnt, cap, N);
		}
}

int gs_struct_all(int N, gs_struct **out)
{
	int cap = 16, cnt = 0, cur[16];
	*out = gs_xmalloc(sizeof(gs_struct) * (size_t)cap);
	gs_struct_one(&(*out)[cnt++], N);
	if (N >= 4)
		factorizations(N, N / 2, cur, 0, out, &cnt, &cap, N);
	/* two-level shapes whose group count does not divide N (those that
	 * divide are grids already), around sqrt(N) and a few small ones */
	int r = (int)sqrt((double)N);
	int cand[] = { 2, 3, 4, 5, r - 1, r, r + 1, r + 2 };
	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		int m = cand[i], dup = 0;
		if (m < 2 || m > N / 2 || N % m == 0)
			continue;
		for (size_t j = 0; j < i; j++)
			dup |= cand[j] == m;
		if (dup)
			continue;
		if (cnt == cap) {
			cap *= 2;
			*out = gs_xrealloc(*out, sizeof(gs_struct) * (size_t)cap);
		}
		gs_struct_twolevel(&(*out)[cnt++], N, m);
	}
	return cnt;
}

static double eval_rule(gs_ccache *cc, const gs_struct *st, const int *island_at, gs_sched *sched, int rule);

/* the schedule's time under the better of the two pattern-choice rules */
double gs_struct_eval(gs_ccache *cc, const gs_struct *st, const int *island_at, gs_sched *sched)
{
	double a = eval_rule(cc, st, island_at, NULL, GS_PICK_ISO);
	double b = st->nr > 1 ? eval_rule(cc, st, island_at, NULL, GS_PICK_LAT) : INFINITY;
	if (sched)
		eval_rule(cc, st, island_at, sched, b < a ? GS_PICK_LAT : GS_PICK_ISO);
	return b < a ? b : a;
}

static double eval_rule(gs_ccache *cc, const gs_struct *st, const int *island_at, gs_sched *sched, int rule)
{
	int N = st->N;
	int *mem = gs_xmalloc(sizeof(int) * (size_t)N), *start = gs_xmalloc(sizeof(int) * (size_t)(N + 1));
	int *fill = gs_xmalloc(sizeof(int) * (size_t)(N + 1));
	gs_ceval **cev = gs_xmalloc(sizeof(*cev) * (size_t)st->nr);
	int feasible = 1;
	if (sched) {
		gs_sched_init(sched, st->nr);
		sched->chunk_bytes = gs_model_params(cc->m)->chunk;
		snprintf(sched->name, sizeof(sched->name), "%s", st->desc);
	}
	for (int r = 0; r < st->nr; r++) {
		int nc = st->ncl[r];
		/* bucket positions by clique */
		memset(start, 0, sizeof(int) * (size_t)(nc + 1));
		for (int p = 0; p < N; p++)
			start[st->cl[r * N + p] + 1]++;
		for (int c = 0; c < nc; c++)
			start[c + 1] += start[c];
		memcpy(fill, start, sizeof(int) * (size_t)nc);
		for (int p = 0; p < N; p++)
			mem[fill[st->cl[r * N + p]]++] = p;     /* positions for now */
		cev[r] = gs_xmalloc(sizeof(gs_ceval) * (size_t)nc);
		for (int c = 0; c < nc; c++) {
			int k = start[c + 1] - start[c];
			int *isl = gs_xmalloc(sizeof(int) * (size_t)k);
			for (int i = 0; i < k; i++)
				isl[i] = island_at[mem[start[c] + i]];
			/* struct copy: the arrays it points to outlive cache growth */
			cev[r][c] = *gs_cc_get(cc, isl, k, rule);
			if (!cev[r][c].feasible)
				feasible = 0;
			if (sched) {
				const gs_ceval *e = &cev[r][c];
				gs_clique *q = gs_sched_add_clique(sched, r, k);
				q->pat = e->pat;
				q->agg = e->agg;
				for (int i = 0; i < k; i++) {
					q->m[i] = e->order ? e->order[i] : isl[i];
					for (int j = 0; j < k; j++)
						if (isl[j] == q->m[i])
							q->w[i] = st->w[r * N + mem[start[c] + j]];
				}
			}
			free(isl);
		}
	}
	double T = feasible ? gs_rounds_time(cc->m, cev, st->ncl, st->nr, NULL) : INFINITY;
	for (int r = 0; r < st->nr; r++)
		free(cev[r]);
	free(cev);
	free(mem);
	free(start);
	free(fill);
	return T;
}
