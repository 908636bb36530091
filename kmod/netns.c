// SPDX-License-Identifier: GPL-2.0
/*
 * Per network namespace state: the list of open sockets, counters, and the
 * /proc/net files of each namespace.
 *
 * Locking: gsync_net.lock (a mutex, process context only) protects the socks
 * list, next_sock_id and the lingering list (linger.c). Counters are
 * atomics. The pernet init/exit callbacks
 * run with no socket of that namespace open: a socket holds a reference on
 * its namespace (sk_alloc with kern == 0), and kernel sockets are released by
 * their owners before the namespace goes away.
 */
#include <linux/slab.h>
#include <net/netns/generic.h>

#include "gsync.h"
#include "linger.h"
#include "mem.h"

static unsigned int gsync_net_id __read_mostly;

struct gsync_net *gsync_net(const struct net *net)
{
	return net_generic(net, gsync_net_id);
}
GSYNC_EXPORT_FOR_TESTS(gsync_net);

void gsync_net_add_sock(struct gsync_net *gn, struct gsync_sock *gs)
{
	mutex_lock(&gn->lock);
	gs->id = ++gn->next_sock_id;
	list_add_tail(&gs->node, &gn->socks);
	mutex_unlock(&gn->lock);
	atomic_inc(&gn->sockets_open);
	atomic64_inc(&gn->sockets_created);
}

void gsync_net_del_sock(struct gsync_net *gn, struct gsync_sock *gs)
{
	mutex_lock(&gn->lock);
	list_del_init(&gs->node);
	mutex_unlock(&gn->lock);
	atomic_dec(&gn->sockets_open);
}

static int __net_init gsync_net_init(struct net *net)
{
	struct gsync_net *gn = gsync_net(net);
	int err;

	gn->net = net;
	mutex_init(&gn->lock);
	INIT_LIST_HEAD(&gn->socks);
	INIT_LIST_HEAD(&gn->lingering);
	INIT_LIST_HEAD(&gn->groups);
	atomic_set(&gn->sockets_open, 0);
	atomic64_set(&gn->sockets_created, 0);
	gn->next_sock_id = 0;
	atomic64_set(&gn->linger_takeovers, 0);
	spin_lock_init(&gn->rtt_lock);
	memset(gn->rtt_paths, 0, sizeof(gn->rtt_paths));
	err = gsync_mem_init_net(gn);
	if (err)
		return err;
	err = gsync_proc_init_net(net);
	if (err)
		gsync_mem_exit_net(gn);
	return err;
}

/*
 * Closed groups still serving peers die with their namespace, and before
 * its devices go: their kernel UDP sockets hold routes, and so references
 * on the namespace's devices, which device teardown (an exit callback that
 * runs before ours) would otherwise wait for until the groups time out.
 */
static void __net_exit gsync_net_pre_exit(struct net *net)
{
	gsync_linger_reap(gsync_net(net));
}

static void __net_exit gsync_net_exit(struct net *net)
{
	struct gsync_net *gn = gsync_net(net);

	gsync_proc_exit_net(net);
	gsync_linger_reap(gn);	/* none left since pre_exit: no sockets */
	WARN_ON_ONCE(!list_empty(&gn->socks));
	WARN_ON_ONCE(!list_empty(&gn->groups));
	gsync_mem_exit_net(gn);
	mutex_destroy(&gn->lock);
}

static struct pernet_operations gsync_net_ops = {
	.init = gsync_net_init,
	.pre_exit = gsync_net_pre_exit,
	.exit = gsync_net_exit,
	.id = &gsync_net_id,
	.size = sizeof(struct gsync_net),
};

int gsync_netns_register(void)
{
	return register_pernet_subsys(&gsync_net_ops);
}

void gsync_netns_unregister(void)
{
	unregister_pernet_subsys(&gsync_net_ops);
}
