/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Entering a network namespace by ip-netns name or path (gsyncctl
 * --netns; gsync-sched --apply --netns compiles this file too). */
#ifndef GSYNCCTL_NETNS_H
#define GSYNCCTL_NETNS_H

/*
 * NAME: "foo" means /run/netns/foo (ip netns add); a name with a '/' is a
 * path such as /proc/PID/ns/net. Needs CAP_SYS_ADMIN. Returns 0, or -1
 * after printing "PROG: why" to stderr.
 */
int netns_enter(const char *prog, const char *name);

#endif
