/* SPDX-License-Identifier: GPL-2.0 */
/* The softirq receive path and the stash (receive.c). */
#ifndef GSYNC_RECEIVE_H
#define GSYNC_RECEIVE_H

#include "group.h"

bool gsync_rx_source_ok(struct gsync_group *g, struct sk_buff *skb,
			unsigned int r);
int gsync_udp_encap_rcv(struct sock *usk, struct sk_buff *skb);
void gsync_rx_replay_stash(struct gsync_group *g, u64 seq,
			   struct sk_buff_head *done);

#endif /* GSYNC_RECEIVE_H */
