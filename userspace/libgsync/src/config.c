// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Group configuration: struct gsync_config -> GSYNC_JOIN option value.
 * Validation mirrors the rules documented in <linux/gsync.h> so that a bad
 * member list is reported with the kernel's errno before any syscall; the
 * kernel stays the authority and checks everything again.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "gsync.h"
#include "export.h"

/* Kernel defaults that validation depends on (see struct gsync_join). */
#define DEFAULT_OP_TIMEOUT_MS 10000U

GSYNC_EXPORT void gsync_config_init(struct gsync_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
}

static int addr_is_zero(const struct gsync_addr *a)
{
	static const struct gsync_addr zero;

	return memcmp(a, &zero, sizeof(zero)) == 0;
}

static int addr_is_unspecified(const struct gsync_addr *a)
{
	static const uint8_t zero[16];

	return memcmp(a->addr, zero, a->family == AF_INET ? 4 : 16) == 0;
}

/* Same endpoint: family, address and port (scope is not part of identity). */
static int addr_same_endpoint(const struct gsync_addr *a,
			      const struct gsync_addr *b)
{
	return a->family == b->family && a->port == b->port &&
	       memcmp(a->addr, b->addr, 16) == 0;
}

/* Checks common to members and the multicast group. */
static int check_addr(const struct gsync_addr *a, uint16_t family)
{
	static const uint8_t zero[12];

	if (a->family != family || a->port == 0)
		return -EINVAL;
	if (family == AF_INET &&
	    (memcmp(a->addr + 4, zero, sizeof(zero)) != 0 || a->scope_id))
		return -EINVAL;
	return 0;
}

static int check_members(const struct gsync_config *cfg)
{
	const struct gsync_addr *m = cfg->members;
	uint16_t fam;
	unsigned int i, j;

	if (!m)
		return -EINVAL;
	fam = m[0].family;
	if (fam != AF_INET && fam != AF_INET6)
		return -EINVAL;
	for (i = 0; i < cfg->nranks; i++) {
		if (check_addr(&m[i], fam) || gsync_addr_is_multicast(&m[i]) ||
		    addr_is_unspecified(&m[i]))
			return -EINVAL;
		/* O(n^2) with n <= 256: 32k compares, once per join. */
		for (j = 0; j < i; j++)
			if (addr_same_endpoint(&m[i], &m[j]))
				return -EINVAL;
	}
	if (cfg->flags & GSYNC_JOIN_UNICAST)
		return addr_is_zero(&cfg->mcast) ? 0 : -EINVAL;
	if (check_addr(&cfg->mcast, fam) || !gsync_addr_is_multicast(&cfg->mcast))
		return -EINVAL;
	return 0;
}

static int check_tunables(const struct gsync_config *cfg)
{
	uint32_t timeout = cfg->op_timeout_ms ? cfg->op_timeout_ms
					      : DEFAULT_OP_TIMEOUT_MS;

	if (cfg->ttl > 255)
		return -EINVAL;
	if (cfg->mtu && (cfg->mtu < 576 || cfg->mtu > 65535))
		return -EINVAL;
	if (cfg->window > GSYNC_MAX_WINDOW)
		return -EINVAL;
	if (cfg->max_op_bytes > GSYNC_MAX_OP_BYTES)
		return -EINVAL;
	if (cfg->op_timeout_ms && (cfg->op_timeout_ms < 10 ||
				   cfg->op_timeout_ms > 3600000))
		return -EINVAL;
	if (cfg->repair_ms > timeout)
		return -EINVAL;
	return 0;
}

GSYNC_EXPORT int gsync_config_validate(const struct gsync_config *cfg)
{
	int err;

	if (!cfg)
		return -EINVAL;
	if (cfg->nranks < 2 || cfg->nranks > GSYNC_MAX_RANKS)
		return -ERANGE;
	if (cfg->rank >= cfg->nranks)
		return -EINVAL;
	if (cfg->flags & ~GSYNC_JOIN_FLAGS_ALL)
		return -EINVAL;
	err = check_tunables(cfg);
	if (err)
		return err;
	return check_members(cfg);
}

GSYNC_EXPORT size_t gsync_join_size(unsigned int nranks)
{
	return sizeof(struct gsync_join) +
	       (size_t)nranks * sizeof(struct gsync_addr);
}

GSYNC_EXPORT int gsync_join_build(const struct gsync_config *cfg, void *buf,
				  size_t len)
{
	struct gsync_join j;
	size_t need;
	int err = gsync_config_validate(cfg);

	if (err)
		return err;
	need = gsync_join_size(cfg->nranks);
	if (!buf || len < need)
		return -ENOSPC;
	/* memset first: reserved fields and padding must reach the kernel 0. */
	memset(&j, 0, sizeof(j));
	j.group_id = cfg->group_id;
	j.rank = (__u16)cfg->rank;
	j.nranks = (__u16)cfg->nranks;
	j.flags = cfg->flags;
	j.mcast = cfg->mcast;
	j.ifindex = cfg->ifindex;
	j.ttl = (__u8)cfg->ttl;
	j.mtu = cfg->mtu;
	j.window = cfg->window;
	j.max_op_bytes = cfg->max_op_bytes;
	j.op_timeout_ms = cfg->op_timeout_ms;
	j.repair_ms = cfg->repair_ms;
	j.pacing_rate = cfg->pacing_rate;
	memcpy(buf, &j, sizeof(j));
	memcpy((char *)buf + sizeof(j), cfg->members,
	       (size_t)cfg->nranks * sizeof(struct gsync_addr));
	return (int)need;
}

GSYNC_EXPORT int gsync_join(int fd, const struct gsync_config *cfg)
{
	void *blob;
	int len, rc = 0;

	if (!cfg)
		return -EINVAL;
	if (cfg->nranks < 2 || cfg->nranks > GSYNC_MAX_RANKS)
		return -ERANGE;
	blob = malloc(gsync_join_size(cfg->nranks));
	if (!blob)
		return -ENOMEM;
	len = gsync_join_build(cfg, blob, gsync_join_size(cfg->nranks));
	if (len < 0)
		rc = len;
	else if (setsockopt(fd, SOL_GSYNC, GSYNC_JOIN, blob, (socklen_t)len))
		rc = -errno;
	free(blob);
	return rc;
}
