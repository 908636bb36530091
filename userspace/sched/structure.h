/* structure.h - exact-averaging schedule shapes with positions, and the
 * evaluation of an assignment of islands to positions (structure.c) */
#ifndef GS_STRUCTURE_H
#define GS_STRUCTURE_H
#include "ccache.h"

typedef struct {
	int N, nr;
	int *cl;          /* [r*N + pos] clique index of position pos in round r */
	int *ncl;         /* [r] cliques in round r */
	double *w;        /* [r*N + pos] averaging weight */
	int disjoint;     /* every clique combines disjoint groups: the kernel runs it */
	char desc[64];
} gs_struct;

int  gs_struct_grid(gs_struct *s, int N, const int *radix, int d);
int  gs_struct_twolevel(gs_struct *s, int N, int m);
int  gs_struct_one(gs_struct *s, int N);
void gs_struct_free(gs_struct *s);
/* all shapes considered by the heuristic optimizer for N islands */
int  gs_struct_all(int N, gs_struct **out);

/* time of the schedule given by structure + island_at[pos]; infinite if
 * some clique has no allowed pattern.  sched (optional) receives it. */
double gs_struct_eval(gs_ccache *cc, const gs_struct *st, const int *island_at, gs_sched *sched);

#endif
