/* schedule.c - the in-memory schedule: rounds -> cliques -> members, with
 * pattern, aggregator and averaging weights; validation and a one-line
 * description used by the tables. */
#include "gs.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const gs_pat_name[GS_PAT_N + 1] = {
	"multicast", "rs_multicast", "unicast", "ring", "tree", "aggregator", "inline", "auto"
};

int gs_pat_parse(const char *s)
{
	for (int i = 0; i <= GS_PAT_N; i++)
		if (!strcmp(s, gs_pat_name[i]))
			return i;
	return -1;
}

void gs_sched_init(gs_sched *s, int nrounds)
{
	memset(s, 0, sizeof(*s));
	s->nr = nrounds;
	s->r = gs_xcalloc((size_t)nrounds, sizeof(gs_round));
	s->chunk_bytes = 1 << 20;
}

gs_clique *gs_sched_add_clique(gs_sched *s, int round, int k)
{
	gs_round *r = &s->r[round];
	r->c = gs_xrealloc(r->c, sizeof(gs_clique) * (size_t)(r->nc + 1));
	gs_clique *c = &r->c[r->nc++];
	c->k = k;
	c->m = gs_xcalloc((size_t)k, sizeof(int));
	c->w = gs_xmalloc(sizeof(double) * (size_t)k);
	for (int i = 0; i < k; i++)
		c->w[i] = 1.0 / k;
	c->w_given = 0;
	c->pat = GS_PAT_AUTO;
	c->agg = -1;
	return c;
}

void gs_sched_free(gs_sched *s)
{
	for (int r = 0; s->r && r < s->nr; r++) {
		for (int c = 0; c < s->r[r].nc; c++) {
			free(s->r[r].c[c].m);
			free(s->r[r].c[c].w);
		}
		free(s->r[r].c);
	}
	free(s->r);
	memset(s, 0, sizeof(*s));
}

void gs_sched_copy(gs_sched *dst, const gs_sched *src)
{
	gs_sched_init(dst, src->nr);
	dst->chunk_bytes = src->chunk_bytes;
	dst->bytes = src->bytes;
	memcpy(dst->name, src->name, sizeof(dst->name));
	for (int r = 0; r < src->nr; r++)
		for (int c = 0; c < src->r[r].nc; c++) {
			const gs_clique *a = &src->r[r].c[c];
			gs_clique *b = gs_sched_add_clique(dst, r, a->k);
			memcpy(b->m, a->m, sizeof(int) * (size_t)a->k);
			memcpy(b->w, a->w, sizeof(double) * (size_t)a->k);
			b->w_given = a->w_given;
			b->pat = a->pat;
			b->agg = a->agg;
		}
}

int gs_sched_validate(const gs_topo *t, const gs_sched *s, gs_err *e)
{
	int N = t->n_islands;
	int *seen = gs_xcalloc((size_t)N, sizeof(int));
	int rc = -1;
	if (s->nr < 1) {
		gs_seterr(e, "rounds: need at least one round");
		goto out;
	}
	if (!(s->chunk_bytes >= 1)) {
		gs_seterr(e, "chunk_bytes: must be >= 1");
		goto out;
	}
	for (int r = 0; r < s->nr; r++) {
		memset(seen, 0, sizeof(int) * (size_t)N);
		if (s->r[r].nc < 1) {
			gs_seterr(e, "rounds[%d]: needs at least one clique", r);
			goto out;
		}
		for (int c = 0; c < s->r[r].nc; c++) {
			const gs_clique *q = &s->r[r].c[c];
			double sum = 0;
			if (q->k < 1) {
				gs_seterr(e, "rounds[%d].cliques[%d]: empty clique", r, c);
				goto out;
			}
			for (int i = 0; i < q->k; i++) {
				if (q->m[i] < 0 || q->m[i] >= N) {
					gs_seterr(e, "rounds[%d].cliques[%d].members[%d]: not an island", r, c, i);
					goto out;
				}
				if (seen[q->m[i]]) {
					gs_seterr(e, "rounds[%d].cliques[%d].members[%d]: island \"%s\" is in two cliques of the same round",
						  r, c, i, t->nodes[q->m[i]].id);
					goto out;
				}
				seen[q->m[i]] = 1;
				if (!(q->w[i] >= 0) || q->w[i] > 1) {
					gs_seterr(e, "rounds[%d].cliques[%d].weights[%d]: must be in [0, 1]", r, c, i);
					goto out;
				}
				sum += q->w[i];
			}
			if (fabs(sum - 1) > 1e-6) {
				gs_seterr(e, "rounds[%d].cliques[%d].weights: must sum to 1 (sum %.9g)", r, c, sum);
				goto out;
			}
			if (q->pat < 0 || q->pat > GS_PAT_AUTO) {
				gs_seterr(e, "rounds[%d].cliques[%d].pattern: invalid", r, c);
				goto out;
			}
			if (q->agg >= 0) {
				int member = 0;
				for (int i = 0; i < q->k; i++)
					member |= q->m[i] == q->agg;
				if (q->agg >= t->n_nodes || (!member && t->agg_of_node[q->agg] < 0)) {
					gs_seterr(e, "rounds[%d].cliques[%d].aggregator: must be a member island or an aggregation point",
						  r, c);
					goto out;
				}
			}
		}
	}
	rc = 0;
out:
	free(seen);
	return rc;
}

/* "2 rounds: 3+3+3 inline | 3+3+3 rs_multicast" */
void gs_sched_describe(const gs_topo *t, const gs_sched *s, char *buf, size_t n)
{
	size_t o = 0;
	(void)t;
	o += (size_t)snprintf(buf + o, n - o, "%d round%s:", s->nr, s->nr == 1 ? "" : "s");
	for (int r = 0; r < s->nr && o < n; r++) {
		unsigned pats = 0;
		int nc = s->r[r].nc;
		o += (size_t)snprintf(buf + o, n > o ? n - o : 0, "%s ", r ? " |" : "");
		/* compress equal sizes: 3x3 instead of 3+3+3 */
		int same = 1;
		for (int c = 1; c < nc; c++)
			same &= s->r[r].c[c].k == s->r[r].c[0].k;
		if (same && nc > 1)
			o += (size_t)snprintf(buf + o, n > o ? n - o : 0, "%dx%d", nc, s->r[r].c[0].k);
		else
			for (int c = 0; c < nc && o < n; c++)
				o += (size_t)snprintf(buf + o, n > o ? n - o : 0, "%s%d", c ? "+" : "",
						      s->r[r].c[c].k);
		for (int c = 0; c < nc; c++)
			pats |= 1u << s->r[r].c[c].pat;
		for (int p = 0, first = 1; p <= GS_PAT_N && o < n; p++)
			if (pats & (1u << p)) {
				o += (size_t)snprintf(buf + o, n > o ? n - o : 0, "%s%s", first ? " " : "/",
						      gs_pat_name[p]);
				first = 0;
			}
	}
}
