// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gsync_set_key(), gsync_join_keyed() and gsync_rotate_key() against a
 * recorded socket: the test is linked with --wrap=setsockopt,getsockopt,
 * so every option the library sets on the fake descriptor FAKE_FD is
 * recorded (level, name, length, bytes) and GSYNC_INFO answers from a
 * struct the test fills. Other descriptors reach the real calls.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "gsync.h"
#include "tap.h"

#define FAKE_FD 1000
#define MAX_CALLS 8

int __real_setsockopt(int fd, int level, int name, const void *val, socklen_t len);
int __real_getsockopt(int fd, int level, int name, void *val, socklen_t *len);

static struct call {
	int level, name;
	socklen_t len;
	unsigned char val[512];
} calls[MAX_CALLS];
static int ncalls;
static int fail_name = -1, fail_errno;	/* this option fails with this errno */
static struct gsync_info fake_info;

int __wrap_setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct call *c;

	if (fd != FAKE_FD)
		return __real_setsockopt(fd, level, name, val, len);
	if (ncalls < MAX_CALLS) {
		c = &calls[ncalls];
		c->level = level;
		c->name = name;
		c->len = len;
		memcpy(c->val, val, len < sizeof(c->val) ? len : sizeof(c->val));
	}
	ncalls++;
	if (name == fail_name) {
		errno = fail_errno;
		return -1;
	}
	return 0;
}

int __wrap_getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	if (fd != FAKE_FD)
		return __real_getsockopt(fd, level, name, val, len);
	if (level != SOL_GSYNC || name != GSYNC_INFO) {
		errno = ENOPROTOOPT;
		return -1;
	}
	if (*len > sizeof(fake_info))
		*len = sizeof(fake_info);
	memcpy(val, &fake_info, *len);
	return 0;
}

static void reset(void)
{
	memset(calls, 0, sizeof(calls));
	ncalls = 0;
	fail_name = -1;
}

static const uint8_t secret[32] = {
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b,
	0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27,
	0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f,
};

/* Is call I a GSYNC_KEY with these fields and the test's secret? */
static int is_key(int i, unsigned int mode, uint32_t epoch, uint64_t start)
{
	struct gsync_key k;

	if (i >= ncalls || calls[i].level != SOL_GSYNC || calls[i].name != GSYNC_KEY ||
	    calls[i].len != sizeof(k))
		return 0;
	memcpy(&k, calls[i].val, sizeof(k));
	return k.mode == mode && k.epoch == epoch && k.start_seq == start &&
	       memcmp(k.secret, secret, 32) == 0 && k.reserved[0] == 0 &&
	       k.reserved[1] == 0;
}

static void test_set_key(void)
{
	reset();
	ok(gsync_set_key(FAKE_FD, GSYNC_KEY_ENCRYPT, 7, 0, secret) == 0,
	   "set_key: returns 0");
	ok(ncalls == 1 && is_key(0, GSYNC_KEY_ENCRYPT, 7, 0),
	   "set_key: one setsockopt(SOL_GSYNC, GSYNC_KEY) of sizeof(struct gsync_key) "
	   "with mode, epoch, start_seq, the secret, reserved zero");
	reset();
	gsync_set_key(FAKE_FD, GSYNC_KEY_AUTH, 0xfffffffe, 123456789012ULL, secret);
	ok(is_key(0, GSYNC_KEY_AUTH, 0xfffffffe, 123456789012ULL),
	   "set_key: AUTH, a 32-bit epoch and a 64-bit start_seq are passed as given");
	reset();
	ok(gsync_set_key(FAKE_FD, GSYNC_KEY_NONE, 1, 0, secret) == -EINVAL &&
	   gsync_set_key(FAKE_FD, (enum gsync_key_mode)3, 1, 0, secret) == -EINVAL &&
	   gsync_set_key(FAKE_FD, GSYNC_KEY_AUTH, 1, 0, NULL) == -EINVAL && ncalls == 0,
	   "set_key: mode NONE, an unknown mode or no secret is -EINVAL with no syscall");
	reset();
	fail_name = GSYNC_KEY;
	fail_errno = EBUSY;
	ok(gsync_set_key(FAKE_FD, GSYNC_KEY_AUTH, 2, 10, secret) == -EBUSY,
	   "set_key: the kernel's errno comes back negated (-EBUSY)");
	ok(gsync_set_key(-1, GSYNC_KEY_AUTH, 1, 0, secret) == -EBADF,
	   "set_key on a bad descriptor is -EBADF (the real setsockopt)");
}

static void test_join_keyed(void)
{
	struct gsync_addr m[3];
	struct gsync_config c;
	struct gsync_join j;

	gsync_config_init(&c);
	c.group_id = 0x2a;
	c.rank = 1;
	c.nranks = (unsigned int)gsync_addr_parse_list(
		"198.18.0.1:7000,198.18.0.2:7000,198.18.0.3:7000", m, 3);
	c.members = m;
	gsync_addr_parse("239.1.1.1:7100", &c.mcast);
	reset();
	ok(gsync_join_keyed(FAKE_FD, &c, GSYNC_KEY_ENCRYPT, 1, secret) == 0,
	   "join_keyed: returns 0");
	memcpy(&j, calls[1].val, sizeof(j));
	ok(ncalls == 2 && is_key(0, GSYNC_KEY_ENCRYPT, 1, 0) &&
	   calls[1].name == GSYNC_JOIN && calls[1].len == gsync_join_size(3) &&
	   j.group_id == 0x2a && j.rank == 1 && j.nranks == 3,
	   "join_keyed: GSYNC_KEY (start_seq 0) first, then GSYNC_JOIN");
	reset();
	c.rank = 3;
	ok(gsync_join_keyed(FAKE_FD, &c, GSYNC_KEY_AUTH, 1, secret) == -EINVAL && ncalls == 0,
	   "join_keyed: a bad config is refused before the key is set");
	c.rank = 1;
	ok(gsync_join_keyed(FAKE_FD, &c, GSYNC_KEY_NONE, 1, secret) == -EINVAL &&
	   gsync_join_keyed(FAKE_FD, &c, GSYNC_KEY_AUTH, 1, NULL) == -EINVAL && ncalls == 0,
	   "join_keyed: a bad mode or no secret is refused before anything is set");
	fail_name = GSYNC_KEY;
	fail_errno = ENOPROTOOPT;
	ok(gsync_join_keyed(FAKE_FD, &c, GSYNC_KEY_AUTH, 1, secret) == -ENOPROTOOPT &&
	   ncalls == 1, "join_keyed: a refused key stops before GSYNC_JOIN");
	reset();
	fail_name = GSYNC_JOIN;
	fail_errno = ENOKEY;
	ok(gsync_join_keyed(FAKE_FD, &c, GSYNC_KEY_AUTH, 1, secret) == -ENOKEY,
	   "join_keyed: JOIN's errno comes back");
}

static void joined(unsigned int mode, uint32_t epoch, uint32_t next, uint64_t next_seq)
{
	memset(&fake_info, 0, sizeof(fake_info));
	fake_info.state = GSYNC_STATE_JOINED;
	fake_info.nranks = 3;
	fake_info.next_seq = next_seq;
	fake_info.key_mode = mode;
	fake_info.key_epoch = epoch;
	fake_info.key_next_epoch = next;
}

static void test_rotate(void)
{
	joined(GSYNC_KEY_AUTH, 3, 0, 100);
	reset();
	ok(gsync_rotate_key(FAKE_FD, 4, 1000, secret) == 0 && ncalls == 1 &&
	   is_key(0, GSYNC_KEY_AUTH, 4, 1000),
	   "rotate: GSYNC_KEY with the group's mode (auth), the epoch and start_seq");
	reset();
	ok(gsync_rotate_key(FAKE_FD, 4, 100, secret) == 0 && is_key(0, GSYNC_KEY_AUTH, 4, 100),
	   "rotate: start_seq == next_seq (not submitted yet) is accepted");
	reset();
	ok(gsync_rotate_key(FAKE_FD, 4, 99, secret) == -ERANGE && ncalls == 0,
	   "rotate: start_seq below next_seq is -ERANGE, no syscall");
	ok(gsync_rotate_key(FAKE_FD, 3, 1000, secret) == -EINVAL && ncalls == 0,
	   "rotate: an epoch not above the current is -EINVAL");
	joined(GSYNC_KEY_ENCRYPT, 3, 4, 100);
	ok(gsync_rotate_key(FAKE_FD, 5, 1000, secret) == -EBUSY && ncalls == 0,
	   "rotate: with a rotation pending (key_next_epoch) -EBUSY");
	joined(GSYNC_KEY_NONE, 0, 0, 100);
	ok(gsync_rotate_key(FAKE_FD, 1, 1000, secret) == -EISCONN && ncalls == 0,
	   "rotate: a group joined without a key is -EISCONN");
	joined(GSYNC_KEY_ENCRYPT, 1, 0, 1);
	fake_info.state = GSYNC_STATE_UNCONFIGURED;
	ok(gsync_rotate_key(FAKE_FD, 2, 1000, secret) == -ENOTCONN && ncalls == 0,
	   "rotate: before GSYNC_JOIN is -ENOTCONN (that would be a first key)");
	joined(GSYNC_KEY_ENCRYPT, 1, 0, 1);
	ok(gsync_rotate_key(FAKE_FD, 2, 1000, NULL) == -EINVAL && ncalls == 0,
	   "rotate: no secret is -EINVAL");
	fail_name = GSYNC_KEY;
	fail_errno = ERANGE;
	ok(gsync_rotate_key(FAKE_FD, 2, 5, secret) == -ERANGE && is_key(0, GSYNC_KEY_ENCRYPT, 2, 5),
	   "rotate: the kernel has the last word (its -ERANGE comes back)");
	ok(gsync_rotate_key(-1, 2, 5, secret) == -EBADF, "rotate on a bad descriptor is -EBADF");
}

int main(void)
{
	test_set_key();
	test_join_keyed();
	test_rotate();
	return tap_done();
}
