/* export_ranks.c - which gsync rank each island and relay node is:
 * islands by topology index or --ranks order (0..N-1), relays by
 * --relay NODE=RANK (N..N+R-1, idle ranks). */
#include "sched_export.h"
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS ((int)sizeof(((struct gsync_sched_hdr *)0)->idle) * 8)

void gs_rankmap_free(gs_rankmap *rm)
{
	free(rm->rank_of_node);
	free(rm->node_of_rank);
	memset(rm, 0, sizeof(*rm));
}

static int set_rank(gs_rankmap *rm, int node, int rank)
{
	rm->rank_of_node[node] = rank;
	rm->node_of_rank[rank] = node;
	return 0;
}

static int island_ranks(const gs_topo *t, const char *ranks, gs_rankmap *rm, gs_err *e)
{
	int N = t->n_islands, r = 0, rc = 0;
	if (!ranks) {
		for (int i = 0; i < N; i++)
			set_rank(rm, i, i);
		return 0;
	}
	char *dup = gs_xstrdup(ranks), *sv = NULL;
	for (char *tok = strtok_r(dup, ",", &sv); tok && !rc; tok = strtok_r(NULL, ",", &sv)) {
		int n = gs_topo_find(t, tok);
		if (n < 0)
			gs_seterr(e, "--ranks: unknown island \"%s\"", tok), rc = -1;
		else if (!t->nodes[n].is_island)
			gs_seterr(e, "--ranks: \"%s\" is a network node, not an island (give it a rank with --relay %s=RANK)",
				  tok, tok), rc = -1;
		else if (rm->rank_of_node[n] >= 0)
			gs_seterr(e, "--ranks: island \"%s\" is listed twice", tok), rc = -1;
		else
			set_rank(rm, n, r++);
	}
	free(dup);
	for (int i = 0; i < N && !rc; i++)
		if (rm->rank_of_node[i] < 0)
			gs_seterr(e, "--ranks: island \"%s\" is missing (list every island of the topology once, in rank order)",
				  t->nodes[i].id), rc = -1;
	return rc;
}

/* one "NODE=RANK" */
static int relay(const gs_topo *t, const char *spec, int nrel, gs_rankmap *rm, gs_err *e)
{
	int N = t->n_islands;
	const char *eq = strrchr(spec, '=');
	char node[256], *end;
	if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof(node)) {
		gs_seterr(e, "--relay %s: expected NODE=RANK", spec);
		return -1;
	}
	memcpy(node, spec, (size_t)(eq - spec));
	node[eq - spec] = 0;
	long r = strtol(eq + 1, &end, 10);
	int n = gs_topo_find(t, node);
	if (n < 0)
		gs_seterr(e, "--relay %s: unknown node \"%s\"", spec, node);
	else if (t->nodes[n].is_island)
		gs_seterr(e, "--relay %s: \"%s\" is an island; islands take their rank from the topology order or --ranks",
			  spec, node);
	else if (rm->rank_of_node[n] >= 0)
		gs_seterr(e, "--relay %s: node \"%s\" has a rank already", spec, node);
	else if (end == eq + 1 || *end || r < 0)
		gs_seterr(e, "--relay %s: RANK must be a non-negative integer", spec);
	else if (r < N || r >= N + nrel)
		gs_seterr(e, "--relay %s: relays take the ranks after the islands' 0..%d: %d..%d with %d relay%s",
			  spec, N - 1, N, N + nrel - 1, nrel, nrel == 1 ? "" : "s");
	else if (rm->node_of_rank[r] >= 0)
		gs_seterr(e, "--relay %s: rank %ld is given twice", spec, r);
	else
		return set_rank(rm, n, (int)r);
	return -1;
}

static int relay_ranks(const gs_topo *t, char **specs, int nrel, gs_rankmap *rm, gs_err *e)
{
	for (int i = 0; i < nrel; i++)
		if (relay(t, specs[i], nrel, rm, e))
			return -1;
	return 0;
}

/* split every entry at commas: the relay specs, in order */
static char **split(const char *const *relays, int n, int *count, char **buf)
{
	size_t len = 1;
	int cnt = 0;
	for (int i = 0; i < n; i++)
		len += strlen(relays[i]) + 1;
	char *b = gs_xmalloc(len), *p = b, *sv = NULL;
	char **out = gs_xmalloc(sizeof(char *) * len);
	for (int i = 0; i < n; i++) {
		strcpy(p, relays[i]);
		for (char *tok = strtok_r(p, ",", &sv); tok; tok = strtok_r(NULL, ",", &sv))
			out[cnt++] = tok;
		p += strlen(relays[i]) + 1;
	}
	*count = cnt;
	*buf = b;
	return out;
}

int gs_rankmap_build(const gs_topo *t, const char *ranks, const char *const *relays, int nrelays,
		     gs_rankmap *rm, gs_err *e)
{
	char *buf, **specs = split(relays, nrelays, &rm->nrelays, &buf);
	int rc = -1;
	rm->nranks = t->n_islands + rm->nrelays;
	rm->rank_of_node = gs_xmalloc(sizeof(int) * (size_t)t->n_nodes);
	rm->node_of_rank = gs_xmalloc(sizeof(int) * (size_t)rm->nranks);
	memset(rm->rank_of_node, 0xff, sizeof(int) * (size_t)t->n_nodes);
	memset(rm->node_of_rank, 0xff, sizeof(int) * (size_t)rm->nranks);
	if (rm->nranks < 2)
		gs_seterr(e, "%d rank: the kernel needs a group of at least 2", rm->nranks);
	else if (rm->nranks > MAX_RANKS)
		gs_seterr(e, "%d ranks (%d islands, %d relays): the kernel takes at most %d", rm->nranks,
			  t->n_islands, rm->nrelays, MAX_RANKS);
	else if (!island_ranks(t, ranks, rm, e) && !relay_ranks(t, specs, rm->nrelays, rm, e))
		rc = 0;
	free(specs);
	free(buf);
	return rc;
}
