/* ring.c - member orders for ring and tree patterns.
 * A ring step is as slow as its slowest hop, so the ring order minimizes
 * the largest hop latency first and the sum second.  Exact for k <= 12
 * (two Held-Karp dynamic programs: the bottleneck value, then the least sum
 * among tours within it); beyond, nearest-neighbour tours improved by 2-opt. */
#include "gs.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RING_EXACT_MAX 12

static double L(const gs_topo *t, const int *mem, int a, int b)
{
	return gs_lat(t, mem[a], mem[b]);
}

/* Held-Karp over subsets containing member 0. mode 0: minimize max hop;
 * mode 1: minimize sum using only hops <= cap. Fills tour. */
static double held_karp(const gs_topo *t, const int *mem, int k, int mode, double cap, int *tour)
{
	size_t S = (size_t)1 << k;
	double *dp = gs_xmalloc(sizeof(double) * S * (size_t)k);
	int *par = gs_xmalloc(sizeof(int) * S * (size_t)k);
	for (size_t i = 0; i < S * (size_t)k; i++)
		dp[i] = INFINITY;
	dp[1 * (size_t)k + 0] = 0;
	for (size_t s = 1; s < S; s += 2)
		for (int j = 0; j < k; j++) {
			double v = dp[s * k + j];
			if (!isfinite(v))
				continue;
			for (int n = 1; n < k; n++) {
				if (s & ((size_t)1 << n))
					continue;
				double h = L(t, mem, j, n);
				if (mode == 1 && h > cap)
					continue;
				double nv = mode == 0 ? fmax(v, h) : v + h;
				size_t ns = s | ((size_t)1 << n);
				if (nv < dp[ns * k + n]) {
					dp[ns * k + n] = nv;
					par[ns * k + n] = j;
				}
			}
		}
	double best = INFINITY;
	int bj = -1;
	for (int j = 1; j < k; j++) {
		double h = L(t, mem, j, 0);
		if (mode == 1 && h > cap)
			continue;
		double v = mode == 0 ? fmax(dp[(S - 1) * k + j], h) : dp[(S - 1) * k + j] + h;
		if (v < best) {
			best = v;
			bj = j;
		}
	}
	if (bj >= 0 && tour) {
		size_t s = S - 1;
		for (int pos = k - 1, j = bj; pos >= 0; pos--) {
			tour[pos] = j;
			int pj = pos ? par[s * k + j] : 0;
			s &= ~((size_t)1 << j);
			j = pj;
		}
	}
	free(dp);
	free(par);
	return best;
}

static void tour_cost(const gs_topo *t, const int *mem, const int *tour, int k, double *mx,
		      double *sum)
{
	*mx = 0;
	*sum = 0;
	for (int i = 0; i < k; i++) {
		double h = L(t, mem, tour[i], tour[(i + 1) % k]);
		*sum += h;
		if (h > *mx)
			*mx = h;
	}
}

static int better(double m1, double s1, double m2, double s2)
{
	return m1 < m2 * (1 - 1e-12) || (m1 <= m2 * (1 + 1e-12) && s1 < s2 * (1 - 1e-12));
}

static void heuristic(const gs_topo *t, const int *mem, int k, int *best)
{
	int *tour = gs_xmalloc(sizeof(int) * (size_t)k);
	char *used = gs_xmalloc((size_t)k);
	double bm = INFINITY, bs = INFINITY;
	int starts = k < 4 ? k : 4;
	for (int st = 0; st < starts; st++) {
		memset(used, 0, (size_t)k);
		tour[0] = st * k / starts;
		used[tour[0]] = 1;
		for (int i = 1; i < k; i++) {
			int nx = -1;
			for (int c = 0; c < k; c++)
				if (!used[c] && (nx < 0 || L(t, mem, tour[i - 1], c) < L(t, mem, tour[i - 1], nx)))
					nx = c;
			tour[i] = nx;
			used[nx] = 1;
		}
		/* large rings: classic 2-opt on the sum (O(1) per move) first */
		for (int improved = 1, pass = 0; improved && pass < 50; pass++) {
			improved = 0;
			for (int i = 0; i < k - 1; i++)
				for (int j = i + 2; j < k; j++) {
					int a = tour[i], b = tour[i + 1], c = tour[j], d = tour[(j + 1) % k];
					if (a == d)
						continue;
					double delta = L(t, mem, a, c) + L(t, mem, b, d) -
						       L(t, mem, a, b) - L(t, mem, c, d);
					if (delta < -1e-15) {
						for (int x = i + 1, y = j; x < y; x++, y--) {
							int tmp = tour[x];
							tour[x] = tour[y];
							tour[y] = tmp;
						}
						improved = 1;
					}
				}
		}
		/* then 2-opt with the (max hop, sum) objective, full re-evaluation */
		double cm, cs;
		tour_cost(t, mem, tour, k, &cm, &cs);
		for (int improved = k <= 16, pass = 0; improved && pass < 2; pass++) {
			improved = 0;
			for (int i = 0; i < k - 1; i++)
				for (int j = i + 2; j < k; j++) {
					/* reverse tour[i+1..j] */
					for (int a = i + 1, b = j; a < b; a++, b--) {
						int x = tour[a];
						tour[a] = tour[b];
						tour[b] = x;
					}
					double nm, ns;
					tour_cost(t, mem, tour, k, &nm, &ns);
					if (better(nm, ns, cm, cs)) {
						cm = nm;
						cs = ns;
						improved = 1;
					} else
						for (int a = i + 1, b = j; a < b; a++, b--) {
							int x = tour[a];
							tour[a] = tour[b];
							tour[b] = x;
						}
				}
		}
		if (better(cm, cs, bm, bs)) {
			bm = cm;
			bs = cs;
			memcpy(best, tour, sizeof(int) * (size_t)k);
		}
	}
	free(tour);
	free(used);
}

void gs_ring_order(const gs_topo *t, int *mem, int k)
{
	gs_ring_order_lim(t, mem, k, RING_EXACT_MAX);
}

/* the optimizer orders many cliques: it asks for exact orders only up to
 * a smaller size, where the dynamic program is cheap */
void gs_ring_order_lim(const gs_topo *t, int *mem, int k, int exact_max)
{
	if (k <= 3)
		return;                     /* every order of <= 3 is the same ring */
	int *tour = gs_xmalloc(sizeof(int) * (size_t)k), *cp = gs_xmalloc(sizeof(int) * (size_t)k);
	memcpy(cp, mem, sizeof(int) * (size_t)k);
	if (k <= exact_max && k <= RING_EXACT_MAX) {
		double cap = held_karp(t, cp, k, 0, 0, NULL);
		held_karp(t, cp, k, 1, cap * (1 + 1e-12), tour);
	} else
		heuristic(t, cp, k, tour);
	for (int i = 0; i < k; i++)
		mem[i] = cp[tour[i]];
	free(tour);
	free(cp);
}

/* heap-layout tree: root = member with the smallest worst-case latency to
 * the others; each next position takes the free member nearest its parent */
void gs_tree_order(const gs_topo *t, int *mem, int k)
{
	if (k <= 2)
		return;
	int *out = gs_xmalloc(sizeof(int) * (size_t)k);
	char *used = gs_xcalloc((size_t)k, 1);
	int root = 0;
	double best = INFINITY;
	for (int i = 0; i < k; i++) {
		double w = 0;
		for (int j = 0; j < k; j++)
			w = fmax(w, gs_lat(t, mem[i], mem[j]));
		if (w < best) {
			best = w;
			root = i;
		}
	}
	out[0] = root;
	used[root] = 1;
	for (int pos = 1; pos < k; pos++) {
		int par = mem[out[(pos - 1) / 2]], nx = -1;
		for (int c = 0; c < k; c++)
			if (!used[c] && (nx < 0 || gs_lat(t, par, mem[c]) < gs_lat(t, par, mem[nx])))
				nx = c;
		out[pos] = nx;
		used[nx] = 1;
	}
	int *cp = gs_xmalloc(sizeof(int) * (size_t)k);
	for (int i = 0; i < k; i++)
		cp[i] = mem[out[i]];
	memcpy(mem, cp, sizeof(int) * (size_t)k);
	free(cp);
	free(out);
	free(used);
}
