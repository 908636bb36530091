// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Building GSYNC_CMSG_OP and finding GSYNC_CMSG_RESULT. The parser walks the
 * control buffer itself instead of trusting CMSG_FIRSTHDR/CMSG_NXTHDR
 * alone: glibc's CMSG_FIRSTHDR does not check the first header's cmsg_len
 * against msg_controllen, and a library parsing messages for other people
 * must not read past a buffer whatever it contains.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

int gsync_check_op(unsigned int dtype, unsigned int op, size_t len)
{
	size_t esz = gsync_dtype_size(dtype);

	if (!esz || op >= GSYNC_REDOP_MAX || len == 0 || len % esz)
		return -EINVAL;
	return 0;
}

GSYNC_EXPORT int gsync_cmsg_put_op(struct msghdr *msg, uint64_t seq,
				   unsigned int dtype, unsigned int op)
{
	struct gsync_op_desc d;
	struct cmsghdr *c;

	if (!msg || seq == 0 || !gsync_dtype_size(dtype) ||
	    op >= GSYNC_REDOP_MAX)
		return -EINVAL;
	if (!msg->msg_control || msg->msg_controllen < GSYNC_OP_CMSG_SPACE)
		return -ENOSPC;
	/* Zero the whole space: the padding after the data goes to the kernel. */
	memset(msg->msg_control, 0, GSYNC_OP_CMSG_SPACE);
	c = (struct cmsghdr *)msg->msg_control;
	c->cmsg_level = SOL_GSYNC;
	c->cmsg_type = GSYNC_CMSG_OP;
	c->cmsg_len = CMSG_LEN(sizeof(d));
	memset(&d, 0, sizeof(d));
	d.seq = seq;
	d.dtype = (__u8)dtype;
	d.op = (__u8)op;
	memcpy(CMSG_DATA(c), &d, sizeof(d));
	msg->msg_controllen = GSYNC_OP_CMSG_SPACE;
	return 0;
}

GSYNC_EXPORT int gsync_cmsg_get_result(const struct msghdr *msg,
				       struct gsync_op_result *res)
{
	const char *base, *p, *end;
	int found = 0;

	if (!msg || !res)
		return -EINVAL;
	if (msg->msg_flags & MSG_CTRUNC)
		return -EMSGSIZE;
	if (!msg->msg_control || msg->msg_controllen == 0)
		return -ENOMSG;
	base = msg->msg_control;
	end = base + msg->msg_controllen;
	for (p = base; p < end;) {
		struct cmsghdr h;
		size_t left = (size_t)(end - p);

		/* Trailing bytes too short for a header: treat as malformed. */
		if (left < sizeof(h))
			return -EBADMSG;
		memcpy(&h, p, sizeof(h));
		if (h.cmsg_len < CMSG_LEN(0) || h.cmsg_len > left)
			return -EBADMSG;
		if (h.cmsg_level == SOL_GSYNC && h.cmsg_type == GSYNC_CMSG_RESULT) {
			if (found || h.cmsg_len != CMSG_LEN(sizeof(*res)))
				return -EBADMSG;
			memcpy(res, p + CMSG_LEN(0), sizeof(*res));
			found = 1;
		}
		/* Next header starts at the aligned end; may be exactly end. */
		if (CMSG_ALIGN(h.cmsg_len) >= left)
			break;
		p += CMSG_ALIGN(h.cmsg_len);
	}
	return found ? 0 : -ENOMSG;
}
