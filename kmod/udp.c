// SPDX-License-Identifier: GPL-2.0
/*
 * The group's kernel UDP sockets, in the gsync socket's network namespace:
 *  - usock, bound to this rank's unicast endpoint; every packet we send
 *    leaves through it (so the source address identifies our rank) and
 *    unicast packets (NACKs, retransmits, fan-out data) arrive on it;
 *  - msock, bound to the multicast group address and port and joined to
 *    the group on the configured interface (multicast mode only). It is
 *    bound with address reuse so ranks sharing a host each get a copy;
 *  - one more such socket per clique group of the group's schedules
 *    (mgroup.c owns them; udp.c makes them and closes them with the rest).
 * All hand received datagrams to gsync_udp_encap_rcv() in softirq.
 *
 * Locking: open/close run in process context under the gsync socket's
 * lock (join) or at release. gsync_udp_send() runs in process context
 * (the tx work) without gsync locks held; the UDP socket serializes itself.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ipv6.h>
#include <linux/net.h>
#include <linux/uio.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/udp_tunnel.h>

#include "gsync.h"
#include "group.h"
#include "udp.h"
#include "receive.h"
#include "mgroup.h"

/* Same family, port and address (the IPv6 scope is not compared). */
bool gsync_sa_equal(const union gsync_sockaddr *a,
		    const union gsync_sockaddr *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET)
		return a->v4.sin_port == b->v4.sin_port &&
		       a->v4.sin_addr.s_addr == b->v4.sin_addr.s_addr;
	return a->v6.sin6_port == b->v6.sin6_port &&
	       ipv6_addr_equal(&a->v6.sin6_addr, &b->v6.sin6_addr);
}

int gsync_addr_to_sockaddr(const struct gsync_addr *a,
			   union gsync_sockaddr *sa)
{
	memset(sa, 0, sizeof(*sa));
	if (a->family == AF_INET) {
		sa->v4.sin_family = AF_INET;
		sa->v4.sin_port = a->port;
		memcpy(&sa->v4.sin_addr, a->addr, 4);
		return sizeof(sa->v4);
	}
	if (a->family == AF_INET6) {
		sa->v6.sin6_family = AF_INET6;
		sa->v6.sin6_port = a->port;
		memcpy(&sa->v6.sin6_addr, a->addr, 16);
		sa->v6.sin6_scope_id = a->scope_id;
		return sizeof(sa->v6);
	}
	return -EINVAL;
}

static int gsync_sa_len(const union gsync_sockaddr *sa)
{
	return sa->sa.sa_family == AF_INET ? sizeof(sa->v4) : sizeof(sa->v6);
}

static int gsync_setopt_int(struct socket *sock, int level, int name, int val)
{
	return sock->ops->setsockopt(sock, level, name, KERNEL_SOCKPTR(&val),
				     sizeof(val));
}

static int gsync_udp_sock(struct gsync_group *g,
			  const union gsync_sockaddr *bind_sa, bool reuse,
			  struct socket **out)
{
	struct udp_tunnel_sock_cfg cfg = {
		.sk_user_data = g,
		.encap_type = 1,
		.encap_rcv = gsync_udp_encap_rcv,
	};
	struct socket *sock;
	int err;

	err = sock_create_kern(g->net, g->family, SOCK_DGRAM, IPPROTO_UDP,
			       &sock);
	if (err)
		return err;
	if (g->family == AF_INET6)
		ip6_sock_set_v6only(sock->sk);
	if (reuse)
		sock->sk->sk_reuse = SK_CAN_REUSE;
	err = kernel_bind(sock, (struct sockaddr *)&bind_sa->sa,
			  gsync_sa_len(bind_sa));
	if (err) {
		sock_release(sock);
		return err;
	}
	setup_udp_tunnel_sock(g->net, sock, &cfg);
	*out = sock;
	return 0;
}

/* Multicast send options on usock: TTL, loopback, egress interface. */
static int gsync_udp_mcast_tx(struct gsync_group *g)
{
	struct socket *s = g->usock;
	int loop = !!(g->cfg.flags & GSYNC_JOIN_MCAST_LOOP);
	int err;

	if (g->family == AF_INET) {
		struct ip_mreqn mr = { .imr_ifindex = g->cfg.ifindex };

		err = gsync_setopt_int(s, SOL_IP, IP_MULTICAST_TTL, g->cfg.ttl);
		if (!err)
			err = gsync_setopt_int(s, SOL_IP, IP_MULTICAST_LOOP,
					       loop);
		if (!err && g->cfg.ifindex)
			err = s->ops->setsockopt(s, SOL_IP, IP_MULTICAST_IF,
						 KERNEL_SOCKPTR(&mr),
						 sizeof(mr));
		return err;
	}
	err = gsync_setopt_int(s, SOL_IPV6, IPV6_MULTICAST_HOPS, g->cfg.ttl);
	if (!err)
		err = gsync_setopt_int(s, SOL_IPV6, IPV6_MULTICAST_LOOP, loop);
	if (!err && g->cfg.ifindex)
		err = gsync_setopt_int(s, SOL_IPV6, IPV6_MULTICAST_IF,
				       g->cfg.ifindex);
	return err;
}

/* Join s to the multicast address of sa on the group's interface. */
static int gsync_udp_join(struct gsync_group *g, struct socket *s,
			  const union gsync_sockaddr *sa)
{
	if (g->family == AF_INET) {
		struct ip_mreqn mr = {
			.imr_multiaddr = sa->v4.sin_addr,
			.imr_ifindex = g->cfg.ifindex,
		};

		return s->ops->setsockopt(s, SOL_IP, IP_ADD_MEMBERSHIP,
					  KERNEL_SOCKPTR(&mr), sizeof(mr));
	} else {
		struct ipv6_mreq mr = {
			.ipv6mr_multiaddr = sa->v6.sin6_addr,
			.ipv6mr_ifindex = g->cfg.ifindex,
		};

		return s->ops->setsockopt(s, SOL_IPV6, IPV6_ADD_MEMBERSHIP,
					  KERNEL_SOCKPTR(&mr), sizeof(mr));
	}
}

/*
 * Open g's sockets. Each receives as soon as it is made, so on failure
 * those made so far stay in g->usock and g->msock: the caller ends g with
 * gsync_group_destroy(), which stops what their packets started (queued
 * work, stashed packets) before it releases them.
 */
int gsync_udp_open(struct gsync_group *g)
{
	int err;

	err = gsync_udp_sock(g, &g->peer_sa[g->cfg.rank], false, &g->usock);
	if (err)
		return err;
	/* A send never blocks the tx work for long (release waits on it). */
	g->usock->sk->sk_sndtimeo = HZ;
	if (g->unicast)
		return 0;

	err = gsync_udp_mcast_tx(g);
	if (!err)
		err = gsync_udp_sock(g, &g->mcast_sa, true, &g->msock);
	if (!err)
		err = gsync_udp_join(g, g->msock, &g->mcast_sa);
	return err;
}

/*
 * A socket of its own bound to multicast address sa (the group's port),
 * with address reuse, and joined to it: a clique group (mgroup.c). Process
 * context, the group alive.
 */
int gsync_udp_msock(struct gsync_group *g, const union gsync_sockaddr *sa,
		    struct socket **out)
{
	int err;

	err = gsync_udp_sock(g, sa, true, out);
	if (err)
		return err;
	err = gsync_udp_join(g, *out, sa);
	if (err) {
		udp_tunnel_sock_release(*out);
		*out = NULL;
	}
	return err;
}

void gsync_udp_msock_release(struct socket *sock)
{
	udp_tunnel_sock_release(sock);
}

void gsync_udp_close(struct gsync_group *g)
{
	/* Each release clears sk_user_data and waits for readers (RCU). */
	gsync_mgroup_close(g);
	if (g->msock)
		udp_tunnel_sock_release(g->msock);
	if (g->usock)
		udp_tunnel_sock_release(g->usock);
	g->msock = NULL;
	g->usock = NULL;
}

/*
 * Send one datagram, header + payload, to rank dest or (dest < 0) to the
 * multicast address to (a clique's) or, if to is NULL or has no family,
 * the group's. Process context. Returns bytes sent or -errno.
 */
int gsync_udp_send(struct gsync_group *g, int dest,
		   const union gsync_sockaddr *to, const void *hdr,
		   unsigned int hdr_len, const void *payload,
		   unsigned int payload_len)
{
	const union gsync_sockaddr *sa = dest >= 0 ? &g->peer_sa[dest] :
					 to && to->sa.sa_family ? to :
					 &g->mcast_sa;
	struct kvec iov[2] = {
		{ .iov_base = (void *)hdr, .iov_len = hdr_len },
		{ .iov_base = (void *)payload, .iov_len = payload_len },
	};
	struct msghdr msg = {
		.msg_name = (struct sockaddr *)&sa->sa,
		.msg_namelen = gsync_sa_len(sa),
	};

	return kernel_sendmsg(g->usock, &msg, iov, payload_len ? 2 : 1,
			      hdr_len + payload_len);
}
