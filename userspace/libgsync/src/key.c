// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Keying a group: GSYNC_KEY before GSYNC_JOIN (the first epoch), or after
 * it (a rotation). The option value holds the secret, so every copy the
 * library makes is erased once the kernel has it; the kernel erases its
 * own. The rules checked here are <linux/gsync.h>'s, for earlier and
 * identical errors; the kernel checks everything again.
 */
#include <errno.h>
#include <string.h>

#include "gsync.h"
#include "export.h"

GSYNC_EXPORT int gsync_set_key(int fd, enum gsync_key_mode mode, uint32_t epoch,
			       uint64_t start_seq,
			       const uint8_t secret[GSYNC_KEY_LEN])
{
	struct gsync_key k;
	int rc = 0;

	if (!secret || (mode != GSYNC_KEY_AUTH && mode != GSYNC_KEY_ENCRYPT))
		return -EINVAL;
	memset(&k, 0, sizeof(k));	/* reserved fields must be 0 */
	k.mode = mode;
	k.epoch = epoch;
	k.start_seq = start_seq;
	memcpy(k.secret, secret, GSYNC_KEY_LEN);
	if (setsockopt(fd, SOL_GSYNC, GSYNC_KEY, &k, sizeof(k)))
		rc = -errno;
	explicit_bzero(&k, sizeof(k));
	return rc;
}

GSYNC_EXPORT int gsync_join_keyed(int fd, const struct gsync_config *cfg,
				  enum gsync_key_mode mode, uint32_t epoch,
				  const uint8_t secret[GSYNC_KEY_LEN])
{
	int rc = gsync_config_validate(cfg);

	/* nothing reaches the kernel unless both would be accepted */
	if (!rc && (!secret || (mode != GSYNC_KEY_AUTH && mode != GSYNC_KEY_ENCRYPT)))
		rc = -EINVAL;
	if (!rc)
		rc = gsync_set_key(fd, mode, epoch, 0, secret);
	return rc ? rc : gsync_join(fd, cfg);
}

GSYNC_EXPORT int gsync_rotate_key(int fd, uint32_t epoch, uint64_t start_seq,
				  const uint8_t secret[GSYNC_KEY_LEN])
{
	struct gsync_info info;
	int rc;

	if (!secret)
		return -EINVAL;
	rc = gsync_get_info(fd, &info);
	if (rc)
		return rc;
	if (info.state == GSYNC_STATE_UNCONFIGURED)
		return -ENOTCONN;	/* before JOIN it would be a first key */
	if (info.key_mode == GSYNC_KEY_NONE)
		return -EISCONN;	/* joined unkeyed: stays unkeyed */
	if (info.key_next_epoch)
		return -EBUSY;		/* a rotation is pending */
	if (epoch <= info.key_epoch)
		return -EINVAL;
	if (start_seq < info.next_seq)
		return -ERANGE;		/* already submitted here */
	return gsync_set_key(fd, (enum gsync_key_mode)info.key_mode, epoch,
			     start_seq, secret);
}
