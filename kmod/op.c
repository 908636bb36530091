// SPDX-License-Identifier: GPL-2.0
/*
 * Operations: allocation, failure, release of their slots, and the reduce
 * work that turns complete contributions into the result.
 *
 * Locking: op state (state, status, flags, bitmaps) is under
 * gsync_group.lock. Allocation and freeing happen in process context
 * without the lock: an op is allocated before it is put in its slot and
 * freed after it has been taken out. The reduce work reads buffers of ops
 * in state REDUCING without the lock (see group.h).
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "gsync.h"
#include "group.h"

void gsync_op_free(struct gsync_group *g, struct gsync_op *op)
{
	unsigned int r;

	if (op->contrib) {
		for (r = 0; r < g->cfg.nranks; r++) {
			kvfree(op->contrib[r].buf);
			kvfree(op->contrib[r].have);
		}
	}
	kvfree(op->contrib);
	kvfree(op->sendbuf);
	kvfree(op->result);
	bitmap_free(op->complete);
	bitmap_free(op->acked);
	kvfree(op->rtx);
	kvfree(op->rtx_who);
	kfree(op->in);
	kfree(op);
}

/*
 * A new operation for our submission of seq, owning sendbuf (len bytes).
 * Process context; returns NULL without memory (sendbuf is then not taken).
 */
struct gsync_op *gsync_op_alloc(struct gsync_group *g, u64 seq, u8 dtype,
				u8 redop, u32 len, void *sendbuf)
{
	u32 nranks = g->cfg.nranks, max_chunks, r;
	struct gsync_op *op;

	op = kzalloc(sizeof(*op), GFP_KERNEL);
	if (!op)
		return NULL;
	op->seq = seq;
	op->dtype = dtype;
	op->redop = redop;
	op->len = len;
	op->nchunks = DIV_ROUND_UP(len, g->chunk_bytes);
	INIT_LIST_HEAD(&op->free_node);

	max_chunks = DIV_ROUND_UP(len, GSYNC_MIN_CHUNK_BYTES);
	op->contrib = kvcalloc(nranks, sizeof(*op->contrib), GFP_KERNEL);
	op->complete = bitmap_zalloc(nranks, GFP_KERNEL);
	op->acked = bitmap_zalloc(nranks, GFP_KERNEL);
	op->rtx = kvcalloc(BITS_TO_LONGS(op->nchunks), sizeof(long),
			   GFP_KERNEL);
	op->rtx_who = kvcalloc(op->nchunks, sizeof(u16), GFP_KERNEL);
	op->in = kcalloc(nranks, sizeof(*op->in), GFP_KERNEL);
	op->result = kvmalloc(len, GFP_KERNEL);
	if (!op->contrib || !op->complete || !op->acked || !op->rtx ||
	    !op->rtx_who || !op->in || !op->result)
		goto fail;
	for (r = 0; r < nranks; r++) {
		if (r == g->cfg.rank)
			continue;
		op->contrib[r].buf = kvmalloc(len, GFP_KERNEL);
		op->contrib[r].have = kvcalloc(BITS_TO_LONGS(max_chunks),
					       sizeof(long), GFP_KERNEL);
		if (!op->contrib[r].buf || !op->contrib[r].have)
			goto fail;
	}
	__set_bit(g->cfg.rank, op->complete);
	__set_bit(g->cfg.rank, op->acked);
	op->sendbuf = sendbuf;
	return op;

fail:
	gsync_op_free(g, op);
	return NULL;
}

/*
 * Failures every rank must report alike (a mismatch, or an abort that
 * reported one) are told to peers that ask; a timeout or an operation
 * abandoned by close is not: peers find out by timing out themselves.
 */
bool gsync_op_keeps_failure(const struct gsync_op *op)
{
	return op->state == GSYNC_OPS_FAILED &&
	       (op->status == -EPROTO || op->status == -ECONNABORTED);
}

/* Fail an operation still collecting contributions. Under the lock. */
void gsync_op_fail(struct gsync_group *g, struct gsync_op *op, int err)
{
	if (op->state != GSYNC_OPS_OPEN)
		return;
	op->state = GSYNC_OPS_FAILED;
	op->status = err;
	/* Stay around to tell late peers (see gsync_rx_tell_failed()). */
	op->retain_until = jiffies + msecs_to_jiffies(g->cfg.op_timeout_ms);
	if (err == -ETIMEDOUT)
		g->stats.timeouts++;
	else if (err == -EPROTO)
		g->stats.mismatches++;
	if (op->seq == g->deliver_seq)
		gsync_group_wake_reader(g);
}

/*
 * Can the slot be reused? Only once the user has the result and no peer
 * can need our contribution any more. Under the lock.
 */
bool gsync_op_releasable(struct gsync_group *g, struct gsync_op *op)
{
	return op->delivered && !op->sendbuf;
}

/*
 * Our contribution can go once the operation is over here and every peer
 * holds it, or has had op_timeout_ms to ask for it again. A failed
 * operation is kept as long, so peers that ask can be told it failed. Returns the
 * buffer for the caller to free outside the lock, or NULL. Under the lock.
 */
void *gsync_op_take_sendbuf(struct gsync_group *g, struct gsync_op *op)
{
	void *buf = op->sendbuf;

	if (!buf)
		return NULL;
	if (op->state == GSYNC_OPS_OPEN || op->state == GSYNC_OPS_REDUCING)
		return NULL;
	if (op->state == GSYNC_OPS_DONE &&
	    !bitmap_full(op->acked, g->cfg.nranks) &&
	    time_before(jiffies, op->retain_until))
		return NULL;
	/* A failure peers may not know of yet is kept to answer them. */
	if (gsync_op_keeps_failure(op) &&
	    time_before(jiffies, op->retain_until))
		return NULL;
	op->sendbuf = NULL;
	op->rtx_pending = 0;
	return buf;
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
		g->base_seq++;
	}
}

/* Free released ops; process context, lock not held. */
void gsync_op_free_list(struct gsync_group *g, struct list_head *to_free)
{
	struct gsync_op *op, *tmp;
	bool any = false;

	list_for_each_entry_safe(op, tmp, to_free, free_node) {
		list_del(&op->free_node);
		gsync_op_free(g, op);
		any = true;
	}
	if (any)
		gsync_group_wake_writer(g);
}

/*
 * The oldest operation whose contributions are all here and that no engine
 * has yet; it is marked as handed out. Under the lock.
 */
static struct gsync_op *gsync_next_reducible(struct gsync_group *g)
{
	struct gsync_op *op;
	u64 seq;

	for (seq = g->base_seq; seq < g->next_seq; seq++) {
		op = gsync_slot(g, seq);
		if (op && op->state == GSYNC_OPS_REDUCING &&
		    !op->reduce_started) {
			op->reduce_started = true;
			return op;
		}
	}
	return NULL;
}

/*
 * The engine finished an operation's reduction (process context, any
 * engine). Peer buffers are no longer needed: give the memory back.
 */
static void gsync_reduce_done(struct gsync_reduce_job *job)
{
	struct gsync_op *op = job->priv;
	struct gsync_group *g = op->group;
	unsigned int r;

	for (r = 0; r < g->cfg.nranks; r++) {
		if (r == g->cfg.rank)
			continue;
		kvfree(op->contrib[r].buf);
		op->contrib[r].buf = NULL;
	}
	spin_lock_bh(&g->lock);
	op->state = job->status ? GSYNC_OPS_FAILED : GSYNC_OPS_DONE;
	op->status = job->status;
	op->retain_until = jiffies + msecs_to_jiffies(g->cfg.op_timeout_ms);
	if (op->seq == g->deliver_seq)
		gsync_group_wake_reader(g);
	spin_unlock_bh(&g->lock);
}

void gsync_reduce_work(struct work_struct *work)
{
	struct gsync_group *g = container_of(work, struct gsync_group,
					     reduce_work);
	struct gsync_reduce_job *job;
	struct gsync_op *op;
	unsigned int r, me = g->cfg.rank;

	for (;;) {
		spin_lock_bh(&g->lock);
		op = g->dead ? NULL : gsync_next_reducible(g);
		spin_unlock_bh(&g->lock);
		if (!op)
			return;

		for (r = 0; r < g->cfg.nranks; r++)
			op->in[r] = r == me ? op->sendbuf : op->contrib[r].buf;
		job = &op->job;
		job->in = op->in;
		job->k = g->cfg.nranks;
		job->out = op->result;
		job->count = op->len / gsync_dtype_size(op->dtype);
		job->dtype = op->dtype;
		job->op = op->redop;
		job->avg_divisor = g->cfg.nranks;
		job->done = gsync_reduce_done;
		job->priv = op;
		op->group = g;
		/* An engine that refuses the job leaves it to the CPU. */
		if (g->engine->submit(g->engine, job)) {
			job->status = gsync_reduce_cpu(job);
			gsync_reduce_done(job);
		}
		cond_resched();
	}
}
