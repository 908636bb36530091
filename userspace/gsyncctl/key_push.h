/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Rotating the key of a running group from outside it:
 * setsockopt(SOL_GSYNC, GSYNC_KEY_PUSH) on a fresh AF_GSYNC socket of the
 * current network namespace (uapi/linux/gsync.h). Used by gsyncctl key set.
 */
#ifndef GSYNCCTL_KEY_PUSH_H
#define GSYNCCTL_KEY_PUSH_H

#include <stddef.h>
#include <stdint.h>

enum { KEY_PUSH_OK = 0, KEY_PUSH_NOMODULE = 1, KEY_PUSH_FAILED = 2 };

struct key_push_req {
	uint64_t group;
	unsigned int rank;		/* a rank, or GSYNC_KEY_ANY_RANK */
	unsigned int mode;		/* GSYNC_KEY_AUTH or GSYNC_KEY_ENCRYPT */
	uint32_t epoch;
	uint64_t start_seq;
	const uint8_t *secret;		/* GSYNC_KEY_LEN bytes */
};

/*
 * Install R's key in every socket of the namespace joined to its group
 * (and of its rank). FAMILY_FILE: where the family number is published
 * (NULL: GSYNC_FAMILY_PATH; tests point it elsewhere). Returns a
 * KEY_PUSH_* value; on failure ERR says why in words (no prefix). The
 * option's copy of the secret is erased before it returns.
 */
int key_push(const char *family_file, const struct key_push_req *r,
	     char *err, size_t errlen);

/* What errno ERR from GSYNC_KEY_PUSH means, or NULL for strerror's. */
const char *key_push_why(int err);

#endif
