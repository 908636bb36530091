/* SPDX-License-Identifier: GPL-2.0 */
/* Budgets of sockets and namespaces, the net.gsync sysctls (mem.c). */
#ifndef GSYNC_MEM_H
#define GSYNC_MEM_H

#include <linux/types.h>

struct gsync_group;
struct gsync_net;
struct net;

int gsync_mem_init_net(struct gsync_net *gn);
void gsync_mem_exit_net(struct gsync_net *gn);
u64 gsync_mem_budget(struct gsync_group *g);
int gsync_mem_charge(struct gsync_group *g, u64 bytes);
void gsync_mem_uncharge(struct gsync_group *g, u64 bytes);
int gsync_mem_refusal(struct gsync_group *g);
unsigned long gsync_stash_max(struct gsync_group *g);
u64 gsync_max_rate(struct gsync_group *g);
bool gsync_require_auth(struct net *net);

#endif /* GSYNC_MEM_H */
