// SPDX-License-Identifier: GPL-2.0
/*
 * Keyed groups, the socket options (uapi gsync.h): GSYNC_KEY before JOIN
 * keeps the first epoch's key in the socket until JOIN keys the group
 * with it (then it is erased); after JOIN it installs a rotation.
 * GSYNC_KEY_PUSH installs a rotation in every socket of a group in the
 * namespace, for its administrator. A key is never readable back: only
 * its epoch and fingerprint are reported (gsync_info, /proc/net/gsync).
 * Every copy of a secret is erased (memzero_explicit, kfree_sensitive)
 * when done with.
 *
 * Memory: the socket's pending key is one struct gsync_key; a rotation
 * allocates an epoch (keys.c: nranks * 304 bytes), charged to the caller.
 *
 * Locking: GSYNC_KEY runs under lock_sock. A rotation derives the keys
 * without locks (keys.c) and installs them under the group's lock.
 * GSYNC_KEY_PUSH holds gsync_net.lock across its passes, as
 * GSYNC_SCHEDULE_PUSH does, so a listed socket's group stays alive.
 */
#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/sock.h>
#include <linux/gsync.h>

#include "gsync.h"
#include "group.h"
#include "keys.h"
#include "keyopt.h"

static_assert((int)GSYNC_KEY_AUTH == (int)GSYNC_AUTH_INTEGRITY);
static_assert((int)GSYNC_KEY_ENCRYPT == (int)GSYNC_AUTH_ENCRYPT);
static_assert(GSYNC_KEY_LEN == GSYNC_AUTH_KEY_LEN);

static int gsync_key_check(const struct gsync_key *k)
{
	if (k->mode != GSYNC_KEY_AUTH && k->mode != GSYNC_KEY_ENCRYPT)
		return -EINVAL;
	if (k->reserved[0] || k->reserved[1])
		return -EINVAL;
	return 0;
}

/* A rotation of g's keys; -EISCONN if g has none. Process context. */
static int gsync_key_prepare(struct gsync_group *g, const struct gsync_key *k,
			     struct gsync_epoch **e)
{
	if (!g->keys)
		return -EISCONN;
	return gsync_keys_prepare(g->keys, k->mode, k->epoch, k->start_seq,
				  k->secret, e);
}

static int gsync_key_install(struct gsync_group *g, struct gsync_epoch *e)
{
	int err;

	spin_lock_bh(&g->lock);
	err = gsync_keys_install(g->keys, e, g->next_seq);
	spin_unlock_bh(&g->lock);
	return err;
}

int gsync_key_setsockopt(struct gsync_sock *gs, sockptr_t optval,
			 unsigned int optlen)
{
	struct gsync_group *g = gs->group;
	struct gsync_epoch *e = NULL;
	struct gsync_key k;
	int err;

	if (optlen != sizeof(k))
		return -EINVAL;
	if (copy_from_sockptr(&k, optval, sizeof(k))) {
		err = -EFAULT;
		goto out;
	}
	err = gsync_key_check(&k);
	if (err)
		goto out;
	if (!g) {
		err = -EINVAL;
		if (k.start_seq)
			goto out;
		err = -ENOMEM;
		if (!gs->key)
			gs->key = kmalloc(sizeof(*gs->key), GFP_KERNEL_ACCOUNT);
		if (!gs->key)
			goto out;
		memcpy(gs->key, &k, sizeof(k));
		err = 0;
		goto out;
	}
	err = gsync_key_prepare(g, &k, &e);
	if (!err)
		err = gsync_key_install(g, e);
	if (err && e)
		gsync_epoch_free(e, g->cfg.nranks);
out:
	memzero_explicit(&k, sizeof(k));
	return err;
}

/* JOIN keyed the group with the socket's key: erase it. Under lock_sock. */
void gsync_key_joined(struct gsync_sock *gs)
{
	kfree_sensitive(gs->key);
	gs->key = NULL;
}

/* The socket goes: erase a key it never joined with. */
void gsync_key_release(struct gsync_sock *gs)
{
	gsync_key_joined(gs);
}

static bool gsync_key_push_match(struct gsync_group *g,
				 const struct gsync_key_push *p)
{
	return g && g->cfg.group_id == p->group_id &&
	       (p->rank == GSYNC_KEY_ANY_RANK || p->rank == g->cfg.rank);
}

/*
 * GSYNC_KEY_PUSH: one snapshot of the matching groups, each one's epoch
 * derived, every install checked, then all installed. A group that
 * submits start_seq between the check and its install refuses it (ERANGE)
 * with the others installed, as a schedule push would switch late.
 */
int gsync_key_push(struct gsync_sock *gs, sockptr_t optval,
		   unsigned int optlen)
{
	struct net *net = sock_net(&gs->sk);
	struct gsync_net *gn = gsync_net(net);
	struct gsync_epoch **epochs = NULL;
	struct gsync_group **groups = NULL, *g;
	unsigned int nsocks = 0, n = 0, i;
	struct gsync_key_push p;
	struct gsync_sock *o;
	int err;

	if (!ns_capable(net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (optlen != sizeof(p))
		return -EINVAL;
	if (copy_from_sockptr(&p, optval, sizeof(p))) {
		err = -EFAULT;
		goto out_key;
	}
	err = -EINVAL;
	if (p.reserved0 || p.reserved1 || gsync_key_check(&p.key))
		goto out_key;

	mutex_lock(&gn->lock);
	list_for_each_entry(o, &gn->socks, node)
		nsocks++;
	err = -ENOMEM;
	groups = kvcalloc(max(nsocks, 1U), sizeof(*groups), GFP_KERNEL_ACCOUNT);
	epochs = kvcalloc(max(nsocks, 1U), sizeof(*epochs), GFP_KERNEL_ACCOUNT);
	if (!groups || !epochs)
		goto out;
	list_for_each_entry(o, &gn->socks, node) {
		/* acquire: a group fully set up, as /proc reads it */
		g = smp_load_acquire(&o->group);
		if (gsync_key_push_match(g, &p))
			groups[n++] = g;
	}
	err = -ENOENT;
	if (!n)
		goto out;
	for (i = 0, err = 0; i < n && !err; i++)
		err = gsync_key_prepare(groups[i], &p.key, &epochs[i]);
	for (i = 0; i < n && !err; i++) {
		spin_lock_bh(&groups[i]->lock);
		err = gsync_keys_can_install(groups[i]->keys, epochs[i],
					     groups[i]->next_seq);
		spin_unlock_bh(&groups[i]->lock);
	}
	for (i = 0; i < n && !err; i++) {
		err = gsync_key_install(groups[i], epochs[i]);
		if (!err)
			epochs[i] = NULL;
	}
out:
	/* Still under the mutex: the groups are alive. */
	for (i = 0; epochs && i < n; i++)
		gsync_epoch_free(epochs[i], groups[i]->cfg.nranks);
	mutex_unlock(&gn->lock);
	kvfree(epochs);
	kvfree(groups);
out_key:
	memzero_explicit(&p, sizeof(p));
	return err;
}
