// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gsyncctl stats --format prometheus: the counters of /proc/net/gsync and
 * /proc/net/gsync_stats in the Prometheus text exposition format (0.0.4),
 * as node_exporter's textfile collector reads it: every family once, with
 * HELP and TYPE, counters named *_total, bytes as *_bytes_total, no
 * timestamps. Per-socket series carry the labels netns, group, rank and
 * socket (the id: two sockets of a namespace may share group and rank).
 * Columns are looked up by name like everywhere in gsyncctl; a column the
 * module lacks leaves its family out, a numeric column this version does
 * not know becomes a gsync_socket_<column> gauge. rtt_ms is exported in
 * seconds (gsync_rtt_seconds), without a series while it is 0 (unknown).
 * A keyed group's mode and key fingerprint are labels of
 * gsync_socket_info (never values: a fingerprint may look decimal), its
 * epochs the gauges gsync_key_epoch and gsync_key_next_epoch.
 *
 * The lines of /proc/net/gsync_stats (labelled netns only) each get a
 * family of their own: the namespace's gauges and counters (ns_metrics),
 * its per-group counters summed over every group it has had as
 * gsync_namespace_<the per-socket family's name> (from metrics[], so
 * name, help and type follow the per-socket family), drop_<reason> as
 * gsync_namespace_drops_total{reason}. A line this version does not know
 * stays exported, as gsync_namespace_stat{name}. Every line is classified
 * once (ns_family), so none is exported twice or lost.
 *
 * The namespace's UDP counters of datagrams no socket took (udpstats.c:
 * where packets for a gsync group that has ended are counted) are
 * counters labelled netns and ip; their help says they count all UDP.
 */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "sockets.h"

struct metric {
	const char *col;	/* /proc/net/gsync column */
	const char *name;	/* metric family */
	const char *type;	/* counter or gauge */
	const char *help;
};

static const struct metric metrics[] = {
	{ "next_seq", "gsync_next_seq", "gauge",
	  "Sequence number the next operation of the socket must carry." },
	{ "inflight", "gsync_inflight_operations", "gauge",
	  "Operations submitted and not yet received." },
	{ "sched_rounds", "gsync_schedule_rounds", "gauge",
	  "Rounds of the schedule in effect (1 for the default schedule)." },
	{ "ops_submitted", "gsync_operations_submitted_total", "counter",
	  "Operations submitted with sendmsg." },
	{ "ops_completed", "gsync_operations_completed_total", "counter",
	  "Operations that succeeded and were handed to the user." },
	{ "ops_failed", "gsync_operations_failed_total", "counter",
	  "Operations that failed (timeout, mismatch, abort)." },
	{ "tx_bytes", "gsync_transmit_bytes_total", "counter",
	  "UDP payload bytes sent, gsync headers included." },
	{ "tx_packets", "gsync_transmit_packets_total", "counter",
	  "UDP datagrams sent." },
	{ "rx_bytes", "gsync_receive_bytes_total", "counter",
	  "UDP payload bytes of accepted packets, gsync headers included." },
	{ "rx_packets", "gsync_receive_packets_total", "counter",
	  "Packets accepted (drops not counted)." },
	{ "nacks_sent", "gsync_nacks_sent_total", "counter",
	  "NACKs sent to ask peers for missing chunks." },
	{ "nacks_received", "gsync_nacks_received_total", "counter",
	  "NACKs received from peers." },
	{ "retransmits", "gsync_retransmits_total", "counter",
	  "Data packets sent again." },
	{ "mcast_retransmits", "gsync_multicast_retransmits_total", "counter",
	  "Data packets sent again by multicast." },
	{ "timeouts", "gsync_timeouts_total", "counter",
	  "Operations failed with ETIMEDOUT." },
	{ "mismatches", "gsync_mismatches_total", "counter",
	  "Operations failed because ranks disagreed (EPROTO)." },
	{ "sched_ops", "gsync_scheduled_operations_total", "counter",
	  "Operations run under a loaded schedule." },
	{ "reduce_jobs", "gsync_reduce_jobs_total", "counter",
	  "Block reductions handed to the reduction engine." },
	/* rate control */
	{ "reports_sent", "gsync_reports_sent_total", "counter",
	  "REPORTs sent: receiver feedback (chunks arrived and lost, "
	  "round-trip echo) to peers whose DATA arrived." },
	{ "reports_received", "gsync_reports_received_total", "counter",
	  "REPORTs received from peers about the DATA this rank sent." },
	{ "rate_decreases", "gsync_rate_decreases_total", "counter",
	  "Times the adaptive sending rate backed off on loss or a growing "
	  "round trip." },
	{ "rate_loss_decreases", "gsync_rate_loss_decreases_total", "counter",
	  "Of the adaptive sending rate's back-offs, those on loss (over 20% "
	  "of a round's chunks reported lost); the others were on a growing "
	  "round trip." },
	{ "send_rate", "gsync_send_rate_bytes", "gauge",
	  "Bytes per second the rank sends at now: the pacing rate set, else "
	  "the adaptive rate (0 before the first send)." },
	/* keyed groups */
	{ "key_epoch", "gsync_key_epoch", "gauge",
	  "Key epoch the socket sends with (0 in a group without a key; mode "
	  "and fingerprint are labels of gsync_socket_info)." },
	{ "key_next_epoch", "gsync_key_next_epoch", "gauge",
	  "Epoch of a key rotation installed and not yet in use; 0 = none." },
	{ NULL, NULL, NULL, NULL },
};

/*
 * Gauges in milliseconds, exported in seconds (Prometheus's base unit,
 * with exactly three decimals). 0 means unknown: that socket's series
 * is left out rather than claiming a round trip of 0 s.
 */
static const struct metric ms_metrics[] = {
	{ "rtt_ms", "gsync_rtt_seconds", "gauge",
	  "Smoothed round-trip time to the socket's slowest receiver, measured "
	  "from REPORTs; no series while unknown." },
	{ NULL, NULL, NULL, NULL },
};

/* Columns that are labels or identity, never exported as values. */
static const char *const label_cols[] = {
	"id", "inode", "uid", "state", "group", "rank", "nranks", "sched_tag",
	"key_mode", "key_fingerprint", NULL,
};

static int known_col(const char *col)
{
	unsigned int i;

	if (!strncmp(col, "drop_", 5))
		return 1;
	for (i = 0; label_cols[i]; i++)
		if (!strcmp(col, label_cols[i]))
			return 1;
	for (i = 0; metrics[i].col; i++)
		if (!strcmp(col, metrics[i].col))
			return 1;
	for (i = 0; ms_metrics[i].col; i++)
		if (!strcmp(col, ms_metrics[i].col))
			return 1;
	return 0;
}

/* A label value: backslash, double quote and newline escaped. */
static void put_label(const char *name, const char *v, int first)
{
	printf("%s%s=\"", first ? "" : ",", name);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			printf("\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", stdout);
		else
			putchar(*v);
	}
	putchar('"');
}

/* Sockets exported per socket: those in a group (not unconfigured). */
static int exported(const struct ctx *c, const struct table *t, unsigned int r)
{
	return row_selected(c, t, r) && strcmp(cell_str(t, r, "state"), "unconfigured");
}

static void socket_labels(const struct ctx *c, const struct table *t,
			  unsigned int r)
{
	put_label("netns", c->netns ? c->netns : "", 1);
	put_label("group", cell_str(t, r, "group"), 0);
	put_label("rank", cell_str(t, r, "rank"), 0);
	put_label("socket", cell_str(t, r, "id"), 0);
}

static void family(const char *name, const char *type, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One series per exported socket whose cell in column K is decimal. */
static void series(const struct ctx *c, const struct table *t, unsigned int k,
		   const char *name, const char *extra_label, const char *extra)
{
	unsigned int r;
	uint64_t v;

	for (r = 0; r < t->nrows; r++) {
		if (!exported(c, t, r) || parse_dec_u64(table_cell(t, r, k), &v))
			continue;
		printf("%s{", name);
		socket_labels(c, t, r);
		if (extra_label)
			put_label(extra_label, extra, 0);
		printf("} %llu\n", (unsigned long long)v);
	}
}

/* The same for a column in ms (ms_metrics): seconds, no series for 0. */
static void series_ms(const struct ctx *c, const struct table *t,
		      unsigned int k, const char *name)
{
	unsigned int r;
	uint64_t v;

	for (r = 0; r < t->nrows; r++) {
		if (!exported(c, t, r) || parse_dec_u64(table_cell(t, r, k), &v) ||
		    !v)
			continue;
		printf("%s{", name);
		socket_labels(c, t, r);
		printf("} %llu.%03u\n", (unsigned long long)(v / 1000),
		       (unsigned int)(v % 1000));
	}
}

/* Every row of column K decimal (or "-")? Unknown columns must be. */
static int numeric_col(const struct table *t, unsigned int k)
{
	unsigned int r;
	uint64_t v;

	for (r = 0; r < t->nrows; r++)
		if (strcmp(table_cell(t, r, k), "-") &&
		    parse_dec_u64(table_cell(t, r, k), &v))
			return 0;
	return 1;
}

/*
 * /proc/net/gsync_stats lines with a family of their own, besides the
 * per-group counters (metrics[]) and drop_<reason>.
 */
static const struct metric ns_metrics[] = {
	{ "sockets_open", "gsync_sockets_open", "gauge",
	  "AF_GSYNC sockets open in the network namespace." },
	{ "sockets_created", "gsync_sockets_created_total", "counter",
	  "AF_GSYNC sockets created since the network namespace was." },
	{ "mem_bytes", "gsync_memory_bytes", "gauge",
	  "Kernel memory the namespace's gsync operations hold now." },
	{ "linger_takeovers", "gsync_linger_takeovers_total", "counter",
	  "Lingering groups of closed sockets ended by a GSYNC_JOIN on their "
	  "endpoint." },
	{ "groups_live", "gsync_groups_live", "gauge",
	  "Groups of open or lingering sockets in the network namespace." },
	{ NULL, NULL, NULL, NULL },
};

#define DROPS_HELP "Received packets dropped, by reason (enum gsync_drop_reason)."
#define NS_SUM_HELP \
	" Summed over every group the namespace has had, closed ones included."

/* The family a /proc/net/gsync_stats line is exported in. */
struct ns_fam {
	char name[160];
	const char *type;
	const char *help, *help2;	/* HELP is help then help2 */
	const char *label, *value;	/* the label besides netns, or NULL */
};

static void ns_family(const char *line, struct ns_fam *f)
{
	unsigned int i;

	f->help2 = "";
	f->label = f->value = NULL;
	for (i = 0; ns_metrics[i].col; i++)
		if (!strcmp(line, ns_metrics[i].col)) {
			snprintf(f->name, sizeof(f->name), "%s", ns_metrics[i].name);
			f->type = ns_metrics[i].type;
			f->help = ns_metrics[i].help;
			return;
		}
	/* The per-group counters; a line named like a per-socket gauge
	 * (next_seq, inflight) would be no sum of it: it stays generic.
	 */
	for (i = 0; metrics[i].col; i++)
		if (!strcmp(line, metrics[i].col) &&
		    !strcmp(metrics[i].type, "counter")) {
			snprintf(f->name, sizeof(f->name), "gsync_namespace_%s",
				 metrics[i].name + strlen("gsync_"));
			f->type = metrics[i].type;
			f->help = metrics[i].help;
			f->help2 = NS_SUM_HELP;
			return;
		}
	if (!strncmp(line, "drop_", 5) && line[5]) {
		snprintf(f->name, sizeof(f->name), "gsync_namespace_drops_total");
		f->type = "counter";
		f->help = DROPS_HELP;
		f->help2 = NS_SUM_HELP;
		f->label = "reason";
		f->value = line + 5;
		return;
	}
	/* A line of a newer module: kept, under its name. */
	snprintf(f->name, sizeof(f->name), "gsync_namespace_stat");
	f->type = "gauge";
	f->help = "A /proc/net/gsync_stats line this gsyncctl does not know, "
		  "by name.";
	f->label = "name";
	f->value = line;
}

/*
 * Every line of /proc/net/gsync_stats once, in the file's order, each
 * family where its first line is, with all its lines (a family's series
 * must follow its TYPE line without another family between).
 */
static void stats_namespace(const char *netns, const struct kv *ns)
{
	struct ns_fam f, g;
	unsigned int i, j;

	for (i = 0; i < ns->n; i++) {
		ns_family(ns->names[i], &f);
		for (j = 0; j < i; j++) {
			ns_family(ns->names[j], &g);
			if (!strcmp(f.name, g.name))
				break;
		}
		if (j < i)
			continue;	/* printed at its first line */
		printf("# HELP %s %s%s\n# TYPE %s %s\n", f.name, f.help, f.help2,
		       f.name, f.type);
		for (j = i; j < ns->n; j++) {
			ns_family(ns->names[j], &g);
			if (strcmp(f.name, g.name))
				continue;
			printf("%s{", g.name);
			put_label("netns", netns, 1);
			if (g.label)
				put_label(g.label, g.value, 0);
			printf("} %llu\n", (unsigned long long)ns->values[j]);
		}
	}
}

/* The families of struct udp_stats's counters, by counter. */
static const struct {
	const char *name, *help;
} udp_fams[UDP_NCOUNTERS] = {
	[UDP_NOPORTS] = {
		"gsync_namespace_udp_no_port_datagrams_total",
		"UDP datagrams to a port no socket of the namespace has (Udp "
		"NoPorts of /proc/net/snmp, Udp6NoPorts of /proc/net/snmp6): "
		"all UDP, not only gsync; unicast packets for a gsync group "
		"that has ended are counted here." },
	[UDP_IGNOREDMULTI] = {
		"gsync_namespace_udp_ignored_multicast_datagrams_total",
		"UDP multicast datagrams no socket of the namespace took (Udp "
		"IgnoredMulti, Udp6IgnoredMulti): all UDP, not only gsync; "
		"multicast for a gsync group that has ended, while the "
		"namespace still listens to its address, is counted here." },
};

static void stats_udp(const char *netns, const struct udp_stats *u)
{
	int k, ip6;

	for (k = 0; k < UDP_NCOUNTERS; k++) {
		if (!u->have[0][k] && !u->have[1][k])
			continue;
		family(udp_fams[k].name, "counter", udp_fams[k].help);
		for (ip6 = 0; ip6 < 2; ip6++) {
			if (!u->have[ip6][k])
				continue;
			printf("%s{", udp_fams[k].name);
			put_label("netns", netns, 1);
			put_label("ip", ip6 ? "ipv6" : "ipv4", 0);
			printf("} %llu\n", (unsigned long long)u->v[ip6][k]);
		}
	}
}

void stats_prometheus(const struct ctx *c, const struct table *t,
		      const struct kv *ns, const struct udp_stats *u)
{
	static const char *const states[] = { "unconfigured", "joined", "failed", NULL };
	const char *netns = c->netns ? c->netns : "";
	unsigned int i, k, r, n;
	char name[160];
	int first;

	stats_namespace(netns, ns);
	stats_udp(netns, u);

	/* Sockets per state: the known states always, others as found. */
	family("gsync_sockets", "gauge", "gsync sockets of the namespace by state.");
	for (i = 0; states[i]; i++) {
		for (n = 0, r = 0; r < t->nrows; r++)
			n += row_selected(c, t, r) &&
			     !strcmp(cell_str(t, r, "state"), states[i]);
		printf("gsync_sockets{");
		put_label("netns", netns, 1);
		put_label("state", states[i], 0);
		printf("} %u\n", n);
	}
	for (r = 0; r < t->nrows; r++) {
		const char *s = cell_str(t, r, "state");
		unsigned int q;

		for (i = 0; states[i] && strcmp(states[i], s); i++)
			;
		for (q = 0; q < r && strcmp(cell_str(t, q, "state"), s); q++)
			;
		if (states[i] || q < r || !row_selected(c, t, r))
			continue;	/* known, or counted at its first row */
		for (n = 0, q = r; q < t->nrows; q++)
			n += row_selected(c, t, q) && !strcmp(cell_str(t, q, "state"), s);
		printf("gsync_sockets{");
		put_label("netns", netns, 1);
		put_label("state", s, 0);
		printf("} %u\n", n);
	}

	family("gsync_socket_info", "gauge",
	       "Always 1: identity of a gsync socket in a group.");
	for (r = 0; r < t->nrows; r++) {
		if (!exported(c, t, r))
			continue;
		printf("gsync_socket_info{");
		socket_labels(c, t, r);
		for (i = 0; i < 6; i++) {
			static const char *const extra[] = {
				"nranks", "uid", "inode", "sched_tag", "key_mode",
				"key_fingerprint",
			};

			if (table_col(t, extra[i]) >= 0)
				put_label(extra[i], cell_str(t, r, extra[i]), 0);
		}
		printf("} 1\n");
	}

	for (i = 0; metrics[i].col; i++) {
		int col = table_col(t, metrics[i].col);

		if (col < 0)
			continue;
		family(metrics[i].name, metrics[i].type, metrics[i].help);
		series(c, t, col, metrics[i].name, NULL, NULL);
	}
	for (i = 0; ms_metrics[i].col; i++) {
		int col = table_col(t, ms_metrics[i].col);

		if (col < 0)
			continue;
		family(ms_metrics[i].name, ms_metrics[i].type, ms_metrics[i].help);
		series_ms(c, t, col, ms_metrics[i].name);
	}

	for (first = 1, k = 0; k < t->ncols; k++) {
		if (strncmp(t->cols[k], "drop_", 5) || !t->cols[k][5])
			continue;
		if (first)
			family("gsync_drops_total", "counter", DROPS_HELP);
		first = 0;
		series(c, t, k, "gsync_drops_total", "reason", t->cols[k] + 5);
	}

	/* Columns of a newer module: gauges, the name made a valid metric name. */
	for (k = 0; k < t->ncols; k++) {
		const char *col = t->cols[k];
		size_t j;

		if (known_col(col) || !numeric_col(t, k))
			continue;
		snprintf(name, sizeof(name), "gsync_socket_%s", col);
		for (j = strlen("gsync_socket_"); name[j]; j++)
			if (!((name[j] >= 'a' && name[j] <= 'z') ||
			      (name[j] >= 'A' && name[j] <= 'Z') ||
			      (name[j] >= '0' && name[j] <= '9') || name[j] == '_'))
				name[j] = '_';
		family(name, "gauge", "A /proc/net/gsync column this gsyncctl does not know.");
		series(c, t, k, name, NULL, NULL);
	}
}
