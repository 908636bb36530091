// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The namespace's UDP counters that say where packets for no live gsync
 * group went (gsync(7), "PACKETS FOR NO LIVE GROUP"): a gsync group's UDP
 * sockets close when the group ends, so the kernel's UDP layer, not
 * gsync, counts what arrives for it afterwards. They count every UDP
 * socket of the namespace, not only gsync's. Read from /proc/net/snmp
 * ("Udp:" header line, then "Udp:" value line) and /proc/net/snmp6
 * ("name value" lines); nstat(8) names them UdpNoPorts and so on.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "sockets.h"

/* The counters' names in the Udp: lines of /proc/net/snmp. */
static const char *const snmp_names[UDP_NCOUNTERS] = {
	"NoPorts", "IgnoredMulti",
};
/* nstat's names; for IPv6 they are also snmp6's. */
static const char *const nstat_names[2][UDP_NCOUNTERS] = {
	{ "UdpNoPorts", "UdpIgnoredMulti" },
	{ "Udp6NoPorts", "Udp6IgnoredMulti" },
};

const char *udpstats_name(int ip6, int k)
{
	return nstat_names[!!ip6][k];
}

static void put(struct udp_stats *u, int ip6, const char *const *names,
		const char *name, const char *value)
{
	uint64_t v;
	int k;

	for (k = 0; k < UDP_NCOUNTERS; k++)
		if (!strcmp(name, names[k]) && !parse_dec_u64(value, &v)) {
			u->have[ip6][k] = 1;
			u->v[ip6][k] = v;
		}
}

/* /proc/net/snmp: the first "Udp:" line names the columns, the next
 * holds their values. */
static void parse_snmp(struct udp_stats *u, char *text)
{
	char *line, *save = NULL, *hdr = NULL, *s1 = NULL, *s2 = NULL;
	char *name, *value;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "Udp: ", 5))
			continue;
		if (!hdr) {
			hdr = line;
			continue;
		}
		name = strtok_r(hdr + 5, " ", &s1);
		value = strtok_r(line + 5, " ", &s2);
		for (; name && value; name = strtok_r(NULL, " ", &s1),
		     value = strtok_r(NULL, " ", &s2))
			put(u, 0, snmp_names, name, value);
		return;
	}
}

/* /proc/net/snmp6: "name value" lines, blanks between. */
static void parse_snmp6(struct udp_stats *u, char *text)
{
	char *line, *save = NULL, *s, *name, *value;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		s = NULL;
		name = strtok_r(line, " \t", &s);
		value = name ? strtok_r(NULL, " \t", &s) : NULL;
		if (value)
			put(u, 1, nstat_names[1], name, value);
	}
}

void udpstats_load(struct udp_stats *u, const char *dir)
{
	char path[4096], *text;

	memset(u, 0, sizeof(*u));
	snprintf(path, sizeof(path), "%s/snmp", dir ? dir : "/proc/net");
	if (!read_file(path, &text)) {
		parse_snmp(u, text);
		free(text);
	}
	snprintf(path, sizeof(path), "%s/snmp6", dir ? dir : "/proc/net");
	if (!read_file(path, &text)) {
		parse_snmp6(u, text);
		free(text);
	}
}
