// SPDX-License-Identifier: GPL-2.0
/*
 * Keyed groups on the wire (layout: uapi gsync_wire.h, "Keyed groups").
 *
 * Send: the tx work picks a packet under the group's lock and, with it,
 * the epoch and counter that seal it (gsync_seal_pick(): the counter is
 * used once whatever happens to the packet); it seals outside the lock,
 * from a copy of the key that it erases after (gsync_seal_packet()). One
 * sealed packet may go to several receivers (unicast fan-out): each keeps
 * its own replay window per sender, so that reuses no nonce.
 *
 * Receive: gsync_rx_unseal() runs first for every datagram of a keyed
 * group, under the group's lock in softirq. It checks what identifies the
 * sender (version, group, rank, source address), then that the packet is
 * sealed as the group's mode requires, holds a known epoch, opens under
 * its sender's key, and is new to the replay window; only then does the
 * rest of the receive path see it, stripped to a plain packet (the
 * sealing fields and tag removed, the flags cleared), so that nothing
 * unauthenticated changes any state. Each refusal is a drop reason.
 * Opening needs the datagram linear and writable: at most one datagram
 * (64 KiB) at a time, charged to the UDP socket as it already was.
 *
 * Locking: as above; g->keys is set at JOIN and freed at destroy, its
 * epochs change under the group's lock (keys.c).
 */
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/udp.h>
#include <linux/gsync.h>
#include <linux/gsync_wire.h>

#include "gsync.h"
#include "group.h"
#include "keys.h"
#include "receive.h"
#include "seal.h"

#define GSYNC_SEAL_FLAGS	(GSYNC_WF_SEALED | GSYNC_WF_ENCRYPTED)

static u16 gsync_seal_flags(int mode)
{
	return GSYNC_WF_SEALED |
	       (mode == GSYNC_AUTH_ENCRYPT ? GSYNC_WF_ENCRYPTED : 0);
}

/*
 * The key and counter our next packet is sealed with. Under the lock.
 * False if the epoch's counters are spent (2^64 - 2048 packets: a new
 * epoch is needed first); the packet must not be sent.
 */
bool gsync_seal_pick(struct gsync_group *g, struct gsync_seal *s)
{
	struct gsync_epoch *e = gsync_keys_tx(g->keys, g->next_seq);

	lockdep_assert_held(&g->lock);
	if (WARN_ON_ONCE(e->tx_ctr >= GSYNC_REPLAY_LIMIT))
		return false;
	memcpy(s->key, e->key[g->cfg.rank], sizeof(s->key));
	s->ctr = e->tx_ctr++;
	s->epoch = e->epoch;
	s->mode = g->keys->mode;
	return true;
}

/*
 * Seal pkt, laid out as header | room for struct gsync_wire_sec | payload
 * (payload_len as the header says) | room for the tag; returns its length
 * on the wire. Erases s. Lock not held.
 */
unsigned int gsync_seal_packet(struct gsync_seal *s, u8 *pkt)
{
	struct gsync_wire_hdr *h = (struct gsync_wire_hdr *)pkt;
	struct gsync_wire_sec *sec;
	u32 plen = be32_to_cpu(h->payload_len);

	h->flags |= cpu_to_be16(gsync_seal_flags(s->mode));
	sec = (struct gsync_wire_sec *)(pkt + GSYNC_WIRE_HDR_LEN);
	sec->epoch = cpu_to_be32(s->epoch);
	sec->reserved = 0;
	sec->counter = cpu_to_be64(s->ctr);
	gsync_auth_seal(s->key, s->mode, s->ctr, pkt,
			GSYNC_WIRE_HDR_LEN + GSYNC_WIRE_SEC_LEN, plen);
	memzero_explicit(s, sizeof(*s));
	return GSYNC_WIRE_HDR_LEN + GSYNC_WIRE_SEC_LEN + plen +
	       GSYNC_WIRE_TAG_LEN;
}
GSYNC_EXPORT_FOR_TESTS(gsync_seal_packet);

/* Who sent it, before any cryptography: what gsync_wire_check() does too. */
static int gsync_rx_unseal_sender(struct gsync_group *g, struct sk_buff *skb,
				  const struct gsync_wire_hdr *h)
{
	unsigned int r = be16_to_cpu(h->src_rank);

	if (h->version != GSYNC_WIRE_VERSION)
		return GSYNC_DROP_VERSION;
	if (be64_to_cpu(h->group_id) != g->cfg.group_id)
		return GSYNC_DROP_GROUP;
	if (be16_to_cpu(h->nranks) != g->cfg.nranks || r >= g->cfg.nranks ||
	    r == g->cfg.rank)
		return GSYNC_DROP_RANK;
	if (!gsync_rx_source_ok(g, skb, r))
		return GSYNC_DROP_SOURCE;
	return GSYNC_DROP_MAX;
}

/*
 * A packet from rank r's address did not authenticate. If r sends nothing
 * else, an operation waiting for it fails with EKEYREJECTED rather than
 * ETIMEDOUT (repair.c): r is there but holds another key, or none. Under
 * the lock.
 */
int gsync_rx_auth_failed(struct gsync_group *g, unsigned int r)
{
	g->auth_fail[r] = jiffies ? jiffies : 1;
	return GSYNC_DROP_AUTH;
}

/* Make the opened packet in skb a plain one: drop the sec, the tag, flags. */
static int gsync_rx_strip(struct sk_buff *skb)
{
	const unsigned int hdrs = sizeof(struct udphdr) + GSYNC_WIRE_HDR_LEN;
	struct gsync_wire_hdr *h;

	memmove(skb->data + GSYNC_WIRE_SEC_LEN, skb->data, hdrs);
	__skb_pull(skb, GSYNC_WIRE_SEC_LEN);
	skb_reset_transport_header(skb);
	if (pskb_trim(skb, skb->len - GSYNC_WIRE_TAG_LEN))
		return GSYNC_DROP_NOMEM;
	udp_hdr(skb)->len = htons(skb->len);
	h = (struct gsync_wire_hdr *)(skb->data + sizeof(struct udphdr));
	h->flags &= ~cpu_to_be16(GSYNC_SEAL_FLAGS);
	return GSYNC_DROP_MAX;
}

/*
 * A datagram for g, its header copied into h (at least a header long, not
 * our own): if g is keyed, authenticate it and strip it to a plain packet
 * in place. Returns GSYNC_DROP_MAX if the rest of the receive path may
 * have it, else why to drop it. Under the lock.
 */
int gsync_rx_unseal(struct gsync_group *g, struct sk_buff *skb,
		    const struct gsync_wire_hdr *h)
{
	unsigned int len = skb->len - sizeof(struct udphdr);
	unsigned int r = be16_to_cpu(h->src_rank);
	u16 flags = be16_to_cpu(h->flags) & GSYNC_SEAL_FLAGS;
	struct gsync_keys *k = g->keys;
	struct gsync_wire_sec sec;
	struct gsync_epoch *e;
	u32 plen;
	u64 ctr;
	int reason;

	lockdep_assert_held(&g->lock);
	/* Sealed to a group without keys: gsync_wire_check() refuses it. */
	if (!k)
		return GSYNC_DROP_MAX;
	reason = gsync_rx_unseal_sender(g, skb, h);
	if (reason != GSYNC_DROP_MAX)
		return reason;
	if (flags != gsync_seal_flags(k->mode))
		return gsync_rx_auth_failed(g, r);
	if (len < GSYNC_WIRE_HDR_LEN + GSYNC_WIRE_SEC_LEN + GSYNC_WIRE_TAG_LEN)
		return GSYNC_DROP_SHORT;
	plen = be32_to_cpu(h->payload_len);
	if (plen != len - GSYNC_WIRE_HDR_LEN - GSYNC_WIRE_SEC_LEN -
		    GSYNC_WIRE_TAG_LEN)
		return GSYNC_DROP_SHORT;
	if (skb_copy_bits(skb, sizeof(struct udphdr) + GSYNC_WIRE_HDR_LEN,
			  &sec, sizeof(sec)))
		return GSYNC_DROP_SHORT;
	if (sec.reserved)
		return GSYNC_DROP_FIELD;
	e = gsync_keys_rx(k, be32_to_cpu(sec.epoch));
	if (!e)
		return GSYNC_DROP_EPOCH;
	ctr = be64_to_cpu(sec.counter);
	if (ctr >= GSYNC_REPLAY_LIMIT)
		return GSYNC_DROP_REPLAY;
	if (skb_ensure_writable(skb, skb->len))
		return GSYNC_DROP_NOMEM;
	if (!gsync_auth_open(e->key[r], k->mode, ctr,
			     skb->data + sizeof(struct udphdr),
			     GSYNC_WIRE_HDR_LEN + GSYNC_WIRE_SEC_LEN, plen))
		return gsync_rx_auth_failed(g, r);
	if (!gsync_keys_rx_ok(k, e, r, ctr))
		return GSYNC_DROP_REPLAY;
	/* r may have been the last to switch to the next epoch. */
	if (e == k->next)
		gsync_keys_retire(k, g->base_seq);
	return gsync_rx_strip(skb);
}
