// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A group secret as text (base64, as WireGuard's key files hold keys) and
 * its fingerprint (BLAKE2s-256 over GSYNC_KEY_FPR_LABEL and the secret,
 * as the kernel computes it for gsync_info). Both from OpenSSL's
 * libcrypto; this is the library's only file that needs it.
 */
#include <errno.h>
#include <string.h>
#include <openssl/evp.h>

#include "gsync.h"
#include "export.h"

/* Base64 of GSYNC_KEY_LEN bytes: 33 bytes decoded, the last one padding. */
#define RAW_LEN (GSYNC_KEY_B64_LEN / 4 * 3)
_Static_assert(GSYNC_KEY_B64_LEN == (GSYNC_KEY_LEN + 2) / 3 * 4,
	       "base64 length of a key");

GSYNC_EXPORT int gsync_key_encode(const uint8_t secret[GSYNC_KEY_LEN],
				  char out[GSYNC_KEY_B64_LEN + 1])
{
	if (!secret || !out)
		return -EINVAL;
	/* EVP_EncodeBlock writes the NUL too: 44 characters, 45 bytes. */
	return EVP_EncodeBlock((unsigned char *)out, secret, GSYNC_KEY_LEN);
}

GSYNC_EXPORT int gsync_key_decode(const char *text,
				  uint8_t secret[GSYNC_KEY_LEN])
{
	unsigned char raw[RAW_LEN];
	char again[GSYNC_KEY_B64_LEN + 1];
	size_t len;
	int n, rc = -EINVAL;

	if (!text || !secret)
		return -EINVAL;
	len = strnlen(text, GSYNC_KEY_B64_LEN + 2);
	/* 44 characters, then at most one newline and nothing else */
	if (len == GSYNC_KEY_B64_LEN + 1 && text[GSYNC_KEY_B64_LEN] == '\n')
		len--;
	if (len != GSYNC_KEY_B64_LEN)
		return -EINVAL;
	n = EVP_DecodeBlock(raw, (const unsigned char *)text, GSYNC_KEY_B64_LEN);
	/*
	 * EVP_DecodeBlock skips blanks and takes non-canonical last
	 * characters: only text that encodes back to itself is a key.
	 */
	if (n == RAW_LEN && gsync_key_encode(raw, again) == GSYNC_KEY_B64_LEN &&
	    memcmp(again, text, GSYNC_KEY_B64_LEN) == 0) {
		memcpy(secret, raw, GSYNC_KEY_LEN);
		rc = 0;
	}
	explicit_bzero(raw, sizeof(raw));
	explicit_bzero(again, sizeof(again));
	return rc;
}

GSYNC_EXPORT uint64_t gsync_key_fingerprint(const uint8_t secret[GSYNC_KEY_LEN])
{
	static const char label[] = GSYNC_KEY_FPR_LABEL;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	uint64_t fpr = 0;
	EVP_MD_CTX *ctx;
	int i, good;

	if (!secret)
		return 0;
	ctx = EVP_MD_CTX_new();
	if (!ctx)
		return 0;
	good = EVP_DigestInit_ex(ctx, EVP_blake2s256(), NULL) &&
	       EVP_DigestUpdate(ctx, label, sizeof(label) - 1) &&
	       EVP_DigestUpdate(ctx, secret, GSYNC_KEY_LEN) &&
	       EVP_DigestFinal_ex(ctx, md, &mdlen) && mdlen >= 8;
	EVP_MD_CTX_free(ctx);
	for (i = 0; good && i < 8; i++)	/* the first 8 bytes, big-endian */
		fpr = fpr << 8 | md[i];
	explicit_bzero(md, sizeof(md));
	return fpr;
}
