// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Endpoint strings <-> struct gsync_addr. The accepted syntax is
 * deliberately narrow (numeric address, mandatory port, IPv6 in brackets)
 * so that a typo in a member list is an error, not a different endpoint.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "gsync.h"
#include "export.h"

/* Longest textual endpoint we bother to look at. */
#define ADDR_TEXT_MAX 128

/* Strict decimal in [lo, hi]: digits only, at most 10 of them. */
static int parse_uint(const char *s, size_t n, unsigned long lo,
		      unsigned long hi, unsigned long *out)
{
	unsigned long v = 0;
	size_t i;

	if (n == 0 || n > 10)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_port(const char *s, struct gsync_addr *out)
{
	unsigned long port;
	int err = parse_uint(s, strlen(s), 1, 65535, &port);

	if (err)
		return err;
	out->port = htons((uint16_t)port);
	return 0;
}

/* "%eth0" or "%3": an interface name or index. */
static int parse_scope(const char *s, size_t n, uint32_t *scope)
{
	char name[IF_NAMESIZE];
	unsigned long idx;
	unsigned int i;

	if (n == 0)
		return -EINVAL;
	if (parse_uint(s, n, 1, 0xffffffffUL, &idx) == 0) {
		*scope = (uint32_t)idx;
		return 0;
	}
	if (n >= sizeof(name))
		return -EINVAL;
	memcpy(name, s, n);
	name[n] = '\0';
	i = if_nametoindex(name);
	if (!i)
		return -ENODEV;
	*scope = i;
	return 0;
}

static int parse_v6(const char *s, struct gsync_addr *out)
{
	char host[INET6_ADDRSTRLEN];
	const char *close = strchr(s, ']');
	const char *pct;
	size_t hlen;
	int err;

	if (!close || close[1] != ':')
		return -EINVAL;
	pct = memchr(s + 1, '%', (size_t)(close - s - 1));
	hlen = (size_t)((pct ? pct : close) - (s + 1));
	if (hlen == 0 || hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, s + 1, hlen);
	host[hlen] = '\0';
	if (inet_pton(AF_INET6, host, out->addr) != 1)
		return -EINVAL;
	if (pct) {
		err = parse_scope(pct + 1, (size_t)(close - pct - 1),
				  &out->scope_id);
		if (err)
			return err;
	}
	out->family = AF_INET6;
	return parse_port(close + 2, out);
}

static int parse_v4(const char *s, struct gsync_addr *out)
{
	char host[INET_ADDRSTRLEN];
	const char *colon = strchr(s, ':');
	size_t hlen;

	if (!colon || strchr(colon + 1, ':'))
		return -EINVAL;
	hlen = (size_t)(colon - s);
	if (hlen == 0 || hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	/* inet_pton(AF_INET) only takes full dotted quads, unlike inet_aton. */
	if (inet_pton(AF_INET, host, out->addr) != 1)
		return -EINVAL;
	out->family = AF_INET;
	return parse_port(colon + 1, out);
}

GSYNC_EXPORT int gsync_addr_parse(const char *s, struct gsync_addr *out)
{
	int err;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!s || strnlen(s, ADDR_TEXT_MAX) >= ADDR_TEXT_MAX)
		return -EINVAL;
	err = s[0] == '[' ? parse_v6(s, out) : parse_v4(s, out);
	if (err)
		memset(out, 0, sizeof(*out));
	return err;
}

GSYNC_EXPORT int gsync_addr_parse_list(const char *list, struct gsync_addr *out,
				       unsigned int max)
{
	char item[ADDR_TEXT_MAX];
	const char *p = list, *comma;
	unsigned int n = 0;
	size_t len;
	int err;

	if (!list || !out || !*list)
		return -EINVAL;
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0 || len >= sizeof(item))
			return -EINVAL;
		if (n == max)
			return -E2BIG;
		memcpy(item, p, len);
		item[len] = '\0';
		err = gsync_addr_parse(item, &out[n]);
		if (err)
			return err;
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	return (int)n;
}

GSYNC_EXPORT int gsync_addr_format(const struct gsync_addr *a, char *buf,
				   size_t len)
{
	char host[INET6_ADDRSTRLEN];
	int n;

	if (len > 0)
		buf[0] = '\0';
	if (!a)
		return -EINVAL;
	if (a->family == AF_INET) {
		if (!inet_ntop(AF_INET, a->addr, host, sizeof(host)))
			return -EINVAL;
		n = snprintf(buf, len, "%s:%u", host, ntohs(a->port));
	} else if (a->family == AF_INET6) {
		if (!inet_ntop(AF_INET6, a->addr, host, sizeof(host)))
			return -EINVAL;
		if (a->scope_id)
			n = snprintf(buf, len, "[%s%%%u]:%u", host,
				     (unsigned int)a->scope_id, ntohs(a->port));
		else
			n = snprintf(buf, len, "[%s]:%u", host, ntohs(a->port));
	} else {
		return -EINVAL;
	}
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len) {
		if (len > 0)
			buf[0] = '\0';
		return -ENOSPC;
	}
	return n;
}

GSYNC_EXPORT int gsync_addr_is_multicast(const struct gsync_addr *a)
{
	if (!a)
		return 0;
	if (a->family == AF_INET)
		return (a->addr[0] & 0xf0) == 0xe0;	/* 224.0.0.0/4 */
	if (a->family == AF_INET6)
		return a->addr[0] == 0xff;		/* ff00::/8 */
	return 0;
}
