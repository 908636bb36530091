/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The shared library is built with -fvisibility=hidden so that only the API
 * of gsync.h is exported; public definitions carry GSYNC_EXPORT. Kept apart
 * from internal.h so that files without liburing (family.c, names.c) need
 * nothing else.
 */
#ifndef LIBGSYNC_EXPORT_H
#define LIBGSYNC_EXPORT_H
#define GSYNC_EXPORT __attribute__((visibility("default")))
#endif
