/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gsync schedules: how the ranks of a group combine their buffers in
 * rounds of cliques. Loaded with setsockopt(GSYNC_SCHEDULE) and read back
 * with getsockopt(GSYNC_SCHEDULE). Without a schedule a group runs one
 * round with one clique of every rank (pattern MULTICAST, or UNICAST in a
 * GSYNC_JOIN_UNICAST group).
 *
 * The blob is, with no padding between the parts:
 *
 *	struct gsync_sched_hdr
 *	struct gsync_sched_clique cliques[ncliques]	(sorted by round)
 *	__u16 members[nmembers]				(host byte order)
 *
 * Semantics. Every rank starts with its own buffer (a rank marked idle
 * contributes nothing: it may relay or aggregate). In each round the ranks
 * of a clique replace their values with the reduction of the clique's
 * values; a rank in no clique keeps its value. The kernel accepts only
 * schedules that compute an exact all-reduce with the same result bits on
 * every rank:
 *
 *  - members of a clique are distinct ranks in ascending order, and a rank
 *    is in at most one clique per round;
 *  - the values a clique combines cover disjoint sets of contributing ranks
 *    (nothing is counted twice), and after the last round every rank's
 *    value covers every contributing rank;
 *  - every rank ends with the same expression: values are combined in a
 *    canonical order (ascending by the lowest rank each value covers), so
 *    e.g. the cliques of a rotating grid all compute the same sums.
 *
 * Weights are implied: a clique sums its values (min/max take min/max), so
 * each member's weight is the share of contributors its value covers; AVG
 * divides once, by the number of contributing ranks, when a value first
 * covers all of them.
 *
 * Pipelining: buffers are cut into blocks of block_bytes. Block b of round
 * r+1 starts as soon as block b of round r is complete at the rank, so R
 * rounds cost about one buffer transfer plus R latencies.
 *
 * Patterns (see docs/schedules.md for costs):
 *  MULTICAST     each member multicasts its value to the group address;
 *                every member reduces all values.
 *  UNICAST       each member unicasts its value to every other member.
 *  RS_MULTICAST  reduce-scatter then all-gather: block b is owned by the
 *                member at position b mod k; members unicast block b to its
 *                owner, the owner reduces it and multicasts the result.
 *  AGGREGATOR    members unicast their values to the aggregator (a member,
 *                possibly an idle rank standing for a PoP), which reduces
 *                them and multicasts the result.
 * GSYNC_SCF_UNICAST makes RS_MULTICAST and AGGREGATOR send the result by
 * unicast to each member instead (groups without multicast).
 *
 * Clique groups (GSYNC_SCHF_CLIQUE_GROUPS): clique i, its index in
 * cliques[], multicasts to an address of its own, so that a rank receives
 * only the traffic of its cliques. The address is group_base with i added
 * to its low 32 bits (network byte order, no carry out of them); an
 * all-zero group_base means the group's address plus 1. IPv4 uses the
 * first 4 bytes of group_base (the rest must be 0). Every address must be
 * multicast (IPv4: 224.0.1.0 to 239.255.255.255), in the group's family,
 * and not the group's own address; the port and IPv6 scope are the
 * group's. A rank joins the addresses of its cliques when it loads the
 * schedule and leaves them when no schedule it still runs needs them,
 * on its own socket for each address (so the host's
 * net.ipv4.igmp_max_memberships, per socket, is not reached). Packets
 * about a whole operation (ABORT) still go to the group's address. In a
 * unicast group the flag has no effect.
 *
 * Rates: rate_kbit paces what each member of the clique sends in its
 * round (both steps, repairs and all, headers included), in 1000 bit/s,
 * averaged over the round. A group's pacing_rate (GSYNC_JOIN,
 * GSYNC_PACING_RATE), when set, caps it; otherwise the member's adaptive
 * rate runs under it as a cap, and with both 0 the adaptive rate alone
 * paces. In an RS_MULTICAST clique of k members a packet is paced by the
 * downloads it lands on: k/(2(k-1)) of its length per member that
 * receives it, so that blocks to their owners alone go at 2(k-1)/k of
 * rate_kbit and results alone at 2/k of it, and the mix a round sends
 * averages to rate_kbit. gsync-sched export sets it from the topology's
 * access rates, so that a schedule the optimizer made needs no hand-set
 * pacing.
 *
 * Replacing a schedule: a loaded schedule applies to operations submitted
 * from start_seq on (0: the next one); operations already submitted keep
 * the schedule they started with. Ranks that disagree on the schedule of
 * an operation fail it with EPROTO (packets carry a tag of the schedule).
 * An empty optval (optlen 0) returns to the default schedule.
 *
 * Errors: EINVAL for a malformed blob or one that is not an exact,
 * bit-identical all-reduce (the kernel log says why); ENOTCONN before
 * GSYNC_JOIN; EOPNOTSUPP for a multicast pattern in a unicast group;
 * ERANGE if start_seq is behind the group's next sequence number; ENOBUFS
 * if a group would hold more than 64 clique group addresses (those of the
 * schedules it runs or has pending, all told). Loading
 * a schedule replaces one still pending. getsockopt returns the most
 * recently loaded blob (pending or in effect), or length 0 for the
 * default; a buffer too small is ERANGE with optlen set to the size needed.
 */
#ifndef _UAPI_LINUX_GSYNC_SCHED_H
#define _UAPI_LINUX_GSYNC_SCHED_H

#include <linux/types.h>

/* setsockopt/getsockopt(SOL_GSYNC, GSYNC_SCHEDULE, blob, len) */
#define GSYNC_SCHEDULE		6

/*
 * setsockopt(GSYNC_SCHEDULE_PUSH) on any AF_GSYNC socket (joined or not),
 * CAP_NET_ADMIN in its network namespace: load a schedule into every socket
 * of that namespace joined to group_id (and of rank, unless it is
 * GSYNC_SCHED_ANY_RANK), as if each had set GSYNC_SCHEDULE itself. optval
 * is struct gsync_sched_push followed by the blob. ENOENT if no socket
 * matched; otherwise the first error of any socket (all or none: the blob
 * is validated against each socket before any is changed).
 */
#define GSYNC_SCHEDULE_PUSH	7
#define GSYNC_SCHED_ANY_RANK	0xffff

struct gsync_sched_push {
	__u64 group_id;
	__u16 rank;		/* a rank, or GSYNC_SCHED_ANY_RANK */
	__u16 reserved0;	/* must be 0 */
	__u32 reserved1;	/* must be 0 */
	/* followed by the schedule blob */
};

#define GSYNC_SCHED_MAGIC	0x48435347U	/* "GSCH" little-endian */
#define GSYNC_SCHED_VERSION	1
#define GSYNC_SCHED_MAX_ROUNDS	16
#define GSYNC_SCHED_MAX_CLIQUES	1024
#define GSYNC_SCHED_MAX_MEMBERS	4096
/* Blocks per operation are capped: block_bytes is raised to fit. */
#define GSYNC_SCHED_MAX_BLOCKS	4096
#define GSYNC_SCHED_MIN_BLOCK	4096

enum gsync_sched_pattern {
	GSYNC_PAT_MULTICAST = 1,
	GSYNC_PAT_UNICAST = 2,
	GSYNC_PAT_RS_MULTICAST = 3,
	GSYNC_PAT_AGGREGATOR = 4,
	GSYNC_PAT_MAX
};

/* gsync_sched_hdr.flags */
#define GSYNC_SCHF_CLIQUE_GROUPS	(1U << 0)	/* a group per clique */
#define GSYNC_SCHF_ALL			GSYNC_SCHF_CLIQUE_GROUPS

/* gsync_sched_clique.flags */
#define GSYNC_SCF_UNICAST	(1U << 0)	/* results back by unicast */

struct gsync_sched_hdr {
	__u32 magic;		/* GSYNC_SCHED_MAGIC */
	__u16 version;		/* GSYNC_SCHED_VERSION */
	__u16 hdr_len;		/* sizeof(struct gsync_sched_hdr) */
	__u64 start_seq;	/* first operation it applies to; 0 = next */
	__u32 block_bytes;	/* pipelining unit, multiple of 16, >= 4096 */
	__u16 nranks;		/* must equal the group's */
	__u16 nrounds;		/* 1..GSYNC_SCHED_MAX_ROUNDS */
	__u16 ncliques;		/* 1..GSYNC_SCHED_MAX_CLIQUES, all rounds */
	__u16 nmembers;		/* entries in members[] */
	__u32 flags;		/* GSYNC_SCHF_* */
	/* bit r (byte r / 8, LSB first): rank r contributes nothing */
	__u8 idle[32];
	/* CLIQUE_GROUPS: clique 0's address; else must be 0 */
	__u8 group_base[16];
};

struct gsync_sched_clique {
	__u16 round;		/* 0..nrounds-1; non-decreasing in the array */
	__u8 pattern;		/* enum gsync_sched_pattern */
	__u8 flags;		/* GSYNC_SCF_* */
	__u16 first;		/* index of its first member in members[] */
	__u16 nmembers;		/* 2..nranks */
	__u16 aggregator;	/* AGGREGATOR: a member rank; else 0 */
	__u16 reserved0;	/* must be 0 */
	__u32 rate_kbit;	/* members' sending rate, kbit/s; 0: none */
};

#define GSYNC_SCHED_BLOB_LEN(nc, nm)					\
	(sizeof(struct gsync_sched_hdr) +				\
	 (nc) * sizeof(struct gsync_sched_clique) + (nm) * sizeof(__u16))

#endif /* _UAPI_LINUX_GSYNC_SCHED_H */
