/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compiled schedules (uapi/linux/gsync_sched.h): a validated blob turned
 * into the tables the transport consults per packet and per block.
 *
 * A struct gsync_sched is immutable once compiled and shared by reference
 * count: the group holds its current and pending schedules, and every
 * operation holds the schedule it was submitted under. Nothing in it needs
 * a lock; get/put may be called from any context.
 */
#ifndef GSYNC_SCHED_H
#define GSYNC_SCHED_H

#include <linux/kref.h>
#include <linux/types.h>
#include <linux/gsync.h>
#include <linux/gsync_sched.h>

#define GSYNC_NO_CLIQUE		0xffff
/* Steps per round: values in (2r), reduced blocks back from owners (2r+1). */
#define GSYNC_STEPS_PER_ROUND	2
#define GSYNC_MAX_STEPS		(GSYNC_SCHED_MAX_ROUNDS * GSYNC_STEPS_PER_ROUND)

struct gsync_sclique {
	u8 pattern;		/* enum gsync_sched_pattern */
	bool unicast;		/* results back by unicast (or pattern UNICAST) */
	bool final;		/* its result covers every contributor */
	bool divides;		/* ... first: AVG divides here */
	u16 nmembers;
	u16 aggregator;		/* rank, AGGREGATOR only */
	u16 ninputs;		/* members whose value covers someone */
	u16 cov_out;		/* contributors its result covers */
	u64 rate;		/* bytes/s each member sends at; 0: no pace */
	const u16 *members;	/* [nmembers], ascending */
	const u16 *order;	/* [ninputs]: reduction order (ranks) */
};

struct gsync_sched {
	struct kref ref;
	u16 nranks;
	u16 nrounds;
	u16 ncontrib;		/* contributing ranks (the AVG divisor) */
	u64 tag;		/* on the wire; 0 = the default schedule */
	u32 block_bytes;	/* 0: the whole buffer is one block */
	u64 start_seq;
	struct gsync_sclique *cliques;
	u16 *clique_of;		/* [nrounds * nranks]: index or NO_CLIQUE */
	u16 *cov;		/* [(nrounds + 1) * nranks]: value coverage */
	u16 *tables;		/* members and orders, cliques point here */
	void *blob;		/* as loaded, for getsockopt */
	u32 blob_len;
	/*
	 * GSYNC_SCHF_CLIQUE_GROUPS in a multicast group: clique i multicasts
	 * to cbase with i added to its low 32 bits (gsync_sched_caddr()).
	 */
	bool cgroups;
	u8 cfamily;		/* AF_INET (first 4 bytes) or AF_INET6 */
	u8 cbase[16];
};

static inline const struct gsync_sclique *
gsync_sched_clique(const struct gsync_sched *s, unsigned int round,
		   unsigned int rank)
{
	u16 i = s->clique_of[round * s->nranks + rank];

	return i == GSYNC_NO_CLIQUE ? NULL : &s->cliques[i];
}

/* Contributors covered by rank's value entering round (nrounds: final). */
static inline u16 gsync_sched_cov(const struct gsync_sched *s,
				  unsigned int round, unsigned int rank)
{
	return s->cov[round * s->nranks + rank];
}

/* Does the clique reduce block b at one owner, which sends it back? */
static inline bool gsync_sclique_owned(const struct gsync_sclique *q)
{
	return q->pattern == GSYNC_PAT_RS_MULTICAST ||
	       q->pattern == GSYNC_PAT_AGGREGATOR;
}

/* The rank that reduces block b in clique q (owner patterns). */
static inline u16 gsync_sclique_owner(const struct gsync_sclique *q, u32 b)
{
	if (q->pattern == GSYNC_PAT_AGGREGATOR)
		return q->aggregator;
	return q->members[b % q->nmembers];
}

/* Position of rank in q's members, or -1. */
int gsync_sclique_pos(const struct gsync_sclique *q, unsigned int rank);

/*
 * The multicast address of clique q of s into addr (4 or 16 bytes, as
 * cfamily says); false if s has no clique groups (the group's address).
 */
bool gsync_sched_caddr(const struct gsync_sched *s,
		       const struct gsync_sclique *q, u8 addr[16]);

/* mcast: the group's multicast address; NULL in a unicast group. */
int gsync_sched_compile(const void *blob, u32 len, u16 nranks,
			const struct gsync_addr *mcast,
			struct gsync_sched **out);
struct gsync_sched *gsync_sched_default(u16 nranks, bool unicast_group);
void gsync_sched_put(struct gsync_sched *s);

static inline struct gsync_sched *gsync_sched_get(struct gsync_sched *s)
{
	kref_get(&s->ref);
	return s;
}

/*
 * Cutting an operation of len bytes: block size in effect and the number
 * of blocks; chunks of cb bytes within blocks (see gsync_wire.h).
 */
u32 gsync_sched_block(const struct gsync_sched *s, u32 len);

static inline u32 gsync_blocks(u32 len, u32 block)
{
	return DIV_ROUND_UP(len, block);
}

static inline u32 gsync_chunks_per_block(u32 block, u32 cb)
{
	return DIV_ROUND_UP(block, cb);
}

u32 gsync_chunk_count(u32 len, u32 block, u32 cb);
bool gsync_chunk_span(u32 len, u32 block, u32 cb, u32 chunk, u32 *off,
		      u32 *plen);

#endif /* GSYNC_SCHED_H */
