/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * tap.h - minimal TAP output for gsync's C/C++ test programs.
 * Each test case prints exactly one "ok N - desc" / "not ok N - desc" line
 * at column 0; diagnostics go on "# " lines.  tap_done() returns the exit
 * status (non-zero if any case failed).
 */
#ifndef GSYNC_TAP_H
#define GSYNC_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

/* Report one test case; returns ok so callers can chain diagnostics. */
static inline int tap_result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		tap_failed++;
	return ok;
}

static inline void tap_skip(const char *reason, const char *fmt, ...)
{
	va_list ap;

	printf("ok %d - ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", reason);
	fflush(stdout);
}

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline int tap_done(void)
{
	return tap_failed ? 1 : 0;
}

#endif /* GSYNC_TAP_H */
