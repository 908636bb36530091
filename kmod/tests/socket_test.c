// SPDX-License-Identifier: GPL-2.0
/*
 * Suites gsync_socket (create/release, argument checks) and gsync_netns
 * (per-namespace bookkeeping) on kernel sockets in init_net.
 */
#include <kunit/test.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <linux/gsync.h>

#include "gsync.h"

static struct socket *gsync_test_socket(struct kunit *test)
{
	struct socket *sock = NULL;
	int err;

	err = sock_create_kern(&init_net, gsync_family, SOCK_SEQPACKET, 0,
			       &sock);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_NOT_NULL(test, sock);
	return sock;
}

static void gsync_socket_create_release(struct kunit *test)
{
	struct gsync_net *gn = gsync_net(&init_net);
	int open_before = atomic_read(&gn->sockets_open);
	s64 created_before = atomic64_read(&gn->sockets_created);
	struct socket *sock = gsync_test_socket(test);

	KUNIT_EXPECT_EQ(test, atomic_read(&gn->sockets_open), open_before + 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&gn->sockets_created),
			created_before + 1);
	KUNIT_EXPECT_EQ(test, (int)sock->sk->sk_family, gsync_family);
	KUNIT_EXPECT_EQ(test, (int)sock->sk->sk_type, SOCK_SEQPACKET);

	sock_release(sock);
	KUNIT_EXPECT_EQ(test, atomic_read(&gn->sockets_open), open_before);
	KUNIT_EXPECT_EQ(test, atomic64_read(&gn->sockets_created),
			created_before + 1);
}

static void gsync_socket_bad_type(struct kunit *test)
{
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_RAW,
				     SOCK_RDM, SOCK_PACKET };
	struct socket *sock;
	int i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		sock = NULL;
		KUNIT_EXPECT_EQ_MSG(test,
				    sock_create_kern(&init_net, gsync_family,
						     types[i], 0, &sock),
				    -ESOCKTNOSUPPORT, "type %d", types[i]);
		KUNIT_EXPECT_NULL(test, sock);
	}
}

static void gsync_socket_bad_protocol(struct kunit *test)
{
	static const int protos[] = { 1, 17, 255, -1 };
	struct socket *sock;
	int i;

	for (i = 0; i < ARRAY_SIZE(protos); i++) {
		sock = NULL;
		KUNIT_EXPECT_EQ_MSG(test,
				    sock_create_kern(&init_net, gsync_family,
						     SOCK_SEQPACKET, protos[i],
						     &sock),
				    -EPROTONOSUPPORT, "protocol %d", protos[i]);
		KUNIT_EXPECT_NULL(test, sock);
	}
}

static void gsync_socket_unconfigured_io(struct kunit *test)
{
	struct socket *sock = gsync_test_socket(test);
	struct msghdr msg = {};
	struct kvec iov;
	char buf[8] = {};
	int val = 0;

	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	KUNIT_EXPECT_EQ(test, kernel_sendmsg(sock, &msg, &iov, 1, sizeof(buf)),
			-ENOTCONN);
	KUNIT_EXPECT_EQ(test, kernel_recvmsg(sock, &msg, &iov, 1, sizeof(buf),
					     MSG_DONTWAIT),
			-ENOTCONN);
	KUNIT_EXPECT_EQ(test, sock->ops->setsockopt(sock, SOL_GSYNC, 999,
						    KERNEL_SOCKPTR(&val),
						    sizeof(val)),
			-ENOPROTOOPT);
	/* A join blob shorter than its header. */
	KUNIT_EXPECT_EQ(test, sock->ops->setsockopt(sock, SOL_GSYNC, GSYNC_JOIN,
						    KERNEL_SOCKPTR(&val),
						    sizeof(val)),
			-EINVAL);
	/* Options that need a group. */
	KUNIT_EXPECT_EQ(test, sock->ops->setsockopt(sock, SOL_GSYNC,
						    GSYNC_PACING_RATE,
						    KERNEL_SOCKPTR(&val),
						    sizeof(val)),
			-ENOTCONN);
	sock_release(sock);
}

static void gsync_socket_ids_unique(struct kunit *test)
{
	struct socket *a = gsync_test_socket(test);
	struct socket *b = gsync_test_socket(test);

	KUNIT_EXPECT_GT(test, gsync_sk(b->sk)->id, gsync_sk(a->sk)->id);
	sock_release(a);
	sock_release(b);
}

static struct kunit_case gsync_socket_cases[] = {
	KUNIT_CASE(gsync_socket_create_release),
	KUNIT_CASE(gsync_socket_bad_type),
	KUNIT_CASE(gsync_socket_bad_protocol),
	KUNIT_CASE(gsync_socket_unconfigured_io),
	KUNIT_CASE(gsync_socket_ids_unique),
	{}
};

static struct kunit_suite gsync_socket_suite = {
	.name = "gsync_socket",
	.test_cases = gsync_socket_cases,
};

static bool gsync_test_listed(struct gsync_net *gn, struct gsync_sock *gs)
{
	struct gsync_sock *pos;
	bool found = false;

	mutex_lock(&gn->lock);
	list_for_each_entry(pos, &gn->socks, node)
		found |= pos == gs;
	mutex_unlock(&gn->lock);
	return found;
}

static void gsync_netns_state_of_init_net(struct kunit *test)
{
	struct gsync_net *gn = gsync_net(&init_net);

	KUNIT_ASSERT_NOT_NULL(test, gn);
	KUNIT_EXPECT_PTR_EQ(test, gn->net, &init_net);
}

static void gsync_netns_socket_listed(struct kunit *test)
{
	struct gsync_net *gn = gsync_net(&init_net);
	struct socket *sock = gsync_test_socket(test);
	struct gsync_sock *gs = gsync_sk(sock->sk);

	KUNIT_EXPECT_PTR_EQ(test, sock_net(sock->sk), &init_net);
	KUNIT_EXPECT_TRUE(test, gsync_test_listed(gn, gs));
	sock_release(sock);
}

static struct kunit_case gsync_netns_cases[] = {
	KUNIT_CASE(gsync_netns_state_of_init_net),
	KUNIT_CASE(gsync_netns_socket_listed),
	{}
};

static struct kunit_suite gsync_netns_suite = {
	.name = "gsync_netns",
	.test_cases = gsync_netns_cases,
};

kunit_test_suites(&gsync_socket_suite, &gsync_netns_suite);
