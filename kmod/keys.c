// SPDX-License-Identifier: GPL-2.0
/*
 * Keyed groups, the keys: a group holds the keys of its current epoch and,
 * during a rotation, of the next. An epoch is made from the group secret
 * its installer gives (auth.c derives every sender's key from it; the
 * secret itself is not kept) and start_seq, the operation from which
 * ranks send with it: a rank that has submitted start_seq sends every
 * packet with the next epoch, those about earlier operations too (a NACK
 * for an old operation must reach a peer that already dropped the old
 * keys). Receivers accept packets of both epochs while both are held, so
 * ranks may switch in any order. The old epoch is erased once this rank
 * is done with every operation before start_seq (base_seq reached it) and
 * every peer has sent it a packet in the next epoch (so has switched, and
 * sends nothing in the old one any more); the next becomes current.
 *
 * Memory: an epoch is nranks * (GSYNC_AUTH_KEY_LEN + sizeof(struct
 * gsync_replay)) bytes, about 76 KiB for 256 ranks; a group holds two at
 * most. Charged to the installer's memory cgroup. Keys are erased
 * (kvfree_sensitive) when dropped.
 *
 * Locking: gsync_keys_prepare() allocates and derives without any lock
 * (it sleeps); everything else runs under the group's lock.
 */
#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "gsync.h"
#include "keys.h"

void gsync_epoch_free(struct gsync_epoch *e, u16 nranks)
{
	if (!e)
		return;
	if (e->key)
		kvfree_sensitive(e->key, (size_t)nranks * sizeof(*e->key));
	kvfree(e->rx);
	bitmap_free(e->heard);
	kfree_sensitive(e);
}
GSYNC_EXPORT_FOR_TESTS(gsync_epoch_free);

static struct gsync_epoch *gsync_epoch_new(int mode, u64 group_id,
					   u16 nranks, u32 epoch,
					   u64 start_seq,
					   const u8 secret[GSYNC_AUTH_KEY_LEN])
{
	struct gsync_epoch *e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
	unsigned int r;

	if (!e)
		return NULL;
	e->epoch = epoch;
	e->fingerprint = gsync_auth_fingerprint(secret);
	e->start_seq = start_seq;
	/*
	 * Our counters start at the wall clock in ns, not 0: a process that
	 * joins again with the same secret, group and epoch (a restarted
	 * job) has the same keys, and must not use a nonce it used before.
	 * It sends less than a packet per ns, so its counters stay ahead of
	 * any earlier run's unless the clock is set back by more than that
	 * run lasted. 2^64 ns is the year 2554.
	 */
	e->tx_ctr = ktime_get_real_ns();
	e->key = kvcalloc(nranks, sizeof(*e->key), GFP_KERNEL_ACCOUNT);
	e->rx = kvcalloc(nranks, sizeof(*e->rx), GFP_KERNEL_ACCOUNT);
	e->heard = bitmap_zalloc(nranks, GFP_KERNEL_ACCOUNT);
	if (!e->key || !e->rx || !e->heard) {
		gsync_epoch_free(e, nranks);
		return NULL;
	}
	for (r = 0; r < nranks; r++)
		gsync_auth_derive(e->key[r], secret, mode, group_id, epoch, r);
	return e;
}

/* The keys of a group that starts keyed, in epoch. Process context. */
struct gsync_keys *gsync_keys_create(int mode, u64 group_id, u16 nranks,
				     u16 rank, u32 epoch,
				     const u8 secret[GSYNC_AUTH_KEY_LEN])
{
	struct gsync_keys *k;

	if (mode != GSYNC_AUTH_INTEGRITY && mode != GSYNC_AUTH_ENCRYPT)
		return ERR_PTR(-EINVAL);
	k = kzalloc(sizeof(*k), GFP_KERNEL_ACCOUNT);
	if (!k)
		return ERR_PTR(-ENOMEM);
	k->mode = mode;
	k->group_id = group_id;
	k->nranks = nranks;
	k->rank = rank;
	k->cur = gsync_epoch_new(mode, group_id, nranks, epoch, 0, secret);
	if (!k->cur) {
		kfree(k);
		return ERR_PTR(-ENOMEM);
	}
	return k;
}
GSYNC_EXPORT_FOR_TESTS(gsync_keys_create);

/*
 * A rotation, first half, without the lock: check what can be checked
 * and derive the epoch's keys into *out. The mode of a group never
 * changes; epochs only go up. Process context.
 */
int gsync_keys_prepare(struct gsync_keys *k, int mode, u32 epoch,
		       u64 start_seq, const u8 secret[GSYNC_AUTH_KEY_LEN],
		       struct gsync_epoch **out)
{
	if (mode != k->mode)
		return -EINVAL;
	*out = gsync_epoch_new(mode, k->group_id, k->nranks, epoch, start_seq,
			       secret);
	return *out ? 0 : -ENOMEM;
}
GSYNC_EXPORT_FOR_TESTS(gsync_keys_prepare);

/*
 * Second half, under the lock: e becomes the next epoch. Refused (and e
 * left to the caller to free) if a rotation is pending already (-EBUSY),
 * if its epoch is not above the current one's (-EINVAL), or if it would
 * start at an operation already submitted here (next_seq: we could not
 * have sent that operation's packets with it; -ERANGE).
 */
int gsync_keys_install(struct gsync_keys *k, struct gsync_epoch *e,
		       u64 next_seq)
{
	int err = gsync_keys_can_install(k, e, next_seq);

	if (!err)
		k->next = e;
	return err;
}
GSYNC_EXPORT_FOR_TESTS(gsync_keys_install);

/* What gsync_keys_install() would say, without installing. */
int gsync_keys_can_install(const struct gsync_keys *k,
			   const struct gsync_epoch *e, u64 next_seq)
{
	if (k->next)
		return -EBUSY;
	if (e->epoch <= k->cur->epoch)
		return -EINVAL;
	if (e->start_seq < next_seq)
		return -ERANGE;
	return 0;
}

/*
 * gsync_info's key fields: the mode, the epoch we send with having
 * submitted every operation before next_seq and its fingerprint, and a
 * next epoch not in use yet. Nothing for a group without keys.
 */
void gsync_keys_info(struct gsync_keys *k, u64 next_seq,
		     struct gsync_info *info)
{
	struct gsync_epoch *e;

	if (!k)
		return;
	e = gsync_keys_tx(k, next_seq);
	info->key_mode = k->mode;
	info->key_epoch = e->epoch;
	info->key_fingerprint = e->fingerprint;
	if (k->next && e != k->next)
		info->key_next_epoch = k->next->epoch;
}

/*
 * The epoch we send with, having submitted every operation before
 * next_seq: the next one once we have submitted its start_seq.
 */
struct gsync_epoch *gsync_keys_tx(struct gsync_keys *k, u64 next_seq)
{
	return k->next && next_seq > k->next->start_seq ? k->next : k->cur;
}
GSYNC_EXPORT_FOR_TESTS(gsync_keys_tx);

/* The epoch a packet names, if we hold it; else NULL. */
struct gsync_epoch *gsync_keys_rx(struct gsync_keys *k, u32 epoch)
{
	if (epoch == k->cur->epoch)
		return k->cur;
	if (k->next && epoch == k->next->epoch)
		return k->next;
	return NULL;
}
GSYNC_EXPORT_FOR_TESTS(gsync_keys_rx);

/*
 * A packet from rank r authenticated with e's keys and counter ctr: true
 * if it is new (the replay window takes it), and r is then known to send
 * in e.
 */
bool gsync_keys_rx_ok(struct gsync_keys *k, struct gsync_epoch *e,
		      unsigned int r, u64 ctr)
{
	if (!gsync_replay_accept(&e->rx[r], ctr))
		return false;
	if (!__test_and_set_bit(r, e->heard))
		e->nheard++;
	return true;
}
GSYNC_EXPORT_FOR_TESTS(gsync_keys_rx_ok);

/*
 * Every operation before base_seq is done here: erase the current epoch
 * if the next one is due and every peer has switched to it. True if it
 * did.
 */
bool gsync_keys_retire(struct gsync_keys *k, u64 base_seq)
{
	struct gsync_epoch *e = k->next;

	if (!e || base_seq < e->start_seq ||
	    e->nheard + !test_bit(k->rank, e->heard) < k->nranks)
		return false;
	gsync_epoch_free(k->cur, k->nranks);
	k->cur = e;
	k->next = NULL;
	return true;
}
GSYNC_EXPORT_FOR_TESTS(gsync_keys_retire);

void gsync_keys_free(struct gsync_keys *k)
{
	if (!k)
		return;
	gsync_epoch_free(k->cur, k->nranks);
	gsync_epoch_free(k->next, k->nranks);
	kfree_sensitive(k);
}
GSYNC_EXPORT_FOR_TESTS(gsync_keys_free);
