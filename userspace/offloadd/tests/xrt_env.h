/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * xrt_env.h - test helper: XRT 2.13 refuses to start without XILINX_XRT and
 * then looks for its shim libraries (libxrt_noop.so, ...) in
 * $XILINX_XRT/lib, while Debian installs them in the multiarch directory.
 * Create a throw-away directory whose lib/ links there (never committed)
 * and point XILINX_XRT at it.  XRT_LIBDIR comes from the Makefile.
 */
#ifndef GSYNC_TEST_XRT_ENV_H
#define GSYNC_TEST_XRT_ENV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef XRT_LIBDIR
#define XRT_LIBDIR "/usr/lib/x86_64-linux-gnu"
#endif

static char xrt_env_dir[64];
static char xrt_env_link[96];

static inline void xrt_env_cleanup(void)
{
	if (xrt_env_link[0])
		unlink(xrt_env_link);
	if (xrt_env_dir[0])
		rmdir(xrt_env_dir);
}

/* Returns 0 on success; the directory is removed at exit. */
static inline int xrt_env_setup(void)
{
	strcpy(xrt_env_dir, "/tmp/gsync-xrt-XXXXXX");
	if (!mkdtemp(xrt_env_dir))
		return -1;
	snprintf(xrt_env_link, sizeof(xrt_env_link), "%s/lib", xrt_env_dir);
	if (symlink(XRT_LIBDIR, xrt_env_link))
		return -1;
	atexit(xrt_env_cleanup);
	return setenv("XILINX_XRT", xrt_env_dir, 1);
}

#endif /* GSYNC_TEST_XRT_ENV_H */
