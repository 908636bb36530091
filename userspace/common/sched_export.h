/* sched_export.h - a gsync-schedule/1 schedule on a topology turned into
 * the kernel's blob (docs/schedules.md, "Executing schedules in the
 * kernel"): rank mapping (export_ranks.c), resolution of "auto" patterns
 * and omitted aggregators (export_resolve.c), the conversion and the
 * JSON-aware acceptance hooks (export.c). */
#ifndef GS_SCHED_EXPORT_H
#define GS_SCHED_EXPORT_H

#include "gs.h"
#include "sched_blob.h"

/* Rank of every island and relay node.  Islands take ranks 0..N-1 (their
 * index in the topology, or their position in --ranks); relays (a gsync
 * rank running at a network node, contributing nothing) take N..N+R-1. */
typedef struct {
	int nranks, nrelays;
	int *rank_of_node;                  /* [t->n_nodes]: rank or -1 */
	int *node_of_rank;                  /* [nranks] */
} gs_rankmap;

/* RANKS: "ID,ID,..." listing every island once, or NULL.  RELAYS: entries
 * "NODE=RANK" (an entry may hold several, comma separated). */
int  gs_rankmap_build(const gs_topo *t, const char *ranks, const char *const *relays, int nrelays,
		      gs_rankmap *rm, gs_err *e);
void gs_rankmap_free(gs_rankmap *rm);

typedef struct {
	const char *ranks;                  /* --ranks, or NULL */
	const char *const *relays;          /* --relay entries */
	int nrelays;
	int no_multicast;                   /* group without multicast */
	uint64_t start_seq;                 /* first operation; 0 = the next */
	double size;                        /* bytes per sync for resolving auto; 0 = 256 MiB */
	int no_rates;                       /* leave every clique's rate_kbit 0 */
	/* GSYNC_SCHF_CLIQUE_GROUPS is set unless no_clique_groups: clique i
	 * multicasts to group_base + i, all zero meaning the group's address
	 * + 1 (+ i); group_base must be zero with no_clique_groups */
	int no_clique_groups;
	uint8_t group_base[16];
} gs_export_opts;

/* The fraction of an access link a clique's members are paced to fill:
 * the rest is UDP/IP/Ethernet headers (the kernel's pacing counts gsync's
 * header and payload) and room for control packets. */
#define GS_RATE_HEADROOM 0.9

/* rate_kbit for members of clique K (members MEM, ranks mapped by RM) on
 * topology T: the fastest each member can send, all members at once,
 * without any access link receiving more than it carries (0: no link on
 * the way is limited). */
uint32_t gs_export_rate_kbit(const gs_topo *t, const gs_rankmap *rm,
			     const struct gsync_sched_clique *k, const uint16_t *mem);

/* 0 if every clique of two or more runs a kernel pattern (or auto); else
 * -1 naming the first that does not */
int gs_kernel_patterns(const gs_sched *s, gs_err *e);

/* Choose a kernel pattern for "auto" cliques and an aggregator (member
 * island or relay node) where the file omits it, by the cost model.
 * Errors name the clique's JSON path. */
int gs_export_resolve(const gs_topo *t, gs_sched *s, const gs_rankmap *rm, int no_multicast,
		      double size, gs_err *e);

typedef struct {
	const gs_topo *t;
	gs_sched s;                         /* the schedule, auto/aggregators resolved */
	gs_rankmap rm;
	int ncl;                            /* cliques in the blob */
	int *jr, *jc;                       /* [ncl]: its rounds[jr].cliques[jc] */
	struct gsync_sched_clique *cl;      /* [ncl], as in the blob */
	uint16_t *mem;                      /* members, as in the blob */
	unsigned char *blob;
	size_t len;
} gs_export_ctx;

enum { GS_EXPORT_OK = 0, GS_EXPORT_REFUSED = -1, GS_EXPORT_BADOPT = -2 };

/* Build the blob (no acceptance rules yet).  GS_EXPORT_BADOPT: --ranks,
 * --relay or --group-base are wrong; GS_EXPORT_REFUSED: the schedule has
 * something the kernel cannot execute.  Free X with gs_export_free in
 * every case. */
int  gs_export_build(gs_export_ctx *x, const gs_topo *t, const gs_sched *s, const gs_export_opts *o,
		     gs_err *e);
/* Hooks naming cliques by JSON path and ranks by island, and checking
 * given weights against each member's share of the contributors. */
void gs_export_hooks(gs_export_ctx *x, gs_blob_hooks *h);
/* gs_export_build, then the acceptance rules (GS_EXPORT_REFUSED) */
int  gs_export(gs_export_ctx *x, const gs_topo *t, const gs_sched *s, const gs_export_opts *o,
	       gs_err *e);
/* How many rs_multicast cliques of the built blob X would have fewer
 * blocks than members in an operation of SIZE bytes (0 if SIZE is not
 * known, <= 0): the kernel gives block b to member b mod k, so the members
 * past the last block reduce nothing and the exchange is not spread.  MSG
 * (if not NULL) gets one line naming the largest such clique and the fix:
 * the --chunk that gives every member a block. */
int  gs_export_few_blocks(const gs_export_ctx *x, double size, char *msg, size_t n);
void gs_export_free(gs_export_ctx *x);

#endif
