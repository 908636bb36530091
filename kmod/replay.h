/* SPDX-License-Identifier: GPL-2.0 */
/* Replay protection for keyed groups: a sliding counter window (replay.c). */
#ifndef GSYNC_REPLAY_H
#define GSYNC_REPLAY_H

#include <linux/bitops.h>
#include <linux/types.h>

/* Bits kept; a counter this far (less a word) behind the newest is refused. */
#define GSYNC_REPLAY_BITS	2048
#define GSYNC_REPLAY_WORDS	(GSYNC_REPLAY_BITS / BITS_PER_LONG)
#define GSYNC_REPLAY_WINDOW	(GSYNC_REPLAY_BITS - BITS_PER_LONG)
/*
 * A sender never uses a counter at or above this (it needs a new epoch
 * first), and a receiver refuses one: counters never wrap.
 */
#define GSYNC_REPLAY_LIMIT	(U64_MAX - GSYNC_REPLAY_BITS)

/*
 * One sender's counters in one key epoch. Zeroed: nothing seen yet.
 * Caller's lock (the group's, see replay.c).
 */
struct gsync_replay {
	u64 newest;		/* the highest counter accepted */
	bool any;		/* one has been */
	unsigned long map[GSYNC_REPLAY_WORDS];	/* ring of words */
};

bool gsync_replay_accept(struct gsync_replay *w, u64 ctr);

#endif /* GSYNC_REPLAY_H */
