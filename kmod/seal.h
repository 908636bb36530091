/* SPDX-License-Identifier: GPL-2.0 */
/* Keyed groups on the wire: sealing and opening packets (seal.c). */
#ifndef GSYNC_SEAL_H
#define GSYNC_SEAL_H

#include <linux/types.h>

#include "auth.h"

struct gsync_group;
struct gsync_wire_hdr;
struct sk_buff;

/* What seals one packet: taken under the lock, used without it. */
struct gsync_seal {
	u8 key[GSYNC_AUTH_KEY_LEN];
	u64 ctr;
	u32 epoch;
	int mode;
};

bool gsync_seal_pick(struct gsync_group *g, struct gsync_seal *s);
unsigned int gsync_seal_packet(struct gsync_seal *s, u8 *pkt);
int gsync_rx_auth_failed(struct gsync_group *g, unsigned int r);
int gsync_rx_unseal(struct gsync_group *g, struct sk_buff *skb,
		    const struct gsync_wire_hdr *h);

#endif /* GSYNC_SEAL_H */
