// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Enter a network namespace. /proc/net is /proc/self/net, which follows
 * the calling task's namespace, so after setns() the same paths show the
 * other namespace, and sockets opened afterwards live in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "netns.h"

int netns_enter(const char *prog, const char *name)
{
	char path[4096];
	int fd;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: network namespace '%s': %s%s\n", prog, name,
			strerror(errno), errno == ENOENT ?
			" (no such namespace; see ip netns list)" : "");
		return -1;
	}
	if (setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "%s: cannot enter network namespace '%s': "
			"%s%s\n", prog, name, strerror(errno), errno == EPERM ?
			" (needs CAP_SYS_ADMIN: run as root)" : "");
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}
