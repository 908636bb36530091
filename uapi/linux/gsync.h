/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gsync: all-reduce of training buffers between compute islands over a WAN.
 *
 * User-space ABI of the AF_GSYNC socket family. This header is what training
 * code, libgsync and gsyncctl compile against.
 *
 * Address family number
 * ---------------------
 * An out-of-tree module cannot be given a new AF_* number: the kernel's
 * sock_register() accepts only numbers below AF_MAX (46 on 6.1 and 6.12).
 * gsync therefore borrows a number that no in-tree family registers. The
 * default is GSYNC_AF_DEFAULT; the administrator may load the module with
 * family=N (one of GSYNC_AF_ALLOWED). Programs must not hard-code the number:
 * read it from GSYNC_FAMILY_PATH (a decimal integer followed by a newline),
 * or use libgsync, which does.
 */
#ifndef _UAPI_LINUX_GSYNC_H
#define _UAPI_LINUX_GSYNC_H

/* Default address family (AF_WANPIPE's number; no in-tree family uses it). */
#define GSYNC_AF_DEFAULT	25

/* Every number the module accepts for family=, as a C initializer list. */
#define GSYNC_AF_ALLOWED	{ 13, 14, 18, 19, 22, 25 }

/* Where the family number in use is published once the module is loaded. */
#define GSYNC_FAMILY_PATH	"/sys/module/gsync/parameters/family"

/* Per network namespace: one line per open AF_GSYNC socket. */
#define GSYNC_PROC_SOCKETS	"/proc/net/gsync"
/* Per network namespace: "name value" counter lines. */
#define GSYNC_PROC_STATS	"/proc/net/gsync_stats"

/* The only socket type: one message is one operation. */
#define GSYNC_SOCK_TYPE		5	/* SOCK_SEQPACKET */

/* Socket option level for setsockopt()/getsockopt(). */
#define SOL_GSYNC		299

#endif /* _UAPI_LINUX_GSYNC_H */
