/* blocks.c - what the chunk means under the block model: the block the
 * kernel cuts an operation into, the rule that every rs_multicast member
 * owns one, and the block sizes the optimizer's chunk search tries.  The
 * kernel gives block b to the member at position b mod k, so a clique of
 * k over fewer than k blocks leaves members with nothing to reduce; the
 * optimizer never hands out such a schedule (export warns about it). */
#include "blocks.h"
#include <math.h>
#include <stdlib.h>

double gs_opt_block(const gs_model *m)
{
	const gs_params *p = gs_model_params(m);
	return gs_model_kernel(m) ? gs_kernel_block(p->chunk, p->M) : fmin(p->chunk, p->M);
}

int gs_opt_idle_owner(const gs_model *m, int k)
{
	if (!gs_model_block_model(m) || k < 2)
		return 0;
	return ceil(gs_model_params(m)->M / gs_opt_block(m)) < k;
}

int gs_opt_idle_cliques(const gs_model *m, const gs_sched *s)
{
	int n = 0;
	for (int r = 0; r < s->nr; r++)
		for (int c = 0; c < s->r[r].nc; c++)
			n += s->r[r].c[c].pat == GS_PAT_RS_MULTICAST && gs_opt_idle_owner(m, s->r[r].c[c].k);
	return n;
}

/* the block a chunk of CH bytes gives: the kernel's in kernel mode, else
 * CH in whole multiples of 16 bytes (as block_bytes is), at most M */
static double block_for(const gs_model *m, double ch)
{
	double M = gs_model_params(m)->M;
	if (gs_model_kernel(m))
		return gs_kernel_block(ch, M);
	return fmin(ceil(ch / 16) * 16, M);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* append the block for CH unless full */
static void add(const gs_model *m, double ch, double *out, int *n)
{
	if (*n < GS_OPT_MAX_CHUNKS)
		out[(*n)++] = block_for(m, ch);
}

/* the blocks that cut M into k, 2k, 4k, ... blocks (as many as the
 * kernel takes, each at least GS_OPT_MIN_BLOCK) */
static void even_splits(const gs_model *m, int k, double *out, int *n)
{
	double M = gs_model_params(m)->M;
	for (double nb = k; nb <= GSYNC_SCHED_MAX_BLOCKS && M / nb >= GS_OPT_MIN_BLOCK; nb *= 2)
		add(m, ceil(M / nb), out, n);
}

int gs_opt_chunk_candidates(const gs_model *m, const gs_sched *s, double *out)
{
	double M = gs_model_params(m)->M;
	int n = 0, u = 0;
	for (double ch = GS_OPT_MIN_BLOCK;; ch *= 2) {
		add(m, ch, out, &n);
		if (ch >= M)
			break;
	}
	char seen[GSYNC_SCHED_MAX_BLOCKS + 1] = { 0 };
	for (int r = 0; s && r < s->nr; r++)
		for (int c = 0; c < s->r[r].nc; c++) {
			int k = s->r[r].c[c].k;
			if (k >= 2 && k <= GSYNC_SCHED_MAX_BLOCKS && !seen[k]) {
				seen[k] = 1;
				even_splits(m, k, out, &n);
			}
		}
	qsort(out, (size_t)n, sizeof(double), cmp_double);
	for (int i = 0; i < n; i++)
		if (!u || out[i] > out[u - 1])
			out[u++] = out[i];
	return u;
}
