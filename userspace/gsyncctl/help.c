// SPDX-License-Identifier: GPL-2.0 OR MIT
/* gsyncctl's help texts: the overview and one page per subcommand. */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "sockets.h"

static const char overview[] =
"NAME\n"
"    gsyncctl - inspect gsync (AF_GSYNC) sockets, load their schedules and\n"
"    keys\n"
"\n"
"SYNOPSIS\n"
"    gsyncctl [OPTIONS] COMMAND [COMMAND OPTIONS]\n"
"    gsyncctl help [COMMAND]\n"
"\n"
"DESCRIPTION\n"
"    gsyncctl reads what the gsync kernel module publishes: the address\n"
"    family it registered (/sys/module/gsync/parameters/family) and, per\n"
"    network namespace, the open sockets (/proc/net/gsync) and counters\n"
"    (/proc/net/gsync_stats). Only schedule load and schedule clear (the\n"
"    schedule a running group uses) and key set (its key) change anything\n"
"    in the kernel; key generate writes a key file.\n"
"\n"
"COMMANDS\n"
"    family    print the address family number of AF_GSYNC\n"
"    show      one line per socket: state, group, rank, progress\n"
"    stats     per-socket counters, drops by reason, sending rate and\n"
"              round trip; namespace totals; --format prometheus for\n"
"              node_exporter's textfile collector\n"
"    watch     per-socket rates (operations, MB/s, NACKs, drops) and\n"
"              sending rate, refreshed\n"
"    schedule load FILE --group ID    push a schedule into a group\n"
"    schedule show FILE               dump a schedule, check it\n"
"    schedule clear --group ID        back to the default schedule\n"
"    key generate [FILE]              a new group secret (key file)\n"
"    key show [FILE]                  a key file's fingerprint, or every\n"
"                                     socket's key mode, epochs and\n"
"                                     fingerprint (never the key)\n"
"    key set --group ID --epoch N --start-seq S FILE\n"
"                                     rotate a running group's key\n"
"    help      this text, or a command's (gsyncctl help show)\n"
"\n"
"OPTIONS\n"
"    -j, --json         machine-readable output: one JSON document\n"
"    -n, --netns NAME   enter network namespace NAME (/run/netns/NAME, as\n"
"                       made by ip netns add; or a path to a netns file)\n"
"                       before reading; needs CAP_SYS_ADMIN\n"
"    -i, --id ID        show, stats, watch and key show: only the socket\n"
"                       with this id\n"
"    -f, --format FMT   stats: text (default), json or prometheus\n"
"    --interval SECONDS watch: time between samples (default 1)\n"
"    --count N          watch: stop after N intervals\n"
"    -g, --group ID, -r, --rank R, --start-seq N\n"
"                       schedule load|clear and key set: see their help\n"
"    -t, --topology FILE, --ranks ID,..., --relay NODE=RANK, --no-multicast\n"
"                       schedule only: see gsyncctl help schedule load\n"
"    --epoch N, --mode auth|encrypt\n"
"                       key set only: see gsyncctl help key set\n"
"    --force            key generate: replace an existing key file\n"
"    -h, --help         help (of COMMAND if given)\n"
"    -V, --version      print the version\n"
"\n"
"EXIT STATUS\n"
"    0  success\n"
"    1  error: unreadable or malformed /proc file, missing column, a\n"
"       schedule the kernel would refuse or did refuse, a refused key\n"
"       file, ...\n"
"    2  usage error\n"
"    3  the gsync module is not loaded\n"
"\n"
"EXAMPLES\n"
"    gsyncctl show\n"
"    gsyncctl --netns gs-i0 stats --json\n"
"    gsyncctl --netns gs-i0 schedule load s.gsched --group 0x2a\n"
"    gsyncctl key generate /etc/gsync/job.key\n"
"    gsyncctl key show\n"
"\n"
"SEE ALSO\n"
"    docs/gsyncctl.md, docs/libgsync.md, ip-netns(8)\n";

static const char family_help[] =
"NAME\n"
"    gsyncctl family - print the address family number of AF_GSYNC\n"
"\n"
"SYNOPSIS\n"
"    gsyncctl family [--json]\n"
"\n"
"DESCRIPTION\n"
"    An out-of-tree module cannot get a new AF_* number, so gsync borrows\n"
"    an unused one (default 25; module parameter family=). Programs must\n"
"    read it at run time; this prints it, e.g. for\n"
"    socket.socket($(gsyncctl family), socket.SOCK_SEQPACKET).\n"
"    The number is global, not per network namespace.\n"
"\n"
"OUTPUT\n"
"    text: the number and a newline. --json: {\"family\": N}\n"
"\n"
"EXIT STATUS\n"
"    0 printed; 3 the module is not loaded; 1 the sysfs file is malformed.\n";

static const char show_help[] =
"NAME\n"
"    gsyncctl show - list the gsync sockets of a network namespace\n"
"\n"
"SYNOPSIS\n"
"    gsyncctl [--netns NAME] show [--id ID] [--json]\n"
"\n"
"DESCRIPTION\n"
"    Reads /proc/net/gsync of the current (or --netns) namespace and prints\n"
"    one line per socket:\n"
"      ID        socket id (unique in the namespace)\n"
"      INODE     socket inode, as in /proc/PID/fd (socket:[INODE])\n"
"      UID       owner\n"
"      STATE     unconfigured (no GSYNC_JOIN yet), joined, failed\n"
"      GROUP     group id in hex\n"
"      RANK      rank/nranks, \"-\" before joining\n"
"      NEXT_SEQ  sequence number the next operation must carry\n"
"      INFLIGHT  operations submitted and not yet received\n"
"      OPS       operations completed successfully\n"
"      FAILED    operations failed (timeouts, mismatches, aborts)\n"
"    Columns are found by name in the file's header line, so a module with\n"
"    more columns works; --json includes every column of the file, typed\n"
"    (numbers as numbers, group and state as strings, \"-\" as null).\n"
"\n"
"OUTPUT (--json)\n"
"    {\"sockets\": [{\"id\": 1, \"inode\": ..., \"state\": \"joined\",\n"
"                   \"group\": \"0x2a\", ...}, ...]}\n"
"\n"
"EXIT STATUS\n"
"    0 listed (possibly no sockets); 1 the file is malformed or lacks a\n"
"    column; 3 the module is not loaded.\n";

static const char stats_help[] =
"NAME\n"
"    gsyncctl stats - counters of gsync sockets and their namespace\n"
"\n"
"SYNOPSIS\n"
"    gsyncctl [--netns NAME] stats [--id ID] [--json | --format FMT]\n"
"\n"
"DESCRIPTION\n"
"    First the namespace's gauges from /proc/net/gsync_stats (sockets_open,\n"
"    sockets_created, ..., groups_live) and its totals over every group it\n"
"    has had, open or closed (operations, packets, repairs, REPORTs, rate\n"
"    decreases, drops by reason: they survive close), then for each socket\n"
"    of /proc/net/gsync:\n"
"      ops_submitted/completed/failed, timeouts, mismatches\n"
"      tx_bytes/packets, rx_bytes/packets (UDP payload, headers included;\n"
"                        rx counts accepted packets only)\n"
"      nacks_sent/received, retransmits, mcast_retransmits (loss repair)\n"
"      reports_sent/received\n"
"                        REPORTs, the receivers' feedback to the senders:\n"
"                        sent to peers whose DATA arrived, received about\n"
"                        the DATA this socket sent\n"
"      rate_decreases    times the adaptive sending rate backed off (loss,\n"
"                        or a round trip growing as a queue fills)\n"
"      rate_loss_decreases\n"
"                        of those, the ones for loss (over 20% of a round's\n"
"                        chunks reported lost); the rest were for a queue\n"
"      send_rate         the rate the socket sends at now: the pacing rate\n"
"                        set, else the adaptive one; in bits/s with a\n"
"                        decimal prefix, then exactly in bytes/s, e.g.\n"
"                        \"12.5 Mbit/s (1562500 bytes/s)\"; 0 before the\n"
"                        first send\n"
"      rtt_ms            smoothed round trip to the slowest receiver, in\n"
"                        ms; 0 (unknown) before its first REPORT\n"
"                        These six come from a module with rate control;\n"
"                        with an older module they are not shown (one\n"
"                        with rate control but older still has no\n"
"                        rate_loss_decreases).\n"
"      drops             total and every non-zero reason: short, version,\n"
"                        type, group, rank, source, field, stale, window,\n"
"                        dup, nomem, clique, ratelimit; in keyed groups\n"
"                        auth (forged, altered, or another key), replay\n"
"                        (a packet seen before) and epoch (a key epoch\n"
"                        not held) (see enum gsync_drop_reason in\n"
"                        <linux/gsync.h>); reasons are read from the\n"
"                        drop_* columns, so new ones appear automatically\n"
"      key               a module with keyed groups: none, or the mode\n"
"                        (auth, encrypt), the epoch the socket sends with,\n"
"                        a rotation's epoch installed and not yet in use,\n"
"                        and the key's fingerprint (never the key)\n"
"    Numeric columns this version does not know are listed as (other).\n"
"\n"
"    The line \"udp (all UDP of the namespace, not only gsync):\" shows the\n"
"    namespace's UdpNoPorts, UdpIgnoredMulti (/proc/net/snmp), Udp6NoPorts\n"
"    and Udp6IgnoredMulti (/proc/net/snmp6), nstat's names: the kernel's\n"
"    UDP layer, not gsync, counts packets to the port of a group that has\n"
"    ended (its sockets are closed), with every other UDP datagram no\n"
"    socket took (see gsync(7), PACKETS FOR NO LIVE GROUP). Left out if the\n"
"    files are missing.\n"
"\n"
"    --format prometheus writes the Prometheus text exposition format for\n"
"    node_exporter's textfile collector: counters as gsync_*_total (bytes\n"
"    as *_bytes_total), gauges, drops as gsync_drops_total{reason=...};\n"
"    rate control as gsync_reports_sent_total, gsync_reports_received_total,\n"
"    gsync_rate_decreases_total, gsync_rate_loss_decreases_total and the\n"
"    gauges gsync_send_rate_bytes (bytes/s) and gsync_rtt_seconds\n"
"    (rtt_ms / 1000; a socket whose round trip is unknown, rtt_ms 0, has\n"
"    no series rather than a false 0 s); keyed groups as the gauges\n"
"    gsync_key_epoch and gsync_key_next_epoch and the labels key_mode and\n"
"    key_fingerprint of gsync_socket_info;\n"
"    per-socket series (sockets in a group) are labelled netns (the\n"
"    --netns argument, empty without), group, rank and socket (the id).\n"
"    The namespace's lines (/proc/net/gsync_stats) are labelled netns\n"
"    only: gsync_sockets_open, gsync_sockets_created_total,\n"
"    gsync_memory_bytes, gsync_linger_takeovers_total, gsync_groups_live;\n"
"    its totals over every group it has had as gsync_namespace_ and the\n"
"    per-socket name (e.g. gsync_namespace_reduce_jobs_total,\n"
"    gsync_namespace_rate_decreases_total,\n"
"    gsync_namespace_rate_loss_decreases_total,\n"
"    gsync_namespace_drops_total{reason}); a line this gsyncctl does not\n"
"    know as gsync_namespace_stat{name}. The UDP counters are\n"
"    gsync_namespace_udp_no_port_datagrams_total{netns,ip} and\n"
"    gsync_namespace_udp_ignored_multicast_datagrams_total{netns,ip},\n"
"    ip=\"ipv4\" or \"ipv6\".\n"
"    --format json is --json; --format text the default.\n"
"\n"
"OUTPUT (--json)\n"
"    {\"namespace\": {\"sockets_open\": 2, ...},\n"
"     \"udp\": {\"UdpNoPorts\": 0, \"UdpIgnoredMulti\": 0, ...},\n"
"     \"sockets\": [{\"id\": 1, ..., \"send_rate\": 1562500, \"rtt_ms\": 42,\n"
"                  \"key_mode\": \"encrypt\", \"key_epoch\": 3,\n"
"                  \"key_fingerprint\": \"5608c0e6269b66f4\", ...,\n"
"                  \"drops\": {\"short\": 0, ...}, \"drops_total\": 0}, ...]}\n"
"    Every column and line of the files, by their names, values as the\n"
"    module gives them: send_rate in bytes/s, rtt_ms in ms (0 = unknown).\n"
"\n"
"EXIT STATUS\n"
"    0 printed; 1 a file is malformed or lacks a column; 3 the module is\n"
"    not loaded.\n";

static const char watch_help[] =
"NAME\n"
"    gsyncctl watch - per-socket rates, refreshed\n"
"\n"
"SYNOPSIS\n"
"    gsyncctl [--netns NAME] watch [--id ID] [--interval SECONDS] [--count N]\n"
"\n"
"DESCRIPTION\n"
"    Reads /proc/net/gsync every --interval seconds (0.1..3600, default 1)\n"
"    and prints, for every socket in a group, its rates over the last\n"
"    interval: operations completed and failed per second, tx and rx MB/s\n"
"    and packets per second, NACKs sent, retransmits and drops (all\n"
"    reasons) per second, and the operations in flight. With a module that\n"
"    has rate control, two values of the sample itself follow: RATE_MB/s,\n"
"    the rate the socket sends at now (send_rate, in 10^6 bytes/s), and\n"
"    RTT_MS, the round trip to its slowest receiver (\"-\" while unknown).\n"
"    A socket that appears is shown from its second sample on. On a\n"
"    terminal each sample replaces the previous one; otherwise samples\n"
"    are appended, separated by blank lines. Runs until interrupted, or\n"
"    --count N intervals.\n"
"\n"
"EXIT STATUS\n"
"    0 after --count intervals; 1 a file is malformed or lacks a column;\n"
"    2 usage; 3 the module is not loaded.\n";

int print_help(const char *cmd, const char *sub)
{
	if (cmd && !strcmp(cmd, "key")) {
		if (!key_help(sub)) {
			fprintf(stderr, "gsyncctl: no help for unknown command "
				"'key %s'\n", sub);
			print_usage_hint();
			return EXIT_USAGE;
		}
		fputs(key_help(sub), stdout);
	} else if (cmd && !strcmp(cmd, "schedule")) {
		if (!schedule_help(sub)) {
			fprintf(stderr, "gsyncctl: no help for unknown command "
				"'schedule %s'\n", sub);
			print_usage_hint();
			return EXIT_USAGE;
		}
		fputs(schedule_help(sub), stdout);
	} else if (!cmd || !*cmd || !strcmp(cmd, "help"))
		fputs(overview, stdout);
	else if (!strcmp(cmd, "family"))
		fputs(family_help, stdout);
	else if (!strcmp(cmd, "show"))
		fputs(show_help, stdout);
	else if (!strcmp(cmd, "stats"))
		fputs(stats_help, stdout);
	else if (!strcmp(cmd, "watch"))
		fputs(watch_help, stdout);
	else {
		fprintf(stderr, "gsyncctl: no help for unknown command '%s'\n", cmd);
		print_usage_hint();
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int usage_error(const char *fmt, const char *arg)
{
	fputs("gsyncctl: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	print_usage_hint();
	return EXIT_USAGE;
}

void print_usage_hint(void)
{
	fputs("usage: gsyncctl [OPTIONS] family|show|stats|watch|schedule|key|help "
	      "(gsyncctl --help for details)\n", stderr);
}
