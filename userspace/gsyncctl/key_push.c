// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * GSYNC_KEY_PUSH from the command line: find the family number with
 * libgsync's gsync_family_at(), open a socket, push the key, and turn
 * every errno the kernel documents for GSYNC_KEY and GSYNC_KEY_PUSH into
 * a sentence. The option value holds the secret: it is erased once the
 * kernel has it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gsync.h"
#include "key_push.h"
#include "sched_push.h"

const char *key_push_why(int err)
{
	switch (err) {
	case ENOENT:
		return "no socket of it is joined in this network namespace "
		       "(gsyncctl key show lists them; --netns NAME picks another "
		       "namespace)";
	case EPERM:
	case EACCES:
		return "permission denied: setting a group's key needs "
		       "CAP_NET_ADMIN in the network namespace (run as root)";
	case EINVAL:
		return "refused: the epoch is not above the group's current one, "
		       "or --mode is not the group's (gsyncctl key show says "
		       "both)";
	case EISCONN:
		return "the group was joined without a key, and an unkeyed group "
		       "cannot become keyed: restart it with a key";
	case EBUSY:
		return "a rotation is still pending (its previous epoch is not "
		       "erased yet): try again once the group has run past it";
	case ERANGE:
		return "start_seq was already submitted by a socket of the group "
		       "(NEXT_SEQ in gsyncctl show): use a later one";
	case ENOMEM:
		return "the kernel has no memory for the key";
	case ENOPROTOOPT:
		return "the loaded gsync module does not know GSYNC_KEY_PUSH "
		       "(a module older than this tool?)";
	default:
		return NULL;
	}
}

static void target_name(const struct key_push_req *r, char *buf, size_t n)
{
	if (r->rank == GSYNC_KEY_ANY_RANK)
		snprintf(buf, n, "group 0x%" PRIx64, r->group);
	else
		snprintf(buf, n, "group 0x%" PRIx64 ", rank %u", r->group, r->rank);
}

/* The push socket of sched_push.c: same codes (asserted below). */
_Static_assert((int)KEY_PUSH_NOMODULE == (int)SCHED_PUSH_NOMODULE &&
	       (int)KEY_PUSH_FAILED == (int)SCHED_PUSH_FAILED, "push codes differ");

int key_push(const char *family_file, const struct key_push_req *r,
	     char *err, size_t errlen)
{
	struct gsync_key_push p;
	char target[64];
	int fd, rc = KEY_PUSH_OK, e;

	fd = push_socket_open(family_file, err, errlen);
	if (fd < 0)
		return -fd;
	memset(&p, 0, sizeof(p));	/* reserved fields must be 0 */
	p.group_id = r->group;
	p.rank = (__u16)r->rank;
	p.key.mode = r->mode;
	p.key.epoch = r->epoch;
	p.key.start_seq = r->start_seq;
	memcpy(p.key.secret, r->secret, GSYNC_KEY_LEN);
	if (setsockopt(fd, SOL_GSYNC, GSYNC_KEY_PUSH, &p, sizeof(p))) {
		e = errno;
		target_name(r, target, sizeof(target));
		snprintf(err, errlen, "%s: %s", target,
			 key_push_why(e) ? key_push_why(e) : strerror(e));
		rc = KEY_PUSH_FAILED;
	}
	explicit_bzero(&p, sizeof(p));
	close(fd);
	return rc;
}
