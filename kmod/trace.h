/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gsync's tracepoints (TRACE_SYSTEM gsync, /sys/kernel/tracing/events/gsync/):
 * what an operator follows one operation and its repair by. docs/transport.md
 * ("Tracing") lists every event with its fields.
 *
 * Every transport event names the group by its id and this socket's rank
 * (the same two values /proc/net/gsync shows), and the operation by seq
 * where there is one; nothing else identifies a socket, and no pointer is
 * recorded. An event fires at the one place the matching counter of
 * struct gsync_stats is counted (nacks_sent, nacks_received, retransmits,
 * drops), so over a group's life the events and the counters agree.
 *
 * This header is read once by every file that traces (declarations) and
 * again by trace.c with CREATE_TRACE_POINTS (definitions). When no one
 * traces, a call is a patched-out branch; the arguments are pointers and
 * numbers the caller already holds, and the fields are read from them only
 * when the event is on.
 *
 * Context: the callers run in softirq (receive), in the group's works and
 * in syscalls, most under gsync_group.lock; the offload events run in
 * process context, some under gsync_offload_lock. An event only reads what
 * its caller may read there.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM gsync

#if !defined(GSYNC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define GSYNC_TRACE_H

#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/skbuff.h>
#include <linux/tracepoint.h>
#include <linux/gsync.h>
#include <linux/gsync_wire.h>

#include "group.h"
#include "offload.h"
#include "reduce.h"

#ifndef GSYNC_TRACE_HELPERS
#define GSYNC_TRACE_HELPERS
/*
 * Chunks the ranges of a NACK ask for; GSYNC_WIRE_RANGE_ALL (a receiver
 * that has nothing yet asks for everything) or more saturate to it.
 */
static inline u32 gsync_trace_add_chunks(u32 sum, __be32 count)
{
	u32 n = be32_to_cpu(count);

	return n >= GSYNC_WIRE_RANGE_ALL - sum ? GSYNC_WIRE_RANGE_ALL : sum + n;
}

static inline u32 gsync_trace_nack_chunks(const struct gsync_wire_range *r,
					  unsigned int nr)
{
	u32 sum = 0;

	while (nr--)
		sum = gsync_trace_add_chunks(sum, r++->count);
	return sum;
}

/* The same for the nr ranges at offset off of a received NACK. */
static inline u32 gsync_trace_skb_chunks(const struct sk_buff *skb,
					 unsigned int off, unsigned int nr)
{
	struct gsync_wire_range r;
	u32 sum = 0;

	for (; nr; nr--, off += sizeof(r)) {
		if (skb_copy_bits(skb, off, &r, sizeof(r)))
			break;
		sum = gsync_trace_add_chunks(sum, r.count);
	}
	return sum;
}

static inline u64 gsync_trace_job_bytes(const struct gsync_reduce_job *job)
{
	return (u64)job->count * GSYNC_DTYPE_SIZE(job->dtype);
}
#endif /* GSYNC_TRACE_HELPERS */

/*
 * Enum values by number in the events' formats (for perf and trace-cmd),
 * and their names: the drop reasons as /proc/net/gsync's drop_* columns
 * call them (a new reason needs its line in both lists; trace.c checks
 * that the last one is here), the fallbacks as their counters.
 */
TRACE_DEFINE_ENUM(GSYNC_DROP_SHORT);
TRACE_DEFINE_ENUM(GSYNC_DROP_VERSION);
TRACE_DEFINE_ENUM(GSYNC_DROP_TYPE);
TRACE_DEFINE_ENUM(GSYNC_DROP_GROUP);
TRACE_DEFINE_ENUM(GSYNC_DROP_RANK);
TRACE_DEFINE_ENUM(GSYNC_DROP_SOURCE);
TRACE_DEFINE_ENUM(GSYNC_DROP_FIELD);
TRACE_DEFINE_ENUM(GSYNC_DROP_STALE);
TRACE_DEFINE_ENUM(GSYNC_DROP_WINDOW);
TRACE_DEFINE_ENUM(GSYNC_DROP_DUP);
TRACE_DEFINE_ENUM(GSYNC_DROP_NOMEM);
TRACE_DEFINE_ENUM(GSYNC_DROP_CLIQUE);
TRACE_DEFINE_ENUM(GSYNC_DROP_RATELIMIT);
TRACE_DEFINE_ENUM(GSYNC_DROP_AUTH);
TRACE_DEFINE_ENUM(GSYNC_DROP_REPLAY);
TRACE_DEFINE_ENUM(GSYNC_DROP_EPOCH);
TRACE_DEFINE_ENUM(GSYNC_OC_FB_TIMEOUT);
TRACE_DEFINE_ENUM(GSYNC_OC_FB_ERROR);
TRACE_DEFINE_ENUM(GSYNC_OC_FB_GONE);

#define gsync_trace_show_drop(reason)				\
	__print_symbolic(reason,				\
			 { GSYNC_DROP_SHORT, "short" },		\
			 { GSYNC_DROP_VERSION, "version" },	\
			 { GSYNC_DROP_TYPE, "type" },		\
			 { GSYNC_DROP_GROUP, "group" },		\
			 { GSYNC_DROP_RANK, "rank" },		\
			 { GSYNC_DROP_SOURCE, "source" },	\
			 { GSYNC_DROP_FIELD, "field" },		\
			 { GSYNC_DROP_STALE, "stale" },		\
			 { GSYNC_DROP_WINDOW, "window" },	\
			 { GSYNC_DROP_DUP, "dup" },		\
			 { GSYNC_DROP_NOMEM, "nomem" },		\
			 { GSYNC_DROP_CLIQUE, "clique" },	\
			 { GSYNC_DROP_RATELIMIT, "ratelimit" },	\
			 { GSYNC_DROP_AUTH, "auth" },		\
			 { GSYNC_DROP_REPLAY, "replay" },	\
			 { GSYNC_DROP_EPOCH, "epoch" })

#define gsync_trace_show_fallback(reason)			\
	__print_symbolic(reason,				\
			 { GSYNC_OC_FB_TIMEOUT, "timeout" },	\
			 { GSYNC_OC_FB_ERROR, "agent_error" },	\
			 { GSYNC_OC_FB_GONE, "agent_gone" })

/* ---- operations ---------------------------------------------------------- */

TRACE_EVENT(gsync_op_submit,
	TP_PROTO(const struct gsync_group *g, const struct gsync_op *op),
	TP_ARGS(g, op),
	TP_STRUCT__entry(
		__field(u64, group)
		__field(u64, seq)
		__field(u64, sched)
		__field(u32, bytes)
		__field(u16, rank)
		__field(u8, dtype)
		__field(u8, op)
	),
	TP_fast_assign(
		__entry->group = g->cfg.group_id;
		__entry->seq = op->seq;
		__entry->sched = op->sched->tag;
		__entry->bytes = op->len;
		__entry->rank = g->cfg.rank;
		__entry->dtype = op->dtype;
		__entry->op = op->redop;
	),
	TP_printk("group=0x%llx rank=%u seq=%llu bytes=%u dtype=%u op=%u sched=0x%016llx",
		  __entry->group, __entry->rank, __entry->seq, __entry->bytes,
		  __entry->dtype, __entry->op, __entry->sched)
);

/* An operation ends here: done (status 0) or failed (-errno). */
TRACE_EVENT(gsync_op_complete,
	TP_PROTO(const struct gsync_group *g, const struct gsync_op *op),
	TP_ARGS(g, op),
	TP_STRUCT__entry(
		__field(u64, group)
		__field(u64, seq)
		__field(u64, duration_us)
		__field(u32, bytes)
		__field(int, status)
		__field(u16, rank)
	),
	TP_fast_assign(
		__entry->group = g->cfg.group_id;
		__entry->seq = op->seq;
		__entry->duration_us = div_u64(ktime_get_ns() - op->submit_ns,
					       NSEC_PER_USEC);
		__entry->bytes = op->len;
		__entry->status = op->status;
		__entry->rank = g->cfg.rank;
	),
	TP_printk("group=0x%llx rank=%u seq=%llu bytes=%u status=%d duration_us=%llu",
		  __entry->group, __entry->rank, __entry->seq, __entry->bytes,
		  __entry->status, __entry->duration_us)
);

/* ---- loss repair --------------------------------------------------------- */

/*
 * A NACK about peer's stream in step of seq: its ranges are either the
 * array ranges (one we send) or at offset off of skb (one we received).
 */
DECLARE_EVENT_CLASS(gsync_nack,
	TP_PROTO(const struct gsync_group *g, const struct gsync_op *op,
		 unsigned int step, unsigned int peer,
		 const struct gsync_wire_range *ranges,
		 const struct sk_buff *skb, unsigned int off,
		 unsigned int nranges),
	TP_ARGS(g, op, step, peer, ranges, skb, off, nranges),
	TP_STRUCT__entry(
		__field(u64, group)
		__field(u64, seq)
		__field(u32, chunks)
		__field(u16, rank)
		__field(u16, peer)
		__field(u16, step)
		__field(u16, ranges)
	),
	TP_fast_assign(
		__entry->group = g->cfg.group_id;
		__entry->seq = op->seq;
		__entry->chunks = skb ? gsync_trace_skb_chunks(skb, off, nranges) :
			gsync_trace_nack_chunks(ranges, nranges);
		__entry->rank = g->cfg.rank;
		__entry->peer = peer;
		__entry->step = step;
		__entry->ranges = nranges;
	),
	TP_printk("group=0x%llx rank=%u peer=%u seq=%llu step=%u ranges=%u chunks=%u",
		  __entry->group, __entry->rank, __entry->peer, __entry->seq,
		  __entry->step, __entry->ranges, __entry->chunks)
);

/* We asked peer for chunks of its stream (nacks_sent). */
DEFINE_EVENT(gsync_nack, gsync_nack_send,
	TP_PROTO(const struct gsync_group *g, const struct gsync_op *op,
		 unsigned int step, unsigned int peer,
		 const struct gsync_wire_range *ranges,
		 const struct sk_buff *skb, unsigned int off,
		 unsigned int nranges),
	TP_ARGS(g, op, step, peer, ranges, skb, off, nranges)
);

/* peer asked us for chunks of what we send (nacks_received). */
DEFINE_EVENT(gsync_nack, gsync_nack_recv,
	TP_PROTO(const struct gsync_group *g, const struct gsync_op *op,
		 unsigned int step, unsigned int peer,
		 const struct gsync_wire_range *ranges,
		 const struct sk_buff *skb, unsigned int off,
		 unsigned int nranges),
	TP_ARGS(g, op, step, peer, ranges, skb, off, nranges)
);

/*
 * One DATA packet sent again (retransmits counts these): h is its header,
 * dest the rank it went to, or -1 for the group's multicast address.
 */
TRACE_EVENT(gsync_retransmit,
	TP_PROTO(const struct gsync_group *g, const struct gsync_wire_hdr *h,
		 int dest),
	TP_ARGS(g, h, dest),
	TP_STRUCT__entry(
		__field(u64, group)
		__field(u64, seq)
		__field(u32, chunk)
		__field(u32, bytes)
		__field(int, dest)
		__field(u16, rank)
		__field(u16, step)
	),
	TP_fast_assign(
		__entry->group = g->cfg.group_id;
		__entry->seq = be64_to_cpu(h->seq);
		__entry->chunk = be32_to_cpu(h->chunk);
		__entry->bytes = be32_to_cpu(h->payload_len);
		__entry->dest = dest;
		__entry->rank = g->cfg.rank;
		__entry->step = be16_to_cpu(h->round);
	),
	TP_printk("group=0x%llx rank=%u seq=%llu step=%u chunk=%u bytes=%u dest=%d",
		  __entry->group, __entry->rank, __entry->seq, __entry->step,
		  __entry->chunk, __entry->bytes, __entry->dest)
);

/* A received packet dropped, counted in drops[reason]. */
TRACE_EVENT(gsync_drop,
	TP_PROTO(const struct gsync_group *g, int reason),
	TP_ARGS(g, reason),
	TP_STRUCT__entry(
		__field(u64, group)
		__field(u16, rank)
		__field(u8, reason)
	),
	TP_fast_assign(
		__entry->group = g->cfg.group_id;
		__entry->rank = g->cfg.rank;
		__entry->reason = reason;
	),
	TP_printk("group=0x%llx rank=%u reason=%s",
		  __entry->group, __entry->rank,
		  gsync_trace_show_drop(__entry->reason))
);

/* ---- schedules ----------------------------------------------------------- */

/* Operations from seq on run under sched instead of old. */
TRACE_EVENT(gsync_schedule_switch,
	TP_PROTO(const struct gsync_group *g, u64 seq,
		 const struct gsync_sched *sched,
		 const struct gsync_sched *old),
	TP_ARGS(g, seq, sched, old),
	TP_STRUCT__entry(
		__field(u64, group)
		__field(u64, seq)
		__field(u64, sched)
		__field(u64, old)
		__field(u16, rank)
		__field(u16, rounds)
	),
	TP_fast_assign(
		__entry->group = g->cfg.group_id;
		__entry->seq = seq;
		__entry->sched = sched->tag;
		__entry->old = old ? old->tag : 0;
		__entry->rank = g->cfg.rank;
		__entry->rounds = sched->nrounds;
	),
	TP_printk("group=0x%llx rank=%u seq=%llu sched=0x%016llx rounds=%u old=0x%016llx",
		  __entry->group, __entry->rank, __entry->seq, __entry->sched,
		  __entry->rounds, __entry->old)
);

/* ---- offload jobs -------------------------------------------------------- */

/*
 * A piece of an offload job went to the agent in a slot: piece is the
 * job_id the agent sees, job numbers the whole job.
 */
TRACE_EVENT(gsync_offload_dispatch,
	TP_PROTO(const struct gsync_reduce_job *rj, u64 job, u64 piece,
		 u32 slot, u64 bytes),
	TP_ARGS(rj, job, piece, slot, bytes),
	TP_STRUCT__entry(
		__field(u64, group)
		__field(u64, seq)
		__field(u64, job)
		__field(u64, piece)
		__field(u64, bytes)
		__field(u32, slot)
		__field(u16, rank)
	),
	TP_fast_assign(
		__entry->group = rj->group_id;
		__entry->seq = rj->seq;
		__entry->job = job;
		__entry->piece = piece;
		__entry->bytes = bytes;
		__entry->slot = slot;
		__entry->rank = rj->rank;
	),
	TP_printk("group=0x%llx rank=%u seq=%llu job=%llu piece=%llu slot=%u bytes=%llu",
		  __entry->group, __entry->rank, __entry->seq, __entry->job,
		  __entry->piece, __entry->slot, __entry->bytes)
);

/*
 * An offload job is finished: by the agent, or (cpu) by the CPU after a
 * fallback; status -ECANCELED when its group went away first.
 */
TRACE_EVENT(gsync_offload_complete,
	TP_PROTO(const struct gsync_reduce_job *rj, u64 job, bool cpu,
		 int status, u64 start_ns),
	TP_ARGS(rj, job, cpu, status, start_ns),
	TP_STRUCT__entry(
		__field(u64, group)
		__field(u64, seq)
		__field(u64, job)
		__field(u64, bytes)
		__field(u64, duration_us)
		__field(int, status)
		__field(u16, rank)
		__field(bool, cpu)
	),
	TP_fast_assign(
		__entry->group = rj->group_id;
		__entry->seq = rj->seq;
		__entry->job = job;
		__entry->bytes = gsync_trace_job_bytes(rj);
		__entry->duration_us = div_u64(ktime_get_ns() - start_ns,
					       NSEC_PER_USEC);
		__entry->status = status;
		__entry->rank = rj->rank;
		__entry->cpu = cpu;
	),
	TP_printk("group=0x%llx rank=%u seq=%llu job=%llu bytes=%llu by=%s status=%d duration_us=%llu",
		  __entry->group, __entry->rank, __entry->seq, __entry->job,
		  __entry->bytes, __entry->cpu ? "cpu" : "agent",
		  __entry->status, __entry->duration_us)
);

/*
 * An offload job is taken back from the agent, to be computed by the
 * CPU; the agent had finished committed bytes of it.
 */
TRACE_EVENT(gsync_offload_fallback,
	TP_PROTO(const struct gsync_reduce_job *rj, u64 job, int reason,
		 u64 committed),
	TP_ARGS(rj, job, reason, committed),
	TP_STRUCT__entry(
		__field(u64, group)
		__field(u64, seq)
		__field(u64, job)
		__field(u64, bytes)
		__field(u64, committed)
		__field(u16, rank)
		__field(u8, reason)
	),
	TP_fast_assign(
		__entry->group = rj->group_id;
		__entry->seq = rj->seq;
		__entry->job = job;
		__entry->bytes = gsync_trace_job_bytes(rj);
		__entry->committed = committed;
		__entry->rank = rj->rank;
		__entry->reason = reason;
	),
	TP_printk("group=0x%llx rank=%u seq=%llu job=%llu bytes=%llu committed=%llu reason=%s",
		  __entry->group, __entry->rank, __entry->seq, __entry->job,
		  __entry->bytes, __entry->committed,
		  gsync_trace_show_fallback(__entry->reason))
);

#endif /* GSYNC_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
