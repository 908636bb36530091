/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Pushing a schedule blob into the sockets of a group:
 * setsockopt(SOL_GSYNC, GSYNC_SCHEDULE_PUSH) on a fresh AF_GSYNC socket of
 * the current network namespace (uapi/linux/gsync_sched.h). Used by
 * gsyncctl schedule load/clear and gsync-sched --apply.
 */
#ifndef GSYNCCTL_SCHED_PUSH_H
#define GSYNCCTL_SCHED_PUSH_H

#include <stddef.h>
#include <stdint.h>

enum { SCHED_PUSH_OK = 0, SCHED_PUSH_NOMODULE = 1, SCHED_PUSH_FAILED = 2 };

/*
 * An AF_GSYNC socket to push through (family from family_file, default
 * GSYNC_FAMILY_PATH): fd, or -SCHED_PUSH_NOMODULE / -SCHED_PUSH_FAILED with
 * the reason in err. Shared by the schedule and key pushes.
 */
int push_socket_open(const char *family_file, char *err, size_t errlen);

/*
 * Load BLOB (LEN bytes) into every socket joined to GROUP (and of RANK,
 * unless it is GSYNC_SCHED_ANY_RANK); BLOB NULL and LEN 0 return them to
 * the default schedule. FAMILY_FILE: where the family number is published
 * (NULL: GSYNC_FAMILY_PATH; tests point it elsewhere). Returns a
 * SCHED_PUSH_* value; on failure ERR says why in words (no prefix).
 */
int sched_push(const char *family_file, uint64_t group, unsigned int rank,
	       const void *blob, size_t len, char *err, size_t errlen);

/* Group id: decimal or 0x-hex, 64 bits. 0 or -1. */
int sched_parse_group(const char *s, uint64_t *group);
/* Rank: decimal below GSYNC_SCHED_ANY_RANK. 0 or -1. */
int sched_parse_rank(const char *s, unsigned int *rank);
/* "GROUP" or "GROUP:RANK"; *rank is GSYNC_SCHED_ANY_RANK without one. */
int sched_parse_target(const char *s, uint64_t *group, unsigned int *rank);

/* "group 0x2a" or "group 0x2a, rank 3", for messages */
void sched_target_name(uint64_t group, unsigned int rank, char *buf, size_t n);

#endif
