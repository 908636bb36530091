/* sched_blob.h - the kernel's schedule blob (uapi/linux/gsync_sched.h) in
 * userspace: structural parsing and the acceptance rules (blob_check.c),
 * a human-readable dump (blob_dump.c).  Needs only gs_err/gs_seterr of
 * gs.h (util.c); errors name the field or clique. */
#ifndef GS_SCHED_BLOB_H
#define GS_SCHED_BLOB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/gsync_sched.h>
#include "gs.h"

/* A parsed blob: copies of the header and cliques, a pointer to members
 * (2-byte aligned inside the caller's buffer, read with memcpy). */
typedef struct {
	struct gsync_sched_hdr hdr;
	struct gsync_sched_clique *cl;      /* [hdr.ncliques], heap */
	uint16_t *mem;                      /* [hdr.nmembers], heap */
} gs_blob_view;

/* How messages name things, and an extra per-clique rule.  Any member may
 * be NULL: cliques are then "rounds[R].cliques[C]" (C counted within the
 * blob's round R) and ranks "rank N". */
typedef struct {
	void *arg;
	void (*clique_name)(void *arg, unsigned ci, char *buf, size_t n);
	void (*rank_name)(void *arg, unsigned rank, char *buf, size_t n);
	/* after clique CI passed the coverage rules; cov[i] = contributing
	 * ranks covered by member i's value (blob order) when it combines.
	 * Return -1 with E set to refuse the schedule. */
	int (*clique_check)(void *arg, unsigned ci, const unsigned *cov, gs_err *e);
} gs_blob_hooks;

/* 1 if DATA starts with the blob magic (the file is a blob, not JSON) */
int gs_blob_is(const void *data, size_t len);

/* Structural checks (sizes, limits, fields, member order); fills V.
 * 0, or -1 with E set.  Free V with gs_blob_view_free (also on error). */
int gs_blob_parse(const void *data, size_t len, const gs_blob_hooks *h, gs_blob_view *v,
		  gs_err *e);
void gs_blob_view_free(gs_blob_view *v);

/* The kernel's acceptance rules on a parsed blob (see the header comment
 * of gsync_sched.h and docs/schedules.md): a rank in at most one clique
 * per round, disjoint coverage within a clique, full coverage at the end
 * and the same expression on every rank.  0, or -1 with E set. */
int gs_blob_rules(const gs_blob_view *v, const gs_blob_hooks *h, gs_err *e);

/* parse + rules */
int gs_blob_check(const void *data, size_t len, const gs_blob_hooks *h, gs_err *e);

/* Name of clique CI / rank R through the hooks or the defaults. */
void gs_blob_clique_name(const gs_blob_view *v, const gs_blob_hooks *h, unsigned ci, char *buf,
			 size_t n);
void gs_blob_rank_name(const gs_blob_hooks *h, unsigned rank, char *buf, size_t n);

/* Human-readable dump: header, one line per clique, then "accepted" or
 * "REJECTED: why".  Returns 0 if the blob is accepted, -1 if not (a
 * malformed blob prints only the reason). */
int gs_blob_dump(const void *data, size_t len, const gs_blob_hooks *h, FILE *f);

/* Clique groups (GSYNC_SCHF_CLIQUE_GROUPS): the rules an explicit
 * group_base BASE (16 bytes, not all zero) must follow whatever the
 * group's address is.  Clique i multicasts to BASE with i added to its low
 * 32 bits: IPv4 (bytes 4..15 zero, first byte not 0xff) in 224.0.1.0 to
 * 239.255.255.255 for i = 0..NCLIQUES-1, else IPv6 multicast (ff00::/8)
 * with no carry out of the low 32 bits.  0, or -1 with E set to why
 * (the caller names the field or option).  The group's own address,
 * its family and the derived base (all zero: the group's address + 1)
 * only the kernel can check. */
int gs_blob_group_base_check(const uint8_t *base, unsigned ncliques, gs_err *e);

/* Where clique CI of H multicasts, as text: "group" (the group's address,
 * no GSYNC_SCHF_CLIQUE_GROUPS), "group+N" (derived: the group's address
 * + N, N = CI + 1), or the address (an explicit group_base + CI).  BUF
 * should hold INET6_ADDRSTRLEN (46) bytes. */
void gs_blob_clique_group(const struct gsync_sched_hdr *h, unsigned ci, char *buf, size_t n);

/* Name of a GSYNC_PAT_* value ("multicast", ...), "?" if unknown. */
const char *gs_blob_pat_name(unsigned pat);

#endif
