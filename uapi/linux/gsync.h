/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gsync: all-reduce of training buffers between compute islands over a WAN.
 *
 * User-space ABI of the AF_GSYNC socket family. This header is what training
 * code, libgsync and gsyncctl compile against.
 *
 * Address family number
 * ---------------------
 * An out-of-tree module cannot be given a new AF_* number: the kernel's
 * sock_register() accepts only numbers below AF_MAX (46 on 6.1 and 6.12).
 * gsync therefore borrows a number that no in-tree family registers. The
 * default is GSYNC_AF_DEFAULT; the administrator may load the module with
 * family=N (one of GSYNC_AF_ALLOWED). Programs must not hard-code the number:
 * read it from GSYNC_FAMILY_PATH (a decimal integer followed by a newline),
 * or use libgsync, which does.
 */
#ifndef _UAPI_LINUX_GSYNC_H
#define _UAPI_LINUX_GSYNC_H

#include <linux/types.h>

/* Default address family (AF_WANPIPE's number; no in-tree family uses it). */
#define GSYNC_AF_DEFAULT	25

/* Every number the module accepts for family=, as a C initializer list. */
#define GSYNC_AF_ALLOWED	{ 13, 14, 18, 19, 22, 25 }

/* Where the family number in use is published once the module is loaded. */
#define GSYNC_FAMILY_PATH	"/sys/module/gsync/parameters/family"

/* Per network namespace: one line per open AF_GSYNC socket. */
#define GSYNC_PROC_SOCKETS	"/proc/net/gsync"
/* Per network namespace: "name value" counter lines. */
#define GSYNC_PROC_STATS	"/proc/net/gsync_stats"

/* The only socket type: one message is one operation. */
#define GSYNC_SOCK_TYPE		5	/* SOCK_SEQPACKET */

/* Socket option level for setsockopt()/getsockopt(), and cmsg_level. */
#define SOL_GSYNC		299

/*
 * Element types and reduction operators. The numbering is shared with the
 * reduction engines and the offload device (docs/reduction-semantics.md
 * defines the arithmetic, bit for bit).
 */
enum gsync_dtype {
	GSYNC_DTYPE_FP32 = 0,
	GSYNC_DTYPE_BF16 = 1,
	GSYNC_DTYPE_FP16 = 2,
	GSYNC_DTYPE_INT32 = 3,
	GSYNC_DTYPE_MAX,
};

enum gsync_redop {
	GSYNC_OP_SUM = 0,
	GSYNC_OP_AVG = 1,
	GSYNC_OP_MIN = 2,
	GSYNC_OP_MAX = 3,
	GSYNC_REDOP_MAX,
};

/*
 * An endpoint: IPv4 or IPv6 address and UDP port, in network byte order.
 * For AF_INET only the first 4 bytes of addr are used, the rest must be 0.
 * scope_id is the interface index for IPv6 link-local addresses, else 0.
 */
struct gsync_addr {
	__u16 family;		/* AF_INET (2) or AF_INET6 (10) */
	__be16 port;
	__u32 scope_id;
	__u8 addr[16];
};

/* ---- socket options (level SOL_GSYNC) ------------------------------------ */

/*
 * GSYNC_JOIN (set only, once): configure the group and start the transport.
 * optval is struct gsync_join followed by nranks struct gsync_addr, the
 * unicast endpoint of every rank in rank order; this rank's entry is the
 * local address and port the socket binds. Errors:
 *   EINVAL      a field out of range or inconsistent (see each field), a
 *               member address that is multicast/unspecified, duplicate
 *               member endpoints, families that do not match
 *   ERANGE      nranks outside 2..GSYNC_MAX_RANKS
 *   EISCONN     the socket already joined a group
 *   ENODEV      ifindex does not name an interface of this netns
 *   EADDRINUSE, EADDRNOTAVAIL   binding this rank's endpoint failed
 *   ENOMEM      no memory for the group state
 */
#define GSYNC_JOIN		1

/*
 * GSYNC_PACING_RATE (set/get): __u64 bytes per second, at most
 * GSYNC_MAX_PACING_RATE (ERANGE above; also for gsync_join). A rate set
 * here is kept exactly, whatever the network does. 0 (the default) means
 * adaptive: the rank's sending rate follows the loss and the round trips
 * its receivers report (rate control in the manner of TCP: double per
 * round until the first backoff, then grow by a fixed step per round;
 * back off when a round lost too much or a queue built up), never above
 * the rate an exported schedule gives the clique, and remembered from one
 * operation to the next. Either is capped by the network namespace's
 * net.gsync.max_rate sysctl (bytes/s, itself capped by the initial
 * namespace's). gsync_info's send_rate is where it stands.
 */
#define GSYNC_PACING_RATE	2
#define GSYNC_MAX_PACING_RATE	(1ULL << 40)	/* about 1.1 TB/s */

/* GSYNC_INFO (get): struct gsync_info. */
#define GSYNC_INFO		3

/* GSYNC_STATS (get): struct gsync_stats; counters since the socket opened. */
#define GSYNC_STATS		4

/*
 * GSYNC_ENGINE (set/get, before or after GSYNC_JOIN): __u32, which engine
 * reduces this socket's operations (enum gsync_engine). DEFAULT follows
 * the module parameter engine=. A change applies to operations whose
 * reduction starts afterwards. EINVAL for an unknown value. See
 * docs/offload.md.
 */
#define GSYNC_ENGINE		5

enum gsync_engine {
	GSYNC_ENGINE_DEFAULT = 0,	/* module parameter engine= */
	GSYNC_ENGINE_CPU = 1,		/* in-kernel CPU engine */
	GSYNC_ENGINE_OFFLOAD = 2,	/* the offload agent; CPU if none */
	GSYNC_ENGINE_AUTO = 3,		/* offload if an agent is registered */
	GSYNC_ENGINE_MAX,
};

/*
 * GSYNC_KEY (set only; a key is never readable back): key the group, so
 * that every packet it sends is sealed with ChaCha20-Poly1305 under a key
 * of the sender's own, derived from secret, and every packet it receives
 * is dropped unless it opens under the key of the rank it claims to come
 * from (docs/security.md). optval is struct gsync_key.
 *   Before GSYNC_JOIN: the group's first epoch (start_seq must be 0). Set
 *   again before the join, it replaces the one set before. JOIN then keys
 *   the group; every rank must set the same secret, mode and epoch.
 *   After GSYNC_JOIN, on a keyed group: a rotation. Ranks send with the
 *   new epoch from operation start_seq on (an operation not submitted
 *   here yet); they accept both epochs around the switch, and erase the
 *   old one once no operation needs it. Every rank must install it, with
 *   the same start_seq, before it submits start_seq.
 * Errors: EINVAL (a mode or field out of range, start_seq not 0 before
 * the join, a mode other than the group's, an epoch not above the
 * current one), EISCONN (the group joined without a key: it cannot become
 * keyed), EBUSY (a rotation is pending: the previous epoch is not erased
 * yet), ERANGE (start_seq was already submitted), ENOMEM.
 * The secret is erased from the kernel's copies of optval before the call
 * returns; the caller should erase its own.
 */
#define GSYNC_KEY		8

enum gsync_key_mode {
	GSYNC_KEY_NONE = 0,	/* in gsync_info: the group has no key */
	GSYNC_KEY_AUTH = 1,	/* payload in clear, everything authenticated */
	GSYNC_KEY_ENCRYPT = 2,	/* the payload encrypted as well */
	GSYNC_KEY_MODE_MAX,
};

#define GSYNC_KEY_LEN		32

struct gsync_key {
	__u32 mode;		/* enum gsync_key_mode, not NONE */
	__u32 epoch;		/* a rotation's epoch is above the current */
	__u64 start_seq;	/* rotation: first operation sent with it */
	__u8 secret[GSYNC_KEY_LEN];	/* the group secret, random */
	__u64 reserved[2];	/* must be 0 */
};

/*
 * GSYNC_KEY_PUSH (set only) on any AF_GSYNC socket, CAP_NET_ADMIN in its
 * network namespace: rotate the key of every socket of that namespace
 * joined to group_id (and of rank, unless it is GSYNC_KEY_ANY_RANK), as if
 * each had set GSYNC_KEY itself: how an administrator (gsyncctl key set)
 * rotates a running job's key. optval is struct gsync_key_push. ENOENT if
 * no socket matched; else all or none: the first error of any socket.
 */
#define GSYNC_KEY_PUSH		9
#define GSYNC_KEY_ANY_RANK	0xffff

struct gsync_key_push {
	__u64 group_id;
	__u16 rank;		/* a rank, or GSYNC_KEY_ANY_RANK */
	__u16 reserved0;	/* must be 0 */
	__u32 reserved1;	/* must be 0 */
	struct gsync_key key;
};

/*
 * A key's fingerprint, as gsync_info and gsyncctl show it: the first 8
 * bytes, read big-endian, of BLAKE2s-256 over GSYNC_KEY_FPR_LABEL followed
 * by the secret. It names a key without revealing it.
 */
#define GSYNC_KEY_FPR_LABEL	"gsync fingerprint v1"

#define GSYNC_MAX_RANKS		256
#define GSYNC_MAX_WINDOW	64
#define GSYNC_MAX_OP_BYTES	(1U << 30)

/* gsync_join.flags */
#define GSYNC_JOIN_UNICAST	(1U << 0)	/* no multicast: unicast fan-out */
#define GSYNC_JOIN_MCAST_LOOP	(1U << 1)	/* ranks share a host or netns */
#define GSYNC_JOIN_FLAGS_ALL	(GSYNC_JOIN_UNICAST | GSYNC_JOIN_MCAST_LOOP)

struct gsync_join {
	__u64 group_id;		/* any value; every rank must use the same */
	__u16 rank;		/* this socket's rank, < nranks */
	__u16 nranks;		/* 2..GSYNC_MAX_RANKS */
	__u32 flags;		/* GSYNC_JOIN_* */
	/*
	 * group address and port; ignored (must be zero) with
	 * GSYNC_JOIN_UNICAST
	 */
	struct gsync_addr mcast;
	__u32 ifindex;		/* egress/join interface; 0 = by route */
	__u8 ttl;		/* multicast TTL/hop limit, 0 = 1 */
	__u8 reserved0[3];	/* must be 0 */
	/* IP packet size to use; 0 = the interface's MTU; else 576..65535 */
	__u32 mtu;
	/* operations in flight, 1..GSYNC_MAX_WINDOW; 0 = 4 */
	__u32 window;
	/* largest operation, bytes; 0 = 64 MiB; at most GSYNC_MAX_OP_BYTES */
	__u32 max_op_bytes;
	/*
	 * a peer silent this long fails the operation with ETIMEDOUT; 0 =
	 * 10000; 10..3600000
	 */
	__u32 op_timeout_ms;
	/* loss-repair interval; 0 = 20; 1..op_timeout_ms */
	__u32 repair_ms;
	__u32 reserved2;	/* must be 0 */
	__u64 pacing_rate;	/* bytes/s this rank sends, 0 = adaptive */
	__u64 reserved1[2];	/* must be 0 */
	/* followed by struct gsync_addr members[nranks] */
};

/* Socket states reported by GSYNC_INFO and /proc/net/gsync. */
enum gsync_state {
	GSYNC_STATE_UNCONFIGURED = 0,
	GSYNC_STATE_JOINED = 1,
	GSYNC_STATE_FAILED = 2,	/* transport error; see sk error */
};

struct gsync_info {
	__u32 state;		/* enum gsync_state */
	__u16 rank;
	__u16 nranks;
	__u64 group_id;
	__u64 next_seq;		/* sequence number the next sendmsg must carry */
	__u32 inflight;		/* operations submitted and not yet received */
	__u32 window;
	__u32 chunk_bytes;	/* payload bytes per data packet */
	__u32 flags;		/* gsync_join.flags in effect */
	__u64 pacing_rate;
	__u32 op_timeout_ms;
	__u32 repair_ms;
	__u32 max_op_bytes;
	__u32 rtt_ms;		/* slowest receiver's round trip; 0 = unknown */
	/*
	 * bytes/s this rank sends at now: pacing_rate, or with pacing_rate
	 * 0 the adaptive rate (0 until the first send); net.gsync.max_rate
	 * caps either
	 */
	__u64 send_rate;
	/* enum gsync_key_mode; the epoch sent with and its key's fingerprint */
	__u32 key_mode;
	__u32 key_epoch;
	__u64 key_fingerprint;
	__u32 key_next_epoch;	/* a rotation's epoch, installed; 0 = none */
	__u32 reserved0;
};

/* Why received packets were dropped; indexes gsync_stats.drops. */
enum gsync_drop_reason {
	GSYNC_DROP_SHORT = 0,	/* shorter than the header or its payload */
	GSYNC_DROP_VERSION,	/* unknown wire version */
	GSYNC_DROP_TYPE,	/* unknown packet type */
	GSYNC_DROP_GROUP,	/* another group id */
	GSYNC_DROP_RANK,	/* sender rank out of range or is us */
	GSYNC_DROP_SOURCE,	/* source address is not that rank's */
	GSYNC_DROP_FIELD,	/* chunk, length, dtype or op out of range */
	GSYNC_DROP_STALE,	/* operation already completed */
	GSYNC_DROP_WINDOW,	/* operation too far ahead of ours */
	GSYNC_DROP_DUP,		/* chunk already received */
	GSYNC_DROP_NOMEM,	/* no memory or over the receive budget */
	GSYNC_DROP_CLIQUE,	/* for other ranks in this step of a schedule */
	/*
	 * NACK/POLL over the peer's rate, a NACK asking for more
	 * retransmission than GSYNC_RTX_FACTOR times what we send it, or an
	 * answer to the peer (STATUS, ABORT) not queued because its answers
	 * already hold their share of the control queue
	 */
	GSYNC_DROP_RATELIMIT,
	/*
	 * Keyed groups (GSYNC_KEY): a packet not sealed as the group's mode
	 * requires (or sealed, to a group without a key), or one that does
	 * not open under its sender's key: forged, altered, or from a rank
	 * with another key
	 */
	GSYNC_DROP_AUTH,
	GSYNC_DROP_REPLAY,	/* authentic, but its counter was seen */
	GSYNC_DROP_EPOCH,	/* sealed in a key epoch we do not hold */
	GSYNC_DROP_MAX,
};

/*
 * gsync_stats.drops[] holds the reasons before GSYNC_DROP_AUTH; the
 * others are in drops_ext[], at the end of the struct, which grows only at
 * its end. GSYNC_STATS_DROP(st, reason) is either counter.
 */
#define GSYNC_DROP_BASE		GSYNC_DROP_AUTH
#define GSYNC_STATS_DROP(st, r)						\
	(*((r) < GSYNC_DROP_BASE ? &(st)->drops[(r)] :			\
	   &(st)->drops_ext[(r) - GSYNC_DROP_BASE]))

/*
 * Names of the drop reasons in enum order, as an initializer: the drop_*
 * columns of /proc/net/gsync are "drop_" followed by these.
 */
#define GSYNC_DROP_NAMES { "short", "version", "type", "group", "rank", \
	"source", "field", "stale", "window", "dup", "nomem", "clique", \
	"ratelimit", "auth", "replay", "epoch" }

/* Element size in bytes of an enum gsync_dtype value, 0 if unknown. */
#define GSYNC_DTYPE_SIZE(d)						\
	((d) == GSYNC_DTYPE_FP32 || (d) == GSYNC_DTYPE_INT32 ? 4 :	\
	 (d) == GSYNC_DTYPE_BF16 || (d) == GSYNC_DTYPE_FP16 ? 2 : 0)

struct gsync_stats {
	__u64 ops_submitted;
	__u64 ops_completed;	/* succeeded and handed to the user */
	__u64 ops_failed;
	__u64 tx_bytes;		/* UDP payload bytes, headers included */
	__u64 tx_packets;
	__u64 rx_bytes;
	__u64 rx_packets;	/* accepted, not counting drops */
	__u64 nacks_sent;
	__u64 nacks_received;
	__u64 retransmits;	/* data packets sent again */
	__u64 mcast_retransmits;	/* ... of which by multicast */
	__u64 timeouts;
	__u64 mismatches;
	__u64 sched_ops;	/* operations run under a loaded schedule */
	__u64 reduce_jobs;	/* block reductions handed to the engine */
	__u64 drops[GSYNC_DROP_BASE];
	__u64 reports_sent;	/* REPORTs: receivers' feedback to senders */
	__u64 reports_received;
	__u64 rate_decreases;	/* adaptive rate backed off (loss, queue) */
	__u64 rate_loss_decreases;	/* ... of which for loss */
	__u64 drops_ext[GSYNC_DROP_MAX - GSYNC_DROP_BASE];
};

/* ---- control messages (cmsg_level SOL_GSYNC) ------------------------------ */

/*
 * GSYNC_CMSG_OP, required on every sendmsg(): describes the operation the
 * message's buffer contributes to. seq must equal gsync_info.next_seq (the
 * first operation is 1; every rank submits the same sequence). The buffer
 * length must be a multiple of the element size and at most max_op_bytes.
 * Errors: EINVAL (bad cmsg, seq, dtype, op, length; also when another
 * thread submitted this seq first), EMSGSIZE (larger than max_op_bytes, or
 * the operation alone needs more kernel memory than net.gsync.sock_mem_max
 * allows a socket), ENOBUFS (the socket's or the namespace's gsync memory
 * budget, net.gsync.sock_mem_max / net.gsync.mem_max, is held by earlier
 * operations: collect them, or wait for peers to acknowledge them), ENOMEM,
 * ENOTCONN (not joined), EAGAIN (window full and non-blocking).
 */
#define GSYNC_CMSG_OP		1

struct gsync_op_desc {
	__u64 seq;
	__u8 dtype;		/* enum gsync_dtype */
	__u8 op;		/* enum gsync_redop */
	__u16 flags;		/* must be 0 */
	__u32 reserved;		/* must be 0 */
};

/*
 * GSYNC_CMSG_RESULT, on every recvmsg(): which operation the message is and
 * how it ended. On success the data is the reduced buffer (MSG_TRUNC if the
 * buffer given was too small). On failure status is a positive errno, the
 * message has no data, and the operation is over on this rank:
 *   ETIMEDOUT   a peer it waits for sent nothing for op_timeout_ms
 *   EPROTO      ranks disagreed on length, dtype or op for this seq
 *   ECONNABORTED a peer aborted the operation
 *   ECONNRESET  a peer closed its socket (or its process exited) with the
 *               operation in flight
 *   EKEYREJECTED a peer it waits for sent, for op_timeout_ms, only packets
 *               that did not authenticate: its key (GSYNC_KEY) differs
 *               from ours, or one of the two has none
 */
#define GSYNC_CMSG_RESULT	2

struct gsync_op_result {
	__u64 seq;
	__s32 status;		/* 0 or a positive errno */
	__u32 flags;		/* reserved, 0 */
	__u64 len;		/* bytes of the reduced buffer */
};

#endif /* _UAPI_LINUX_GSYNC_H */
