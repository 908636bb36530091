// SPDX-License-Identifier: GPL-2.0
/*
 * The AF_GSYNC socket family: registration, socket create and release, and
 * the proto_ops table.
 *
 * Locking: create and release run in process context; list membership is
 * handled by gsync_net_add_sock()/gsync_net_del_sock() under gsync_net.lock.
 * The socket holds a module reference through gsync_ops.owner, so the module
 * cannot be unloaded while any AF_GSYNC socket is open.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <net/sock.h>
#include <linux/gsync.h>

#include "gsync.h"

static struct proto gsync_proto = {
	.name = "GSYNC",
	.owner = THIS_MODULE,
	.obj_size = sizeof(struct gsync_sock),
};

static int gsync_release(struct socket *sock)
{
	struct sock *sk = sock->sk;

	if (!sk)
		return 0;

	gsync_net_del_sock(gsync_net(sock_net(sk)), gsync_sk(sk));

	lock_sock(sk);
	sock_orphan(sk);
	sk->sk_shutdown = SHUTDOWN_MASK;
	skb_queue_purge(&sk->sk_receive_queue);
	release_sock(sk);

	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

/* Group setup arrives with the transport; until then nothing is configured. */
static int gsync_setsockopt(struct socket *sock, int level, int optname,
			    sockptr_t optval, unsigned int optlen)
{
	if (level != SOL_GSYNC)
		return -ENOPROTOOPT;
	return -ENOPROTOOPT;
}

static int gsync_getsockopt(struct socket *sock, int level, int optname,
			    char __user *optval, int __user *optlen)
{
	if (level != SOL_GSYNC)
		return -ENOPROTOOPT;
	return -ENOPROTOOPT;
}

static int gsync_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	return -ENOTCONN;
}

static int gsync_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
			 int flags)
{
	return -ENOTCONN;
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
	.poll = datagram_poll,					\
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
