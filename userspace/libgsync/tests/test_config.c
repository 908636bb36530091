// SPDX-License-Identifier: GPL-2.0 OR MIT
/* GSYNC_JOIN blob building and the validation rules of <linux/gsync.h>. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gsync.h"
#include "tap.h"

static struct gsync_addr m4[GSYNC_MAX_RANKS + 1], m6[4];

/* A valid IPv4 multicast config of N ranks; members 198.18.x.y:7000. */
static void base(struct gsync_config *c, unsigned int n)
{
	gsync_config_init(c);
	c->group_id = 0x1122334455667788ULL;
	c->rank = 1;
	c->nranks = n;
	c->members = m4;
	gsync_addr_parse("239.1.1.1:7100", &c->mcast);
}

static void expect(const struct gsync_config *c, int want, const char *what)
{
	int rc = gsync_config_validate(c);

	ok(rc == want, "%s: %s (got %d)", what,
	   want ? strerror(-want) : "accepted", rc);
}

int main(void)
{
	struct gsync_config c;
	struct gsync_join j;
	unsigned char *blob;
	char s[64];
	unsigned int i;
	int rc;

	for (i = 0; i <= GSYNC_MAX_RANKS; i++) {
		snprintf(s, sizeof(s), "198.18.%u.%u:7000", (i + 1) / 256, (i + 1) % 256);
		gsync_addr_parse(s, &m4[i]);
	}
	for (i = 0; i < 4; i++) {
		snprintf(s, sizeof(s), "[2001:2::%x]:7000", i + 1);
		gsync_addr_parse(s, &m6[i]);
	}

	base(&c, 4);
	expect(&c, 0, "4 IPv4 ranks with multicast");
	base(&c, 2);
	expect(&c, 0, "nranks = 2 (minimum)");
	base(&c, GSYNC_MAX_RANKS);
	expect(&c, 0, "nranks = GSYNC_MAX_RANKS");
	base(&c, 1);
	expect(&c, -ERANGE, "nranks = 1");
	base(&c, 0);
	expect(&c, -ERANGE, "nranks = 0");
	base(&c, GSYNC_MAX_RANKS + 1);
	expect(&c, -ERANGE, "nranks = GSYNC_MAX_RANKS + 1");
	base(&c, 4);
	c.rank = 4;
	expect(&c, -EINVAL, "rank == nranks");
	base(&c, 4);
	c.members = NULL;
	expect(&c, -EINVAL, "no member array");
	expect(NULL, -EINVAL, "NULL config");

	base(&c, 4);
	c.members = m6;
	gsync_addr_parse("[ff05::1]:7100", &c.mcast);
	expect(&c, 0, "4 IPv6 ranks with multicast");
	gsync_addr_parse("239.1.1.1:7100", &c.mcast);
	expect(&c, -EINVAL, "IPv6 members, IPv4 multicast group");
	{
		struct gsync_addr mix[3] = { m4[0], m6[1], m4[2] };

		base(&c, 3);
		c.members = mix;
		expect(&c, -EINVAL, "members of mixed families");
	}
	{
		struct gsync_addr dup[3] = { m4[0], m4[1], m4[0] };

		base(&c, 3);
		c.members = dup;
		expect(&c, -EINVAL, "duplicate member endpoints");
		dup[2].port = htons(7001);
		expect(&c, 0, "same address, different ports (ranks sharing a host)");
		dup[2].scope_id = 0;
		gsync_addr_parse("239.1.1.2:7000", &dup[2]);
		expect(&c, -EINVAL, "a multicast member");
		gsync_addr_parse("0.0.0.0:7000", &dup[2]);
		expect(&c, -EINVAL, "an unspecified member");
		dup[2] = m4[2];
		dup[2].port = 0;
		expect(&c, -EINVAL, "a member with port 0");
		dup[2] = m4[2];
		dup[2].addr[7] = 1;
		expect(&c, -EINVAL, "an IPv4 member with junk after 4 address bytes");
		dup[2] = m4[2];
		dup[2].family = 1;
		expect(&c, -EINVAL, "a member of an unknown family");
	}
	base(&c, 4);
	gsync_addr_parse("198.18.9.9:7100", &c.mcast);
	expect(&c, -EINVAL, "a unicast address as the multicast group");
	base(&c, 4);
	c.flags = GSYNC_JOIN_UNICAST;
	expect(&c, -EINVAL, "UNICAST with a multicast group set");
	memset(&c.mcast, 0, sizeof(c.mcast));
	expect(&c, 0, "UNICAST with a zero multicast group");
	base(&c, 4);
	memset(&c.mcast, 0, sizeof(c.mcast));
	expect(&c, -EINVAL, "multicast mode without a group");
	base(&c, 4);
	c.flags = 1U << 7;
	expect(&c, -EINVAL, "an unknown flag");

	base(&c, 4);
	c.ttl = 256;
	expect(&c, -EINVAL, "ttl 256");
	base(&c, 4);
	c.mtu = 575;
	expect(&c, -EINVAL, "mtu 575");
	c.mtu = 576;
	expect(&c, 0, "mtu 576");
	c.mtu = 65536;
	expect(&c, -EINVAL, "mtu 65536");
	base(&c, 4);
	c.window = GSYNC_MAX_WINDOW + 1;
	expect(&c, -EINVAL, "window GSYNC_MAX_WINDOW + 1");
	base(&c, 4);
	c.max_op_bytes = GSYNC_MAX_OP_BYTES + 1;
	expect(&c, -EINVAL, "max_op_bytes over GSYNC_MAX_OP_BYTES");
	base(&c, 4);
	c.op_timeout_ms = 9;
	expect(&c, -EINVAL, "op_timeout_ms 9");
	c.op_timeout_ms = 3600001;
	expect(&c, -EINVAL, "op_timeout_ms 3600001");
	c.op_timeout_ms = 100;
	c.repair_ms = 101;
	expect(&c, -EINVAL, "repair_ms above op_timeout_ms");
	c.repair_ms = 100;
	expect(&c, 0, "repair_ms equal to op_timeout_ms");
	c.op_timeout_ms = 0;
	c.repair_ms = 10001;
	expect(&c, -EINVAL, "repair_ms above the default timeout (10000)");

	/* The blob: header fields, reserved zero, members in order. */
	base(&c, 3);
	c.flags = GSYNC_JOIN_MCAST_LOOP;
	c.ifindex = 5;
	c.ttl = 7;
	c.mtu = 1500;
	c.window = 8;
	c.max_op_bytes = 1 << 20;
	c.op_timeout_ms = 2000;
	c.repair_ms = 15;
	c.pacing_rate = 125000000;
	ok(gsync_join_size(3) == sizeof(struct gsync_join) + 3 * sizeof(struct gsync_addr),
	   "gsync_join_size(3) is the header plus three addresses");
	blob = malloc(gsync_join_size(3) + 16);
	memset(blob, 0xee, gsync_join_size(3) + 16);
	rc = gsync_join_build(&c, blob, gsync_join_size(3) + 16);
	ok(rc == (int)gsync_join_size(3), "build returns the blob length (%d)", rc);
	memcpy(&j, blob, sizeof(j));
	ok(j.group_id == c.group_id && j.rank == 1 && j.nranks == 3 &&
	   j.flags == GSYNC_JOIN_MCAST_LOOP && j.ifindex == 5 && j.ttl == 7 &&
	   j.mtu == 1500 && j.window == 8 && j.max_op_bytes == (1 << 20) &&
	   j.op_timeout_ms == 2000 && j.repair_ms == 15 &&
	   j.pacing_rate == 125000000 && memcmp(&j.mcast, &c.mcast, sizeof(j.mcast)) == 0,
	   "header fields are copied");
	ok(j.reserved0[0] == 0 && j.reserved0[1] == 0 && j.reserved0[2] == 0 &&
	   j.reserved1[0] == 0 && j.reserved1[1] == 0, "reserved fields are zero");
	ok(memcmp(blob + sizeof(j), m4, 3 * sizeof(struct gsync_addr)) == 0,
	   "members follow the header in rank order");
	ok(blob[gsync_join_size(3)] == 0xee, "nothing is written past the blob");
	ok(gsync_join_build(&c, blob, gsync_join_size(3) - 1) == -ENOSPC,
	   "a buffer one byte short is -ENOSPC");
	c.nranks = 1;
	ok(gsync_join_build(&c, blob, gsync_join_size(3)) == -ERANGE,
	   "build validates first (-ERANGE)");
	free(blob);

	base(&c, 2);
	ok(gsync_join(-1, &c) == -EBADF, "gsync_join on a bad fd returns the setsockopt error");
	c.nranks = 300;
	ok(gsync_join(-1, &c) == -ERANGE, "gsync_join validates before the syscall");
	return tap_done();
}
