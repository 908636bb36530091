/* blocks.h - the blocks the kernel cuts an operation into, as the
 * optimizer sees them under the block model (blocks.c) */
#ifndef GS_BLOCKS_H
#define GS_BLOCKS_H
#include "gs.h"
#include <linux/gsync_sched.h>

/* The block the model cuts the operation into at its chunk: the kernel's
 * block in kernel mode (gs_kernel_block), else the chunk, at most the
 * operation (model.c's shares use the same). */
double gs_opt_block(const gs_model *m);
/* 1 if, under the block model, an rs_multicast clique of K members would
 * leave a member without a block at the model's chunk (fewer blocks than
 * members: export warns about it, and the kernel runs it as an aggregator
 * at its lowest-ranked member).  Never without the block model. */
int gs_opt_idle_owner(const gs_model *m, int k);
/* rs_multicast cliques of S that gs_opt_idle_owner() rules out */
int gs_opt_idle_cliques(const gs_model *m, const gs_sched *s);

/* The chunk sizes the chunk search tries under the block model for S (or
 * for no schedule: NULL), ascending, each as the block it gives:
 * powers of two from GS_OPT_MIN_BLOCK up to the whole operation, and for
 * every clique size k of S the blocks that cut the operation into k, 2k,
 * 4k, ... blocks (every rs_multicast member then owns as many blocks, the
 * even shares the kernel can run).  Returns how many, at most
 * GS_OPT_MAX_CHUNKS. */
#define GS_OPT_MIN_BLOCK GSYNC_SCHED_MIN_BLOCK    /* the kernel's least block_bytes */
#define GS_OPT_MAX_CHUNKS 256
int gs_opt_chunk_candidates(const gs_model *m, const gs_sched *s, double *out);

#endif
