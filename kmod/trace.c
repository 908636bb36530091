// SPDX-License-Identifier: GPL-2.0
/*
 * Defines gsync's tracepoints (trace.h): this file is the one that reads
 * trace.h with CREATE_TRACE_POINTS; the callers only include it. No state,
 * no locking of its own (see trace.h for the callers' context).
 */
#define CREATE_TRACE_POINTS
#include "trace.h"

/* The last drop reason is the last one trace.h names. */
static_assert(GSYNC_DROP_EPOCH + 1 == GSYNC_DROP_MAX);
