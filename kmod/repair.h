/* SPDX-License-Identifier: GPL-2.0 */
/* NACK/POLL/STATUS and timeouts (repair.c). */
#ifndef GSYNC_REPAIR_H
#define GSYNC_REPAIR_H

#include "group.h"

void gsync_repair_work(struct work_struct *work);
unsigned int gsync_nack_ranges(const unsigned long *have, u32 nchunks,
			       struct gsync_wire_range *out,
			       unsigned int max);
void gsync_send_status(struct gsync_group *g, struct gsync_op *op,
		       unsigned int s, int dest);
void gsync_send_nack(struct gsync_group *g, struct gsync_op *op,
		     unsigned int s, struct gsync_contrib *c, bool probe);

#endif /* GSYNC_REPAIR_H */
