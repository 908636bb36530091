// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gsyncctl: command line, network namespace switch, dispatch. Options may
 * come before or after the command (GNU getopt permutes), so both
 * "gsyncctl --json show" and "gsyncctl show --json" work.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "sockets.h"

#define GSYNCCTL_VERSION "0.1"

/*
 * Enter a network namespace by ip-netns name or path. /proc/net is
 * /proc/self/net, which follows the calling task's namespace, so after
 * setns() the same paths show the other namespace.
 */
static int enter_netns(const char *name)
{
	char path[4096];
	int fd;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "gsyncctl: network namespace '%s': %s%s\n", name,
			strerror(errno), errno == ENOENT ?
			" (no such namespace; see ip netns list)" : "");
		return EXIT_ERR;
	}
	if (setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "gsyncctl: cannot enter network namespace '%s': "
			"%s%s\n", name, strerror(errno), errno == EPERM ?
			" (needs CAP_SYS_ADMIN: run as root)" : "");
		close(fd);
		return EXIT_ERR;
	}
	close(fd);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	enum { OPT_PROC_DIR = 256, OPT_FAMILY_FILE };
	static const struct option lo[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "netns", required_argument, NULL, 'n' },
		{ "id", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		/* hidden, for tests: read fixtures instead of /proc and sysfs */
		{ "proc-dir", required_argument, NULL, OPT_PROC_DIR },
		{ "family-file", required_argument, NULL, OPT_FAMILY_FILE },
		{ NULL, 0, NULL, 0 },
	};
	struct ctx c;
	const char *netns = NULL, *cmd;
	int ch, help = 0, rc;

	memset(&c, 0, sizeof(c));
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":jn:i:hV", lo, NULL)) != -1) {
		switch (ch) {
		case 'j': c.json = 1; break;
		case 'n': netns = optarg; break;
		case 'i':
			if (parse_dec_u64(optarg, &c.id)) {
				fprintf(stderr, "gsyncctl: --id needs a socket id "
					"(a number), not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			c.have_id = 1;
			break;
		case 'h': help = 1; break;
		case 'V': printf("gsyncctl %s\n", GSYNCCTL_VERSION); return EXIT_OK;
		case OPT_PROC_DIR: c.proc_dir = optarg; break;
		case OPT_FAMILY_FILE: c.family_file = optarg; break;
		case ':':
			fprintf(stderr, "gsyncctl: option '%s' needs an argument\n",
				argv[optind - 1]);
			print_usage_hint();
			return EXIT_USAGE;
		default:
			fprintf(stderr, "gsyncctl: unknown option '%s'\n",
				argv[optind - 1]);
			print_usage_hint();
			return EXIT_USAGE;
		}
	}
	cmd = optind < argc ? argv[optind] : NULL;
	if (help)
		return print_help(cmd);
	if (!cmd) {
		print_usage_hint();
		return EXIT_USAGE;
	}
	if (!strcmp(cmd, "help")) {
		if (argc - optind > 2) {
			print_usage_hint();
			return EXIT_USAGE;
		}
		return print_help(optind + 1 < argc ? argv[optind + 1] : NULL);
	}
	if (argc - optind > 1) {
		fprintf(stderr, "gsyncctl: unexpected argument '%s'\n",
			argv[optind + 1]);
		return EXIT_USAGE;
	}
	if (strcmp(cmd, "family") && strcmp(cmd, "show") && strcmp(cmd, "stats")) {
		fprintf(stderr, "gsyncctl: unknown command '%s'\n", cmd);
		print_usage_hint();
		return EXIT_USAGE;
	}
	if (c.have_id && strcmp(cmd, "show") && strcmp(cmd, "stats")) {
		fprintf(stderr, "gsyncctl: --id applies to show and stats only\n");
		return EXIT_USAGE;
	}
	if (netns && (rc = enter_netns(netns)))
		return rc;
	if (!strcmp(cmd, "family"))
		return cmd_family(&c);
	if (!strcmp(cmd, "show"))
		return cmd_show(&c);
	return cmd_stats(&c);
}
