// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * GSYNC_SCHEDULE_PUSH from the command line: find the family number with
 * libgsync's gsync_family_at() (the tools link libgsync.a), open a socket,
 * push, and turn every errno the kernel documents into a sentence.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gsync.h"
#include <linux/gsync_sched.h>
#include "sched_push.h"

static const char *why(int err)
{
	switch (err) {
	case ENOENT:
		return "no socket of it is joined in this network namespace "
		       "(gsyncctl show lists them; --netns NAME picks another "
		       "namespace)";
	case EPERM:
	case EACCES:
		return "permission denied: pushing a schedule needs CAP_NET_ADMIN "
		       "in the network namespace (run as root)";
	case EINVAL:
		return "the kernel refused the schedule as invalid; the kernel "
		       "log says why (dmesg | grep gsync)";
	case ENOPROTOOPT:
		return "the loaded gsync module does not know GSYNC_SCHEDULE_PUSH "
		       "(a module older than this tool?)";
	case EOPNOTSUPP:
		return "the group runs without multicast (GSYNC_JOIN_UNICAST) and "
		       "the schedule multicasts: export it with --no-multicast";
	case ERANGE:
		return "start_seq is behind the group's next sequence number "
		       "(NEXT_SEQ in gsyncctl show); use a later one, or 0 for "
		       "the next operation";
	default:
		return NULL;
	}
}

void sched_target_name(uint64_t group, unsigned int rank, char *buf, size_t n)
{
	if (rank == GSYNC_SCHED_ANY_RANK)
		snprintf(buf, n, "group 0x%" PRIx64, group);
	else
		snprintf(buf, n, "group 0x%" PRIx64 ", rank %u", group, rank);
}

int push_socket_open(const char *family_file, char *err, size_t errlen)
{
	int fam = gsync_family_at(family_file ? family_file : GSYNC_FAMILY_PATH);
	int fd;

	if (fam == -ENOENT && family_file) {
		snprintf(err, errlen, "%s does not exist: the gsync kernel module "
			 "is not loaded", family_file);
		return -SCHED_PUSH_NOMODULE;
	}
	if (fam < 0) {
		snprintf(err, errlen, "%s", gsync_family_error(fam));
		return fam == -ENOENT ? -SCHED_PUSH_NOMODULE : -SCHED_PUSH_FAILED;
	}
	fd = socket(fam, GSYNC_SOCK_TYPE | SOCK_CLOEXEC, 0);
	if (fd >= 0)
		return fd;
	if (errno == EAFNOSUPPORT) {
		snprintf(err, errlen, "address family %d is not registered: the "
			 "gsync kernel module is not loaded", fam);
		return -SCHED_PUSH_NOMODULE;
	}
	snprintf(err, errlen, "cannot open an AF_GSYNC socket (family %d): %s",
		 fam, strerror(errno));
	return -SCHED_PUSH_FAILED;
}

int sched_push(const char *family_file, uint64_t group, unsigned int rank,
	       const void *blob, size_t len, char *err, size_t errlen)
{
	struct gsync_sched_push *p;
	char target[64];
	int fd, rc = SCHED_PUSH_OK, e;

	fd = push_socket_open(family_file, err, errlen);
	if (fd < 0)
		return -fd;
	p = calloc(1, sizeof(*p) + len);
	if (!p) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return SCHED_PUSH_FAILED;
	}
	p->group_id = group;
	p->rank = (__u16)rank;
	if (len)
		memcpy(p + 1, blob, len);
	if (setsockopt(fd, SOL_GSYNC, GSYNC_SCHEDULE_PUSH, p,
		       (socklen_t)(sizeof(*p) + len))) {
		e = errno;
		sched_target_name(group, rank, target, sizeof(target));
		if (why(e))
			snprintf(err, errlen, "%s: %s", target, why(e));
		else
			snprintf(err, errlen, "%s: %s", target, strerror(e));
		rc = SCHED_PUSH_FAILED;
	}
	free(p);
	close(fd);
	return rc;
}

static int parse_u64(const char *s, int base, uint64_t *out)
{
	char *end;

	/* strtoull would take blanks, signs and an empty string */
	if (!(base == 16 ? isxdigit((unsigned char)*s) : isdigit((unsigned char)*s)))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, base);
	return errno || *end ? -1 : 0;
}

int sched_parse_group(const char *s, uint64_t *group)
{
	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		return s[2] ? parse_u64(s + 2, 16, group) : -1;
	return parse_u64(s, 10, group);
}

int sched_parse_rank(const char *s, unsigned int *rank)
{
	uint64_t v;

	if (parse_u64(s, 10, &v) || v >= GSYNC_SCHED_ANY_RANK)
		return -1;
	*rank = (unsigned int)v;
	return 0;
}

int sched_parse_target(const char *s, uint64_t *group, unsigned int *rank)
{
	const char *colon = strchr(s, ':');
	char buf[64];

	*rank = GSYNC_SCHED_ANY_RANK;
	if (!colon)
		return sched_parse_group(s, group);
	if ((size_t)(colon - s) >= sizeof(buf))
		return -1;
	memcpy(buf, s, (size_t)(colon - s));
	buf[colon - s] = '\0';
	return sched_parse_group(buf, group) || sched_parse_rank(colon + 1, rank) ? -1 : 0;
}
