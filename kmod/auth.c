// SPDX-License-Identifier: GPL-2.0
/*
 * Keyed groups, the cryptography: every member holds the group's secret
 * (installed by setsockopt, handed out by the training launcher), and
 * derives from it one key per sender and key epoch, so that each sender
 * owns its nonce space: the nonce is the sender's 64-bit packet counter,
 * which it never reuses within an epoch (a retransmission is a new packet
 * with a new counter) and which the receiver's replay window (replay.c)
 * accepts once.
 *
 *   key(s) = BLAKE2s-256(keyed with the secret,
 *                        "gsync key v1" | mode | group id | epoch | s)
 *
 * (numbers big-endian: mode one byte, group id 8, epoch 4, rank 2). The
 * mode is in it so that the two modes never share a key stream.
 *
 * A packet is sealed with ChaCha20-Poly1305 (RFC 8439; the kernel's
 * library, synchronous and usable in softirq, SIMD where the CPU has it):
 * its clear part (the header and the counter) is associated data, and the
 * tag follows the payload. GSYNC_AUTH_INTEGRITY authenticates the payload
 * as associated data too and leaves it readable (an aggregator on the path
 * can sum it; nobody without the key can forge it); GSYNC_AUTH_ENCRYPT
 * encrypts it.
 *
 * Locking: none; pure functions of their arguments. Keys are the caller's
 * to erase (memzero_explicit) when it drops them.
 */
#include <crypto/blake2s.h>
#include <crypto/chacha20poly1305.h>
#include <linux/string.h>
#include <linux/gsync.h>

#include "gsync.h"
#include "auth.h"

#define GSYNC_AUTH_LABEL	"gsync key v1"
#define GSYNC_AUTH_LABEL_LEN	(sizeof(GSYNC_AUTH_LABEL) - 1)

/* Sender rank's key for epoch of group group_id. Pure; KUnit tests it. */
void gsync_auth_derive(u8 out[GSYNC_AUTH_KEY_LEN],
		       const u8 secret[GSYNC_AUTH_KEY_LEN], int mode,
		       u64 group_id, u32 epoch, u16 rank)
{
	u8 in[GSYNC_AUTH_LABEL_LEN + 1 + 8 + 4 + 2];
	u8 *p = in + GSYNC_AUTH_LABEL_LEN;
	__be64 id = cpu_to_be64(group_id);
	__be32 ep = cpu_to_be32(epoch);
	__be16 r = cpu_to_be16(rank);

	memcpy(in, GSYNC_AUTH_LABEL, GSYNC_AUTH_LABEL_LEN);
	*p++ = mode;
	memcpy(p, &id, sizeof(id));
	memcpy(p + 8, &ep, sizeof(ep));
	memcpy(p + 12, &r, sizeof(r));
	blake2s(out, in, secret, GSYNC_AUTH_KEY_LEN, sizeof(in),
		GSYNC_AUTH_KEY_LEN);
	memzero_explicit(in, sizeof(in));
}
GSYNC_EXPORT_FOR_TESTS(gsync_auth_derive);

/*
 * A secret's fingerprint (uapi gsync_key): names a key in gsync_info and
 * /proc without revealing it.
 */
u64 gsync_auth_fingerprint(const u8 secret[GSYNC_AUTH_KEY_LEN])
{
	u8 in[sizeof(GSYNC_KEY_FPR_LABEL) - 1 + GSYNC_AUTH_KEY_LEN];
	u8 out[BLAKE2S_HASH_SIZE];
	__be64 fpr;

	memcpy(in, GSYNC_KEY_FPR_LABEL, sizeof(GSYNC_KEY_FPR_LABEL) - 1);
	memcpy(in + sizeof(GSYNC_KEY_FPR_LABEL) - 1, secret, GSYNC_AUTH_KEY_LEN);
	blake2s(out, in, NULL, sizeof(out), sizeof(in), 0);
	memcpy(&fpr, out, sizeof(fpr));
	memzero_explicit(in, sizeof(in));
	memzero_explicit(out, sizeof(out));
	return be64_to_cpu(fpr);
}
GSYNC_EXPORT_FOR_TESTS(gsync_auth_fingerprint);

/*
 * Seal the packet at pkt: clear_len bytes in clear (associated data), then
 * payload_len bytes of payload; the tag is written after the payload
 * (pkt must have room for it). Pure; KUnit tests it.
 */
void gsync_auth_seal(const u8 key[GSYNC_AUTH_KEY_LEN], int mode, u64 ctr,
		     u8 *pkt, size_t clear_len, size_t payload_len)
{
	u8 *payload = pkt + clear_len;

	if (mode == GSYNC_AUTH_ENCRYPT)
		chacha20poly1305_encrypt(payload, payload, payload_len, pkt,
					 clear_len, ctr, key);
	else	/* no ciphertext: the tag covers everything as data */
		chacha20poly1305_encrypt(payload + payload_len, NULL, 0, pkt,
					 clear_len + payload_len, ctr, key);
}
GSYNC_EXPORT_FOR_TESTS(gsync_auth_seal);

/*
 * Check (and decrypt, in place) a packet sealed so: false if it was not
 * sealed with key and ctr, or was changed since. The payload is not to be
 * used unless this returned true. Pure; KUnit tests it.
 */
bool gsync_auth_open(const u8 key[GSYNC_AUTH_KEY_LEN], int mode, u64 ctr,
		     u8 *pkt, size_t clear_len, size_t payload_len)
{
	u8 *payload = pkt + clear_len;

	if (mode == GSYNC_AUTH_ENCRYPT)
		return chacha20poly1305_decrypt(payload, payload,
						payload_len + GSYNC_AUTH_TAG_LEN,
						pkt, clear_len, ctr, key);
	return chacha20poly1305_decrypt(payload + payload_len,
					payload + payload_len,
					GSYNC_AUTH_TAG_LEN, pkt,
					clear_len + payload_len, ctr, key);
}
GSYNC_EXPORT_FOR_TESTS(gsync_auth_open);
