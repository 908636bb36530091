// SPDX-License-Identifier: GPL-2.0
/*
 * Step routing: who sends which block to whom in each step of an
 * operation, from this rank's point of view. The operation's setup (op.c),
 * the send path (send.c), the receive path (receive.c) and loss repair ask
 * these functions, and nothing else decides it.
 *
 * Step 2r sends values into round r's reductions: in a clique without
 * owners every member sends its value to every other member (multicast or
 * unicast fan-out); in an owner pattern (RS_MULTICAST, AGGREGATOR) block b
 * goes only to its owner. Step 2r + 1 sends the reduced blocks back from
 * their owners to every member.
 *
 * Locking: pure functions of the operation's compiled schedule and steps;
 * callers hold gsync_group.lock or own the operation (setup).
 */
#include <linux/math64.h>

#include "gsync.h"
#include "group.h"
#include "route.h"

bool gsync_route_reduces(const struct gsync_sclique *q, u32 b,
			  unsigned int me)
{
	return !gsync_sclique_owned(q) || gsync_sclique_owner(q, b) == me;
}

/* Contributors covered by what rank sends in step s. */
u16 gsync_op_step_cov(struct gsync_op *op, unsigned int s, unsigned int rank)
{
	const struct gsync_sclique *q;

	if (!(s & 1))
		return gsync_sched_cov(op->sched, s / 2, rank);
	q = gsync_sched_clique(op->sched, s / 2, rank);
	return q ? q->cov_out : 0;
}
GSYNC_EXPORT_FOR_TESTS(gsync_op_step_cov);

/* Do we expect block b from rank in step s? */
bool gsync_op_expects(struct gsync_group *g, struct gsync_op *op,
		      unsigned int s, unsigned int rank, u32 b)
{
	const struct gsync_sclique *q = op->step[s].q;

	if (!q)
		return false;
	if (!(s & 1))
		return gsync_sched_cov(op->sched, s / 2, rank) &&
		       gsync_route_reduces(q, b, g->cfg.rank);
	return gsync_sclique_owned(q) && gsync_sclique_owner(q, b) == rank;
}
GSYNC_EXPORT_FOR_TESTS(gsync_op_expects);

/* Do we send block b in step s? */
bool gsync_op_sends(struct gsync_group *g, struct gsync_op *op,
		    unsigned int s, u32 b)
{
	const struct gsync_sclique *q = op->step[s].q;
	unsigned int me = g->cfg.rank;

	if (!q)
		return false;
	if (!(s & 1))
		return gsync_sched_cov(op->sched, s / 2, me) &&
		       !(gsync_sclique_owned(q) &&
			 gsync_sclique_owner(q, b) == me);
	return gsync_sclique_owned(q) && gsync_sclique_owner(q, b) == me;
}

/* Do we send block b to rank in step s? */
bool gsync_op_sends_to(struct gsync_group *g, struct gsync_op *op,
		       unsigned int s, u32 b, unsigned int rank)
{
	const struct gsync_sclique *q = op->step[s].q;

	if (rank == g->cfg.rank || !gsync_op_sends(g, op, s, b) ||
	    gsync_sclique_pos(q, rank) < 0)
		return false;
	if (!(s & 1) && gsync_sclique_owned(q))
		return gsync_sclique_owner(q, b) == rank;
	return true;
}
GSYNC_EXPORT_FOR_TESTS(gsync_op_sends_to);

/*
 * The first block after b that we may send to rank in step s, or
 * op->nblocks if none: no block to ourselves or to a rank outside the
 * step's clique, in an owner clique's first step only the blocks rank
 * owns, in its second only ours. Lets a walk over a NACK's ranges jump
 * over blocks not ours to send rather than visit each.
 */
u32 gsync_op_next_block_to(struct gsync_group *g, struct gsync_op *op,
			   unsigned int s, u32 b, unsigned int rank)
{
	const struct gsync_sclique *q = op->step[s].q;
	unsigned int k, owner;
	int pos;
	u32 next;

	if (!q || b >= op->nblocks || rank == g->cfg.rank ||
	    gsync_sclique_pos(q, rank) < 0)
		return op->nblocks;
	if (!gsync_sclique_owned(q))
		return b + 1;
	owner = (s & 1) ? g->cfg.rank : rank;
	if (q->pattern == GSYNC_PAT_AGGREGATOR)
		return owner == q->aggregator ? b + 1 : op->nblocks;
	pos = gsync_sclique_pos(q, owner);
	if (pos < 0)
		return op->nblocks;
	k = q->nmembers;
	next = b + 1 + (pos + k - (b + 1) % k) % k;
	return min(next, op->nblocks);
}
GSYNC_EXPORT_FOR_TESTS(gsync_op_next_block_to);

/*
 * The order we send the chunks of step s in: the walk. In the first step
 * of a reduce-scatter clique every member walking the blocks from 0 would
 * send to the same owner at once, and that owner's download would be the
 * bottleneck while the others idle (incast). Even members that start at
 * different owners and send a block to each in turn would drift into
 * each other (their rates are not quite equal), and at a download's rate
 * two blocks at once make a queue. So the walk takes the blocks a row of
 * nmembers (one per owner) at a time and deals each row out a chunk per
 * owner in turn, starting at the owner after us: every download then gets
 * an equal part of every sender's stream, however they drift. Every owner
 * still gets its chunks from each sender in increasing order (the walk is
 * a prefix of each receiver's stream: gsync_walk_sent()). Other steps walk
 * the chunks in order. Returns false for those; else *turn, the owner
 * position (mod nmembers) each row starts after ours.
 */
static bool gsync_walk_rows(const struct gsync_op *op, unsigned int s,
			    unsigned int *turn)
{
	const struct gsync_step *st = &op->step[s];
	const struct gsync_sclique *q = st->q;

	if ((s & 1) || !q || q->pattern != GSYNC_PAT_RS_MULTICAST ||
	    q->nmembers < 2)
		return false;
	*turn = (st->pos + 1) % q->nmembers;
	return true;
}

/*
 * What a packet of len bytes of clique q, landing on ndown members'
 * downloads, costs in its sender's token bucket. A clique's rate is what
 * each member sends at, averaged over both steps. In a reduce-scatter
 * clique of k that average mixes k - 1 blocks sent to one owner each with
 * one result multicast to k - 1 members, and gsync-sched export picks it
 * so that the mix fills no download (k/(2(k-1)) of a download's rate).
 * Paced by bytes sent alone, the owners, finishing a row of blocks about
 * together, would each multicast its result at the whole rate and offer
 * every download up to k - 1 times its share at once: a queue builds and
 * the adaptive rate backs off. So there a packet costs in proportion to
 * the downloads it lands on, k/(2(k-1)) of its length per download,
 * which keeps the mix at the clique's rate: blocks to owners alone go at
 * 2(k-1)/k of it (one download's rate), results alone at 2/k of it (the
 * k - 1 owners together fill a download). Other cliques, and a
 * reduce-scatter whose results go by unicast (it sends and receives the
 * same bytes in both steps): len. Pure; KUnit tests it.
 */
u32 gsync_route_cost(const struct gsync_sclique *q, unsigned int ndown,
		     u32 len)
{
	u32 k;

	if (!q || q->pattern != GSYNC_PAT_RS_MULTICAST || q->unicast ||
	    q->nmembers < 2 || !ndown)
		return len;
	k = q->nmembers;
	return div_u64((u64)len * ndown * k, 2 * (k - 1));
}
GSYNC_EXPORT_FOR_TESTS(gsync_route_cost);

/* Places in the walk of step s (some may hold no chunk). */
u32 gsync_walk_len(const struct gsync_op *op, unsigned int s)
{
	unsigned int turn, k;

	if (!gsync_walk_rows(op, s, &turn))
		return op->nchunks;
	k = op->step[s].q->nmembers;
	return DIV_ROUND_UP(op->nblocks, k) * k * op->ppb;
}
GSYNC_EXPORT_FOR_TESTS(gsync_walk_len);

/*
 * The chunk at place w of the walk of step s; op->nchunks or more if the
 * place holds none (past the last block, or past the end of it).
 */
u32 gsync_walk_chunk(const struct gsync_op *op, unsigned int s, u32 w)
{
	unsigned int turn, k;
	u32 row, i, b, j;

	if (!gsync_walk_rows(op, s, &turn))
		return w;
	k = op->step[s].q->nmembers;
	row = w / (k * op->ppb);
	i = w % (k * op->ppb);
	j = i / k;
	b = row * k + (i % k + turn) % k;
	if (b >= op->nblocks)
		return op->nchunks;
	return b * op->ppb + j;
}
GSYNC_EXPORT_FOR_TESTS(gsync_walk_chunk);

/*
 * Has chunk c of step s been sent once? What we send one receiver is sent
 * in increasing order (see gsync_walk_rows()), so what it has had of it is
 * a prefix. Under the lock.
 */
bool gsync_walk_sent(const struct gsync_op *op, unsigned int s, u32 c)
{
	const struct gsync_step *st = &op->step[s];
	unsigned int turn, k;
	u32 b, w;

	if (st->tx_done)
		return true;
	if (!gsync_walk_rows(op, s, &turn))
		return c < st->tx_walk;
	k = st->q->nmembers;
	b = c / op->ppb;
	w = (b / k) * k * op->ppb + (c % op->ppb) * k +
	    (b % k + k - turn) % k;
	return w < st->tx_walk;
}
GSYNC_EXPORT_FOR_TESTS(gsync_walk_sent);

/*
 * Where the walk of step s goes after place w holds nothing for us to
 * send: in order, the next block (the rest of this one is not ours
 * either); dealt out by rows, the next place (the next owner's).
 */
u32 gsync_walk_skip(const struct gsync_op *op, unsigned int s, u32 w)
{
	unsigned int turn;

	if (gsync_walk_rows(op, s, &turn))
		return w + 1;
	return (w / op->ppb + 1) * op->ppb;
}
GSYNC_EXPORT_FOR_TESTS(gsync_walk_skip);

/* The stream rank sends us in step s, or NULL if it is not in our clique. */
struct gsync_contrib *gsync_op_stream(struct gsync_op *op, unsigned int s,
				      unsigned int rank)
{
	struct gsync_step *st = &op->step[s];
	int pos;

	if (!st->q)
		return NULL;
	pos = gsync_sclique_pos(st->q, rank);
	if (pos < 0 || pos == st->pos)
		return NULL;
	return &st->in[pos];
}
GSYNC_EXPORT_FOR_TESTS(gsync_op_stream);

/*
 * Destinations of a chunk of block b in step s: one multicast (-1), the
 * block's owner, or each other member of the clique in turn.
 */
unsigned int gsync_step_ndest(struct gsync_group *g,
				     struct gsync_op *op, unsigned int s)
{
	const struct gsync_sclique *q = op->step[s].q;

	if (!(s & 1) && gsync_sclique_owned(q))
		return 1;
	if (!(s & 1) ? q->pattern == GSYNC_PAT_UNICAST || g->unicast :
	    q->unicast)
		return q->nmembers - 1;
	return 1;
}

int gsync_step_dest(struct gsync_group *g, struct gsync_op *op,
			   unsigned int s, u32 b, unsigned int i)
{
	const struct gsync_step *st = &op->step[s];
	const struct gsync_sclique *q = st->q;

	if (!(s & 1) && gsync_sclique_owned(q))
		return gsync_sclique_owner(q, b);
	if (gsync_step_ndest(g, op, s) == 1)
		return -1;
	return q->members[i < st->pos ? i : i + 1];
}


/*
 * Receive buffer of a stream of step s: in a reduce-scatter clique a
 * member sends us only the blocks we own (every nmembers-th from our
 * position), so the stream gets room for those alone. Returns the stride
 * between our blocks (0: a buffer of the whole value) and sets *bytes.
 */
u16 gsync_stream_layout(const struct gsync_op *op, unsigned int s,
			const struct gsync_sclique *q, unsigned int pos,
			u64 *bytes)
{
	u32 b;

	*bytes = op->len;
	if ((s & 1) || q->pattern != GSYNC_PAT_RS_MULTICAST || q->nmembers < 2)
		return 0;
	*bytes = 0;
	for (b = pos; b < op->nblocks; b += q->nmembers)
		*bytes += min_t(u64, op->block, op->len - (u64)b * op->block);
	return q->nmembers;
}

/* Where byte off of the value lies in stream c's buffer. */
void *gsync_stream_ptr(const struct gsync_op *op,
		       const struct gsync_contrib *c, u32 off)
{
	u32 b = off / op->block;

	if (!c->stride)
		return c->buf + off;
	return c->buf + (size_t)(b / c->stride) * op->block + off % op->block;
}
