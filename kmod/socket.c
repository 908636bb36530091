// SPDX-License-Identifier: GPL-2.0
/*
 * The AF_GSYNC socket family: registration, socket create and release, and
 * the proto_ops table: options, sendmsg (submit an operation), recvmsg
 * (collect the oldest finished one) and poll.
 *
 * Locking: create and release run in process context; list membership is
 * handled by gsync_net_add_sock()/gsync_net_del_sock() under gsync_net.lock.
 * User calls hold lock_sock() and take gsync_group.lock for transport
 * state; blocking waits drop lock_sock while asleep (sk_wait_event). The
 * socket holds a module reference through its proto_ops owner, so the
 * module cannot be unloaded while any AF_GSYNC socket is open.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <net/sock.h>
#include <linux/gsync.h>
#include <linux/gsync_sched.h>

#include "gsync.h"
#include "group.h"
#include "op.h"
#include "send.h"
#include "sched_opt.h"
#include "receive.h"
#include "mem.h"
#include "reduce.h"
#include "trace.h"
#include "keys.h"
#include "keyopt.h"

static struct proto gsync_proto = {
	.name = "GSYNC",
	.owner = THIS_MODULE,
	.obj_size = sizeof(struct gsync_sock),
};

static int gsync_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct gsync_group *g;

	if (!sk)
		return 0;

	gsync_net_del_sock(gsync_net(sock_net(sk)), gsync_sk(sk));

	lock_sock(sk);
	g = gsync_sk(sk)->group;
	gsync_sk(sk)->group = NULL;
	gsync_key_release(gsync_sk(sk));
	sock_orphan(sk);
	sk->sk_shutdown = SHUTDOWN_MASK;
	release_sock(sk);
	if (g)
		gsync_group_close(g);

	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

static int gsync_setsockopt(struct socket *sock, int level, int optname,
			    sockptr_t optval, unsigned int optlen)
{
	struct gsync_sock *gs = gsync_sk(sock->sk);
	struct gsync_group *g;
	u32 engine;
	u64 rate;
	int err;

	if (level != SOL_GSYNC)
		return -ENOPROTOOPT;

	lock_sock(sock->sk);
	g = gs->group;
	switch (optname) {
	case GSYNC_JOIN:
		err = gsync_group_join(gs, optval, optlen);
		break;
	case GSYNC_PACING_RATE:
		err = -ENOTCONN;
		if (!g)
			break;
		err = -EINVAL;
		if (optlen != sizeof(rate))
			break;
		err = -EFAULT;
		if (copy_from_sockptr(&rate, optval, sizeof(rate)))
			break;
		err = -ERANGE;
		if (rate > GSYNC_MAX_PACING_RATE)
			break;
		spin_lock_bh(&g->lock);
		g->rate = rate;
		g->tokens = 0;
		g->refill = ktime_get();
		gsync_tx_kick(g);
		spin_unlock_bh(&g->lock);
		err = 0;
		break;
	case GSYNC_SCHEDULE:	/* sched_opt.c */
		err = g ? gsync_sched_setsockopt(g, optval, optlen) : -ENOTCONN;
		break;
	case GSYNC_SCHEDULE_PUSH:
		err = gsync_sched_push(gs, optval, optlen);
		break;
	case GSYNC_KEY:		/* keyed groups (keyopt.c) */
		err = gsync_key_setsockopt(gs, optval, optlen);
		break;
	case GSYNC_KEY_PUSH:
		err = gsync_key_push(gs, optval, optlen);
		break;
	case GSYNC_ENGINE:	/* engine selection (reduce.c) */
		err = -EINVAL;
		if (optlen != sizeof(u32))
			break;
		err = -EFAULT;
		if (copy_from_sockptr(&engine, optval, sizeof(engine)))
			break;
		err = -EINVAL;
		if (engine >= GSYNC_ENGINE_MAX)
			break;
		gs->engine = engine;
		err = g ? gsync_reduce_engine_set_mode(g->engine, engine) : 0;
		break;
	default:
		err = -ENOPROTOOPT;
	}
	release_sock(sock->sk);
	return err;
}

static void gsync_fill_info(struct gsync_group *g, struct gsync_info *info)
{
	memset(info, 0, sizeof(*info));
	if (!g)
		return;
	info->state = GSYNC_STATE_JOINED;
	info->rank = g->cfg.rank;
	info->nranks = g->cfg.nranks;
	info->group_id = g->cfg.group_id;
	info->next_seq = g->next_seq;
	info->inflight = g->next_seq - g->deliver_seq;
	info->window = g->cfg.window;
	info->chunk_bytes = g->chunk_bytes;
	info->flags = g->cfg.flags;
	info->pacing_rate = g->rate;
	info->op_timeout_ms = g->cfg.op_timeout_ms;
	info->repair_ms = g->cfg.repair_ms;
	info->max_op_bytes = g->cfg.max_op_bytes;
	info->rtt_ms = gsync_rate_rtt_ms(g);
	info->send_rate = gsync_rate_now(g);
	gsync_keys_info(g->keys, g->next_seq, info);
}

static int gsync_getsockopt(struct socket *sock, int level, int optname,
			    char __user *optval, int __user *optlen)
{
	struct gsync_sock *gs = gsync_sk(sock->sk);
	union {
		struct gsync_info info;
		struct gsync_stats stats;
		u64 rate;
		u32 engine;
	} v;
	struct gsync_group *g;
	int len, size;

	if (level != SOL_GSYNC)
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;

	lock_sock(sock->sk);
	g = gs->group;
	if (optname == GSYNC_SCHEDULE) {	/* variable length */
		len = gsync_sched_getsockopt(g, optval, optlen, len);
		release_sock(sock->sk);
		return len;
	}
	memset(&v, 0, sizeof(v));
	switch (optname) {
	case GSYNC_INFO:
		size = sizeof(v.info);
		if (g)
			spin_lock_bh(&g->lock);
		gsync_fill_info(g, &v.info);
		if (g)
			spin_unlock_bh(&g->lock);
		break;
	case GSYNC_STATS:
		size = sizeof(v.stats);
		if (g) {
			spin_lock_bh(&g->lock);
			v.stats = g->stats;
			spin_unlock_bh(&g->lock);
		}
		break;
	case GSYNC_PACING_RATE:
		size = sizeof(v.rate);
		if (g)
			v.rate = READ_ONCE(g->rate);
		break;
	case GSYNC_ENGINE:	/* engine selection (reduce.c) */
		size = sizeof(v.engine);
		v.engine = gs->engine;
		break;
	default:
		release_sock(sock->sk);
		return -ENOPROTOOPT;
	}
	release_sock(sock->sk);

	len = min(len, size);
	if (copy_to_user(optval, &v, len) || put_user(len, optlen))
		return -EFAULT;
	return 0;
}

/* The GSYNC_CMSG_OP control message of a sendmsg(), validated. */
static int gsync_parse_op_cmsg(struct msghdr *msg, struct gsync_op_desc *d)
{
	struct cmsghdr *cmsg;
	bool found = false;

	for_each_cmsghdr(cmsg, msg) {
		if (!CMSG_OK(msg, cmsg))
			return -EINVAL;
		if (cmsg->cmsg_level != SOL_GSYNC)
			return -EINVAL;
		if (cmsg->cmsg_type != GSYNC_CMSG_OP || found ||
		    cmsg->cmsg_len != CMSG_LEN(sizeof(*d)))
			return -EINVAL;
		memcpy(d, CMSG_DATA(cmsg), sizeof(*d));
		found = true;
	}
	if (!found || d->flags || d->reserved ||
	    d->dtype >= GSYNC_DTYPE_MAX || d->op >= GSYNC_REDOP_MAX)
		return -EINVAL;
	return 0;
}

static bool gsync_window_open(struct gsync_group *g)
{
	return READ_ONCE(g->next_seq) - READ_ONCE(g->base_seq) <
	       g->cfg.window;
}

/*
 * A submitter of seq may go on: the window has room, or another thread
 * took seq meanwhile (it then fails at once instead of waiting for a
 * window it can never use).
 */
static bool gsync_submit_ready(struct gsync_group *g, u64 seq)
{
	return READ_ONCE(g->next_seq) != seq || gsync_window_open(g);
}

static bool gsync_result_ready(struct gsync_group *g, u64 unused)
{
	struct gsync_op *op;
	u64 seq = READ_ONCE(g->deliver_seq);
	u8 state;

	if (seq >= READ_ONCE(g->next_seq))
		return false;
	op = gsync_slot(g, seq);
	if (!op)
		return false;
	/* recvmsg then reads the result or status without the lock. */
	state = smp_load_acquire(&op->state);
	return state == GSYNC_OPS_DONE || state == GSYNC_OPS_FAILED;
}

/*
 * Sleep until cond(g, arg) holds, the timeout runs out, or a signal
 * arrives. Called and returns with the socket locked.
 */
static int gsync_wait(struct sock *sk, struct gsync_group *g, long *timeo,
		      bool (*cond)(struct gsync_group *g, u64 arg), u64 arg)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	int err = 0;

	add_wait_queue(sk_sleep(sk), &wait);
	while (!cond(g, arg)) {
		if (!*timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(*timeo);
			break;
		}
		sk_wait_event(sk, timeo, cond(g, arg), &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return err;
}

static int gsync_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct sock *sk = sock->sk;
	struct sk_buff_head stale;
	struct gsync_sched *sched;
	struct gsync_group *g;
	struct gsync_op_desc d;
	struct gsync_op *op;
	void *buf = NULL;
	long timeo;
	u64 budget;
	int err;

	__skb_queue_head_init(&stale);
	if (msg->msg_flags & ~(MSG_DONTWAIT | MSG_NOSIGNAL | MSG_EOR))
		return -EOPNOTSUPP;
	if (msg->msg_name)
		return -EISCONN;

	lock_sock(sk);
	g = gsync_sk(sk)->group;
	err = -ENOTCONN;
	if (!g)
		goto out;
	err = gsync_parse_op_cmsg(msg, &d);
	if (err)
		goto out;
	err = -EINVAL;
	if (!len || len % gsync_dtype_size(d.dtype) ||
	    d.seq != READ_ONCE(g->next_seq))
		goto out;
	err = -EMSGSIZE;
	if (len > g->cfg.max_op_bytes)
		goto out;

	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	err = gsync_wait(sk, g, &timeo, gsync_submit_ready, d.seq);
	if (err)
		goto out;
	/*
	 * The wait dropped the socket lock: another thread may have submitted
	 * this seq meanwhile. Only one submission of a seq may take its slot.
	 */
	err = -EINVAL;
	if (d.seq != g->next_seq)
		goto out;

	/* Refuse what cannot fit before allocating any of it. */
	sched = gsync_sched_for_seq(g, d.seq);
	budget = gsync_mem_budget(g);
	if (gsync_op_mem_floor(g, sched, len) > budget) {
		gsync_sched_put(sched);
		err = gsync_mem_refusal(g);
		goto out;
	}
	err = -ENOMEM;
	buf = kvmalloc(len, GSYNC_GFP_OP);
	if (!buf)
		goto out_sched;
	err = -EFAULT;
	if (!copy_from_iter_full(buf, len, &msg->msg_iter))
		goto out_sched;
	op = gsync_op_alloc(g, d.seq, d.dtype, d.op, len, buf, sched, budget);
	gsync_sched_put(sched);
	if (IS_ERR(op)) {
		err = PTR_ERR(op);
		if (err == -ENOBUFS)
			err = gsync_mem_refusal(g);
		goto out;
	}
	buf = NULL;
	err = gsync_mem_charge(g, op->mem);
	if (err) {
		gsync_op_free(g, op);
		goto out;
	}
	op->charged = op->mem;

	spin_lock_bh(&g->lock);
	op->submitted_at = jiffies;
	op->submit_ns = ktime_get_ns();
	g->slots[d.seq % g->cfg.window] = op;
	WRITE_ONCE(g->next_seq, d.seq + 1);
	g->stats.ops_submitted++;
	if (op->sched->tag)
		g->stats.sched_ops++;
	trace_gsync_op_submit(g, op);
	gsync_op_start(g, op);
	gsync_rx_replay_stash(g, d.seq, &stale);
	gsync_tx_kick(g);
	/* Other submitters of this seq waiting for the window: it is taken. */
	gsync_group_wake_writer(g);
	spin_unlock_bh(&g->lock);
	__skb_queue_purge(&stale);

	err = len;
	goto out;
out_sched:
	gsync_sched_put(sched);
out:
	release_sock(sk);
	kvfree(buf);
	return err;
}

static int gsync_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
			 int flags)
{
	struct sock *sk = sock->sk;
	struct gsync_op_result res = {};
	struct gsync_group *g;
	struct gsync_op *op;
	LIST_HEAD(to_free);
	size_t n = 0;
	long timeo;
	int err;

	if (flags & ~(MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC |
		      MSG_CMSG_COMPAT | MSG_NOSIGNAL | MSG_WAITALL))
		return -EOPNOTSUPP;

	lock_sock(sk);
	g = gsync_sk(sk)->group;
	err = -ENOTCONN;
	if (!g)
		goto out;
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	err = gsync_wait(sk, g, &timeo, gsync_result_ready, 0);
	if (err)
		goto out;

	/* The op cannot go away: only delivered ops are released. */
	op = gsync_slot(g, g->deliver_seq);
	res.seq = op->seq;
	if (op->state == GSYNC_OPS_FAILED) {
		res.status = -op->status;
	} else {
		res.len = op->len;
		n = min_t(size_t, len, op->len);
		err = memcpy_to_msg(msg, op->result, n);
		if (err)
			goto out;
		if (n < op->len)
			msg->msg_flags |= MSG_TRUNC;
	}
	err = put_cmsg(msg, SOL_GSYNC, GSYNC_CMSG_RESULT, sizeof(res), &res);
	if (err)
		goto out;

	spin_lock_bh(&g->lock);
	op->delivered = true;
	WRITE_ONCE(g->deliver_seq, g->deliver_seq + 1);
	if (op->state == GSYNC_OPS_FAILED)
		g->stats.ops_failed++;
	else
		g->stats.ops_completed++;
	gsync_op_unretain(g, op);
	gsync_group_release_slots(g, &to_free);
	spin_unlock_bh(&g->lock);

	err = (flags & MSG_TRUNC) ? res.len : n;
out:
	release_sock(sk);
	if (g)
		gsync_op_free_list(g, &to_free);
	return err;
}

static __poll_t gsync_poll(struct file *file, struct socket *sock,
			   poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct gsync_group *g;
	__poll_t mask = 0;

	sock_poll_wait(file, sock, wait);
	if (sk->sk_shutdown == SHUTDOWN_MASK)
		mask |= EPOLLHUP;
	g = READ_ONCE(gsync_sk(sk)->group);
	if (!g)
		return mask | EPOLLOUT | EPOLLWRNORM;
	spin_lock_bh(&g->lock);
	if (gsync_result_ready(g, 0))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (gsync_window_open(g))
		mask |= EPOLLOUT | EPOLLWRNORM;
	spin_unlock_bh(&g->lock);
	return mask;
}

/*
 * proto_ops carries the family number, which is a module parameter, so there
 * is one read-only table per number the module accepts (GSYNC_AF_ALLOWED).
 */
#define GSYNC_PROTO_OPS(fam) {					\
	.family = (fam),					\
	.owner = THIS_MODULE,					\
	.release = gsync_release,				\
	.bind = sock_no_bind,					\
	.connect = sock_no_connect,				\
	.socketpair = sock_no_socketpair,			\
	.accept = sock_no_accept,				\
	.getname = sock_no_getname,				\
	.poll = gsync_poll,					\
	.ioctl = sock_no_ioctl,					\
	.listen = sock_no_listen,				\
	.shutdown = sock_no_shutdown,				\
	.setsockopt = gsync_setsockopt,				\
	.getsockopt = gsync_getsockopt,				\
	.sendmsg = gsync_sendmsg,				\
	.recvmsg = gsync_recvmsg,				\
	.mmap = sock_no_mmap,					\
}

static const struct proto_ops gsync_ops_table[] = {
	GSYNC_PROTO_OPS(13), GSYNC_PROTO_OPS(14), GSYNC_PROTO_OPS(18),
	GSYNC_PROTO_OPS(19), GSYNC_PROTO_OPS(22), GSYNC_PROTO_OPS(25),
};

/* Set once in gsync_socket_register(), before the family is visible. */
static const struct proto_ops *gsync_ops;

static int gsync_create(struct net *net, struct socket *sock, int protocol,
			int kern)
{
	struct gsync_sock *gs;
	struct sock *sk;

	if (sock->type != SOCK_SEQPACKET)
		return -ESOCKTNOSUPPORT;
	if (protocol != 0)
		return -EPROTONOSUPPORT;

	sk = sk_alloc(net, gsync_family, GFP_KERNEL, &gsync_proto, kern);
	if (!sk)
		return -ENOMEM;

	sock->ops = gsync_ops;
	sock->state = SS_UNCONNECTED;
	sock_init_data(sock, sk);

	gs = gsync_sk(sk);
	INIT_LIST_HEAD(&gs->node);
	gsync_net_add_sock(gsync_net(net), gs);
	return 0;
}

static struct net_proto_family gsync_family_ops = {
	.create = gsync_create,
	.owner = THIS_MODULE,
};

int gsync_socket_register(int family)
{
	static const int allowed[] = GSYNC_AF_ALLOWED;
	int err, i;

	BUILD_BUG_ON(ARRAY_SIZE(allowed) != ARRAY_SIZE(gsync_ops_table));
	gsync_ops = NULL;
	for (i = 0; i < ARRAY_SIZE(gsync_ops_table); i++)
		if (gsync_ops_table[i].family == family)
			gsync_ops = &gsync_ops_table[i];
	if (!gsync_ops)
		return -EINVAL;
	gsync_family_ops.family = family;

	err = proto_register(&gsync_proto, 1);
	if (err)
		return err;

	/*
	 * sock_register() logs "NET: Registered PF_... protocol family" even
	 * when it fails with -EEXIST, so say plainly what happened.
	 */
	err = sock_register(&gsync_family_ops);
	if (err) {
		if (err == -EEXIST)
			pr_err("address family %d is already registered by another module; load gsync with family=N (13 14 18 19 22 25)\n",
			       family);
		else
			pr_err("cannot register address family %d: %d\n",
			       family, err);
		proto_unregister(&gsync_proto);
		return err;
	}
	return 0;
}

void gsync_socket_unregister(void)
{
	sock_unregister(gsync_family_ops.family);
	proto_unregister(&gsync_proto);
}
