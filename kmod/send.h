/* SPDX-License-Identifier: GPL-2.0 */
/* The paced send path and control packets (send.c). */
#ifndef GSYNC_SEND_H
#define GSYNC_SEND_H

#include "group.h"

void gsync_tx_kick(struct gsync_group *g);
void gsync_tx_work(struct work_struct *work);
int gsync_ctrl_queue(struct gsync_group *g, int dest, u8 type,
		     const struct gsync_op *op, unsigned int s,
		     const void *payload, unsigned int payload_len);
int gsync_ctrl_answer(struct gsync_group *g, unsigned int dest, u8 type,
		      const struct gsync_op *op, unsigned int s,
		      const void *payload, unsigned int payload_len);
int gsync_ctrl_queue_report(struct gsync_group *g, unsigned int dest,
			    const struct gsync_wire_hdr *hdr,
			    const struct gsync_wire_report *rep, ktime_t echo_at);
int gsync_ctrl_answer_hdr(struct gsync_group *g, unsigned int dest,
			  const struct gsync_wire_hdr *hdr,
			  const void *payload, unsigned int payload_len);
void gsync_wire_fill(struct gsync_group *g, struct gsync_wire_hdr *h,
		     u8 type, u64 seq, u8 dtype, u8 redop);

#endif /* GSYNC_SEND_H */
