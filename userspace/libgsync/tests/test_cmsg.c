// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Control messages: GSYNC_CMSG_OP as the kernel will read it, and the
 * GSYNC_CMSG_RESULT parser fed well-formed, truncated and hostile buffers.
 * Each hostile buffer is heap-allocated at its exact size so that ASan
 * catches any read past it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gsync.h"
#include "tap.h"

/* Append one cmsg (level, type, data of dlen, claimed cmsg_len) at *off. */
static void put(char *buf, size_t *off, int level, int type, const void *data,
		size_t dlen, size_t claimed)
{
	struct cmsghdr h = { .cmsg_len = claimed, .cmsg_level = level,
			     .cmsg_type = type };

	memcpy(buf + *off, &h, sizeof(h));
	if (dlen)
		memcpy(buf + *off + CMSG_LEN(0), data, dlen);
	*off += CMSG_SPACE(dlen);
}

/* Parse a copy of BUF[0..len) placed in an exact-size heap block. */
static int parse(const char *buf, size_t len, int flags, struct gsync_op_result *r)
{
	struct msghdr m;
	char *copy = len ? malloc(len) : NULL;
	int rc;

	if (len)
		memcpy(copy, buf, len);
	memset(&m, 0, sizeof(m));
	m.msg_control = copy;
	m.msg_controllen = len;
	m.msg_flags = flags;
	rc = gsync_cmsg_get_result(&m, r);
	free(copy);
	return rc;
}

int main(void)
{
	union { char b[256]; struct cmsghdr a; } u;
	struct gsync_op_result res = { .seq = 42, .status = 0, .len = 4096 }, out;
	struct gsync_op_desc d;
	struct cmsghdr *c;
	struct msghdr m;
	size_t off;
	unsigned int i;

	/* ---- GSYNC_CMSG_OP ---- */
	memset(&u, 0xff, sizeof(u));
	memset(&m, 0, sizeof(m));
	m.msg_control = u.b;
	m.msg_controllen = sizeof(u.b);
	ok(gsync_cmsg_put_op(&m, 7, GSYNC_DTYPE_BF16, GSYNC_OP_AVG) == 0 &&
	   m.msg_controllen == GSYNC_OP_CMSG_SPACE, "put_op sets msg_controllen to one cmsg");
	c = CMSG_FIRSTHDR(&m);
	memcpy(&d, CMSG_DATA(c), sizeof(d));
	ok(c && c->cmsg_level == SOL_GSYNC && c->cmsg_type == GSYNC_CMSG_OP &&
	   c->cmsg_len == CMSG_LEN(sizeof(d)), "level SOL_GSYNC, type GSYNC_CMSG_OP, exact cmsg_len");
	ok(d.seq == 7 && d.dtype == GSYNC_DTYPE_BF16 && d.op == GSYNC_OP_AVG &&
	   d.flags == 0 && d.reserved == 0, "descriptor fields, reserved zero");
	ok(CMSG_NXTHDR(&m, c) == NULL, "exactly one control message");
	{
		int clean = 1;

		for (i = CMSG_LEN(sizeof(d)); i < GSYNC_OP_CMSG_SPACE; i++)
			clean &= u.b[i] == 0;
		ok(clean, "padding after the descriptor is zeroed");
	}
	m.msg_controllen = GSYNC_OP_CMSG_SPACE - 1;
	ok(gsync_cmsg_put_op(&m, 7, 0, 0) == -ENOSPC, "a control buffer one byte short is -ENOSPC");
	m.msg_controllen = sizeof(u.b);
	ok(gsync_cmsg_put_op(&m, 0, 0, 0) == -EINVAL, "seq 0 is -EINVAL");
	ok(gsync_cmsg_put_op(&m, 1, GSYNC_DTYPE_MAX, 0) == -EINVAL, "unknown dtype is -EINVAL");
	ok(gsync_cmsg_put_op(&m, 1, 0, GSYNC_REDOP_MAX) == -EINVAL, "unknown op is -EINVAL");
	m.msg_control = NULL;
	ok(gsync_cmsg_put_op(&m, 1, 0, 0) == -ENOSPC, "no control buffer is -ENOSPC");

	/* ---- GSYNC_CMSG_RESULT: good ---- */
	off = 0;
	put(u.b, &off, SOL_GSYNC, GSYNC_CMSG_RESULT, &res, sizeof(res), CMSG_LEN(sizeof(res)));
	ok(parse(u.b, off, 0, &out) == 0 && out.seq == 42 && out.len == 4096,
	   "a single result is parsed");
	ok(parse(u.b, CMSG_LEN(sizeof(res)), 0, &out) == 0,
	   "a result without trailing padding (controllen = CMSG_LEN) is parsed");
	off = 0;
	put(u.b, &off, SOL_SOCKET, 1, "abcd", 4, CMSG_LEN(4));
	put(u.b, &off, SOL_GSYNC, 99, "xxxxxxxx", 8, CMSG_LEN(8));
	put(u.b, &off, SOL_GSYNC, GSYNC_CMSG_RESULT, &res, sizeof(res), CMSG_LEN(sizeof(res)));
	ok(parse(u.b, off, 0, &out) == 0 && out.seq == 42,
	   "a result after unrelated control messages is found");

	/* ---- absent ---- */
	ok(parse(u.b, 0, 0, &out) == -ENOMSG, "no control data is -ENOMSG");
	off = 0;
	put(u.b, &off, SOL_SOCKET, 1, "abcd", 4, CMSG_LEN(4));
	ok(parse(u.b, off, 0, &out) == -ENOMSG, "only other control messages is -ENOMSG");
	off = 0;
	put(u.b, &off, SOL_GSYNC, GSYNC_CMSG_OP, &res, sizeof(res), CMSG_LEN(sizeof(res)));
	ok(parse(u.b, off, 0, &out) == -ENOMSG, "a GSYNC_CMSG_OP is not a result (-ENOMSG)");

	/* ---- hostile ---- */
	off = 0;
	put(u.b, &off, SOL_GSYNC, GSYNC_CMSG_RESULT, &res, sizeof(res), CMSG_LEN(sizeof(res)));
	ok(parse(u.b, off, MSG_CTRUNC, &out) == -EMSGSIZE, "MSG_CTRUNC is -EMSGSIZE");
	ok(parse(u.b, CMSG_LEN(sizeof(res)) - 1, 0, &out) == -EBADMSG,
	   "a result cut one byte short of its cmsg_len is -EBADMSG");
	ok(parse(u.b, sizeof(struct cmsghdr) - 1, 0, &out) == -EBADMSG,
	   "fewer bytes than a cmsghdr is -EBADMSG");
	off = 0;
	put(u.b, &off, SOL_GSYNC, GSYNC_CMSG_RESULT, &res, 8, CMSG_LEN(8));
	ok(parse(u.b, off, 0, &out) == -EBADMSG, "a result payload of 8 bytes is -EBADMSG");
	off = 0;
	put(u.b, &off, SOL_GSYNC, GSYNC_CMSG_RESULT, &res, sizeof(res), CMSG_LEN(sizeof(res)) + 8);
	off += 8;
	ok(parse(u.b, off, 0, &out) == -EBADMSG, "a result payload 8 bytes too long is -EBADMSG");
	off = 0;
	put(u.b, &off, SOL_GSYNC, GSYNC_CMSG_RESULT, &res, sizeof(res), 4096);
	ok(parse(u.b, off, 0, &out) == -EBADMSG, "cmsg_len beyond msg_controllen is -EBADMSG");
	off = 0;
	put(u.b, &off, SOL_GSYNC, GSYNC_CMSG_RESULT, &res, sizeof(res), (size_t)-1);
	ok(parse(u.b, off, 0, &out) == -EBADMSG, "cmsg_len SIZE_MAX is -EBADMSG");
	off = 0;
	put(u.b, &off, SOL_GSYNC, GSYNC_CMSG_RESULT, NULL, 0, 0);
	ok(parse(u.b, off, 0, &out) == -EBADMSG, "cmsg_len 0 (would loop forever) is -EBADMSG");
	off = 0;
	put(u.b, &off, SOL_GSYNC, GSYNC_CMSG_RESULT, NULL, 0, 3);
	ok(parse(u.b, off, 0, &out) == -EBADMSG, "cmsg_len smaller than the header is -EBADMSG");
	off = 0;
	put(u.b, &off, SOL_GSYNC, GSYNC_CMSG_RESULT, &res, sizeof(res), CMSG_LEN(sizeof(res)));
	put(u.b, &off, SOL_GSYNC, GSYNC_CMSG_RESULT, &res, sizeof(res), CMSG_LEN(sizeof(res)));
	ok(parse(u.b, off, 0, &out) == -EBADMSG, "two results are -EBADMSG");
	off = 0;
	put(u.b, &off, SOL_GSYNC, GSYNC_CMSG_RESULT, &res, sizeof(res), CMSG_LEN(sizeof(res)));
	ok(parse(u.b, off + 5, 0, &out) == -EBADMSG, "5 stray bytes after a result are -EBADMSG");
	{
		/* Random garbage: must never crash or read out of bounds. */
		unsigned int seed = 1, crashes_avoided = 0;

		for (i = 0; i < 20000; i++) {
			size_t len = (size_t)(rand_r(&seed) % 96);
			size_t k;
			int rc;

			for (k = 0; k < len; k++)
				u.b[k] = (char)rand_r(&seed);
			/* bias towards plausible headers half of the time */
			if (len >= sizeof(struct cmsghdr) && (i & 1)) {
				struct cmsghdr h = { .cmsg_len = (size_t)(rand_r(&seed) % 80),
						     .cmsg_level = SOL_GSYNC,
						     .cmsg_type = GSYNC_CMSG_RESULT };
				memcpy(u.b, &h, sizeof(h));
			}
			rc = parse(u.b, len, 0, &out);
			crashes_avoided += rc == 0 || rc == -ENOMSG || rc == -EBADMSG;
		}
		ok(crashes_avoided == 20000,
		   "20000 random control buffers give 0, -ENOMSG or -EBADMSG, no overrun");
	}
	memset(&m, 0, sizeof(m));
	ok(gsync_cmsg_get_result(NULL, &out) == -EINVAL && gsync_cmsg_get_result(&m, NULL) == -EINVAL,
	   "NULL arguments are -EINVAL");
	return tap_done();
}
