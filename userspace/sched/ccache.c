/* ccache.c - memo of the best isolated evaluation of a clique, keyed by its
 * member set.  Local search re-creates the same cliques again and again;
 * each is evaluated (all patterns, ring order, aggregator choice) once.
 * Under the block model rs_multicast is not a choice for a clique with
 * more members than the operation has blocks (gs_opt_idle_owner). */
#include "ccache.h"
#include "blocks.h"
#include <stdlib.h>
#include <string.h>

static uint64_t hash_key(const int *k, int n)
{
	uint64_t h = 1469598103934665603ULL;
	for (int i = 0; i < n; i++) {
		h ^= (uint64_t)(unsigned)k[i] + 0x9e3779b97f4a7c15ULL;
		h *= 1099511628211ULL;
		h ^= h >> 29;
	}
	return h ^ (uint64_t)n;
}

void gs_cc_init(gs_ccache *c, gs_model *m, unsigned mask)
{
	memset(c, 0, sizeof(*c));
	c->m = m;
	c->mask = mask;
	c->cap = 1024;
	c->slots = gs_xcalloc((size_t)c->cap, sizeof(gs_cc_slot));
}

void gs_cc_free(gs_ccache *c)
{
	for (int i = 0; i < c->cap; i++)
		if (c->slots[i].key) {
			free(c->slots[i].key);
			for (int p = 0; p < GS_PAT_N; p++)
				gs_ceval_free(&c->slots[i].ev[p]);
		}
	free(c->slots);
	memset(c, 0, sizeof(*c));
}

static void grow(gs_ccache *c)
{
	int oc = c->cap;
	gs_cc_slot *os = c->slots;
	c->cap *= 2;
	c->slots = gs_xcalloc((size_t)c->cap, sizeof(gs_cc_slot));
	for (int i = 0; i < oc; i++)
		if (os[i].key) {
			size_t j = os[i].hash & (size_t)(c->cap - 1);
			while (c->slots[j].key)
				j = (j + 1) & (size_t)(c->cap - 1);
			c->slots[j] = os[i];
		}
	free(os);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* members need not be sorted; the key is */
static const gs_ceval *pick(const gs_cc_slot *s, int rule)
{
	static const gs_ceval none = { .feasible = 0, .t_iso = 1e300 };
	return s->pick[rule] < 0 ? &none : &s->ev[s->pick[rule]];
}

const gs_ceval *gs_cc_get(gs_ccache *c, const int *mem, int k, int rule)
{
	int buf[64], *key = k <= 64 ? buf : gs_xmalloc(sizeof(int) * (size_t)k);
	memcpy(key, mem, sizeof(int) * (size_t)k);
	qsort(key, (size_t)k, sizeof(int), cmp_int);
	uint64_t h = hash_key(key, k);
	size_t j = h & (size_t)(c->cap - 1);
	while (c->slots[j].key) {
		gs_cc_slot *s = &c->slots[j];
		if (s->hash == h && s->k == k && !memcmp(s->key, key, sizeof(int) * (size_t)k)) {
			if (key != buf)
				free(key);
			c->hits++;
			return pick(s, rule);
		}
		j = (j + 1) & (size_t)(c->cap - 1);
	}
	if (2 * (c->n + 1) > c->cap) {
		grow(c);
		if (key != buf)
			free(key);
		return gs_cc_get(c, mem, k, rule);
	}
	gs_cc_slot *s = &c->slots[j];
	s->key = gs_xmalloc(sizeof(int) * (size_t)k);
	memcpy(s->key, key, sizeof(int) * (size_t)k);
	s->k = k;
	s->hash = h;
	const gs_params *p = gs_model_params(c->m);
	if (k <= 1) {
		/* a lone island: nothing to exchange, any pattern is free */
		gs_clique_all(c->m, key, k, 1u << GS_PAT_UNICAST, s->ev);
		s->pick[GS_PICK_ISO] = s->pick[GS_PICK_LAT] = GS_PAT_UNICAST;
	} else {
		gs_clique_all(c->m, key, k, c->mask, s->ev);
		if (gs_opt_idle_owner(c->m, k))
			s->ev[GS_PAT_RS_MULTICAST].feasible = 0;
		for (int r = 0; r < GS_PICK_N; r++)
			s->pick[r] = gs_clique_pick(s->ev, r, gs_model_chunks(p), p->o);
	}
	c->n++;
	c->misses++;
	if (key != buf)
		free(key);
	return pick(s, rule);
}
