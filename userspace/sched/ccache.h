/* ccache.h - clique evaluation memo (see ccache.c) */
#ifndef GS_CCACHE_H
#define GS_CCACHE_H
#include "gs.h"

typedef struct {
	int *key, k;
	uint64_t hash;
	gs_ceval ev[GS_PAT_N];               /* every pattern */
	int pick[GS_PICK_N];                 /* chosen pattern per rule, -1 none */
} gs_cc_slot;

typedef struct {
	gs_model *m;
	unsigned mask;
	int cap, n;
	long hits, misses;
	gs_cc_slot *slots;
} gs_ccache;

void gs_cc_init(gs_ccache *c, gs_model *m, unsigned mask);
void gs_cc_free(gs_ccache *c);
/* the clique's evaluation under pattern-choice rule (GS_PICK_*) */
const gs_ceval *gs_cc_get(gs_ccache *c, const int *mem, int k, int rule);

#endif
