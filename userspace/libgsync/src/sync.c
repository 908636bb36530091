// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Blocking path: one sendmsg() and one recvmsg() per operation, plus the
 * getsockopt/setsockopt wrappers. This is what the Python tests do with
 * plain socket calls; the library only saves building the messages.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

GSYNC_EXPORT int gsync_send_op(int fd, uint64_t seq, const void *buf,
			       size_t len, unsigned int dtype, unsigned int op,
			       int flags)
{
	union gsync_op_ctl ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	ssize_t n;
	int err = gsync_check_op(dtype, op, len);

	if (err || !buf)
		return -EINVAL;
	err = gsync_cmsg_put_op(&msg, seq, dtype, op);
	if (err)
		return err;
	do {
		n = sendmsg(fd, &msg, flags | MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* SOCK_SEQPACKET: all or nothing; a short count means a broken kernel. */
	return (size_t)n == len ? 0 : -EBADMSG;
}

GSYNC_EXPORT int gsync_recv_result(int fd, void *buf, size_t len,
				   struct gsync_op_result *res, int flags)
{
	union gsync_result_ctl ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	ssize_t n;
	int err;

	if (!res || (!buf && len))
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	do {
		n = recvmsg(fd, &msg, flags);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	err = gsync_cmsg_get_result(&msg, res);
	if (err)
		return err;
	if (msg.msg_flags & MSG_TRUNC)
		return -EMSGSIZE;
	return 0;
}

GSYNC_EXPORT int gsync_allreduce(int fd, uint64_t seq, const void *sendbuf,
				 void *recvbuf, size_t len, unsigned int dtype,
				 unsigned int op, int *status)
{
	struct gsync_op_result res;
	int rc;

	/* Check before sending: a failure after it leaves an op in flight. */
	rc = recvbuf ? 0 : -EINVAL;
	if (!rc)
		rc = gsync_send_op(fd, seq, sendbuf, len, dtype, op, 0);
	if (!rc)
		rc = gsync_recv_result(fd, recvbuf, len, &res, 0);
	if (!rc && res.seq != seq)
		rc = -EBADMSG;
	if (!rc && res.status == 0 && res.len != len)
		rc = -EBADMSG;
	if (!rc && res.status < 0)
		rc = -EBADMSG;	/* the ABI says positive; never trust blindly */
	if (rc) {
		if (status)
			*status = -rc;
		return rc;
	}
	if (status) {
		*status = res.status;
		return 0;
	}
	return -res.status;
}

/*
 * Get a struct option; a shorter answer (an older module) keeps the tail
 * zero, so new fields read as 0 instead of failing.
 */
static int get_struct(int fd, int name, void *out, size_t size)
{
	socklen_t len = (socklen_t)size;

	memset(out, 0, size);
	if (getsockopt(fd, SOL_GSYNC, name, out, &len))
		return -errno;
	return len == 0 ? -EBADMSG : 0;
}

GSYNC_EXPORT int gsync_get_info(int fd, struct gsync_info *info)
{
	return info ? get_struct(fd, GSYNC_INFO, info, sizeof(*info)) : -EINVAL;
}

GSYNC_EXPORT int gsync_get_stats(int fd, struct gsync_stats *stats)
{
	return stats ? get_struct(fd, GSYNC_STATS, stats, sizeof(*stats))
		     : -EINVAL;
}

GSYNC_EXPORT int gsync_set_pacing_rate(int fd, uint64_t bytes_per_sec)
{
	if (setsockopt(fd, SOL_GSYNC, GSYNC_PACING_RATE, &bytes_per_sec,
		       sizeof(bytes_per_sec)))
		return -errno;
	return 0;
}

GSYNC_EXPORT int gsync_get_pacing_rate(int fd, uint64_t *bytes_per_sec)
{
	socklen_t len = sizeof(*bytes_per_sec);

	if (!bytes_per_sec)
		return -EINVAL;
	*bytes_per_sec = 0;
	if (getsockopt(fd, SOL_GSYNC, GSYNC_PACING_RATE, bytes_per_sec, &len))
		return -errno;
	return len == sizeof(*bytes_per_sec) ? 0 : -EBADMSG;
}
