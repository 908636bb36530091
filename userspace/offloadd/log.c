// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * log.c - the agent's log: stderr (foreground), a file (--log-file), or
 * syslog (daemon without --log-file). One line per message, with a
 * timestamp and level outside syslog.
 */
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>
#include <time.h>

#include "agent.h"

static FILE *log_fp;
static int log_syslog;
static int log_level = LOG_INFO_;

int agent_log_open(const struct agent_opts *o, const char *prog)
{
	log_level = o->verbosity;
	if (o->log_file) {
		log_fp = fopen(o->log_file, "a");
		if (!log_fp)
			return -1;
		setvbuf(log_fp, NULL, _IOLBF, 0);
	} else if (o->daemon) {
		openlog(prog, LOG_PID, LOG_DAEMON);
		log_syslog = 1;
	}
	return 0;
}

void agent_log(int level, const char *fmt, ...)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	FILE *f = log_fp ? log_fp : stderr;
	struct timespec ts;
	struct tm tm;
	char when[32];
	va_list ap;

	if (level > log_level || level < 0 || level > LOG_DEBUG_)
		return;
	va_start(ap, fmt);
	if (log_syslog) {
		vsyslog(prio[level], fmt, ap);
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(f, "%s.%03ld gsync-offloadd %s: ", when,
			ts.tv_nsec / 1000000, names[level]);
		vfprintf(f, fmt, ap);
		fputc('\n', f);
	}
	va_end(ap);
}

void agent_log_close(void)
{
	if (log_fp)
		fclose(log_fp);
	log_fp = NULL;
	if (log_syslog)
		closelog();
	log_syslog = 0;
}
