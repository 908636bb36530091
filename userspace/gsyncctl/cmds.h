/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Subcommands of gsyncctl and the options they share. */
#ifndef GSYNCCTL_CMDS_H
#define GSYNCCTL_CMDS_H

#include <stdint.h>

#define CTX_MAX_RELAYS 256

struct ctx {
	const char *proc_dir;		/* hidden --proc-dir: tests */
	const char *family_file;	/* hidden --family-file: tests */
	int json;
	int have_id;
	uint64_t id;			/* --id: one socket only */
	/* schedule load|show|clear, key generate|show|set */
	const char *cmd;		/* schedule, key, ... */
	const char *sub;		/* load, show or clear; generate, show, set */
	const char *file;		/* blob or JSON schedule; key file */
	int have_group;
	uint64_t group;			/* --group */
	unsigned int rank;		/* --rank, or GSYNC_SCHED_ANY_RANK */
	int have_start;
	uint64_t start_seq;		/* --start-seq */
	/* key only */
	int have_epoch;
	uint32_t epoch;			/* --epoch */
	int key_mode;			/* --mode: GSYNC_KEY_*, 0 = not given */
	int force;			/* --force */
	const char *topology;		/* --topology: for a JSON schedule */
	const char *ranks;		/* --ranks ID,... */
	const char *relays[CTX_MAX_RELAYS];	/* --relay NODE=RANK */
	int nrelays;
	int no_multicast;		/* --no-multicast */
	/* stats --format, watch */
	int format;			/* FMT_* */
	const char *netns;		/* --netns as given: the netns label */
	double interval;		/* watch --interval, seconds */
	int have_count;
	uint64_t count;			/* watch --count */
	int test_clock;			/* hidden --test-clock: rates over
					 * the nominal interval */
};

enum { FMT_TEXT, FMT_JSON, FMT_PROM };

struct table;
struct kv;
struct udp_stats;

/* Does row R pass the --id filter? (listing.c) */
int row_selected(const struct ctx *c, const struct table *t, unsigned int r);

int cmd_family(const struct ctx *c);
int cmd_show(const struct ctx *c);
int cmd_stats(const struct ctx *c);
int cmd_schedule(const struct ctx *c);
int cmd_watch(const struct ctx *c);
int cmd_key(const struct ctx *c);

/* prom.c: stats in the Prometheus text exposition format */
void stats_prometheus(const struct ctx *c, const struct table *t,
		      const struct kv *ns, const struct udp_stats *u);

/* help.c: NULL or "" for the overview; returns EXIT_OK or EXIT_USAGE.
 * SUB: a subcommand of schedule (load, show, clear) or of key (generate,
 * show, set), or NULL. */
int print_help(const char *cmd, const char *sub);
void print_usage_hint(void);
/* "gsyncctl: FMT(ARG)" and the usage hint on stderr; returns EXIT_USAGE */
int usage_error(const char *fmt, const char *arg);
/* help_schedule.c: the schedule pages; NULL if SUB is unknown */
const char *schedule_help(const char *sub);
/* help_key.c: the key pages; NULL if SUB is unknown */
const char *key_help(const char *sub);

#endif
