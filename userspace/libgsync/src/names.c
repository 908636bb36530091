// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Names of dtypes, reduce ops and drop reasons, and error texts. The names
 * are the ones docs/reduction-semantics.md and /proc/net/gsync use, so that
 * command lines, logs and proc files agree.
 */
#include <errno.h>
#include <string.h>

#include "gsync.h"
#include "export.h"

static const char *const dtype_names[GSYNC_DTYPE_MAX] = {
	[GSYNC_DTYPE_FP32] = "fp32",
	[GSYNC_DTYPE_BF16] = "bf16",
	[GSYNC_DTYPE_FP16] = "fp16",
	[GSYNC_DTYPE_INT32] = "int32",
};

static const char *const op_names[GSYNC_REDOP_MAX] = {
	[GSYNC_OP_SUM] = "sum",
	[GSYNC_OP_AVG] = "avg",
	[GSYNC_OP_MIN] = "min",
	[GSYNC_OP_MAX] = "max",
};

/* The key_mode column of /proc/net/gsync and gsyncctl's --mode. */
static const char *const key_mode_names[GSYNC_KEY_MODE_MAX] = {
	[GSYNC_KEY_NONE] = "none",
	[GSYNC_KEY_AUTH] = "auth",
	[GSYNC_KEY_ENCRYPT] = "encrypt",
};

/* Same spelling as the drop_* columns of /proc/net/gsync, minus "drop_". */
static const char *const drop_names[] = GSYNC_DROP_NAMES;
_Static_assert(sizeof(drop_names) / sizeof(drop_names[0]) == GSYNC_DROP_MAX,
	       "a name per drop reason");

GSYNC_EXPORT const char *gsync_dtype_name(unsigned int dtype)
{
	return dtype < GSYNC_DTYPE_MAX ? dtype_names[dtype] : "?";
}

GSYNC_EXPORT const char *gsync_op_name(unsigned int op)
{
	return op < GSYNC_REDOP_MAX ? op_names[op] : "?";
}

GSYNC_EXPORT const char *gsync_drop_reason_name(unsigned int reason)
{
	return reason < GSYNC_DROP_MAX ? drop_names[reason] : "?";
}

GSYNC_EXPORT const char *gsync_key_mode_name(unsigned int mode)
{
	return mode < GSYNC_KEY_MODE_MAX ? key_mode_names[mode] : "?";
}

static int lookup(const char *const *names, int n, const char *name)
{
	int i;

	if (!name)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -EINVAL;
}

GSYNC_EXPORT int gsync_dtype_parse(const char *name)
{
	return lookup(dtype_names, GSYNC_DTYPE_MAX, name);
}

GSYNC_EXPORT int gsync_op_parse(const char *name)
{
	return lookup(op_names, GSYNC_REDOP_MAX, name);
}

GSYNC_EXPORT int gsync_key_mode_parse(const char *name)
{
	return lookup(key_mode_names, GSYNC_KEY_MODE_MAX, name);
}

GSYNC_EXPORT size_t gsync_dtype_size(unsigned int dtype)
{
	return GSYNC_DTYPE_SIZE(dtype);
}

GSYNC_EXPORT const char *gsync_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return "success";
	case ETIMEDOUT:
		return "a peer the operation waits for sent nothing for "
		       "op_timeout_ms (operation failed)";
	case EKEYREJECTED:
		return "a peer the operation waits for sent only packets that "
		       "do not authenticate: its key differs from this "
		       "rank's, or one of the two has none (operation failed)";
	case EPROTO:
		return "ranks disagreed on length, dtype or op for this "
		       "sequence number (operation failed)";
	case ECONNABORTED:
		return "a peer aborted the operation";
	case EBADMSG:
		return "the received message carried no valid result for this "
		       "operation (library/kernel mismatch?)";
	case ENOMSG:
		return "the received message carried no GSYNC_CMSG_RESULT";
	case ENOTCONN:
		return "the socket has not joined a group (GSYNC_JOIN)";
	case EAFNOSUPPORT:
		return "the gsync address family is not registered "
		       "(is gsync.ko loaded?)";
	case ENOKEY:
		return "this network namespace requires keyed groups "
		       "(net.gsync.require_auth): set a key (gsync_set_key) "
		       "before joining";
	default:
		/* glibc returns static strings for known codes. */
		return strerror(err);
	}
}
