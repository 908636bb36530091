// SPDX-License-Identifier: GPL-2.0
/*
 * GSYNC_JOIN: validating a group configuration, creating the group's
 * transport state, and tearing it down.
 *
 * Locking: gsync_group_join() runs under lock_sock() of the gsync socket
 * (from setsockopt) and may sleep. gsync_group_close() runs at socket
 * release, when no syscall can use the socket any more; the group then
 * either ends at once or lingers (linger.c owns that). gsync_group_destroy()
 * stops the group's work items and UDP sockets before freeing anything, so
 * no softirq or work can see freed state; it runs exactly once, by whoever
 * took the group off its namespace's lingering list (gsync_net.lock).
 * g->gs is read and cleared only under gsync_group.lock: close clears it
 * before the socket's last reference is dropped, so a reader that sees it
 * under the lock may use the socket until it unlocks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/sockptr.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "gsync.h"
#include "group.h"
#include "udp.h"
#include "op.h"
#include "repair.h"
#include "send.h"
#include "linger.h"
#include "mem.h"
#include "reduce.h"
#include "netstats.h"
#include "keys.h"
#include "keyopt.h"

#define GSYNC_DEF_WINDOW	4
#define GSYNC_DEF_MAX_OP	(64U << 20)
#define GSYNC_DEF_TIMEOUT_MS	10000
#define GSYNC_DEF_REPAIR_MS	20
#define GSYNC_DEF_MTU		1500
/*
 * Send buffer of the group's kernel UDP socket, for WAN bandwidth-delay
 * products: a fixed bound per group on packets queued below gsync.
 */
#define GSYNC_UDP_SNDBUF	(8 << 20)

static bool gsync_bytes_zero(const void *p, size_t n)
{
	return !memchr_inv(p, 0, n);
}

/* A unicast endpoint of a member: family, port and address checks. */
static int gsync_member_check(const struct gsync_addr *a, int family)
{
	if (a->family != family || !a->port)
		return -EINVAL;
	if (family == AF_INET) {
		__be32 ip;

		if (!gsync_bytes_zero(a->addr + 4, 12) || a->scope_id)
			return -EINVAL;
		memcpy(&ip, a->addr, 4);
		if (ipv4_is_multicast(ip) || ipv4_is_zeronet(ip) ||
		    ipv4_is_lbcast(ip))
			return -EINVAL;
	} else {
		struct in6_addr ip;

		memcpy(&ip, a->addr, 16);
		if (ipv6_addr_is_multicast(&ip) || ipv6_addr_any(&ip))
			return -EINVAL;
		if (a->scope_id &&
		    !(ipv6_addr_type(&ip) & IPV6_ADDR_LINKLOCAL))
			return -EINVAL;
	}
	return 0;
}

static int gsync_mcast_check(const struct gsync_addr *a, int family)
{
	if (a->family != family || !a->port || a->scope_id)
		return -EINVAL;
	if (family == AF_INET) {
		__be32 ip;

		if (!gsync_bytes_zero(a->addr + 4, 12))
			return -EINVAL;
		memcpy(&ip, a->addr, 4);
		return ipv4_is_multicast(ip) ? 0 : -EINVAL;
	}
	return ipv6_addr_is_multicast((const struct in6_addr *)a->addr) ?
	       0 : -EINVAL;
}

/*
 * Validate a GSYNC_JOIN request and fill in defaults. Returns 0, -ERANGE
 * for a rank count out of range, or -EINVAL. Pure: no side effects beyond
 * *j, callable from KUnit.
 */
int gsync_join_check(struct gsync_join *j, const struct gsync_addr *members)
{
	int family, i, k, err;

	if (j->nranks < 2 || j->nranks > GSYNC_MAX_RANKS)
		return -ERANGE;
	if (j->rank >= j->nranks)
		return -EINVAL;
	if (j->flags & ~GSYNC_JOIN_FLAGS_ALL)
		return -EINVAL;
	if (!gsync_bytes_zero(j->reserved0, sizeof(j->reserved0)) ||
	    !gsync_bytes_zero(j->reserved1, sizeof(j->reserved1)) ||
	    j->reserved2)
		return -EINVAL;
	if (j->mtu && (j->mtu < 576 || j->mtu > 65535))
		return -EINVAL;
	if (j->window > GSYNC_MAX_WINDOW ||
	    j->max_op_bytes > GSYNC_MAX_OP_BYTES)
		return -EINVAL;
	if (j->pacing_rate > GSYNC_MAX_PACING_RATE)
		return -ERANGE;
	if (j->op_timeout_ms &&
	    (j->op_timeout_ms < 10 || j->op_timeout_ms > 3600000))
		return -EINVAL;
	if (!j->window)
		j->window = GSYNC_DEF_WINDOW;
	if (!j->max_op_bytes)
		j->max_op_bytes = GSYNC_DEF_MAX_OP;
	if (!j->op_timeout_ms)
		j->op_timeout_ms = GSYNC_DEF_TIMEOUT_MS;
	if (!j->repair_ms)
		j->repair_ms = min_t(u32, GSYNC_DEF_REPAIR_MS,
				     j->op_timeout_ms);
	if (j->repair_ms > j->op_timeout_ms)
		return -EINVAL;
	if (!j->ttl)
		j->ttl = 1;

	family = members[0].family;
	if (family != AF_INET && family != AF_INET6)
		return -EINVAL;
	for (i = 0; i < j->nranks; i++) {
		err = gsync_member_check(&members[i], family);
		if (err)
			return err;
		for (k = 0; k < i; k++)
			if (members[k].port == members[i].port &&
			    !memcmp(members[k].addr, members[i].addr, 16))
				return -EINVAL;
	}
	if (j->flags & GSYNC_JOIN_UNICAST)
		return gsync_bytes_zero(&j->mcast, sizeof(j->mcast)) ?
		       0 : -EINVAL;
	return gsync_mcast_check(&j->mcast, family);
}
GSYNC_EXPORT_FOR_TESTS(gsync_join_check);

/* IP + UDP + gsync header overhead; payload is the rest, 8-byte aligned. */
static u32 gsync_chunk_bytes(int family, u32 mtu, u32 seal_len)
{
	u32 ip = family == AF_INET ? 20 : 40;

	return rounddown(mtu - ip - 8 - GSYNC_WIRE_HDR_LEN - seal_len, 8);
}

/*
 * Wake the socket's readers/writers, if it still has a socket. Under the
 * lock: close clears g->gs under it before dropping the socket.
 */
void gsync_group_wake_reader(struct gsync_group *g)
{
	struct gsync_sock *gs = g->gs;

	lockdep_assert_held(&g->lock);
	if (gs)
		gs->sk.sk_data_ready(&gs->sk);
}

void gsync_group_wake_writer(struct gsync_group *g)
{
	struct gsync_sock *gs = g->gs;

	lockdep_assert_held(&g->lock);
	if (gs)
		gs->sk.sk_write_space(&gs->sk);
}

static void gsync_group_free(struct gsync_group *g)
{
	gsync_reduce_engine_destroy(g->engine);	/* reduce.c: engine */
	gsync_sched_put(g->sched);
	gsync_sched_put(g->sched_next);
	kfree(g->txbuf);
	gsync_keys_free(g->keys);
	kfree(g->slots);
	kfree(g->peer_sa);
	kfree(g->srtt);
	kfree(g->ctl_tokens);
	kfree(g->ctl_refill);
	kfree(g->ctrl_answers);
	kfree(g->heard);
	kfree(g->auth_fail);
	kfree(g->ratep);
	kfree(g->members);
	kfree(g);
}

int gsync_group_join(struct gsync_sock *gs, sockptr_t optval,
		     unsigned int optlen)
{
	struct net *net = sock_net(&gs->sk);
	struct gsync_group *g;
	struct gsync_join j;
	u32 mtu;
	int err, i;

	if (gs->group)
		return -EISCONN;
	if (optlen < sizeof(j))
		return -EINVAL;
	if (copy_from_sockptr(&j, optval, sizeof(j)))
		return -EFAULT;
	if (j.nranks < 2 || j.nranks > GSYNC_MAX_RANKS)
		return -ERANGE;
	if (optlen != sizeof(j) + j.nranks * sizeof(struct gsync_addr))
		return -EINVAL;
	if (!gs->key && gsync_require_auth(net))
		return -ENOKEY;

	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	if (!g)
		return -ENOMEM;
	g->members = kcalloc(j.nranks, sizeof(*g->members), GFP_KERNEL_ACCOUNT);
	g->peer_sa = kcalloc(j.nranks, sizeof(*g->peer_sa), GFP_KERNEL_ACCOUNT);
	g->srtt = kcalloc(j.nranks, sizeof(*g->srtt), GFP_KERNEL_ACCOUNT);
	g->ctl_tokens = kcalloc(j.nranks, sizeof(*g->ctl_tokens),
				GFP_KERNEL_ACCOUNT);
	g->ctl_refill = kcalloc(j.nranks, sizeof(*g->ctl_refill),
				GFP_KERNEL_ACCOUNT);
	g->ctrl_answers = kcalloc(j.nranks, sizeof(*g->ctrl_answers),
				  GFP_KERNEL_ACCOUNT);
	g->heard = kcalloc(j.nranks, sizeof(*g->heard), GFP_KERNEL_ACCOUNT);
	g->auth_fail = kcalloc(j.nranks, sizeof(*g->auth_fail),
			       GFP_KERNEL_ACCOUNT);
	g->ratep = kcalloc(j.nranks, sizeof(*g->ratep), GFP_KERNEL_ACCOUNT);
	err = -ENOMEM;
	if (!g->members || !g->peer_sa || !g->srtt || !g->ctl_tokens ||
	    !g->ctl_refill || !g->ctrl_answers || !g->heard || !g->ratep ||
	    !g->auth_fail)
		goto err_free;
	err = -EFAULT;
	if (copy_from_sockptr_offset(g->members, optval, sizeof(j),
				     j.nranks * sizeof(*g->members)))
		goto err_free;
	err = gsync_join_check(&j, g->members);
	if (err)
		goto err_free;

	mtu = j.mtu;
	if (j.ifindex) {
		struct net_device *dev = dev_get_by_index(net, j.ifindex);

		err = -ENODEV;
		if (!dev)
			goto err_free;
		if (!mtu)
			mtu = READ_ONCE(dev->mtu);
		dev_put(dev);
	}
	if (!mtu)
		mtu = GSYNC_DEF_MTU;
	mtu = clamp_t(u32, mtu, 576, 65535);

	g->slots = kcalloc(j.window, sizeof(*g->slots), GFP_KERNEL_ACCOUNT);
	g->txbuf = kmalloc(GSYNC_WIRE_HDR_LEN + GSYNC_WIRE_SEC_LEN + 65536 +
			   GSYNC_WIRE_TAG_LEN, GFP_KERNEL_ACCOUNT);
	err = -ENOMEM;
	if (!g->slots || !g->txbuf)
		goto err_free;
	if (gs->key) {	/* keyopt.c */
		g->keys = gsync_keys_create(gs->key->mode, j.group_id, j.nranks,
					    j.rank, gs->key->epoch,
					    gs->key->secret);
		if (IS_ERR(g->keys)) {
			err = PTR_ERR(g->keys);
			g->keys = NULL;
			goto err_free;
		}
		g->sec_len = GSYNC_WIRE_SEC_LEN;
		g->seal_len = GSYNC_WIRE_SEC_LEN + GSYNC_WIRE_TAG_LEN;
	}

	g->cfg = j;
	g->gs = gs;
	g->net = net;
	g->uid = sock_i_uid(&gs->sk);
	g->family = g->members[0].family;
	g->unicast = j.flags & GSYNC_JOIN_UNICAST;
	g->chunk_bytes = gsync_chunk_bytes(g->family, mtu, g->seal_len);
	for (i = 0; i < j.nranks; i++)
		gsync_addr_to_sockaddr(&g->members[i], &g->peer_sa[i]);
	if (!g->unicast)
		gsync_addr_to_sockaddr(&j.mcast, &g->mcast_sa);
	spin_lock_init(&g->lock);
	g->base_seq = 1;
	g->next_seq = 1;
	g->deliver_seq = 1;
	skb_queue_head_init(&g->stash);
	INIT_LIST_HEAD(&g->ctrl_q);
	INIT_LIST_HEAD(&g->mgroups);
	g->rate = j.pacing_rate;
	g->refill = ktime_get();
	/* the socket's GSYNC_ENGINE choice (engine selection: reduce.c) */
	g->engine = gsync_reduce_engine_create(gs->engine);
	g->sched = gsync_sched_default(j.nranks, g->unicast);
	err = -ENOMEM;
	if (!g->engine || !g->sched)
		goto err_free;
	INIT_LIST_HEAD(&g->linger_node);
	INIT_LIST_HEAD(&g->net_node);
	INIT_WORK(&g->destroy_work, gsync_linger_destroy_work);
	INIT_DELAYED_WORK(&g->tx_work, gsync_tx_work);
	INIT_DELAYED_WORK(&g->repair_work, gsync_repair_work);
	INIT_WORK(&g->reduce_work, gsync_reduce_work);

	/* A restarted process takes its endpoint back from its old group. */
	gsync_linger_takeover(gsync_net(net), &g->peer_sa[j.rank]);
	err = gsync_udp_open(g);
	if (err) {
		/* Its sockets may have received already: end it properly. */
		gsync_group_destroy(g, false);
		return err;
	}
	WRITE_ONCE(g->usock->sk->sk_sndbuf, GSYNC_UDP_SNDBUF);

	gsync_key_joined(gs);
	gsync_netstats_add(gsync_net(net), g);
	/* Pairs with the acquire in /proc and poll: publish a ready group. */
	smp_store_release(&gs->group, g);
	queue_delayed_work(gsync_wq, &g->repair_work,
			   msecs_to_jiffies(g->cfg.repair_ms));
	return 0;

err_free:
	gsync_group_free(g);
	return err;
}

/*
 * End g: stop its work and sockets, free everything. from_work: called by
 * g's own destroy_work, which must not wait for itself.
 */
void gsync_group_destroy(struct gsync_group *g, bool from_work)
{
	struct gsync_ctrl *c, *tmp;
	unsigned int i;

	spin_lock_bh(&g->lock);
	g->dead = true;
	spin_unlock_bh(&g->lock);

	/* Works check ->dead and do not requeue; receive stops below. */
	cancel_delayed_work_sync(&g->repair_work);
	/* Only the repair work queues destroy_work, and never once dead. */
	if (!from_work)
		cancel_work_sync(&g->destroy_work);
	cancel_delayed_work_sync(&g->tx_work);
	cancel_work_sync(&g->reduce_work);
	gsync_udp_close(g);	/* waits for receivers in flight (RCU) */
	cancel_delayed_work_sync(&g->tx_work);
	cancel_work_sync(&g->reduce_work);
	/* finish the engine's jobs before their ops are freed */
	gsync_reduce_engine_quiesce(g->engine);
	/* Nothing counts any more: the namespace keeps the counters. */
	gsync_netstats_fold(gsync_net(g->net), g);

	/* Nothing else can reach the group now. */
	for (i = 0; i < g->cfg.window; i++) {
		if (g->slots[i]) {
			gsync_op_free(g, g->slots[i]);
			g->slots[i] = NULL;
		}
	}
	skb_queue_purge(&g->stash);
	list_for_each_entry_safe(c, tmp, &g->ctrl_q, node)
		kfree(c);
	gsync_group_free(g);
}

/*
 * The socket is being released. Operations still in progress end at once:
 * they fail here with ECANCELED (nobody will collect them) and each peer is
 * sent an ABORT with ECONNRESET so it fails promptly instead of timing
 * out. Completed operations stay retained for peers' NACKs, and the group
 * lingers while it serves them (linger.c).
 */
void gsync_group_close(struct gsync_group *g)
{
	struct gsync_wire_abort a = { .error = cpu_to_be32(ECONNRESET) };
	struct sk_buff_head stash;
	LIST_HEAD(to_free);
	struct gsync_op *op;
	u64 seq;

	__skb_queue_head_init(&stash);
	spin_lock_bh(&g->lock);
	g->gs = NULL;
	/* Nothing will submit the operations these packets are for. */
	skb_queue_splice_init(&g->stash, &stash);
	g->stash_bytes = 0;
	for (seq = g->base_seq; seq < g->next_seq; seq++) {
		op = gsync_slot(g, seq);
		if (!op)
			continue;
		if (op->state == GSYNC_OPS_OPEN) {
			gsync_op_fail(g, op, -ECANCELED);
			gsync_ctrl_queue(g, -1, GSYNC_PKT_ABORT, op, 0, &a,
					 sizeof(a));
		}
		op->delivered = true;
		gsync_op_unretain(g, op);
	}
	gsync_group_release_slots(g, &to_free);
	spin_unlock_bh(&g->lock);

	__skb_queue_purge(&stash);
	gsync_op_free_list(g, &to_free);
	/* Last: once listed as lingering, g may end at any time. */
	gsync_linger_decide(g);
}
