/* SPDX-License-Identifier: GPL-2.0 */
/* Wire header validation (wire.c). */
#ifndef GSYNC_WIRE_H
#define GSYNC_WIRE_H

#include "group.h"

int gsync_wire_check(const struct gsync_wire_hdr *h, unsigned int len,
		     u64 group_id, u16 nranks, u16 rank);

#endif /* GSYNC_WIRE_H */
