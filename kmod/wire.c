// SPDX-License-Identifier: GPL-2.0
/*
 * Validation of received packet headers (uapi/linux/gsync_wire.h).
 *
 * gsync_wire_check() looks only at the header and the packet length and
 * decides whether the packet is well formed for this group; the receive
 * path then checks it against the operation it names. It is a pure
 * function: no locks, any context.
 */
#include <linux/kernel.h>
#include <linux/math.h>
#include <linux/gsync.h>
#include <linux/gsync_wire.h>
#include <linux/gsync_sched.h>

#include "gsync.h"
#include "group.h"
#include "wire.h"

static unsigned int gsync_wire_elem(u8 dtype)
{
	return gsync_dtype_size(dtype);
}

/*
 * DATA and POLL describe a value: its length and chunking. Without a
 * schedule the value is one block; under one, blocks add partial chunks,
 * so only bounds are checked here and the exact count on receipt.
 */
static int gsync_wire_check_contrib(const struct gsync_wire_hdr *h)
{
	u64 total = be64_to_cpu(h->total_len);
	u32 cb = be32_to_cpu(h->chunk_bytes);
	u32 elem = gsync_wire_elem(h->dtype);
	u64 min = DIV_ROUND_UP_ULL(total, cb ? cb : 1);
	u32 n = be32_to_cpu(h->nchunks);

	if (!total || total > GSYNC_MAX_OP_BYTES || total % elem)
		return GSYNC_DROP_FIELD;
	if (cb < GSYNC_MIN_CHUNK_BYTES || cb % elem || cb > 65535)
		return GSYNC_DROP_FIELD;
	if (!h->sched_tag ? n != min :
	    n < min || n > min + GSYNC_SCHED_MAX_BLOCKS)
		return GSYNC_DROP_FIELD;
	return GSYNC_DROP_MAX;
}

/*
 * A REPORT is about the group, not an operation: every operation field is
 * 0. The receive path checks its payload (gsync_rx_report()).
 */
static int gsync_wire_check_report(const struct gsync_wire_hdr *h, u32 plen)
{
	if (plen != sizeof(struct gsync_wire_report) || h->seq ||
	    h->sched_tag || h->round || h->flags || h->chunk || h->nchunks ||
	    h->total_len || h->ncontrib || h->chunk_bytes)
		return GSYNC_DROP_FIELD;
	return GSYNC_DROP_MAX;
}

/*
 * Returns GSYNC_DROP_MAX if the header is acceptable, else the reason to
 * drop the packet. len is the UDP payload length (header included).
 */
int gsync_wire_check(const struct gsync_wire_hdr *h, unsigned int len,
		     u64 group_id, u16 nranks, u16 rank)
{
	u32 plen, chunk, cb;
	u64 total;
	int r;

	if (len < GSYNC_WIRE_HDR_LEN)
		return GSYNC_DROP_SHORT;
	if (h->version != GSYNC_WIRE_VERSION)
		return GSYNC_DROP_VERSION;
	if (h->type < GSYNC_PKT_DATA || h->type > GSYNC_PKT_REPORT)
		return GSYNC_DROP_TYPE;
	if (be64_to_cpu(h->group_id) != group_id)
		return GSYNC_DROP_GROUP;
	if (be16_to_cpu(h->nranks) != nranks ||
	    be16_to_cpu(h->src_rank) >= nranks ||
	    be16_to_cpu(h->src_rank) == rank)
		return GSYNC_DROP_RANK;
	/* Sealed to a group without keys (a keyed group's are opened first) */
	if (be16_to_cpu(h->flags) & (GSYNC_WF_SEALED | GSYNC_WF_ENCRYPTED))
		return GSYNC_DROP_AUTH;
	plen = be32_to_cpu(h->payload_len);
	if (plen > len - GSYNC_WIRE_HDR_LEN)
		return GSYNC_DROP_SHORT;
	if (plen != len - GSYNC_WIRE_HDR_LEN)
		return GSYNC_DROP_FIELD;
	if (h->dtype >= GSYNC_DTYPE_MAX || h->op >= GSYNC_REDOP_MAX)
		return GSYNC_DROP_FIELD;
	if (be16_to_cpu(h->flags) & ~(GSYNC_WF_RETRANSMIT | GSYNC_WF_PARTIAL) ||
	    (h->stamp && h->type != GSYNC_PKT_DATA))
		return GSYNC_DROP_FIELD;
	/* Steps exist only under a schedule (see gsync_wire.h). */
	if (h->sched_tag ? be16_to_cpu(h->round) >= GSYNC_MAX_STEPS : !!h->round)
		return GSYNC_DROP_FIELD;

	switch (h->type) {
	case GSYNC_PKT_DATA:
		r = gsync_wire_check_contrib(h);
		if (r != GSYNC_DROP_MAX)
			return r;
		/* A value covers 1..nranks contributors; PARTIAL if not 1. */
		if (!h->ncontrib || be16_to_cpu(h->ncontrib) > nranks ||
		    (h->sched_tag ? 0 : be16_to_cpu(h->ncontrib) != 1) ||
		    !(be16_to_cpu(h->flags) & GSYNC_WF_PARTIAL) !=
		    (be16_to_cpu(h->ncontrib) == 1))
			return GSYNC_DROP_FIELD;
		chunk = be32_to_cpu(h->chunk);
		if (chunk >= be32_to_cpu(h->nchunks))
			return GSYNC_DROP_FIELD;
		cb = be32_to_cpu(h->chunk_bytes);
		total = be64_to_cpu(h->total_len);
		if (!plen || plen > cb)
			return GSYNC_DROP_FIELD;
		/* One block: the exact length is known here already. */
		if (!h->sched_tag &&
		    plen != min_t(u64, cb, total - (u64)chunk * cb))
			return GSYNC_DROP_FIELD;
		return GSYNC_DROP_MAX;
	case GSYNC_PKT_POLL:
		if (plen)
			return GSYNC_DROP_FIELD;
		return gsync_wire_check_contrib(h);
	case GSYNC_PKT_NACK:
		if (plen < sizeof(struct gsync_wire_nack) ||
		    (plen - sizeof(struct gsync_wire_nack)) %
		    sizeof(struct gsync_wire_range) ||
		    plen > sizeof(struct gsync_wire_nack) +
		    GSYNC_WIRE_MAX_RANGES * sizeof(struct gsync_wire_range))
			return GSYNC_DROP_FIELD;
		return GSYNC_DROP_MAX;
	case GSYNC_PKT_STATUS:
		return plen == sizeof(struct gsync_wire_status) ?
		       GSYNC_DROP_MAX : GSYNC_DROP_FIELD;
	case GSYNC_PKT_ABORT:
		return plen == sizeof(struct gsync_wire_abort) ?
		       GSYNC_DROP_MAX : GSYNC_DROP_FIELD;
	case GSYNC_PKT_REPORT:
		return gsync_wire_check_report(h, plen);
	}
	return GSYNC_DROP_TYPE;
}
GSYNC_EXPORT_FOR_TESTS(gsync_wire_check);
