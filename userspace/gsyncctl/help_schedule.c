// SPDX-License-Identifier: GPL-2.0 OR MIT
/* gsyncctl's help pages of schedule load, show and clear. */
#include <stddef.h>
#include <string.h>

#include "cmds.h"

static const char overview[] =
"NAME\n"
"    gsyncctl schedule - load, inspect and clear the schedules of groups\n"
"\n"
"SYNOPSIS\n"
"    gsyncctl [--netns NAME] schedule load FILE --group ID [--rank R]\n"
"        [--start-seq N] [--topology TOPOLOGY.json [--ranks ID,...]\n"
"        [--relay NODE=RANK]... [--no-multicast]]\n"
"    gsyncctl schedule show FILE [--topology TOPOLOGY.json ...]\n"
"    gsyncctl [--netns NAME] schedule clear --group ID [--rank R]\n"
"\n"
"DESCRIPTION\n"
"    A schedule tells the ranks of a group how to combine their buffers:\n"
"    rounds of cliques, each clique running one pattern (multicast,\n"
"    unicast, rs_multicast, aggregator). Without one a group runs one\n"
"    clique of every rank. The kernel takes schedules as a binary blob\n"
"    (uapi/linux/gsync_sched.h), written by gsync-sched export; gsyncctl\n"
"    also converts gsync-schedule/1 JSON from gsync-sched optimize itself.\n"
"    See gsyncctl help schedule load|show|clear, and docs/schedules.md,\n"
"    \"Executing schedules in the kernel\".\n";

static const char load_help[] =
"NAME\n"
"    gsyncctl schedule load - push a schedule into the sockets of a group\n"
"\n"
"SYNOPSIS\n"
"    gsyncctl [--netns NAME] schedule load FILE --group ID [--rank R]\n"
"        [--start-seq N]\n"
"    gsyncctl [--netns NAME] schedule load SCHEDULE.json --group ID\n"
"        --topology TOPOLOGY.json [--ranks ID,ID,...] [--relay NODE=RANK]...\n"
"        [--no-multicast] [--rank R] [--start-seq N]\n"
"\n"
"DESCRIPTION\n"
"    Loads FILE into every socket of this network namespace (or --netns\n"
"    NAME) joined to group ID, or only into the one of rank R, with\n"
"    setsockopt(SOL_GSYNC, GSYNC_SCHEDULE_PUSH) on a fresh AF_GSYNC\n"
"    socket. It is all or none: the kernel validates the schedule against\n"
"    every matching socket before it changes any. Operations already\n"
"    submitted finish under the schedule they started with.\n"
"\n"
"    FILE is a blob written by gsync-sched export (recognised by its\n"
"    magic \"GSCH\"), or a gsync-schedule/1 JSON schedule, which needs\n"
"    --topology and is converted the way gsync-sched export converts it\n"
"    (\"auto\" patterns are resolved for the file's \"bytes\", the size\n"
"    optimize recorded, else for 256 MiB synchronizations, an\n"
"    rs_multicast clique with fewer blocks than members is warned about,\n"
"    and each clique multicasts to an address of its own, the group's\n"
"    + 1 + its index (GSYNC_SCHF_CLIQUE_GROUPS); for other sizes,\n"
"    capability overrides or clique addresses use gsync-sched export).\n"
"    Before pushing, the schedule is checked against the kernel's\n"
"    acceptance rules, so a mistake is named here, not returned as EINVAL.\n"
"\n"
"    Every island must switch at the same operation, or the ranks\n"
"    disagree and fail it with EPROTO. On one host (all ranks in one\n"
"    namespace) one load does it. Across hosts, run the same load on\n"
"    every island with the same --start-seq N, an operation none has\n"
"    submitted yet (NEXT_SEQ in gsyncctl show tells how far each is).\n"
"\n"
"OPTIONS\n"
"    -g, --group ID         the group: decimal or 0x-hex, as gsyncctl show\n"
"                           prints it (required)\n"
"    -r, --rank R           only the socket of rank R (default: every rank\n"
"                           of the group in this namespace)\n"
"    --start-seq N          the first operation to run it; 0 = the next.\n"
"                           Overrides the blob's start_seq\n"
"    -t, --topology FILE    the topology of a JSON schedule\n"
"    --ranks ID,ID,...      JSON: rank order of the islands (default: their\n"
"                           order in the topology)\n"
"    --relay NODE=RANK      JSON: a rank running at network node NODE, for\n"
"                           an aggregator there (idle, ranks N..N+R-1)\n"
"    --no-multicast         JSON: the group joined with GSYNC_JOIN_UNICAST;\n"
"                           results by unicast, multicast cliques refused\n"
"    -n, --netns NAME       push in network namespace NAME\n"
"\n"
"EXIT STATUS\n"
"    0 loaded; 1 the file is unreadable or malformed, the schedule breaks\n"
"    an acceptance rule, or the kernel refused it: ENOENT (no socket of\n"
"    the group in this namespace), EPERM (needs CAP_NET_ADMIN), EINVAL\n"
"    (the kernel log says why), EOPNOTSUPP (multicast in a unicast\n"
"    group), ERANGE (start_seq already passed; a schedule still\n"
"    pending is replaced, not refused); 2 usage; 3 the gsync module is\n"
"    not loaded.\n"
"\n"
"EXAMPLES\n"
"    gsync-sched export s.json topologies/nine-city-private.json -o s.gsched\n"
"    gsyncctl --netns gs-i0 schedule load s.gsched --group 0x2a\n"
"    gsyncctl schedule load s.json --topology nine.json --group 42 \\\n"
"        --start-seq 1000\n";

static const char show_help[] =
"NAME\n"
"    gsyncctl schedule show - dump a schedule and check it\n"
"\n"
"SYNOPSIS\n"
"    gsyncctl schedule show FILE\n"
"    gsyncctl schedule show SCHEDULE.json --topology TOPOLOGY.json\n"
"        [--ranks ID,ID,...] [--relay NODE=RANK]... [--no-multicast]\n"
"        [--start-seq N]\n"
"\n"
"DESCRIPTION\n"
"    Prints what the kernel would get: the number of ranks and which are\n"
"    idle (relays that contribute nothing), rounds, cliques, block size,\n"
"    start_seq, then one line per clique: its round, its name (the JSON\n"
"    path rounds[R].cliques[C] for a JSON file), pattern, how results go\n"
"    back (mcast, or unicast with GSYNC_SCF_UNICAST), the aggregator's\n"
"    rank and the member ranks; for a JSON file also which island or relay\n"
"    each rank is. The last line says whether the kernel's acceptance\n"
"    rules pass (\"accepted: ...\") or why not (\"REJECTED: ...\").\n"
"    Needs no kernel module.\n"
"\n"
"EXIT STATUS\n"
"    0 accepted; 1 rejected, malformed, or unreadable; 2 usage.\n";

static const char clear_help[] =
"NAME\n"
"    gsyncctl schedule clear - return a group to the default schedule\n"
"\n"
"SYNOPSIS\n"
"    gsyncctl [--netns NAME] schedule clear --group ID [--rank R]\n"
"\n"
"DESCRIPTION\n"
"    Pushes an empty schedule (GSYNC_SCHEDULE_PUSH with no blob after\n"
"    struct gsync_sched_push): the sockets of group ID (or only rank R)\n"
"    go back to one round with one clique of every rank, from the next\n"
"    operation.\n"
"\n"
"EXIT STATUS\n"
"    0 cleared; 1 the kernel refused (ENOENT: no socket of the group in\n"
"    this namespace; EPERM: needs CAP_NET_ADMIN); 2 usage; 3 the gsync\n"
"    module is not loaded.\n";

const char *schedule_help(const char *sub)
{
	if (!sub)
		return overview;
	if (!strcmp(sub, "load"))
		return load_help;
	if (!strcmp(sub, "show"))
		return show_help;
	if (!strcmp(sub, "clear"))
		return clear_help;
	return NULL;
}
