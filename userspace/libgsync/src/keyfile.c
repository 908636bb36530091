// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Group secrets and key files, in the manner of WireGuard's wg(8): a key
 * file is the secret in base64 and a newline, readable by its owner only.
 * A file others can read, or that is no regular file, is refused rather
 * than used: a secret that leaked is no secret. Every buffer that held a
 * secret is erased before it is let go.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gsync.h"
#include "export.h"

GSYNC_EXPORT int gsync_key_generate(uint8_t secret[GSYNC_KEY_LEN])
{
	size_t got = 0;
	ssize_t n;

	if (!secret)
		return -EINVAL;
	while (got < GSYNC_KEY_LEN) {
		n = getrandom(secret + got, GSYNC_KEY_LEN - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			explicit_bzero(secret, GSYNC_KEY_LEN);
			return err;
		}
		got += (size_t)n;
	}
	return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Write the key's line to FD (mode 0600 already), sync it, close it. */
static int put_key(int fd, const uint8_t secret[GSYNC_KEY_LEN])
{
	char line[GSYNC_KEY_B64_LEN + 2];
	int rc;

	gsync_key_encode(secret, line);
	line[GSYNC_KEY_B64_LEN] = '\n';
	rc = write_all(fd, line, GSYNC_KEY_B64_LEN + 1);
	explicit_bzero(line, sizeof(line));
	/* umask can only take bits away; this also drops any it left in */
	if (!rc && fchmod(fd, 0600))
		rc = -errno;
	if (!rc && fsync(fd))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

/*
 * Overwriting: a new file beside PATH, renamed over it, so that PATH is
 * either the old key or the whole new one, and never another file's mode.
 */
static int replace_file(const char *path, const uint8_t secret[GSYNC_KEY_LEN])
{
	size_t len = strlen(path);
	char *tmp = malloc(len + sizeof(".XXXXXX"));
	int fd, rc;

	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, path, len);
	memcpy(tmp + len, ".XXXXXX", sizeof(".XXXXXX"));
	fd = mkostemp(tmp, O_CLOEXEC);	/* mode 0600 */
	if (fd < 0) {
		rc = -errno;
		free(tmp);
		return rc;
	}
	rc = put_key(fd, secret);
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

GSYNC_EXPORT int gsync_key_file_write(const char *path,
				      const uint8_t secret[GSYNC_KEY_LEN],
				      unsigned int flags)
{
	int fd, rc;

	if (!path || !*path || !secret || (flags & ~GSYNC_KEY_FILE_OVERWRITE))
		return -EINVAL;
	if (flags & GSYNC_KEY_FILE_OVERWRITE)
		return replace_file(path, secret);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	rc = put_key(fd, secret);
	if (rc)
		unlink(path);	/* ours: O_EXCL made it */
	return rc;
}

GSYNC_EXPORT int gsync_key_file_read(const char *path,
				     uint8_t secret[GSYNC_KEY_LEN])
{
	/* room to tell a file one byte too long from a whole key line */
	char buf[GSYNC_KEY_B64_LEN + 3];
	struct stat st;
	size_t len = 0;
	ssize_t n;
	int fd, rc = 0;

	if (!path || !secret)
		return -EINVAL;
	/* O_NONBLOCK: a FIFO must not hang the open; refused below anyway */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		rc = -errno;
	else if (!S_ISREG(st.st_mode))
		rc = -EINVAL;
	else if (st.st_mode & 077)
		rc = -EACCES;	/* readable or writable by others */
	while (!rc && len < sizeof(buf) - 1) {
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = -errno;
		else if (n == 0)
			break;
		else
			len += (size_t)n;
	}
	close(fd);
	if (!rc) {
		buf[len] = '\0';
		/* a NUL inside would end the text early: refuse that too */
		rc = strlen(buf) == len ? gsync_key_decode(buf, secret) : -EINVAL;
	}
	explicit_bzero(buf, sizeof(buf));
	return rc;
}
