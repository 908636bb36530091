/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gsync internal declarations shared by the module's files.
 *
 * Locking overview (each file restates the rules it relies on). The lock
 * order, outermost first:
 *
 *	lock_sock(gsync socket) -> gsync_net.lock -> gsync_group.lock
 *
 *  - lock_sock() serializes the user's calls on one socket (setsockopt,
 *    sendmsg, recvmsg); blocking waits release it while they sleep. Under
 *    it, GSYNC_JOIN (a takeover of a lingering group's endpoint),
 *    GSYNC_SCHEDULE and GSYNC_SCHEDULE_PUSH take gsync_net.lock; loading a
 *    schedule joins and leaves clique groups under it, which takes RTNL
 *    inside the IP stack (gsync_net.lock -> RTNL, mgroup.c).
 *  - gsync_net.lock (mutex) protects gsync_net.socks, the list of open
 *    sockets of one network namespace, gsync_net.lingering, and the
 *    namespace's cumulative counters (gsync_net.groups, .closed). It is
 *    taken in process context only (socket create/release, /proc readers,
 *    pushes, lingering, group destruction). Under it, /proc, pushes and
 *    the cumulative counters take gsync_group.lock.
 *  - gsync_group.lock (spinlock, BH-safe) protects all transport state of
 *    a group: the operation slots, their buffers' bookkeeping, the tx
 *    queues, pacing and counters. It is taken in softirq (receive), in the
 *    group's work items and in syscalls, always innermost, never held
 *    across sleeping, allocation with GFP_KERNEL, or sending.
 *  - gsync_net.rtt_lock (spinlock) protects gsync_net.rtt_paths. It is
 *    taken under gsync_group.lock only (rate.c) and nothing is taken
 *    under it.
 *  - Counters in gsync_net are atomics and are read without the lock.
 *  - gsync_family is written once in module init before sock_register() and
 *    is read-only afterwards.
 */
#ifndef GSYNC_H
#define GSYNC_H

#include <linux/atomic.h>
#include <linux/gsync.h>
#include <linux/in6.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <net/net_namespace.h>
#include <net/sock.h>

/*
 * Symbols the KUnit test module (kmod/tests) uses. They are exported into a
 * namespace of their own so nothing else links against them by accident.
 */
#define GSYNC_EXPORT_FOR_TESTS(sym) EXPORT_SYMBOL_NS_GPL(sym, GSYNC_KUNIT)

/*
 * The least round trip one user's groups of a namespace saw to one peer
 * host lately (rate.c): a group that starts beside others then measures
 * its queue from the same base as they do, not from the queue they keep.
 */
struct gsync_rtt_path {
	kuid_t uid;
	u16 family;			/* AF_INET or AF_INET6; 0: free */
	struct in6_addr addr;		/* AF_INET: in the first word */
	u32 min_rtt_us;
	ktime_t at;			/* when min_rtt_us was measured */
};

#define GSYNC_RTT_PATHS	64

/* Per network namespace state. */
struct gsync_net {
	struct net *net;
	struct mutex lock;		/* protects socks */
	struct list_head socks;		/* struct gsync_sock.node */
	atomic_t sockets_open;
	atomic64_t sockets_created;
	u64 next_sock_id;		/* under lock */
	/* under lock: closed groups still serving peers (linger.c) */
	struct list_head lingering;
	atomic64_t linger_takeovers;	/* lingering groups a JOIN ended */
	/* under lock: every group from JOIN to destroy, and the counters
	 * of the groups already gone (netstats.c)
	 */
	struct list_head groups;	/* struct gsync_group.net_node */
	struct gsync_stats closed;
	/* mem.c: bytes held by every group's operations, and the limits */
	atomic64_t mem;
	unsigned long sock_mem_max;	/* net.gsync.sock_mem_max */
	unsigned long mem_max;		/* net.gsync.mem_max */
	unsigned long stash_max;	/* net.gsync.stash_max */
	unsigned long max_rate;		/* net.gsync.max_rate, bytes/s */
	unsigned long require_auth;	/* net.gsync.require_auth, 0 or 1 */
	struct ctl_table_header *sysctl;
	spinlock_t rtt_lock;
	struct gsync_rtt_path rtt_paths[GSYNC_RTT_PATHS];	/* rtt_lock */
};

struct gsync_group;

/* An AF_GSYNC socket. */
struct gsync_sock {
	struct sock sk;			/* must stay first: sk_alloc() */
	struct list_head node;		/* in gsync_net.socks, under its lock */
	u64 id;				/* unique within the netns */
	/* set once by GSYNC_JOIN under lock_sock; freed at release */
	struct gsync_group *group;
	/* GSYNC_ENGINE (enum gsync_engine), under lock_sock; see reduce.c */
	u32 engine;
	/* GSYNC_KEY before JOIN, under lock_sock, erased at JOIN (keyopt.c) */
	struct gsync_key *key;
};

static inline struct gsync_sock *gsync_sk(const struct sock *sk)
{
	return container_of(sk, struct gsync_sock, sk);
}

/* main.c */
extern int gsync_family;
extern struct workqueue_struct *gsync_wq;
bool gsync_family_allowed(int family);

/* netns.c */
int gsync_netns_register(void);
void gsync_netns_unregister(void);
struct gsync_net *gsync_net(const struct net *net);
void gsync_net_add_sock(struct gsync_net *gn, struct gsync_sock *gs);
void gsync_net_del_sock(struct gsync_net *gn, struct gsync_sock *gs);

/* socket.c */
int gsync_socket_register(int family);
void gsync_socket_unregister(void);

/* proc.c */
int gsync_proc_init_net(struct net *net);
void gsync_proc_exit_net(struct net *net);

#endif /* GSYNC_H */
