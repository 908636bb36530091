// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gsyncctl stats: the namespace's counters (/proc/net/gsync_stats), its
 * UDP counters of packets to no socket (all UDP, udpstats.c), then every
 * socket's counters, rate control (REPORTs, rate decreases, sending rate
 * and round trip, where the module has them), its key (mode, epoch and
 * fingerprint of a keyed group, where the module has them) and drops by
 * reason. Drop
 * reasons are whatever drop_* columns the module has, so new reasons
 * appear without a new gsyncctl; so do other unknown numeric columns
 * (under "other").
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "sockets.h"

static const char *const required[] = {
	"id", "inode", "state", "group", "rank", "nranks",
	"ops_submitted", "ops_completed", "ops_failed", "tx_bytes",
	"tx_packets", "rx_bytes", "rx_packets", "nacks_sent", "nacks_received",
	"retransmits", "mcast_retransmits", "timeouts", "mismatches", NULL,
};

/* Counters shown per socket, in this order (after the identity line). */
static const char *const counters[] = {
	"ops_submitted", "ops_completed", "ops_failed", "timeouts",
	"mismatches", "tx_bytes", "tx_packets", "rx_bytes", "rx_packets",
	"nacks_sent", "nacks_received", "retransmits", "mcast_retransmits",
	NULL,
};

/*
 * Rate control (module with an adaptive sending rate), shown after the
 * counters where the module has them, left out where it has not: its
 * counters, then the gauges send_rate (bytes/s) and rtt_ms.
 */
static const char *const rate_counters[] = {
	"reports_sent", "reports_received", "rate_decreases",
	"rate_loss_decreases", NULL,
};
static const char *const rate_gauges[] = { "send_rate", "rtt_ms", NULL };

/* Keyed groups (a module that has them): one "key" line per socket. */
static const char *const key_cols[] = {
	"key_mode", "key_epoch", "key_next_epoch", "key_fingerprint", NULL,
};

/* Columns that are identity, not counters (never listed as "other"). */
static const char *const identity[] = {
	"id", "inode", "uid", "state", "group", "rank", "nranks", "next_seq",
	"inflight", NULL,
};

static int in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s))
			return 1;
	return 0;
}

static int is_drop(const char *col)
{
	return !strncmp(col, "drop_", 5) && col[5];
}

static uint64_t drops_total(const struct table *t, unsigned int r)
{
	uint64_t sum = 0;
	unsigned int k;

	for (k = 0; k < t->ncols; k++) {
		uint64_t v = is_drop(t->cols[k]) ? cell_u64(t, r, t->cols[k]) : 0;

		sum = sum > UINT64_MAX - v ? UINT64_MAX : sum + v;	/* saturate */
	}
	return sum;
}

/*
 * Cumulative namespace counters besides counters[] (some are no
 * per-socket column, the rate control ones optional), shown in the
 * file's order after those of counters[]; a line the module lacks is
 * left out.
 */
static const char *const ns_counters[] = {
	"sched_ops", "reduce_jobs", "reports_sent", "reports_received",
	"rate_decreases", "rate_loss_decreases", NULL,
};

/* The namespace totals of every group it has had (/proc/net/gsync_stats). */
static void ns_totals(const struct kv *ns)
{
	unsigned int i, j, n = 0;
	uint64_t drops = 0;
	int any = 0;

	for (i = 0; i < ns->n; i++) {
		n += in_list(counters, ns->names[i]) || in_list(ns_counters, ns->names[i]);
		if (is_drop(ns->names[i]))
			drops = drops > UINT64_MAX - ns->values[i] ? UINT64_MAX :
				drops + ns->values[i];
	}
	if (!n)
		return;
	printf("namespace totals (every group since the namespace was created):\n");
	for (j = 0; counters[j]; j++)
		for (i = 0; i < ns->n; i++)
			if (!strcmp(ns->names[i], counters[j]))
				printf("  %-19s %llu\n", counters[j],
				       (unsigned long long)ns->values[i]);
	for (i = 0; i < ns->n; i++)
		if (in_list(ns_counters, ns->names[i]))
			printf("  %-19s %llu\n", ns->names[i],
			       (unsigned long long)ns->values[i]);
	printf("  %-19s %llu", "drops", (unsigned long long)drops);
	for (i = 0; i < ns->n; i++) {
		if (!is_drop(ns->names[i]) || !ns->values[i])
			continue;
		printf("%s%s %llu", any ? ", " : " (", ns->names[i] + 5,
		       (unsigned long long)ns->values[i]);
		any = 1;
	}
	printf("%s\n", any ? ")" : "");
}

/*
 * The namespace's UDP counters on one line, labelled as what they are:
 * every UDP socket's, where packets for a gsync group that has ended go.
 */
static void udp_text(const struct udp_stats *u)
{
	int ip6, k, any = 0;

	for (ip6 = 0; ip6 < 2; ip6++)
		for (k = 0; k < UDP_NCOUNTERS; k++) {
			if (!u->have[ip6][k])
				continue;
			printf("%s %s %llu", any ? "" :
			       "udp (all UDP of the namespace, not only gsync):",
			       udpstats_name(ip6, k),
			       (unsigned long long)u->v[ip6][k]);
			any = 1;
		}
	if (any)
		printf("\n");
}

/*
 * A rate in bytes/s as ss(8) and gsync-sched show rates, in bits with a
 * decimal prefix, then exactly: "12.5 Mbit/s (1562500 bytes/s)".
 */
static void fmt_rate(char *buf, size_t len, uint64_t bytes)
{
	static const struct {
		double div;
		const char *unit;
	} u[] = {
		{ 1e12, "Tbit/s" }, { 1e9, "Gbit/s" }, { 1e6, "Mbit/s" },
		{ 1e3, "kbit/s" }, { 1, "bit/s" },
	};
	double bits = (double)bytes * 8;
	unsigned int i;

	for (i = 0; i + 1 < sizeof(u) / sizeof(u[0]) && bits < u[i].div; i++)
		;
	snprintf(buf, len, "%.4g %s (%llu bytes/s)", bits / u[i].div, u[i].unit,
		 (unsigned long long)bytes);
}

/*
 * Rate control of socket R, where the module has it: the counters, then
 * the sending rate and the slowest receiver's round trip. 0 means none
 * yet for both (nothing sent; no REPORT with a round trip received).
 */
static void rate_text(const struct table *t, unsigned int r)
{
	char buf[96];
	unsigned int i;
	uint64_t v;

	for (i = 0; rate_counters[i]; i++)
		if (table_col(t, rate_counters[i]) >= 0)
			printf("  %-19s %s\n", rate_counters[i],
			       cell_str(t, r, rate_counters[i]));
	if (table_col(t, "send_rate") >= 0) {
		v = cell_u64(t, r, "send_rate");
		if (!strcmp(cell_str(t, r, "send_rate"), "-"))
			snprintf(buf, sizeof(buf), "-");
		else if (!v)
			snprintf(buf, sizeof(buf), "0 (nothing sent yet)");
		else
			fmt_rate(buf, sizeof(buf), v);
		printf("  %-19s %s\n", "send_rate", buf);
	}
	if (table_col(t, "rtt_ms") >= 0) {
		v = cell_u64(t, r, "rtt_ms");
		printf("  %-19s %s%s\n", "rtt_ms", cell_str(t, r, "rtt_ms"),
		       !v && strcmp(cell_str(t, r, "rtt_ms"), "-") ?
		       " (unknown)" : "");
	}
}

/*
 * The key of socket R, where the module has the columns: "none", or the
 * mode, the epoch it sends with, a rotation's epoch installed and the
 * key's fingerprint (never the key: the kernel has no way to show it).
 */
static void key_text(const struct table *t, unsigned int r)
{
	const char *mode = cell_str(t, r, "key_mode");

	if (table_col(t, "key_mode") < 0)
		return;
	printf("  %-19s %s", "key", mode);
	if (strcmp(mode, "none") && strcmp(mode, "-")) {
		if (table_col(t, "key_epoch") >= 0)
			printf(", epoch %s", cell_str(t, r, "key_epoch"));
		if (table_col(t, "key_next_epoch") >= 0 &&
		    cell_u64(t, r, "key_next_epoch"))
			printf(" (epoch %s installed, not yet in use)",
			       cell_str(t, r, "key_next_epoch"));
		if (table_col(t, "key_fingerprint") >= 0)
			printf(", fingerprint %s", cell_str(t, r, "key_fingerprint"));
	}
	printf("\n");
}

static void stats_text(const struct ctx *c, const struct table *t,
		       const struct kv *ns, const struct udp_stats *u)
{
	unsigned int r, k, i, shown = 0;
	int any;

	/* The namespace's own gauges on one line, then (a module that has
	 * them) its cumulative counters over every group it has had.
	 */
	printf("namespace:");
	for (i = 0; i < ns->n; i++)
		if (!in_list(counters, ns->names[i]) && !is_drop(ns->names[i]) &&
		    !in_list(ns_counters, ns->names[i]))
			printf(" %s %llu", ns->names[i], (unsigned long long)ns->values[i]);
	printf("\n");
	ns_totals(ns);
	udp_text(u);
	for (r = 0; r < t->nrows; r++) {
		if (!row_selected(c, t, r))
			continue;
		shown++;
		printf("\nsocket %s  inode %s  %s  group %s  rank %s/%s\n",
		       cell_str(t, r, "id"), cell_str(t, r, "inode"),
		       cell_str(t, r, "state"), cell_str(t, r, "group"),
		       cell_str(t, r, "rank"), cell_str(t, r, "nranks"));
		for (i = 0; counters[i]; i++)
			printf("  %-19s %s\n", counters[i], cell_str(t, r, counters[i]));
		rate_text(t, r);
		key_text(t, r);
		for (k = 0; k < t->ncols; k++) {
			const char *col = t->cols[k];

			if (in_list(identity, col) || in_list(counters, col) ||
			    in_list(rate_counters, col) ||
			    in_list(rate_gauges, col) || in_list(key_cols, col) ||
			    is_drop(col))
				continue;
			printf("  %-19s %s   (other)\n", col, table_cell(t, r, k));
		}
		printf("  %-19s %llu", "drops",
		       (unsigned long long)drops_total(t, r));
		any = 0;
		for (k = 0; k < t->ncols; k++) {
			uint64_t v;

			if (!is_drop(t->cols[k]) || !(v = cell_u64(t, r, t->cols[k])))
				continue;
			printf("%s%s %llu", any ? ", " : " (", t->cols[k] + 5,
			       (unsigned long long)v);
			any = 1;
		}
		printf("%s\n", any ? ")" : "");
	}
	if (!shown)
		printf("\n(no gsync sockets%s in this network namespace)\n",
		       c->have_id ? " with that id" : "");
}

static void stats_json(const struct ctx *c, const struct table *t,
		       const struct kv *ns, const struct udp_stats *u)
{
	struct json j;
	unsigned int r, k, i;
	int ip6, n;

	json_init(&j, stdout);
	json_obj_begin(&j);
	json_key(&j, "namespace");
	json_obj_begin(&j);
	for (i = 0; i < ns->n; i++) {
		json_key(&j, ns->names[i]);
		json_u64(&j, ns->values[i]);
	}
	json_obj_end(&j);
	/* All UDP of the namespace, not only gsync: nstat's names. */
	json_key(&j, "udp");
	json_obj_begin(&j);
	for (ip6 = 0; ip6 < 2; ip6++)
		for (n = 0; n < UDP_NCOUNTERS; n++)
			if (u->have[ip6][n]) {
				json_key(&j, udpstats_name(ip6, n));
				json_u64(&j, u->v[ip6][n]);
			}
	json_obj_end(&j);
	json_key(&j, "sockets");
	json_arr_begin(&j);
	for (r = 0; r < t->nrows; r++) {
		if (!row_selected(c, t, r))
			continue;
		json_obj_begin(&j);
		for (k = 0; k < t->ncols; k++) {
			if (is_drop(t->cols[k]))
				continue;
			json_key(&j, t->cols[k]);
			json_cell(&j, t, r, k);
		}
		json_key(&j, "drops");
		json_obj_begin(&j);
		for (k = 0; k < t->ncols; k++) {
			if (!is_drop(t->cols[k]))
				continue;
			json_key(&j, t->cols[k] + 5);
			json_cell(&j, t, r, k);
		}
		json_obj_end(&j);
		json_key(&j, "drops_total");
		json_u64(&j, drops_total(t, r));
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
}

int cmd_stats(const struct ctx *c)
{
	struct udp_stats u;
	struct table t;
	struct kv ns;
	int rc = sockets_load(&t, c->proc_dir);

	if (rc)
		return rc;
	rc = require_cols(&t, required, "stats");
	if (!rc)
		rc = nsstats_load(&ns, c->proc_dir);
	if (!rc) {
		udpstats_load(&u, c->proc_dir);
		if (c->format == FMT_PROM)
			stats_prometheus(c, &t, &ns, &u);
		else if (c->json)
			stats_json(c, &t, &ns, &u);
		else
			stats_text(c, &t, &ns, &u);
		kv_free(&ns);
	}
	table_free(&t);
	return rc;
}
