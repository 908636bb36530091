// SPDX-License-Identifier: GPL-2.0
/*
 * Operations: their per-step state under a schedule, block readiness and
 * the reduce work that hands blocks whose inputs are all here to the
 * reduction engine, failure, and release of their slots.
 *
 * An operation runs its schedule (sched.c) from this rank's point of view:
 * for each round, the clique we are in (if any), the streams we expect
 * from its members in the round's two steps, and what we send. Block b of
 * round r is reduced here as soon as every input of it is in (pend[r][b]
 * reaches 0), and block b of our value after round r is sent on as soon
 * as it is final (ready[r + 1]), so rounds pipeline block by block.
 *
 * Memory: every buffer of an operation is allocated by the submitting
 * task with GSYNC_GFP_OP (charged to its memory cgroup) and counted
 * in op->mem against the budget mem.c grants the socket; an operation that
 * does not fit is refused before it holds more than its budget.
 *
 * Locking: op state (state, status, bitmaps, counters, steps) is under
 * gsync_group.lock; state is also read locklessly by the socket's wait
 * conditions, so it is written with WRITE_ONCE. Allocation and freeing happen in process context
 * without the lock: an op is allocated before it is put in its slot and
 * freed after it has been taken out, never while the engine holds one of
 * its blocks (op->jobs). The engine reads input blocks and writes output
 * blocks without the lock: nothing else writes them then (inputs are
 * complete, so packets for them are dropped as duplicates, and each output
 * block has exactly one writer: the job that claimed it).
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "gsync.h"
#include "group.h"
#include "op.h"
#include "keys.h"
#include "send.h"
#include "mem.h"
#include "route.h"
#include "trace.h"

/* A run of blocks of one round handed to the engine. */
struct gsync_rjob {
	struct gsync_reduce_job job;
	struct gsync_op *op;
	struct gsync_group *g;
	u16 round;
	u32 first, count;	/* blocks */
	const void *in[];
};

/*
 * Allocate for op within its budget (op->mem counts what it holds). NULL
 * when out of memory or, with op->over_budget set, out of budget.
 */
static void *gsync_op_kvzalloc(struct gsync_op *op, u64 budget, size_t size,
			       bool zero)
{
	void *p;

	if (op->mem + size > budget) {
		op->over_budget = true;
		return NULL;
	}
	p = zero ? kvzalloc(size, GSYNC_GFP_OP) : kvmalloc(size, GSYNC_GFP_OP);
	if (p)
		op->mem += size;
	return p;
}

static unsigned long *gsync_op_bitmap(struct gsync_op *op, u64 budget,
				      u32 nbits)
{
	return gsync_op_kvzalloc(op, budget,
				 BITS_TO_LONGS(nbits) * sizeof(long), true);
}

void gsync_op_free(struct gsync_group *g, struct gsync_op *op)
{
	unsigned int s, j, v;

	for (s = 0; s < GSYNC_MAX_STEPS; s++) {
		struct gsync_step *st = &op->step[s];

		if (st->in) {
			for (j = 0; j < st->q->nmembers; j++) {
				if (!st->in[j].borrowed)
					kvfree(st->in[j].buf);
				kvfree(st->in[j].have);
				kvfree(st->in[j].blk_left);
			}
		}
		kvfree(st->in);
		kvfree(st->rtx);
		kvfree(st->rtx_who);
		kvfree(st->rtx_asked);
	}
	for (v = 0; v <= GSYNC_SCHED_MAX_ROUNDS; v++) {
		if (op->base[v] == v) {
			kvfree(op->val[v]);
			kvfree(op->ready[v]);
		}
		if (v < GSYNC_SCHED_MAX_ROUNDS) {
			kvfree(op->pend[v]);
			kvfree(op->reducible[v]);
		}
	}
	gsync_sched_put(op->sched);
	gsync_mem_uncharge(g, op->charged);
	kfree(op);
}
GSYNC_EXPORT_FOR_TESTS(gsync_op_free);

/*
 * The value buffers an operation of len bytes under sched holds here at
 * least: our buffer, our value after each round we take part in, and a
 * buffer per peer we receive values from in a round's first step. Lets
 * sendmsg() refuse an operation over budget before allocating any of it.
 */
u64 gsync_op_mem_floor(struct gsync_group *g, const struct gsync_sched *sched,
		       u32 len)
{
	unsigned int me = g->cfg.rank, t, j;
	u32 nblocks = gsync_blocks(len, gsync_sched_block(sched, len));

	u32 block = gsync_sched_block(sched, len);
	u64 bytes = len, mine;

	for (t = 0; t < sched->nrounds; t++) {
		const struct gsync_sclique *q = gsync_sched_clique(sched, t, me);
		int pos;
		u32 b;

		if (!q)
			continue;
		bytes += len;
		pos = gsync_sclique_pos(q, me);
		/* Owner patterns: inputs come only to the owner of a block. */
		if (q->pattern == GSYNC_PAT_AGGREGATOR && q->aggregator != me)
			continue;
		mine = len;
		if (q->pattern == GSYNC_PAT_RS_MULTICAST) {
			/* as gsync_stream_layout(): our blocks only */
			mine = 0;
			for (b = pos; b < nblocks; b += q->nmembers)
				mine += min_t(u64, block, len - (u64)b * block);
		}
		for (j = 0; j < q->nmembers; j++)
			if (j != pos && gsync_sched_cov(sched, t, q->members[j]))
				bytes += mine;
	}
	return bytes;
}

/* Set up step s (round t) of op for us. Process context. */
static int gsync_op_alloc_step(struct gsync_group *g, struct gsync_op *op,
			       const struct gsync_sclique *q, unsigned int s,
			       u64 budget)
{
	struct gsync_step *st = &op->step[s];
	unsigned int me = g->cfg.rank, t = s / 2, j;
	u32 max_chunks, b;
	u64 bytes;

	st->q = q;
	st->pos = gsync_sclique_pos(q, me);
	st->src = (s & 1) ? t + 1 : t;
	st->in = gsync_op_kvzalloc(op, budget, q->nmembers * sizeof(*st->in),
				   true);
	if (!st->in)
		return -ENOMEM;
	max_chunks = gsync_chunk_count(op->len, op->block,
				       GSYNC_MIN_CHUNK_BYTES);
	for (j = 0; j < q->nmembers; j++) {
		struct gsync_contrib *c = &st->in[j];

		c->rank = q->members[j];
		if (j == st->pos)
			continue;
		for (b = 0; b < op->nblocks && !c->expects; b++)
			c->expects = gsync_op_expects(g, op, s, c->rank, b);
		if (!c->expects)
			continue;
		st->receives = true;
		c->have = gsync_op_bitmap(op, budget, max_chunks);
		c->blk_left = gsync_op_kvzalloc(op, budget,
						op->nblocks * sizeof(u32), true);
		if (s & 1) {
			c->buf = op->val[t + 1];
			c->borrowed = true;
		} else {
			c->stride = gsync_stream_layout(op, s, q, st->pos,
							&bytes);
			c->buf = gsync_op_kvzalloc(op, budget, bytes, false);
		}
		if (!c->have || !c->blk_left || !c->buf)
			return -ENOMEM;
	}
	for (b = 0; b < op->nblocks; b++) {
		if (!gsync_op_sends(g, op, s, b))
			continue;
		st->sends = true;
		for (j = 0; j < q->nmembers; j++)
			if (gsync_op_sends_to(g, op, s, b, q->members[j]))
				__set_bit(q->members[j], st->need_ack);
		/* Every member already a destination: nothing to add. */
		if (!((s & 1) == 0 && gsync_sclique_owned(q)))
			break;
	}
	if (!st->sends)
		return 0;
	st->rtx = gsync_op_bitmap(op, budget, op->nchunks);
	st->rtx_who = gsync_op_kvzalloc(op, budget, op->nchunks * sizeof(u16),
					true);
	st->rtx_asked = gsync_op_kvzalloc(op, budget,
					  g->cfg.nranks * sizeof(u32), true);
	return st->rtx && st->rtx_who && st->rtx_asked ? 0 : -ENOMEM;
}

/*
 * A new operation for our submission of seq under sched, owning sendbuf
 * (len bytes, counted in its budget). Process context; returns
 * ERR_PTR(-ENOMEM) without memory, ERR_PTR(-ENOBUFS) if it would hold
 * more than budget bytes (sendbuf is then not taken). gsync_op_start()
 * starts it once it is in its slot.
 */
struct gsync_op *gsync_op_alloc(struct gsync_group *g, u64 seq, u8 dtype,
				u8 redop, u32 len, void *sendbuf,
				struct gsync_sched *sched, u64 budget)
{
	unsigned int me = g->cfg.rank, t;
	struct gsync_op *op;
	int err;
	u32 b;

	op = kzalloc(sizeof(*op), GSYNC_GFP_OP);
	if (!op)
		return ERR_PTR(-ENOMEM);
	op->mem = sizeof(*op) + len;
	op->seq = seq;
	op->dtype = dtype;
	op->redop = redop;
	op->len = len;
	op->retained = true;
	op->sched = gsync_sched_get(sched);
	op->nrounds = sched->nrounds;
	op->nsteps = sched->nrounds * GSYNC_STEPS_PER_ROUND;
	op->block = gsync_sched_block(sched, len);
	op->nblocks = gsync_blocks(len, op->block);
	op->ppb = gsync_chunks_per_block(op->block, g->chunk_bytes);
	op->nchunks = gsync_chunk_count(len, op->block, g->chunk_bytes);
	INIT_LIST_HEAD(&op->free_node);
	memset(op->base, 0xff, sizeof(op->base));

	op->base[0] = 0;
	if (op->mem > budget) {
		op->over_budget = true;
		goto fail;
	}
	op->ready[0] = gsync_op_bitmap(op, budget, op->nblocks);
	if (!op->ready[0])
		goto fail;
	for (t = 0; t < op->nrounds; t++) {
		const struct gsync_sclique *q = gsync_sched_clique(sched, t, me);

		if (!q) {
			op->val[t + 1] = op->val[t];
			op->base[t + 1] = op->base[t];
			op->ready[t + 1] = op->ready[t];
			continue;
		}
		op->base[t + 1] = t + 1;
		op->val[t + 1] = gsync_op_kvzalloc(op, budget, len, false);
		if (!op->val[t + 1])
			goto fail;
		op->ready[t + 1] = gsync_op_bitmap(op, budget, op->nblocks);
		if (!op->ready[t + 1])
			goto fail;
		op->pend[t] = gsync_op_kvzalloc(op, budget,
						op->nblocks * sizeof(u16), true);
		if (!op->pend[t])
			goto fail;
		op->reducible[t] = gsync_op_bitmap(op, budget, op->nblocks);
		if (!op->reducible[t])
			goto fail;
		for (b = 0; b < op->nblocks; b++)
			if (gsync_route_reduces(q, b, me))
				op->pend[t][b] = q->ninputs;
		if (gsync_op_alloc_step(g, op, q, 2 * t, budget) ||
		    gsync_op_alloc_step(g, op, q, 2 * t + 1, budget))
			goto fail;
	}
	/* Last: until here, freeing the op must not free the caller's. */
	op->val[0] = sendbuf;
	op->sendbuf = sendbuf;
	op->result = op->val[op->nrounds];
	return op;

fail:
	err = op->over_budget ? -ENOBUFS : -ENOMEM;
	gsync_op_free(g, op);
	return ERR_PTR(err);
}
GSYNC_EXPORT_FOR_TESTS(gsync_op_alloc);

static void gsync_op_done(struct gsync_group *g, struct gsync_op *op)
{
	/* After the result: pairs with the acquire in gsync_result_ready(). */
	smp_store_release(&op->state, GSYNC_OPS_DONE);
	op->retain_until = jiffies + msecs_to_jiffies(g->cfg.op_timeout_ms);
	trace_gsync_op_complete(g, op);
	if (op->seq == g->deliver_seq)
		gsync_group_wake_reader(g);
}

/* Block b of reducing round t has one input fewer to wait for. */
static void gsync_op_input(struct gsync_group *g, struct gsync_op *op,
			   unsigned int t, u32 b)
{
	if (WARN_ON_ONCE(!op->pend[t] || !op->pend[t][b]))
		return;
	if (--op->pend[t][b])
		return;
	__set_bit(b, op->reducible[t]);
	if (!g->dead)
		queue_work(gsync_wq, &g->reduce_work);
}

/*
 * Block b of val[v] is final: feed the reductions it is an input of, let
 * it be sent on, and finish the operation with the last block of the
 * result. Under the lock.
 */
static void gsync_op_ready(struct gsync_group *g, struct gsync_op *op,
			   unsigned int v, u32 b)
{
	unsigned int me = g->cfg.rank, t;

	if (__test_and_set_bit(b, op->ready[v]))
		return;
	for (t = v; t < op->nrounds && op->base[t] == v; t++) {
		const struct gsync_sclique *q = op->step[2 * t].q;

		if (q && gsync_sched_cov(op->sched, t, me) &&
		    gsync_route_reduces(q, b, me))
			gsync_op_input(g, op, t, b);
	}
	if (op->base[op->nrounds] == v && ++op->nready == op->nblocks &&
	    op->state == GSYNC_OPS_OPEN)
		gsync_op_done(g, op);
	gsync_tx_kick(g);
}

/* Our own buffer is in: start the operation. Under the lock. */
void gsync_op_start(struct gsync_group *g, struct gsync_op *op)
{
	u32 b;

	for (b = 0; b < op->nblocks; b++)
		gsync_op_ready(g, op, 0, b);
}
GSYNC_EXPORT_FOR_TESTS(gsync_op_start);

/* Block b of round t was reduced here. Under the lock. */
void gsync_op_reduced(struct gsync_group *g, struct gsync_op *op,
		      unsigned int t, u32 b)
{
	gsync_op_ready(g, op, t + 1, b);
}
GSYNC_EXPORT_FOR_TESTS(gsync_op_reduced);

/* Every expected chunk of block b of a stream of step s is in. */
void gsync_op_block_in(struct gsync_group *g, struct gsync_op *op,
		       unsigned int s, u32 b)
{
	if (s & 1)
		gsync_op_ready(g, op, s / 2 + 1, b);
	else
		gsync_op_input(g, op, s / 2, b);
}
GSYNC_EXPORT_FOR_TESTS(gsync_op_block_in);

/* Has every rank we send to acknowledged everything? Under the lock. */
bool gsync_op_all_acked(struct gsync_group *g, struct gsync_op *op)
{
	unsigned int s;

	for (s = 0; s < op->nsteps; s++)
		if (op->step[s].sends &&
		    !bitmap_subset(op->step[s].need_ack, op->step[s].acked,
				   g->cfg.nranks))
			return false;
	return true;
}

/*
 * Failures every rank must report alike (a mismatch, an abort, a peer
 * that closed mid-operation, a timeout) are told to peers that ask, so a
 * rank that submits late fails the same way instead of completing from
 * the values it holds; not our own close (the ABORT sent at close tells
 * them).
 */
bool gsync_op_keeps_failure(const struct gsync_op *op)
{
	return op->state == GSYNC_OPS_FAILED &&
	       (op->status == -EPROTO || op->status == -ECONNABORTED ||
		op->status == -ECONNRESET || op->status == -ETIMEDOUT ||
		op->status == -EKEYREJECTED);
}

/* Fail an operation still in progress. Under the lock. */
void gsync_op_fail(struct gsync_group *g, struct gsync_op *op, int err)
{
	if (op->state != GSYNC_OPS_OPEN)
		return;
	op->status = err;
	/* After the status: pairs with the acquire in gsync_result_ready(). */
	smp_store_release(&op->state, GSYNC_OPS_FAILED);
	/* Stay around to tell late peers (see gsync_rx_tell_failed()). */
	op->retain_until = jiffies + msecs_to_jiffies(g->cfg.op_timeout_ms);
	if (err == -ETIMEDOUT || err == -EKEYREJECTED)
		g->stats.timeouts++;
	else if (err == -EPROTO)
		g->stats.mismatches++;
	trace_gsync_op_complete(g, op);
	if (op->seq == g->deliver_seq)
		gsync_group_wake_reader(g);
}

/*
 * Can the slot be reused? Only once the user has the result, no peer can
 * need our values any more and the engine holds none of its blocks.
 * Under the lock.
 */
bool gsync_op_releasable(struct gsync_group *g, struct gsync_op *op)
{
	return op->delivered && !op->retained && !op->jobs;
}

/*
 * Our values can go once the operation is over here and every peer we
 * send to holds them, or has had op_timeout_ms since we last sent a chunk
 * for the first time to ask for them again (the operation can be over here
 * long before a paced step has reached a slower peer: see
 * gsync_tx_pick_new()). A failed operation is kept as long, so peers that
 * ask can be told it failed. Under the lock.
 */
void gsync_op_unretain(struct gsync_group *g, struct gsync_op *op)
{
	unsigned int s;

	if (!op->retained || op->state == GSYNC_OPS_OPEN)
		return;
	if (op->state == GSYNC_OPS_DONE && !gsync_op_all_acked(g, op) &&
	    time_before(jiffies, op->retain_until))
		return;
	/* A failure peers may not know of yet is kept to answer them. */
	if (gsync_op_keeps_failure(op) &&
	    time_before(jiffies, op->retain_until))
		return;
	op->retained = false;
	for (s = 0; s < op->nsteps; s++)
		op->step[s].rtx_pending = 0;
}

/*
 * Take releasable operations out of their slots, oldest first, onto
 * to_free; the caller frees them after dropping the lock. Under the lock.
 */
void gsync_group_release_slots(struct gsync_group *g,
			       struct list_head *to_free)
{
	struct gsync_op *op;

	while (g->base_seq < g->next_seq) {
		op = gsync_slot(g, g->base_seq);
		if (!op || op->seq != g->base_seq ||
		    !gsync_op_releasable(g, op))
			break;
		g->slots[g->base_seq % g->cfg.window] = NULL;
		list_add_tail(&op->free_node, to_free);
		WRITE_ONCE(g->base_seq, g->base_seq + 1);
	}
	/* Done with the operations before a rotation: the old key may go. */
	if (g->keys && g->keys->next)
		gsync_keys_retire(g->keys, g->base_seq);
}

/*
 * Free released ops and wake a writer waiting for their slots; process
 * context, lock not held.
 */
void gsync_op_free_list(struct gsync_group *g, struct list_head *to_free)
{
	struct gsync_op *op, *tmp;

	if (list_empty(to_free))
		return;
	list_for_each_entry_safe(op, tmp, to_free, free_node) {
		list_del(&op->free_node);
		gsync_op_free(g, op);
	}
	spin_lock_bh(&g->lock);
	gsync_group_wake_writer(g);
	spin_unlock_bh(&g->lock);
}

/*
 * Claim the next run of reducible blocks: the oldest operation, its
 * earliest round, consecutive blocks from the first. Under the lock.
 */
static bool gsync_claim_blocks(struct gsync_group *g, struct gsync_op **opp,
			       unsigned int *round, u32 *first, u32 *count)
{
	struct gsync_op *op;
	unsigned int t;
	u32 b, e;
	u64 seq;

	for (seq = g->base_seq; seq < g->next_seq; seq++) {
		op = gsync_slot(g, seq);
		if (!op || op->state != GSYNC_OPS_OPEN)
			continue;
		for (t = 0; t < op->nrounds; t++) {
			if (!op->reducible[t])
				continue;
			b = find_first_bit(op->reducible[t], op->nblocks);
			if (b >= op->nblocks)
				continue;
			e = find_next_zero_bit(op->reducible[t], op->nblocks, b);
			/* Strided stream buffers hold one block in a row. */
			if (op->step[2 * t].q->pattern == GSYNC_PAT_RS_MULTICAST)
				e = b + 1;
			bitmap_clear(op->reducible[t], b, e - b);
			op->jobs++;
			*opp = op;
			*round = t;
			*first = b;
			*count = e - b;
			return true;
		}
	}
	return false;
}

/* The engine finished a run of blocks (process context, any engine). */
static void gsync_rjob_done(struct gsync_reduce_job *job)
{
	struct gsync_rjob *rj = container_of(job, struct gsync_rjob, job);
	struct gsync_group *g = rj->g;
	struct gsync_op *op = rj->op;
	u32 b;

	spin_lock_bh(&g->lock);
	op->jobs--;
	g->stats.reduce_jobs++;
	if (job->status)
		gsync_op_fail(g, op, job->status);
	else if (op->state == GSYNC_OPS_OPEN)
		for (b = rj->first; b < rj->first + rj->count; b++)
			gsync_op_reduced(g, op, rj->round, b);
	spin_unlock_bh(&g->lock);
	kfree(rj);
}

void gsync_reduce_work(struct work_struct *work)
{
	struct gsync_group *g = container_of(work, struct gsync_group,
					     reduce_work);
	unsigned int me = g->cfg.rank, t, i;
	const struct gsync_sclique *q;
	struct gsync_rjob *rj;
	struct gsync_op *op;
	u32 first, count, off, bytes;

	for (;;) {
		spin_lock_bh(&g->lock);
		if (g->dead || !gsync_claim_blocks(g, &op, &t, &first, &count)) {
			spin_unlock_bh(&g->lock);
			return;
		}
		spin_unlock_bh(&g->lock);

		q = op->step[2 * t].q;
		rj = kzalloc(struct_size(rj, in, q->ninputs), GFP_KERNEL);
		if (!rj) {
			spin_lock_bh(&g->lock);
			op->jobs--;
			gsync_op_fail(g, op, -ENOMEM);
			spin_unlock_bh(&g->lock);
			continue;
		}
		off = first * op->block;
		bytes = min(count * op->block, op->len - off);
		for (i = 0; i < q->ninputs; i++) {
			unsigned int r = q->order[i];

			rj->in[i] = r == me ? op->val[t] + off :
				gsync_stream_ptr(op, gsync_op_stream(op, 2 * t, r),
						 off);
		}
		rj->op = op;
		rj->g = g;
		rj->round = t;
		rj->first = first;
		rj->count = count;
		rj->job.in = rj->in;
		rj->job.k = q->ninputs;
		rj->job.out = op->val[t + 1] + off;
		rj->job.count = bytes / gsync_dtype_size(op->dtype);
		rj->job.dtype = op->dtype;
		/* AVG divides once, where the sum first covers everyone. */
		rj->job.op = op->redop == GSYNC_OP_AVG && !q->divides ?
			     GSYNC_OP_SUM : op->redop;
		rj->job.avg_divisor = op->sched->ncontrib;
		rj->job.done = gsync_rjob_done;
		rj->job.priv = op;
		rj->job.group_id = g->cfg.group_id;
		rj->job.seq = op->seq;
		rj->job.rank = me;
		/* An engine that refuses the job leaves it to the CPU. */
		if (g->engine->submit(g->engine, &rj->job)) {
			rj->job.status = gsync_reduce_cpu(&rj->job);
			gsync_rjob_done(&rj->job);
		}
		cond_resched();
	}
}
