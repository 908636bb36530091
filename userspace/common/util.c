/* util.c - small helpers: errors, a seeded RNG (splitmix64, so results are
 * identical on every machine for a given --seed), sizes and times. */
#include "gs.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

void gs_seterr(gs_err *e, const char *fmt, ...)
{
	va_list ap;
	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

uint64_t gs_rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double gs_rng_unit(uint64_t *s)
{
	return (double)(gs_rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

int gs_rng_below(uint64_t *s, int n)
{
	return n <= 1 ? 0 : (int)(gs_rng_next(s) % (uint64_t)n);
}

double gs_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* "256MiB", "1e9", "64k", "2G": k/M/G are decimal, KiB/MiB/GiB binary. */
int gs_parse_size(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || !(v > 0))
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	double mul = 1;
	if (!*end || !strcmp(end, "B"))
		mul = 1;
	else if (!strcasecmp(end, "k") || !strcasecmp(end, "kB"))
		mul = 1e3;
	else if (!strcasecmp(end, "M") || !strcasecmp(end, "MB"))
		mul = 1e6;
	else if (!strcasecmp(end, "G") || !strcasecmp(end, "GB"))
		mul = 1e9;
	else if (!strcasecmp(end, "KiB"))
		mul = 1024.0;
	else if (!strcasecmp(end, "MiB"))
		mul = 1024.0 * 1024;
	else if (!strcasecmp(end, "GiB"))
		mul = 1024.0 * 1024 * 1024;
	else
		return -1;
	*out = v * mul;
	return 0;
}

void gs_fmt_time(double s, char *buf, size_t n)
{
	if (s >= 1)
		snprintf(buf, n, "%.3f s", s);
	else if (s >= 1e-3)
		snprintf(buf, n, "%.2f ms", s * 1e3);
	else
		snprintf(buf, n, "%.1f us", s * 1e6);
}

void gs_fmt_size(double b, char *buf, size_t n)
{
	if (b >= 1024.0 * 1024 * 1024)
		snprintf(buf, n, "%.3g GiB", b / (1024.0 * 1024 * 1024));
	else if (b >= 1024.0 * 1024)
		snprintf(buf, n, "%.3g MiB", b / (1024.0 * 1024));
	else if (b >= 1024.0)
		snprintf(buf, n, "%.3g KiB", b / 1024.0);
	else
		snprintf(buf, n, "%.0f B", b);
}

void *gs_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "gsync-sched: out of memory\n");
		exit(GS_EXIT_FAIL);
	}
	return p;
}

void *gs_xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);
	if (!p) {
		fprintf(stderr, "gsync-sched: out of memory\n");
		exit(GS_EXIT_FAIL);
	}
	return p;
}

void *gs_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "gsync-sched: out of memory\n");
		exit(GS_EXIT_FAIL);
	}
	return p;
}

char *gs_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = gs_xmalloc(n);
	memcpy(d, s, n);
	return d;
}
