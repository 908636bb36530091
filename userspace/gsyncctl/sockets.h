/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The data gsyncctl shows: /proc/net/gsync (one row per socket) and
 * /proc/net/gsync_stats, loaded and validated, plus the column
 * vocabulary: which known columns hold what, so that values are checked
 * and typed, while unknown (newer) columns are passed through.
 */
#ifndef GSYNCCTL_SOCKETS_H
#define GSYNCCTL_SOCKETS_H

#include "json.h"
#include "table.h"

/* Exit statuses (documented in --help). */
enum { EXIT_OK = 0, EXIT_ERR = 1, EXIT_USAGE = 2, EXIT_NOMODULE = 3 };

enum col_type {
	COL_UNKNOWN,	/* not ours: printed in JSON as number or string */
	COL_U64,	/* decimal, or "-" for not applicable */
	COL_HEX,	/* 0x..., or "-" */
	COL_WORD,	/* a lower-case word (state, key_mode) */
	COL_FPR,	/* a key fingerprint: 16 hex digits, or "-" */
};

enum col_type col_type_of(const char *name);

/*
 * Load DIR/gsync (DIR NULL: /proc/net) and check every known column of
 * every row. Returns EXIT_OK, EXIT_NOMODULE (file missing: module not
 * loaded), or EXIT_ERR; errors are printed to stderr.
 */
int sockets_load(struct table *t, const char *dir);

/* The same for DIR/gsync_stats. */
int nsstats_load(struct kv *kv, const char *dir);

/*
 * The namespace's UDP counters, of every UDP socket, not only gsync's:
 * where packets to the port of a gsync group that has ended are counted
 * (udpstats.c). v[0] from DIR/snmp (IPv4), v[1] from DIR/snmp6 (IPv6),
 * DIR NULL: /proc/net. A missing file or counter is left out (have 0),
 * never an error: a namespace without IPv6 has no snmp6.
 */
enum { UDP_NOPORTS, UDP_IGNOREDMULTI, UDP_NCOUNTERS };
struct udp_stats {
	int have[2][UDP_NCOUNTERS];
	uint64_t v[2][UDP_NCOUNTERS];
};

void udpstats_load(struct udp_stats *u, const char *dir);
/* nstat(8)'s name of counter K: UdpNoPorts, Udp6IgnoredMulti, ... */
const char *udpstats_name(int ip6, int k);

/*
 * Check that every column in NAMES (NULL-terminated) exists; print which
 * is missing and return EXIT_ERR otherwise.
 */
int require_cols(const struct table *t, const char *const *names,
		 const char *what);

/* A cell's value as u64, or 0 for "-". Only for validated COL_U64/HEX. */
uint64_t cell_u64(const struct table *t, unsigned int row, const char *col);
const char *cell_str(const struct table *t, unsigned int row, const char *col);

/* Emit the value of column C of ROW as the right JSON type. */
void json_cell(struct json *j, const struct table *t, unsigned int row,
	       unsigned int c);

#endif
