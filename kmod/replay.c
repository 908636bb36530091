// SPDX-License-Identifier: GPL-2.0
/*
 * Replay protection for keyed groups: each sender numbers its packets with
 * a 64-bit counter (the AEAD nonce, kmod/auth.c), and a receiver accepts
 * each counter once, in any order within GSYNC_REPLAY_WINDOW of the
 * highest it has accepted. The window is a ring of words (RFC 6479): moving
 * it forward clears the words it passes, so a jump costs at most one pass
 * over the ring however far it goes.
 *
 * Only a packet that authenticated is offered here, so a forger cannot move
 * the window (and make genuine packets look old).
 *
 * Locking: none of its own; the caller holds the lock of the state the
 * window belongs to (the group's lock for a group's peers).
 */
#include <linux/bitops.h>
#include <linux/minmax.h>

#include "gsync.h"
#include "replay.h"

/*
 * Counter ctr arrived (authenticated): true the first time, false for a
 * repeat, one too old to tell, or one at or past GSYNC_REPLAY_LIMIT.
 * Pure; KUnit tests it.
 */
bool gsync_replay_accept(struct gsync_replay *w, u64 ctr)
{
	u64 word = ctr / BITS_PER_LONG, n, i;

	if (ctr >= GSYNC_REPLAY_LIMIT)
		return false;
	if (!w->any || ctr > w->newest) {
		/* the words between the old top and the new one start empty */
		n = w->any ? min_t(u64, word - w->newest / BITS_PER_LONG,
				   GSYNC_REPLAY_WORDS) : GSYNC_REPLAY_WORDS;
		for (i = 0; i < n; i++)
			w->map[(word - i) % GSYNC_REPLAY_WORDS] = 0;
		w->newest = ctr;
		w->any = true;
	} else if (w->newest - ctr >= GSYNC_REPLAY_WINDOW) {
		return false;
	}
	return !__test_and_set_bit(ctr % BITS_PER_LONG,
				   &w->map[word % GSYNC_REPLAY_WORDS]);
}
GSYNC_EXPORT_FOR_TESTS(gsync_replay_accept);
