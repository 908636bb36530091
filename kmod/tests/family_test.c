// SPDX-License-Identifier: GPL-2.0
/*
 * Suite gsync_family: the family= parameter and its registration.
 */
#include <kunit/test.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/gsync.h>

#include "gsync.h"

static void gsync_family_allowed_numbers(struct kunit *test)
{
	static const int allowed[] = GSYNC_AF_ALLOWED;
	int i;

	for (i = 0; i < ARRAY_SIZE(allowed); i++)
		KUNIT_EXPECT_TRUE(test, gsync_family_allowed(allowed[i]));
	KUNIT_EXPECT_TRUE(test, gsync_family_allowed(GSYNC_AF_DEFAULT));
}

static void gsync_family_rejected_numbers(struct kunit *test)
{
	/* In-tree families, out of range values, and the AF_MAX boundary. */
	static const int rejected[] = {
		-1, 0, AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET,
		AF_RDS, AF_IRDA, AF_LLC, AF_IB, AF_MPLS, AF_KCM, AF_MAX - 1,
		AF_MAX, AF_MAX + 1, 255, 1 << 30,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(rejected); i++)
		KUNIT_EXPECT_FALSE_MSG(test, gsync_family_allowed(rejected[i]),
				       "family %d", rejected[i]);
}

static void gsync_family_in_use_is_allowed(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, gsync_family_allowed(gsync_family));
	KUNIT_EXPECT_LT(test, gsync_family, AF_MAX);
}

static int gsync_dummy_create(struct net *net, struct socket *sock,
			      int protocol, int kern)
{
	return -EAFNOSUPPORT;
}

/* A second registration of the number gsync holds must be refused. */
static void gsync_family_second_register_fails(struct kunit *test)
{
	struct net_proto_family dup = {
		.family = gsync_family,
		.create = gsync_dummy_create,
		.owner = THIS_MODULE,
	};

	KUNIT_EXPECT_EQ(test, sock_register(&dup), -EEXIST);
}

static struct kunit_case gsync_family_cases[] = {
	KUNIT_CASE(gsync_family_allowed_numbers),
	KUNIT_CASE(gsync_family_rejected_numbers),
	KUNIT_CASE(gsync_family_in_use_is_allowed),
	KUNIT_CASE(gsync_family_second_register_fails),
	{}
};

static struct kunit_suite gsync_family_suite = {
	.name = "gsync_family",
	.test_cases = gsync_family_cases,
};

kunit_test_suites(&gsync_family_suite);
