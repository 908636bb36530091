/* SPDX-License-Identifier: GPL-2.0 */
/* Step routing: who sends which block to whom (route.c). */
#ifndef GSYNC_ROUTE_H
#define GSYNC_ROUTE_H

#include <linux/types.h>

struct gsync_contrib;
struct gsync_group;
struct gsync_op;
struct gsync_sclique;

bool gsync_route_reduces(const struct gsync_sclique *q, u32 b,
			 unsigned int me);
struct gsync_contrib *gsync_op_stream(struct gsync_op *op, unsigned int s,
				      unsigned int rank);
bool gsync_op_expects(struct gsync_group *g, struct gsync_op *op,
		      unsigned int s, unsigned int rank, u32 b);
bool gsync_op_sends(struct gsync_group *g, struct gsync_op *op,
		    unsigned int s, u32 b);
bool gsync_op_sends_to(struct gsync_group *g, struct gsync_op *op,
		       unsigned int s, u32 b, unsigned int rank);
u32 gsync_op_next_block_to(struct gsync_group *g, struct gsync_op *op,
			   unsigned int s, u32 b, unsigned int rank);
u16 gsync_op_step_cov(struct gsync_op *op, unsigned int s,
		      unsigned int rank);
unsigned int gsync_step_ndest(struct gsync_group *g, struct gsync_op *op,
			      unsigned int s);
int gsync_step_dest(struct gsync_group *g, struct gsync_op *op,
		    unsigned int s, u32 b, unsigned int i);
u16 gsync_stream_layout(const struct gsync_op *op, unsigned int s,
			const struct gsync_sclique *q, unsigned int pos,
			u64 *bytes);
u32 gsync_route_cost(const struct gsync_sclique *q, unsigned int ndown,
		     u32 len);
u32 gsync_walk_len(const struct gsync_op *op, unsigned int s);
u32 gsync_walk_chunk(const struct gsync_op *op, unsigned int s, u32 w);
bool gsync_walk_sent(const struct gsync_op *op, unsigned int s, u32 c);
u32 gsync_walk_skip(const struct gsync_op *op, unsigned int s, u32 w);
void *gsync_stream_ptr(const struct gsync_op *op,
		       const struct gsync_contrib *c, u32 off);

#endif /* GSYNC_ROUTE_H */
