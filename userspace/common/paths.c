/* paths.c - all-pairs one-way latency and routes.
 * kind "links": shortest path by latency over the link list (Floyd-Warshall,
 * keeping the predecessor so each source has a shortest-path tree; the
 * model lays multicast trees and unicast routes on these).
 * kind "matrix": every island pair has its own direct "link" (the public
 * internet measurement), used as is even where it breaks the triangle
 * inequality, because that is what the pair really sees. */
#include "gs.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int gs_paths_compute(gs_topo *t, gs_err *e)
{
	int n = t->n_nodes;
	size_t nn = (size_t)n * (size_t)n;
	free(t->lat);
	free(t->pred);
	free(t->pred_link);
	t->lat = gs_xmalloc(sizeof(double) * nn);
	t->pred = gs_xmalloc(sizeof(int) * nn);
	t->pred_link = gs_xmalloc(sizeof(int) * nn);
	for (size_t i = 0; i < nn; i++) {
		t->lat[i] = INFINITY;
		t->pred[i] = -1;
		t->pred_link[i] = -1;
	}
	for (int i = 0; i < n; i++)
		t->lat[(size_t)i * n + i] = 0;
	for (int l = 0; l < t->n_links; l++) {
		int a = t->links[l].a, b = t->links[l].b;
		double s = t->links[l].latency_ms * 1e-3;
		if (s < t->lat[(size_t)a * n + b]) {
			t->lat[(size_t)a * n + b] = t->lat[(size_t)b * n + a] = s;
			t->pred[(size_t)a * n + b] = a;
			t->pred[(size_t)b * n + a] = b;
			t->pred_link[(size_t)a * n + b] = t->pred_link[(size_t)b * n + a] = l;
		}
	}
	if (t->kind == GS_KIND_LINKS) {
		for (int k = 0; k < n; k++)
			for (int i = 0; i < n; i++) {
				double ik = t->lat[(size_t)i * n + k];
				if (!isfinite(ik) || i == k)
					continue;
				for (int j = 0; j < n; j++) {
					double v = ik + t->lat[(size_t)k * n + j];
					/* strict '<' plus a relative epsilon keeps the
					 * first-found route on ties: deterministic */
					if (v < t->lat[(size_t)i * n + j] * (1 - 1e-12)) {
						t->lat[(size_t)i * n + j] = v;
						t->pred[(size_t)i * n + j] = t->pred[(size_t)k * n + j];
						t->pred_link[(size_t)i * n + j] = t->pred_link[(size_t)k * n + j];
					}
				}
			}
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (!isfinite(t->lat[(size_t)i * n + j])) {
				gs_seterr(e, "topology is disconnected: %s \"%s\" cannot reach \"%s\"",
					  t->nodes[i].is_island ? "island" : "node", t->nodes[i].id,
					  t->nodes[j].id);
				return -1;
			}
	return 0;
}


/* Stable format (read by tests/netns): line 1 = island ids separated by one
 * space; then one line per island: its id and the one-way latency in ms to
 * every island in header order, 3 decimals, separated by one space. */
void gs_paths_print(const gs_topo *t, FILE *f)
{
	for (int i = 0; i < t->n_islands; i++)
		fprintf(f, "%s%s", i ? " " : "", t->nodes[i].id);
	fputc('\n', f);
	for (int i = 0; i < t->n_islands; i++) {
		fputs(t->nodes[i].id, f);
		for (int j = 0; j < t->n_islands; j++)
			fprintf(f, " %.3f", gs_lat(t, i, j) * 1e3);
		fputc('\n', f);
	}
}
