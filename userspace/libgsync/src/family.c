// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Finding the address family of the loaded module, and opening sockets.
 * The number is not a compile-time constant (see <linux/gsync.h>): the
 * module publishes it in sysfs, so it is read at run time.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gsync.h"
#include "export.h"

/* Any sane AF number; sock_register() itself caps it at AF_MAX (< 64). */
#define FAMILY_MAX 1023

GSYNC_EXPORT int gsync_family_at(const char *path)
{
	char buf[32];
	ssize_t n;
	int fd, val = 0;
	ssize_t i;

	if (!path)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = read(fd, buf, sizeof(buf));
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	/* "25\n": digits, then an optional newline, nothing else. */
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n <= 0 || n > 4)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return -EINVAL;
		val = val * 10 + (buf[i] - '0');
	}
	if (val < 1 || val > FAMILY_MAX)
		return -EINVAL;
	return val;
}

GSYNC_EXPORT int gsync_family(void)
{
	return gsync_family_at(GSYNC_FAMILY_PATH);
}

GSYNC_EXPORT const char *gsync_family_error(int err)
{
	switch (err < 0 ? -err : err) {
	case ENOENT:
		return "the gsync kernel module is not loaded ("
		       GSYNC_FAMILY_PATH " does not exist); load gsync.ko "
		       "(insmod gsync.ko or modprobe gsync)";
	case EACCES:
	case EPERM:
		return "cannot read " GSYNC_FAMILY_PATH " (permission denied)";
	case EINVAL:
		return GSYNC_FAMILY_PATH " does not hold a family number "
		       "(module and library disagree on the ABI?)";
	case EAFNOSUPPORT:
		return "the gsync address family is not registered (the module "
		       "was unloaded or is loading)";
	default:
		return "cannot determine the gsync address family";
	}
}

GSYNC_EXPORT int gsync_socket(int flags)
{
	int fam, fd;

	if (flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC))
		return -EINVAL;
	fam = gsync_family();
	if (fam < 0)
		return fam;
	fd = socket(fam, GSYNC_SOCK_TYPE | flags, 0);
	return fd < 0 ? -errno : fd;
}
