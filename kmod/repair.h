/* SPDX-License-Identifier: GPL-2.0 */
/* NACK/POLL/STATUS and timeouts (repair.c). */
#ifndef GSYNC_REPAIR_H
#define GSYNC_REPAIR_H

#include "group.h"

void gsync_repair_work(struct work_struct *work);
unsigned int gsync_nack_ranges(const unsigned long *have, u32 from, u32 to,
			       struct gsync_wire_range *out,
			       unsigned int max);
bool gsync_nack_span(u32 nchunks, u32 highest, u32 aged, u32 asked,
		     bool sender_done, bool stalled, bool held,
		     u32 *from, u32 *to);
void gsync_send_status(struct gsync_group *g, struct gsync_op *op,
		       unsigned int s, int dest);
void gsync_send_nack(struct gsync_group *g, struct gsync_op *op,
		     unsigned int s, struct gsync_contrib *c, bool probe);

#endif /* GSYNC_REPAIR_H */
