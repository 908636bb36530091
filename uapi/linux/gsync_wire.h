/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gsync wire format: what travels in UDP payloads between ranks. Published
 * so that tools and packet dissectors can parse it. All multi-byte fields
 * are big-endian. Every packet starts with struct gsync_wire_hdr; what
 * follows depends on the type and is exactly payload_len bytes.
 *
 *  DATA    a chunk of the value a rank sends in one step of operation
 *          seq: its own buffer, or a partial result covering ncontrib
 *          ranks in later rounds of a schedule (uapi/linux/gsync_sched.h).
 *          Payload: the chunk's bytes (see "Chunks" below).
 *  NACK    "I am missing these chunks of your contribution to seq".
 *          Payload: struct gsync_wire_nack and its ranges.
 *  STATUS  "for seq I hold the complete contribution of these ranks" (the
 *          acknowledgement senders wait for before freeing their data).
 *          Payload: struct gsync_wire_status.
 *  POLL    sent by a rank that finished sending seq and has not heard from
 *          every receiver: receivers answer with STATUS or NACK. Header
 *          fields as in DATA, chunk = 0, no payload.
 *  ABORT   "operation seq failed": payload struct gsync_wire_abort. Sent to
 *          every rank when one rank detects ranks disagreeing on seq
 *          (EPROTO), times it out (ETIMEDOUT) or closes in it
 *          (ECONNRESET), finds its key refused (EKEYREJECTED), and to a
 *          rank that asks about an operation that failed so. Receivers
 *          fail seq with that error (any other: ECONNABORTED), or keep it
 *          for when they submit seq.
 *  REPORT  "this is how your DATA reached me lately": payload struct
 *          gsync_wire_report, sent every repair interval to each peer we
 *          received DATA from in it. It is about the sender, not an
 *          operation: seq, round and sched_tag are 0. The sender's rate
 *          control reads the loss and round trip from it (kmod/rate.c).
 *
 * Steps. A schedule of R rounds runs in 2R steps: step 2r carries values
 * into round r's reduction (to every member, or to the block's owner),
 * step 2r+1 carries reduced blocks back from their owner (RS_MULTICAST and
 * AGGREGATOR). The header's round field is the step. NACK, STATUS and POLL
 * name the step they are about the same way. Packets of an operation run
 * without a schedule have step 0 and tag 0.
 *
 * Chunks. A value of total_len bytes is cut into blocks of the schedule's
 * block size (the whole value without a schedule), and each block into
 * chunks of the sender's chunk_bytes (the last chunk of a block may be
 * shorter); chunks are numbered across blocks. So chunk i lies in block
 * i / ceil(block / chunk_bytes).
 *
 * Receivers validate every field before using any (see kmod/receive.c) and
 * count each dropped packet by reason (enum gsync_drop_reason).
 */
#ifndef _UAPI_LINUX_GSYNC_WIRE_H
#define _UAPI_LINUX_GSYNC_WIRE_H

#include <linux/types.h>

/* 2: 64-bit schedule tag, 64-byte header; 3: DATA stamp, REPORT */
#define GSYNC_WIRE_VERSION	3

enum gsync_pkt_type {
	GSYNC_PKT_DATA = 1,
	GSYNC_PKT_NACK = 2,
	GSYNC_PKT_STATUS = 3,
	GSYNC_PKT_POLL = 4,
	GSYNC_PKT_ABORT = 5,
	GSYNC_PKT_REPORT = 6,
};

/* gsync_wire_hdr.flags */
#define GSYNC_WF_RETRANSMIT	(1U << 0)	/* DATA sent again after a NACK */
#define GSYNC_WF_PARTIAL	(1U << 1)	/* DATA covers != 1 rank */
#define GSYNC_WF_SEALED		(1U << 2)	/* keyed: see "Keyed groups" */
#define GSYNC_WF_ENCRYPTED	(1U << 3)	/* ... and the payload encrypted */

struct gsync_wire_hdr {
	__u8 version;		/* GSYNC_WIRE_VERSION */
	__u8 type;		/* enum gsync_pkt_type */
	__u8 dtype;		/* enum gsync_dtype of the operation */
	__u8 op;		/* enum gsync_redop of the operation */
	__be16 src_rank;	/* sender's rank */
	__be16 nranks;		/* group size as the sender knows it */
	__be64 group_id;
	__be64 seq;		/* operation sequence number */
	__be16 round;		/* step of the schedule (see Steps); 0 without */
	__be16 flags;		/* GSYNC_WF_* */
	__be32 chunk;		/* DATA: chunk index, < nchunks */
	__be32 nchunks;		/* DATA, POLL: chunks in this contribution */
	__be32 payload_len;	/* bytes following this header */
	__be64 total_len;	/* DATA, POLL: contribution length in bytes */
	__be16 ncontrib;	/* DATA: contributing ranks the value covers */
	/*
	 * DATA: the sender's clock in ms, modulo 2^16, when it sent the
	 * packet; echoed in REPORT to measure round trips. Others: 0
	 */
	__be16 stamp;
	__be32 chunk_bytes;	/* DATA, POLL: the sender's chunk size */
	__be64 sched_tag;	/* tag of the operation's schedule, 0 = none */
};

#define GSYNC_WIRE_HDR_LEN	64

/*
 * Keyed groups (GSYNC_KEY in linux/gsync.h). Every packet of a keyed group
 * has GSYNC_WF_SEALED set (and GSYNC_WF_ENCRYPTED in ENCRYPT mode), and is
 * laid out as
 *     struct gsync_wire_hdr | struct gsync_wire_sec | payload | tag
 * where payload_len counts the payload only and the 16-byte tag is
 * ChaCha20-Poly1305's (RFC 8439) under the sender's key for the epoch,
 * with counter as the nonce. The header and gsync_wire_sec are associated
 * data, always in clear; in AUTH mode so is the payload (associated data
 * too), in ENCRYPT mode the payload is the ciphertext. A sender's key is
 * BLAKE2s-256, keyed with the group secret, of "gsync key v1" | mode (1
 * byte) | group_id (8) | epoch (4) | src_rank (2), integers big-endian.
 * Each sender's counter starts, in an epoch, at its wall clock in
 * nanoseconds when it took the epoch's key (so that a sender that joins
 * again with the same key never reuses a nonce), and goes up by one per
 * packet it sends (a retransmission is a new packet); receivers refuse a
 * counter they have seen (a window of 2048 per sender and epoch).
 */
struct gsync_wire_sec {
	__be32 epoch;
	__be32 reserved;	/* 0 */
	__be64 counter;
};

#define GSYNC_WIRE_SEC_LEN	16
#define GSYNC_WIRE_TAG_LEN	16

/* One range of missing chunks: [first, first + count). */
struct gsync_wire_range {
	__be32 first;
	__be32 count;
};

/*
 * NACK payload. count = 0xffffffff in a range means "to the end": used when
 * nothing of the contribution has arrived, so the receiver does not know
 * how many chunks it has.
 */
struct gsync_wire_nack {
	__be16 target_rank;	/* whose contribution is missing */
	__be16 nranges;		/* 1..GSYNC_WIRE_MAX_RANGES */
	__be32 reserved;	/* 0 */
	/* struct gsync_wire_range ranges[nranges] */
};

#define GSYNC_WIRE_MAX_RANGES	128
#define GSYNC_WIRE_RANGE_ALL	0xffffffffU

/* STATUS payload: bit r set = the reporter holds rank r's whole contribution. */
struct gsync_wire_status {
	__u8 complete[32];	/* 256 bits, bit r in byte r / 8, LSB first */
};

/* ABORT payload. */
struct gsync_wire_abort {
	__be32 error;		/* positive errno the operation fails with */
	__be32 reserved;	/* 0 */
};

/*
 * REPORT payload: what the reporter received from target_rank since its
 * previous report to it. rx_bytes arrived within interval_us microseconds:
 * from the last arrival the previous report counted (or the first arrival
 * after a repair interval in which none came: idle time is not counted)
 * to the last arrival; their ratio is the rate target_rank's DATA arrived
 * at, which the sender backs off towards. rx_chunks and
 * lost judge the same chunks: those the sender's streams passed in the
 * report interval before this one (below what arrived after them a whole
 * interval ago, so that a reordered chunk is not lost): rx_chunks of them
 * have arrived, lost have not: losses, not stragglers. Their ratio is the
 * loss rate however the stream's arrivals fall into intervals.
 * echo_stamp is the stamp of the latest DATA from target_rank, hold_ms how
 * long ago it arrived; target_rank's round trip is then its clock now
 * minus echo_stamp minus hold_ms.
 */
struct gsync_wire_report {
	__be16 target_rank;	/* the sender this is about */
	__be16 echo_stamp;
	__be16 hold_ms;
	__be16 reserved;	/* 0 */
	__be32 interval_us;
	__be32 rx_bytes;	/* DATA bytes, headers included */
	__be32 rx_chunks;	/* chunks judged that arrived */
	__be32 lost;
};

#endif /* _UAPI_LINUX_GSYNC_WIRE_H */
