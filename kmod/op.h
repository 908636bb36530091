/* SPDX-License-Identifier: GPL-2.0 */
/* Operations: setup, readiness, reduce work, failure, release (op.c). */
#ifndef GSYNC_OP_H
#define GSYNC_OP_H

#include "group.h"

struct gsync_op *gsync_op_alloc(struct gsync_group *g, u64 seq, u8 dtype,
				u8 redop, u32 len, void *sendbuf,
				struct gsync_sched *sched, u64 budget);
u64 gsync_op_mem_floor(struct gsync_group *g, const struct gsync_sched *sched,
		       u32 len);
void gsync_op_start(struct gsync_group *g, struct gsync_op *op);
void gsync_op_free(struct gsync_group *g, struct gsync_op *op);
bool gsync_op_keeps_failure(const struct gsync_op *op);
void gsync_op_fail(struct gsync_group *g, struct gsync_op *op, int err);
bool gsync_op_releasable(struct gsync_group *g, struct gsync_op *op);
void gsync_op_unretain(struct gsync_group *g, struct gsync_op *op);
void gsync_group_release_slots(struct gsync_group *g,
			       struct list_head *to_free);
void gsync_op_free_list(struct gsync_group *g, struct list_head *to_free);
void gsync_reduce_work(struct work_struct *work);
void gsync_op_block_in(struct gsync_group *g, struct gsync_op *op,
		       unsigned int s, u32 b);
void gsync_op_reduced(struct gsync_group *g, struct gsync_op *op,
		      unsigned int t, u32 b);
bool gsync_op_all_acked(struct gsync_group *g, struct gsync_op *op);

#endif /* GSYNC_OP_H */
