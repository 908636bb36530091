/* SPDX-License-Identifier: GPL-2.0 */
/* The group's kernel UDP sockets (udp.c). */
#ifndef GSYNC_UDP_H
#define GSYNC_UDP_H

#include "group.h"

int gsync_udp_open(struct gsync_group *g);
void gsync_udp_close(struct gsync_group *g);
int gsync_udp_msock(struct gsync_group *g, const union gsync_sockaddr *sa,
		    struct socket **out);
void gsync_udp_msock_release(struct socket *sock);
int gsync_udp_send(struct gsync_group *g, int dest,
		   const union gsync_sockaddr *to, const void *hdr,
		   unsigned int hdr_len, const void *payload,
		   unsigned int payload_len);
bool gsync_sa_equal(const union gsync_sockaddr *a,
		    const union gsync_sockaddr *b);
int gsync_addr_to_sockaddr(const struct gsync_addr *a,
			   union gsync_sockaddr *sa);

#endif /* GSYNC_UDP_H */
