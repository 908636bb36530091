// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gsyncctl: command line and dispatch. Options may come before or after
 * the command (GNU getopt permutes), so both "gsyncctl --json show" and
 * "gsyncctl show --json" work; each command takes only its own.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsync.h"
#include <linux/gsync_sched.h>
#include "cmds.h"
#include "netns.h"
#include "sched_push.h"
#include "sockets.h"

#define GSYNCCTL_VERSION "0.1"

enum {
	OPT_PROC_DIR = 256, OPT_FAMILY_FILE, OPT_START_SEQ, OPT_RANKS, OPT_RELAY,
	OPT_NO_MCAST, OPT_INTERVAL, OPT_COUNT, OPT_TEST_CLOCK, OPT_EPOCH, OPT_MODE,
	OPT_FORCE,
};

static int parse_format(struct ctx *c, const char *arg)
{
	if (!strcmp(arg, "text"))
		c->format = FMT_TEXT;
	else if (!strcmp(arg, "json"))
		c->format = FMT_JSON;
	else if (!strcmp(arg, "prometheus"))
		c->format = FMT_PROM;
	else
		return usage_error("--format needs text, json or prometheus, "
				   "not '%s'", arg);
	return 0;
}

/* watch --interval: seconds, 0.1..3600, a plain decimal number. */
static int parse_interval(struct ctx *c, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= 0.1 && v <= 3600) ||
	    strspn(arg, "0123456789.") != strlen(arg))
		return usage_error("--interval needs seconds between 0.1 and "
				   "3600, not '%s'", arg);
	c->interval = v;
	return 0;
}

/* The options of key only; 0 or EXIT_USAGE. */
static int key_opt(struct ctx *c, int ch, const char *arg)
{
	uint64_t v;
	int m;

	switch (ch) {
	case OPT_EPOCH:
		if (parse_dec_u64(arg, &v) || !v || v > UINT32_MAX)
			return usage_error("--epoch needs a key epoch (1..4294967295), "
					   "not '%s'", arg);
		c->epoch = (uint32_t)v;
		c->have_epoch = 1;
		return 0;
	case OPT_MODE:
		m = gsync_key_mode_parse(arg);
		if (m != GSYNC_KEY_AUTH && m != GSYNC_KEY_ENCRYPT)
			return usage_error("--mode needs auth or encrypt, not '%s'", arg);
		c->key_mode = m;
		return 0;
	default: c->force = 1; return 0;	/* OPT_FORCE */
	}
}

/* The options of schedule (and, some of them, key set); 0 or EXIT_USAGE. */
static int schedule_opt(struct ctx *c, int ch, const char *arg)
{
	switch (ch) {
	case 'g':
		if (sched_parse_group(arg, &c->group))
			return usage_error("--group needs a group id (decimal or 0x-hex), "
				     "not '%s'", arg);
		c->have_group = 1;
		return 0;
	case 'r':
		if (sched_parse_rank(arg, &c->rank))
			return usage_error("--rank needs a rank (0..65534), not '%s'", arg);
		return 0;
	case OPT_START_SEQ:
		if (sched_parse_group(arg, &c->start_seq))
			return usage_error("--start-seq needs an operation sequence "
				     "number, not '%s'", arg);
		c->have_start = 1;
		return 0;
	case 't': c->topology = arg; return 0;
	case OPT_RANKS: c->ranks = arg; return 0;
	case OPT_RELAY:
		if (c->nrelays == CTX_MAX_RELAYS)
			return usage_error("too many --relay options ('%s')", arg);
		c->relays[c->nrelays++] = arg;
		return 0;
	default: c->no_multicast = 1; return 0;	/* OPT_NO_MCAST */
	}
}

static int has_schedule_opts(const struct ctx *c)
{
	return c->have_group || c->rank != GSYNC_SCHED_ANY_RANK ||
	       c->have_start || c->topology || c->ranks || c->nrelays ||
	       c->no_multicast;
}

/* key SUB [FILE]: FILE optional for generate and show, required for set */
static int key_positionals(struct ctx *c, int n, char **w)
{
	if (n < 2)
		return usage_error("%s", "key needs a subcommand: generate, show or set");
	c->sub = w[1];
	if (!key_help(c->sub))
		return usage_error("unknown key subcommand '%s'", c->sub);
	if (n < 3 && !strcmp(c->sub, "set"))
		return usage_error("%s", "key set needs a key FILE");
	if (n > 3)
		return usage_error("unexpected argument '%s'", w[3]);
	c->file = n == 3 ? w[2] : NULL;
	return EXIT_OK;
}

/* COMMAND [SUB [FILE]]: how many words each command takes */
static int positionals(struct ctx *c, const char *cmd, int n, char **w)
{
	int want = 1;

	c->cmd = cmd;
	if (!strcmp(cmd, "key"))
		return key_positionals(c, n, w);
	if (!strcmp(cmd, "schedule")) {
		if (n < 2)
			return usage_error("%s", "schedule needs a subcommand: load, show "
				     "or clear");
		c->sub = w[1];
		if (!schedule_help(c->sub))
			return usage_error("unknown schedule subcommand '%s'", c->sub);
		want = strcmp(c->sub, "clear") ? 3 : 2;
		if (n < want)
			return usage_error("schedule %s needs a FILE", c->sub);
		c->file = want == 3 ? w[2] : NULL;
	} else if (strcmp(cmd, "family") && strcmp(cmd, "show") &&
		   strcmp(cmd, "stats") && strcmp(cmd, "watch")) {
		fprintf(stderr, "gsyncctl: unknown command '%s'\n", cmd);
		print_usage_hint();
		return EXIT_USAGE;
	}
	if (n > want)
		return usage_error("unexpected argument '%s'", w[want]);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "netns", required_argument, NULL, 'n' },
		{ "id", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "group", required_argument, NULL, 'g' },
		{ "rank", required_argument, NULL, 'r' },
		{ "start-seq", required_argument, NULL, OPT_START_SEQ },
		{ "topology", required_argument, NULL, 't' },
		{ "ranks", required_argument, NULL, OPT_RANKS },
		{ "relay", required_argument, NULL, OPT_RELAY },
		{ "no-multicast", no_argument, NULL, OPT_NO_MCAST },
		{ "format", required_argument, NULL, 'f' },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "test-clock", no_argument, NULL, OPT_TEST_CLOCK },
		{ "epoch", required_argument, NULL, OPT_EPOCH },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "force", no_argument, NULL, OPT_FORCE },
		/* hidden, for tests: read fixtures instead of /proc and sysfs */
		{ "proc-dir", required_argument, NULL, OPT_PROC_DIR },
		{ "family-file", required_argument, NULL, OPT_FAMILY_FILE },
		{ NULL, 0, NULL, 0 },
	};
	struct ctx c;
	const char *netns = NULL, *cmd;
	int ch, help = 0, rc, have_format = 0, have_interval = 0;

	memset(&c, 0, sizeof(c));
	c.rank = GSYNC_SCHED_ANY_RANK;
	c.interval = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":jn:i:hVg:r:t:f:", lo, NULL)) != -1) {
		switch (ch) {
		case 'j': c.json = 1; break;
		case 'n': netns = optarg; break;
		case 'i':
			if (parse_dec_u64(optarg, &c.id))
				return usage_error("--id needs a socket id (a number), "
					     "not '%s'", optarg);
			c.have_id = 1;
			break;
		case 'h': help = 1; break;
		case 'f':
			if (parse_format(&c, optarg))
				return EXIT_USAGE;
			have_format = 1;
			break;
		case OPT_INTERVAL:
			if (parse_interval(&c, optarg))
				return EXIT_USAGE;
			have_interval = 1;
			break;
		case OPT_COUNT:
			if (parse_dec_u64(optarg, &c.count) || !c.count)
				return usage_error("--count needs a number of intervals "
					     "(1 or more), not '%s'", optarg);
			c.have_count = 1;
			break;
		case OPT_TEST_CLOCK: c.test_clock = 1; break;
		case 'V': printf("gsyncctl %s\n", GSYNCCTL_VERSION); return EXIT_OK;
		case OPT_PROC_DIR: c.proc_dir = optarg; break;
		case OPT_FAMILY_FILE: c.family_file = optarg; break;
		case 'g': case 'r': case 't': case OPT_START_SEQ: case OPT_RANKS:
		case OPT_RELAY: case OPT_NO_MCAST:
			if (schedule_opt(&c, ch, optarg))
				return EXIT_USAGE;
			break;
		case OPT_EPOCH: case OPT_MODE: case OPT_FORCE:
			if (key_opt(&c, ch, optarg))
				return EXIT_USAGE;
			break;
		case ':':
			return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	cmd = optind < argc ? argv[optind] : NULL;
	if (help)
		return print_help(cmd, cmd && (!strcmp(cmd, "schedule") ||
					       !strcmp(cmd, "key")) &&
				  optind + 1 < argc ? argv[optind + 1] : NULL);
	if (!cmd) {
		print_usage_hint();
		return EXIT_USAGE;
	}
	if (!strcmp(cmd, "help")) {
		int words = optind + 1 < argc &&
			    (!strcmp(argv[optind + 1], "schedule") ||
			     !strcmp(argv[optind + 1], "key")) ? 3 : 2;

		if (argc - optind > words) {
			print_usage_hint();
			return EXIT_USAGE;
		}
		return print_help(optind + 1 < argc ? argv[optind + 1] : NULL,
				  optind + 2 < argc ? argv[optind + 2] : NULL);
	}
	if ((rc = positionals(&c, cmd, argc - optind, argv + optind)))
		return rc;
	if (c.have_id && strcmp(cmd, "show") && strcmp(cmd, "stats") &&
	    strcmp(cmd, "watch") && strcmp(cmd, "key"))
		return usage_error("%s", "--id applies to show, stats, watch and key "
				   "show only");
	if (have_format && strcmp(cmd, "stats"))
		return usage_error("%s", "--format applies to stats only");
	if (c.format == FMT_JSON)
		c.json = 1;
	if (c.json && c.format == FMT_PROM)
		return usage_error("%s", "--json and --format prometheus conflict");
	if ((have_interval || c.have_count || c.test_clock) && strcmp(cmd, "watch"))
		return usage_error("%s", "--interval and --count apply to watch only");
	if (c.json && !strcmp(cmd, "watch"))
		return usage_error("%s", "watch has no JSON output (use stats --json)");
	c.netns = netns;
	if (has_schedule_opts(&c) && !c.sub)
		return usage_error("%s", "--group, --rank and --start-seq apply to "
				   "schedule and key set only; --topology, --ranks, "
				   "--relay and --no-multicast to schedule only");
	if ((c.have_epoch || c.key_mode || c.force) && strcmp(cmd, "key"))
		return usage_error("%s", "--epoch, --mode and --force apply to key only");
	if (netns && netns_enter("gsyncctl", netns))
		return EXIT_ERR;
	if (!strcmp(cmd, "family"))
		return cmd_family(&c);
	if (!strcmp(cmd, "show"))
		return cmd_show(&c);
	if (!strcmp(cmd, "stats"))
		return cmd_stats(&c);
	if (!strcmp(cmd, "watch"))
		return cmd_watch(&c);
	if (!strcmp(cmd, "key"))
		return cmd_key(&c);
	return cmd_schedule(&c);
}
