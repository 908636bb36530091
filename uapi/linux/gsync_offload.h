/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gsync offload device: the ABI between gsync.ko and the reduction agent
 * (gsync-offloadd) that drives an FPGA card. See docs/offload.md.
 *
 * The agent opens GSYNC_OFFLOAD_DEV and talks to it with io_uring
 * IORING_OP_URING_CMD on a ring created with IORING_SETUP_SQE128; every
 * command's payload is in the SQE's 80-byte command area (sqe->cmd).
 *
 *   REGISTER      (completes at once) validate the agent's limits and
 *                 allocate the shared region; then mmap() the device,
 *                 offset 0, GSYNC_OFFLOAD_REGION_BYTES() bytes, MAP_SHARED.
 *   FETCH         (slot) park the slot: completes with res 0 when the
 *                 kernel has put a job in it (desc[slot] and the slot's
 *                 data area are filled), or with a negative errno when the
 *                 agent is stopped (-ESHUTDOWN) or the ring is cancelled.
 *   COMMIT_FETCH  (slot, job_id, status) the job in the slot is finished:
 *                 status 0 means its output area holds the result, a
 *                 negative errno makes the kernel compute the job on the
 *                 CPU. The slot is then parked again as by FETCH.
 *   STOP          (completes at once) hand every job back to the kernel,
 *                 whose CPU engine completes them, and complete the parked
 *                 FETCHes with -ESHUTDOWN. Closing the device does the
 *                 same.
 *
 * Payloads are validated; any reserved field that is not zero, a slot out
 * of range, a job id that is not the one in the slot or a slot in the
 * wrong state fails the command with -EINVAL.
 */
#ifndef _UAPI_LINUX_GSYNC_OFFLOAD_H
#define _UAPI_LINUX_GSYNC_OFFLOAD_H

#include <linux/types.h>

#define GSYNC_OFFLOAD_DEV		"/dev/gsync-offload"
/* Counters, "name value" lines (global, not per network namespace). */
#define GSYNC_OFFLOAD_STATS		"/proc/driver/gsync_offload"

#define GSYNC_OFFLOAD_VERSION		1

/* uring_cmd opcodes (sqe->cmd_op) */
#define GSYNC_OFFLOAD_CMD_REGISTER	0x6701
#define GSYNC_OFFLOAD_CMD_FETCH		0x6702
#define GSYNC_OFFLOAD_CMD_COMMIT_FETCH	0x6703
#define GSYNC_OFFLOAD_CMD_STOP		0x6704

/* Limits of GSYNC_OFFLOAD_CMD_REGISTER */
#define GSYNC_OFFLOAD_MAX_SLOTS		1024
#define GSYNC_OFFLOAD_MIN_SLOT_BYTES	(64U << 10)
#define GSYNC_OFFLOAD_MAX_SLOT_BYTES	(64U << 20)
#define GSYNC_OFFLOAD_MAX_REGION	(1ULL << 30)
#define GSYNC_OFFLOAD_MAX_K		256

/* The slot data areas start here, after desc[nslots]. */
#define GSYNC_OFFLOAD_DATA_ALIGN	65536ULL
#define GSYNC_OFFLOAD_DATA_OFF(nslots)					\
	(((__u64)(nslots) * sizeof(struct gsync_offload_desc) +		\
	  GSYNC_OFFLOAD_DATA_ALIGN - 1) & ~(GSYNC_OFFLOAD_DATA_ALIGN - 1))
#define GSYNC_OFFLOAD_REGION_BYTES(nslots, slot_bytes)			\
	(GSYNC_OFFLOAD_DATA_OFF(nslots) +				\
	 (__u64)(nslots) * (__u64)(slot_bytes))

/* REGISTER payload */
struct gsync_offload_register {
	__u32 version;		/* GSYNC_OFFLOAD_VERSION */
	__u32 nslots;		/* 1..GSYNC_OFFLOAD_MAX_SLOTS */
	/* multiple of 4096, MIN..MAX_SLOT_BYTES; region <= MAX_REGION */
	__u32 slot_bytes;
	__u32 max_k;		/* largest k the agent computes, 1..MAX_K */
	__u32 dtypes;		/* bit (1 << enum gsync_dtype) per dtype handled */
	__u32 ops;		/* bit (1 << enum gsync_redop) per op handled */
	__u32 flags;		/* must be 0 */
	__u32 reserved[5];	/* must be 0 */
};

/* FETCH and COMMIT_FETCH payload */
struct gsync_offload_slot_cmd {
	__u32 slot;		/* < nslots */
	__s32 status;		/* COMMIT_FETCH: 0 or -4095..-1; FETCH: 0 */
	__u64 job_id;		/* COMMIT_FETCH: desc[slot].job_id; FETCH: 0 */
	__u32 flags;		/* must be 0 */
	__u32 reserved;		/* must be 0 */
};

/*
 * desc[slot], at region offset slot * sizeof(desc), written by the kernel
 * before the slot's FETCH completes; the kernel never reads it back.
 * Input j (rank order) is at in_off + j * in_stride, the output at
 * out_off; all offsets are from the start of the region and 64-byte
 * aligned. The arithmetic is docs/reduction-semantics.md: for GSYNC_OP_AVG
 * the sum is divided by avg_divisor (the kernel only offloads jobs whose
 * avg_divisor equals k, what the HLS kernel implements).
 */
struct gsync_offload_desc {
	__u64 job_id;		/* unique, never 0 */
	__u32 k;		/* inputs, 1..max_k */
	__u32 count;		/* elements */
	__u8 dtype;		/* enum gsync_dtype */
	__u8 op;		/* enum gsync_redop */
	__u16 flags;		/* 0 */
	__u32 avg_divisor;
	__u64 in_off;
	__u64 in_stride;
	__u64 out_off;
	__u64 reserved[2];
};

#endif /* _UAPI_LINUX_GSYNC_OFFLOAD_H */
