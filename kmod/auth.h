/* SPDX-License-Identifier: GPL-2.0 */
/* Keyed groups: per-sender keys and the AEAD of a packet (auth.c). */
#ifndef GSYNC_AUTH_H
#define GSYNC_AUTH_H

#include <linux/types.h>

#define GSYNC_AUTH_KEY_LEN	32	/* a group secret, a sender's key */
#define GSYNC_AUTH_TAG_LEN	16	/* follows the payload */

/* What a group's keys protect. */
enum gsync_auth_mode {
	GSYNC_AUTH_NONE,
	GSYNC_AUTH_INTEGRITY,	/* payload in clear, everything authenticated */
	GSYNC_AUTH_ENCRYPT,	/* the payload confidential too */
};

void gsync_auth_derive(u8 out[GSYNC_AUTH_KEY_LEN],
		       const u8 secret[GSYNC_AUTH_KEY_LEN], int mode,
		       u64 group_id, u32 epoch, u16 rank);
u64 gsync_auth_fingerprint(const u8 secret[GSYNC_AUTH_KEY_LEN]);
void gsync_auth_seal(const u8 key[GSYNC_AUTH_KEY_LEN], int mode, u64 ctr,
		     u8 *pkt, size_t clear_len, size_t payload_len);
bool gsync_auth_open(const u8 key[GSYNC_AUTH_KEY_LEN], int mode, u64 ctr,
		     u8 *pkt, size_t clear_len, size_t payload_len);

#endif /* GSYNC_AUTH_H */
