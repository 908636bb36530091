/* SPDX-License-Identifier: GPL-2.0 */
/* Keyed groups: a group's keys by epoch, and their rotation (keys.c). */
#ifndef GSYNC_KEYS_H
#define GSYNC_KEYS_H

#include <linux/types.h>

#include "auth.h"
#include "replay.h"

struct gsync_info;

/* One key epoch: every sender's key, and what we have had from each. */
struct gsync_epoch {
	u32 epoch;
	u64 fingerprint;	/* of the secret it was made from */
	u64 start_seq;		/* we send with it from this operation on */
	u64 tx_ctr;		/* the next counter we send with */
	u8 (*key)[GSYNC_AUTH_KEY_LEN];	/* [nranks]: sender r's key */
	struct gsync_replay *rx;	/* [nranks]: counters had from r */
	unsigned long *heard;	/* [nranks] bits: r has sent us one */
	u16 nheard;
};

/*
 * A group's keys: the current epoch and the next one, once installed.
 * Under the group's lock.
 */
struct gsync_keys {
	int mode;		/* enum gsync_auth_mode, never NONE */
	u64 group_id;
	u16 nranks;
	u16 rank;
	struct gsync_epoch *cur;
	struct gsync_epoch *next;	/* NULL: no rotation pending */
};

struct gsync_keys *gsync_keys_create(int mode, u64 group_id, u16 nranks,
				     u16 rank, u32 epoch,
				     const u8 secret[GSYNC_AUTH_KEY_LEN]);
int gsync_keys_prepare(struct gsync_keys *k, int mode, u32 epoch,
		       u64 start_seq, const u8 secret[GSYNC_AUTH_KEY_LEN],
		       struct gsync_epoch **out);
int gsync_keys_install(struct gsync_keys *k, struct gsync_epoch *e,
		       u64 next_seq);
int gsync_keys_can_install(const struct gsync_keys *k,
			   const struct gsync_epoch *e, u64 next_seq);
void gsync_keys_info(struct gsync_keys *k, u64 next_seq,
		     struct gsync_info *info);
struct gsync_epoch *gsync_keys_tx(struct gsync_keys *k, u64 next_seq);
struct gsync_epoch *gsync_keys_rx(struct gsync_keys *k, u32 epoch);
bool gsync_keys_rx_ok(struct gsync_keys *k, struct gsync_epoch *e,
		      unsigned int r, u64 ctr);
bool gsync_keys_retire(struct gsync_keys *k, u64 base_seq);
void gsync_epoch_free(struct gsync_epoch *e, u16 nranks);
void gsync_keys_free(struct gsync_keys *k);

#endif /* GSYNC_KEYS_H */
