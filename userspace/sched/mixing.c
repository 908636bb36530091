/* mixing.c - mixing quality of a schedule.
 * Round r averages within each clique: x_i <- sum_j w_j x_j for members i
 * (W_r; islands in no clique keep their value).  Over rounds the islands
 * hold P x with P = W_S ... W_1, and rho = ||P - 11^T/N||_2 (0 = exact
 * global average).  The spectral norm is the square root of the largest
 * eigenvalue of A^T A, A = P - J/N.  Two solvers, our own numerics:
 *  - power iteration on A^T A applied implicitly, O(rounds * N) per step,
 *    so it scales to hundreds of islands inside the optimizer;
 *  - dense cyclic Jacobi eigen solve, exact for small N, used by the tests
 *    to cross-check the iteration. */
#include "gs.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const gs_round *round_at(const gs_sched *s, int first, int i)
{
	return &s->r[(first + i) % s->nr];
}

static void apply_w(const gs_round *r, double *x)
{
	for (int c = 0; c < r->nc; c++) {
		const gs_clique *q = &r->c[c];
		double v = 0;
		for (int i = 0; i < q->k; i++)
			v += q->w[i] * x[q->m[i]];
		for (int i = 0; i < q->k; i++)
			x[q->m[i]] = v;
	}
}

static void apply_wt(const gs_round *r, double *x)
{
	for (int c = 0; c < r->nc; c++) {
		const gs_clique *q = &r->c[c];
		double s = 0;
		for (int i = 0; i < q->k; i++)
			s += x[q->m[i]];
		for (int i = 0; i < q->k; i++)
			x[q->m[i]] = q->w[i] * s;
	}
}

double gs_rho(const gs_sched *s, int N, int first, int nrounds, uint64_t seed)
{
	double *v = gs_xmalloc(sizeof(double) * (size_t)N), *y = gs_xmalloc(sizeof(double) * (size_t)N);
	double lam = 0;
	uint64_t st = seed ^ 0x5eed;
	for (int i = 0; i < N; i++)
		v[i] = gs_rng_unit(&st) - 0.5;
	for (int it = 0; it < 2000; it++) {
		double nv = 0;
		for (int i = 0; i < N; i++)
			nv += v[i] * v[i];
		nv = sqrt(nv);
		if (nv < 1e-300) {
			lam = 0;
			break;
		}
		for (int i = 0; i < N; i++)
			y[i] = v[i] / nv;
		memcpy(v, y, sizeof(double) * (size_t)N);
		/* y = A^T A v with A v = P v - mean(v) 1, A^T u = P^T u - mean(u) 1;
		 * the mean terms cancel against P's row/column sums only when
		 * weights are uniform, so they are applied explicitly */
		double mv = 0;
		for (int i = 0; i < N; i++)
			mv += v[i];
		mv /= N;
		for (int r = 0; r < nrounds; r++)
			apply_w(round_at(s, first, r), y);
		for (int i = 0; i < N; i++)
			y[i] -= mv;
		double mu = 0;
		for (int i = 0; i < N; i++)
			mu += y[i];
		mu /= N;
		for (int r = nrounds - 1; r >= 0; r--)
			apply_wt(round_at(s, first, r), y);
		for (int i = 0; i < N; i++)
			y[i] -= mu;
		double nl = 0;
		for (int i = 0; i < N; i++)
			nl += v[i] * y[i];
		memcpy(v, y, sizeof(double) * (size_t)N);
		if (it > 5 && fabs(nl - lam) <= 1e-13 * fmax(nl, 1e-30)) {
			lam = nl;
			break;
		}
		lam = nl;
		if (lam < 1e-28)
			break;
	}
	free(v);
	free(y);
	return lam > 0 ? sqrt(lam) : 0;
}

/* P as a dense N x N matrix (row-major) */
static double *dense_p(const gs_sched *s, int N, int first, int nrounds)
{
	double *P = gs_xcalloc((size_t)N * N, sizeof(double)), *col = gs_xmalloc(sizeof(double) * (size_t)N);
	for (int j = 0; j < N; j++) {
		memset(col, 0, sizeof(double) * (size_t)N);
		col[j] = 1;
		for (int r = 0; r < nrounds; r++)
			apply_w(round_at(s, first, r), col);
		for (int i = 0; i < N; i++)
			P[(size_t)i * N + j] = col[i];
	}
	free(col);
	return P;
}

/* cyclic Jacobi: a is symmetric n x n (destroyed), eigenvalues to eval */
int gs_sym_eig(double *a, int n, double *eval)
{
	for (int sweep = 0; sweep < 100; sweep++) {
		double off = 0, tot = 0;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++) {
				tot += a[i * n + j] * a[i * n + j];
				if (i != j)
					off += a[i * n + j] * a[i * n + j];
			}
		if (off <= 1e-30 * (tot > 0 ? tot : 1))
			break;
		for (int p = 0; p < n - 1; p++)
			for (int q = p + 1; q < n; q++) {
				double apq = a[p * n + q];
				if (fabs(apq) < 1e-300)
					continue;
				double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
				double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
				double c = 1 / sqrt(t * t + 1), s = t * c;
				for (int k = 0; k < n; k++) {
					double akp = a[k * n + p], akq = a[k * n + q];
					a[k * n + p] = c * akp - s * akq;
					a[k * n + q] = s * akp + c * akq;
				}
				for (int k = 0; k < n; k++) {
					double apk = a[p * n + k], aqk = a[q * n + k];
					a[p * n + k] = c * apk - s * aqk;
					a[q * n + k] = s * apk + c * aqk;
				}
			}
	}
	for (int i = 0; i < n; i++)
		eval[i] = a[i * n + i];
	return 0;
}

double gs_rho_dense(const gs_sched *s, int N, int first, int nrounds)
{
	double *P = dense_p(s, N, first, nrounds);
	double *B = gs_xcalloc((size_t)N * N, sizeof(double)), *ev = gs_xmalloc(sizeof(double) * (size_t)N);
	for (size_t i = 0; i < (size_t)N * N; i++)
		P[i] -= 1.0 / N;
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			double v = 0;
			for (int k = 0; k < N; k++)
				v += P[k * N + i] * P[k * N + j];
			B[i * N + j] = v;
		}
	gs_sym_eig(B, N, ev);
	double mx = 0;
	for (int i = 0; i < N; i++)
		if (ev[i] > mx)
			mx = ev[i];
	free(P);
	free(B);
	free(ev);
	return sqrt(mx);
}

/* the product of the rounds' averaging matrices equals 11^T/N entrywise */
int gs_sched_is_exact(const gs_sched *s, int N, double tol)
{
	double *P = dense_p(s, N, 0, s->nr);
	int ok = 1;
	for (size_t i = 0; i < (size_t)N * N && ok; i++)
		ok = fabs(P[i] - 1.0 / N) <= tol;
	free(P);
	return ok;
}
