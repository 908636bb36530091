// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gsyncctl: command line and dispatch. Options may come before or after
 * the command (GNU getopt permutes), so both "gsyncctl --json show" and
 * "gsyncctl show --json" work; each command takes only its own.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <linux/gsync_sched.h>
#include "cmds.h"
#include "netns.h"
#include "sched_push.h"
#include "sockets.h"

#define GSYNCCTL_VERSION "0.1"

enum {
	OPT_PROC_DIR = 256, OPT_FAMILY_FILE, OPT_START_SEQ, OPT_RANKS, OPT_RELAY,
	OPT_NO_MCAST,
};

/* The options of schedule; 0 or EXIT_USAGE. */
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

/* COMMAND [SUB [FILE]]: how many words each command takes */
static int positionals(struct ctx *c, const char *cmd, int n, char **w)
{
	int want = 1;

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
		   strcmp(cmd, "stats")) {
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
		/* hidden, for tests: read fixtures instead of /proc and sysfs */
		{ "proc-dir", required_argument, NULL, OPT_PROC_DIR },
		{ "family-file", required_argument, NULL, OPT_FAMILY_FILE },
		{ NULL, 0, NULL, 0 },
	};
	struct ctx c;
	const char *netns = NULL, *cmd;
	int ch, help = 0, rc;

	memset(&c, 0, sizeof(c));
	c.rank = GSYNC_SCHED_ANY_RANK;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":jn:i:hVg:r:t:", lo, NULL)) != -1) {
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
		case 'V': printf("gsyncctl %s\n", GSYNCCTL_VERSION); return EXIT_OK;
		case OPT_PROC_DIR: c.proc_dir = optarg; break;
		case OPT_FAMILY_FILE: c.family_file = optarg; break;
		case 'g': case 'r': case 't': case OPT_START_SEQ: case OPT_RANKS:
		case OPT_RELAY: case OPT_NO_MCAST:
			if (schedule_opt(&c, ch, optarg))
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
		return print_help(cmd, cmd && !strcmp(cmd, "schedule") &&
				  optind + 1 < argc ? argv[optind + 1] : NULL);
	if (!cmd) {
		print_usage_hint();
		return EXIT_USAGE;
	}
	if (!strcmp(cmd, "help")) {
		int words = optind + 1 < argc && !strcmp(argv[optind + 1],
							  "schedule") ? 3 : 2;

		if (argc - optind > words) {
			print_usage_hint();
			return EXIT_USAGE;
		}
		return print_help(optind + 1 < argc ? argv[optind + 1] : NULL,
				  optind + 2 < argc ? argv[optind + 2] : NULL);
	}
	if ((rc = positionals(&c, cmd, argc - optind, argv + optind)))
		return rc;
	if (c.have_id && strcmp(cmd, "show") && strcmp(cmd, "stats"))
		return usage_error("%s", "--id applies to show and stats only");
	if (has_schedule_opts(&c) && !c.sub)
		return usage_error("options --group, --rank, --start-seq, --topology, "
			     "--ranks, --relay, --no-multicast apply to %s only",
			     "schedule");
	if (netns && netns_enter("gsyncctl", netns))
		return EXIT_ERR;
	if (!strcmp(cmd, "family"))
		return cmd_family(&c);
	if (!strcmp(cmd, "show"))
		return cmd_show(&c);
	if (!strcmp(cmd, "stats"))
		return cmd_stats(&c);
	return cmd_schedule(&c);
}
