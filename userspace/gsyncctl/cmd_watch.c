// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gsyncctl watch: sample /proc/net/gsync every --interval seconds and print
 * per-socket rates over the last interval. Sockets are matched between
 * samples by id and inode; one that appears is shown from its second
 * sample on, one whose counters went backwards (cannot happen for one
 * socket) shows "-". On a terminal each sample replaces the previous one.
 * Where the module has them, two gauges of the sample follow the rates:
 * the rate the socket sends at now (send_rate) and the slowest
 * receiver's round trip (rtt_ms, "-" while unknown); an older module's
 * output has neither column.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "sockets.h"

/* Counters sampled, in the order of the rate columns. */
static const char *const cols[] = {
	"ops_completed", "ops_failed", "tx_bytes", "rx_bytes", "tx_packets",
	"rx_packets", "nacks_sent", "retransmits",
};
#define NC (sizeof(cols) / sizeof(cols[0]))
static const char *const heads[NC + 1] = {
	"OPS/s", "FAILED/s", "TX_MB/s", "RX_MB/s", "TX_PKT/s", "RX_PKT/s",
	"NACKS/s", "RETX/s", "DROPS/s",
};

static const char *const required[] = {
	"id", "inode", "state", "group", "rank", "nranks", "inflight",
	"ops_completed", "ops_failed", "tx_bytes", "rx_bytes", "tx_packets",
	"rx_packets", "nacks_sent", "retransmits", NULL,
};

struct sample {
	uint64_t id, inode;
	uint64_t v[NC + 1];	/* cols, then the sum of the drop_* columns */
};

struct snap {
	struct sample *s;
	unsigned int n;
};

static uint64_t drops(const struct table *t, unsigned int r)
{
	uint64_t sum = 0, v;
	unsigned int k;

	for (k = 0; k < t->ncols; k++)
		if (!strncmp(t->cols[k], "drop_", 5) &&
		    !parse_dec_u64(table_cell(t, r, k), &v))
			sum += v;
	return sum;
}

/*
 * Sample N. With the hidden --test-clock, sample N is read from the
 * fixture directory PROC_DIR/N, so tests get changing counters without
 * racing the clock.
 */
static int take(const struct ctx *c, uint64_t n, struct table *t,
		struct snap *sn)
{
	char dir[4096];
	unsigned int r, i;
	int rc;

	if (c->test_clock && c->proc_dir) {
		snprintf(dir, sizeof(dir), "%s/%llu", c->proc_dir,
			 (unsigned long long)n);
		rc = sockets_load(t, dir);
	} else {
		rc = sockets_load(t, c->proc_dir);
	}

	if (rc)
		return rc;
	if ((rc = require_cols(t, required, "watch"))) {
		table_free(t);
		return rc;
	}
	sn->s = calloc(t->nrows ? t->nrows : 1, sizeof(*sn->s));
	if (!sn->s) {
		table_free(t);
		fprintf(stderr, "gsyncctl: out of memory\n");
		return EXIT_ERR;
	}
	sn->n = t->nrows;
	for (r = 0; r < t->nrows; r++) {
		sn->s[r].id = cell_u64(t, r, "id");
		sn->s[r].inode = cell_u64(t, r, "inode");
		for (i = 0; i < NC; i++)
			sn->s[r].v[i] = cell_u64(t, r, cols[i]);
		sn->s[r].v[NC] = drops(t, r);
	}
	return EXIT_OK;
}

static const struct sample *find(const struct snap *sn, const struct sample *s)
{
	unsigned int i;

	for (i = 0; i < sn->n; i++)
		if (sn->s[i].id == s->id && sn->s[i].inode == s->inode)
			return &sn->s[i];
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pause_until(double t)
{
	double d;
	struct timespec ts;

	while ((d = t - now()) > 0) {
		ts.tv_sec = (time_t)d;
		ts.tv_nsec = (long)((d - ts.tv_sec) * 1e9);
		if (nanosleep(&ts, NULL) && errno != EINTR)
			return;
	}
}

static void print(const struct ctx *c, const struct table *t,
		  const struct snap *prev, const struct snap *cur, double dt,
		  int tty)
{
	int rate = table_col(t, "send_rate"), rtt = table_col(t, "rtt_ms");
	unsigned int r, i, shown = 0;
	char rank[32];
	uint64_t v;

	if (tty)
		fputs("\033[H\033[2J", stdout);
	printf("gsync sockets%s%s: rates over %.1f s\n", c->netns ? " in " : "",
	       c->netns ? c->netns : "", dt);
	printf("%-6s %-18s %-7s %8s", "ID", "GROUP", "RANK", "INFLIGHT");
	for (i = 0; i <= NC; i++)
		printf(" %9s", heads[i]);
	if (rate >= 0)
		printf(" %9s", "RATE_MB/s");
	if (rtt >= 0)
		printf(" %6s", "RTT_MS");
	putchar('\n');
	for (r = 0; r < t->nrows; r++) {
		const struct sample *s = &cur->s[r], *p = find(prev, s);

		if (!row_selected(c, t, r) || !p ||
		    !strcmp(cell_str(t, r, "state"), "unconfigured"))
			continue;
		shown++;
		snprintf(rank, sizeof(rank), "%s/%s", cell_str(t, r, "rank"),
			 cell_str(t, r, "nranks"));
		printf("%-6s %-18s %-7s %8s", cell_str(t, r, "id"),
		       cell_str(t, r, "group"), rank, cell_str(t, r, "inflight"));
		for (i = 0; i <= NC; i++) {
			double d = (double)(s->v[i] - p->v[i]) / dt;

			if (s->v[i] < p->v[i])
				printf(" %9s", "-");
			else if (i == 2 || i == 3)	/* bytes: MB/s */
				printf(" %9.3f", d / 1e6);
			else
				printf(" %9.1f", d);
		}
		/* gauges: the value now, not a difference */
		if (rate >= 0 && parse_dec_u64(table_cell(t, r, rate), &v) == 0)
			printf(" %9.3f", (double)v / 1e6);
		else if (rate >= 0)
			printf(" %9s", "-");
		if (rtt >= 0 && parse_dec_u64(table_cell(t, r, rtt), &v) == 0 && v)
			printf(" %6llu", (unsigned long long)v);
		else if (rtt >= 0)
			printf(" %6s", "-");
		putchar('\n');
	}
	if (!shown)
		printf("(no gsync sockets in a group%s)\n",
		       c->have_id ? " with that id" : "");
	if (!tty)
		putchar('\n');
	fflush(stdout);
}

int cmd_watch(const struct ctx *c)
{
	struct snap prev = { NULL, 0 }, cur;
	struct table t;
	double next, last, at;
	uint64_t done = 0;
	int rc, tty = isatty(STDOUT_FILENO);

	if ((rc = take(c, 0, &t, &prev)))
		return rc;
	table_free(&t);
	last = now();
	next = last + c->interval;
	while (!c->have_count || done < c->count) {
		pause_until(next);
		rc = take(c, done + 1, &t, &cur);
		if (rc)
			break;
		at = now();
		/* Rates over the time actually elapsed (--test-clock: nominal). */
		print(c, &t, &prev, &cur, c->test_clock ? c->interval : at - last, tty);
		table_free(&t);
		free(prev.s);
		prev = cur;
		last = at;
		next += c->interval;
		if (next < at)	/* fell behind (a slow read): do not burst */
			next = at + c->interval;
		done++;
	}
	free(prev.s);
	return rc;
}
