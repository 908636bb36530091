/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Minimal TAP for the unit tests: each check prints exactly one line,
 * "ok N - description" or "not ok N - description", at column 0 (the
 * project's tests/check counts those lines). tap_done() is the exit status.
 */
#ifndef LIBGSYNC_TAP_H
#define LIBGSYNC_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3)))
static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		tap_failed++;
	return cond;
}

__attribute__((format(printf, 1, 2)))
static inline void skip(const char *fmt, ...)
{
	va_list ap;

	printf("ok %d - ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* "# ..." diagnostics: TAP comments, ignored by counters. */
#define diag(...) (printf("# " __VA_ARGS__), putchar('\n'))

static inline int tap_done(void)
{
	return tap_failed ? 1 : 0;
}

#endif
