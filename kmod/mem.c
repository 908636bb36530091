// SPDX-License-Identifier: GPL-2.0
/*
 * What a socket may make the kernel hold, and the net.gsync sysctls that
 * bound it (and the one that bounds its sending rate).
 *
 * Every buffer of an operation is allocated in the submitting task's
 * context with __GFP_ACCOUNT, so it is charged to that task's memory
 * cgroup. On top of that, gsync keeps its own budgets, per network
 * namespace (like the rmem/wmem sysctls):
 *  - net.gsync.sock_mem_max: bytes the operations of one socket may hold
 *    (its buffers, the peers' streams, bitmaps), including operations kept
 *    for peers' repairs after the user collected them and after close;
 *  - net.gsync.mem_max: bytes the operations of every socket of the
 *    namespace may hold together, lingering groups included;
 *  - net.gsync.stash_max: bytes of early packets (for operations not yet
 *    submitted here) one socket keeps; SO_RCVBUF can lower it.
 * and one for the network rather than memory:
 *  - net.gsync.max_rate: bytes/s one socket sends at most, whether its
 *    rate is set by hand or adaptive (rate.c); GSYNC_MAX_PACING_RATE,
 *    no cap, by default.
 * and one for trust:
 *  - net.gsync.require_auth: 1 refuses to JOIN a group without a key
 *    (GSYNC_KEY; ENOKEY), 0 (the default) allows it.
 * A namespace other than the initial one never gets more than the initial
 * namespace allows: its values are capped by init_net's at use, so a user
 * who owns a network namespace cannot raise its own budget, nor lift the
 * initial namespace's require_auth.
 *
 * Locking: the sysctl values are read with READ_ONCE. gsync_net.mem and
 * gsync_group.mem are atomics; a group's charge grows only in sendmsg
 * (under lock_sock) and shrinks when an operation is freed.
 */
#include <linux/mm.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>

#include "gsync.h"
#include "group.h"
#include "mem.h"

#define GSYNC_DEF_SOCK_MEM	(1UL << 30)
#define GSYNC_DEF_STASH		(32UL << 20)

static unsigned long gsync_ulong_max = ULONG_MAX;
static unsigned long gsync_ulong_min = 1UL << 16;
static unsigned long gsync_rate_lo = GSYNC_CC_MIN_RATE;
static unsigned long gsync_rate_hi = GSYNC_MAX_PACING_RATE;
static unsigned long gsync_bool_lo;
static unsigned long gsync_bool_hi = 1;

static unsigned long gsync_default_net_mem(void)
{
	/* A quarter of RAM, and at least one socket's default budget. */
	return max(GSYNC_DEF_SOCK_MEM, (totalram_pages() << PAGE_SHIFT) / 4);
}

/* The effective value of a limit: ours, capped by the initial netns. */
static unsigned long gsync_limit(const struct gsync_net *gn, size_t off)
{
	const struct gsync_net *init = gsync_net(&init_net);
	unsigned long v = READ_ONCE(*(unsigned long *)((char *)gn + off));

	return min(v, READ_ONCE(*(unsigned long *)((char *)init + off)));
}

unsigned long gsync_stash_max(struct gsync_group *g)
{
	return gsync_limit(gsync_net(g->net),
			   offsetof(struct gsync_net, stash_max));
}

/* The most bytes/s a socket of g's namespace may send at. */
u64 gsync_max_rate(struct gsync_group *g)
{
	return gsync_limit(gsync_net(g->net),
			   offsetof(struct gsync_net, max_rate));
}

/*
 * The budget a new operation of g may allocate: what is left of the
 * socket's and of the namespace's. Process context.
 */
u64 gsync_mem_budget(struct gsync_group *g)
{
	struct gsync_net *gn = gsync_net(g->net);
	unsigned long sock = gsync_limit(gn, offsetof(struct gsync_net,
						      sock_mem_max));
	unsigned long net = gsync_limit(gn, offsetof(struct gsync_net,
						     mem_max));
	s64 held = atomic64_read(&g->mem), all = atomic64_read(&gn->mem);

	return min_t(s64, max_t(s64, sock - held, 0),
		     max_t(s64, net - all, 0));
}

/*
 * Charge an operation of bytes to g and its namespace. -ENOBUFS if the
 * namespace has no room left (another socket took it meanwhile).
 */
int gsync_mem_charge(struct gsync_group *g, u64 bytes)
{
	struct gsync_net *gn = gsync_net(g->net);
	unsigned long net = gsync_limit(gn, offsetof(struct gsync_net,
						     mem_max));

	if (atomic64_add_return(bytes, &gn->mem) > net) {
		atomic64_sub(bytes, &gn->mem);
		return -ENOBUFS;
	}
	atomic64_add(bytes, &g->mem);
	return 0;
}

void gsync_mem_uncharge(struct gsync_group *g, u64 bytes)
{
	if (!bytes)
		return;
	atomic64_sub(bytes, &g->mem);
	atomic64_sub(bytes, &gsync_net(g->net)->mem);
}

/*
 * Why an operation did not fit: EMSGSIZE if it could never fit in an
 * otherwise idle socket, ENOBUFS if it may fit once memory is released.
 */
int gsync_mem_refusal(struct gsync_group *g)
{
	struct gsync_net *gn = gsync_net(g->net);

	if (!atomic64_read(&g->mem) &&
	    gsync_mem_budget(g) == gsync_limit(gn, offsetof(struct gsync_net,
							    sock_mem_max)))
		return -EMSGSIZE;
	return -ENOBUFS;
}

#define GSYNC_SYSCTL(name, field, lo, hi) {			\
	.procname = name,					\
	.data = &init_net_gsync_dummy.field,			\
	.maxlen = sizeof(unsigned long),			\
	.mode = 0644,						\
	.proc_handler = proc_doulongvec_minmax,			\
	.extra1 = &(lo),					\
	.extra2 = &(hi),					\
}

/* Only used for its field offsets in the template below. */
static struct gsync_net init_net_gsync_dummy;

static const struct ctl_table gsync_sysctl_template[] = {
	GSYNC_SYSCTL("sock_mem_max", sock_mem_max, gsync_ulong_min,
		     gsync_ulong_max),
	GSYNC_SYSCTL("mem_max", mem_max, gsync_ulong_min, gsync_ulong_max),
	GSYNC_SYSCTL("stash_max", stash_max, gsync_ulong_min,
		     gsync_ulong_max),
	GSYNC_SYSCTL("max_rate", max_rate, gsync_rate_lo, gsync_rate_hi),
	GSYNC_SYSCTL("require_auth", require_auth, gsync_bool_lo,
		     gsync_bool_hi),
};

/*
 * May a group of this namespace run without a key? Not if its
 * net.gsync.require_auth or the initial namespace's says so (a namespace
 * its user made cannot lift the host's requirement).
 */
bool gsync_require_auth(struct net *net)
{
	return READ_ONCE(gsync_net(net)->require_auth) ||
	       READ_ONCE(gsync_net(&init_net)->require_auth);
}

int gsync_mem_init_net(struct gsync_net *gn)
{
	size_t n = ARRAY_SIZE(gsync_sysctl_template), i;
	struct ctl_table *t;

	atomic64_set(&gn->mem, 0);
	gn->sock_mem_max = GSYNC_DEF_SOCK_MEM;
	gn->mem_max = gsync_default_net_mem();
	gn->stash_max = GSYNC_DEF_STASH;
	gn->max_rate = GSYNC_MAX_PACING_RATE;
	if (!IS_ENABLED(CONFIG_SYSCTL))
		return 0;

	/* One copy per namespace, pointing at its fields; zeroed sentinel. */
	t = kcalloc(n + 1, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	memcpy(t, gsync_sysctl_template, sizeof(gsync_sysctl_template));
	for (i = 0; i < n; i++)
		t[i].data = (char *)gn + ((char *)gsync_sysctl_template[i].data -
					  (char *)&init_net_gsync_dummy);
#ifdef register_net_sysctl	/* 6.6+: a macro over register_net_sysctl_sz */
	gn->sysctl = register_net_sysctl_sz(gn->net, "net/gsync", t, n);
#else
	gn->sysctl = register_net_sysctl(gn->net, "net/gsync", t);
#endif
	if (!gn->sysctl) {
		kfree(t);
		return -ENOMEM;
	}
	return 0;
}

void gsync_mem_exit_net(struct gsync_net *gn)
{
	const struct ctl_table *t;

	if (!gn->sysctl)
		return;
	t = gn->sysctl->ctl_table_arg;
	unregister_net_sysctl_table(gn->sysctl);
	kfree(t);
	WARN_ON_ONCE(atomic64_read(&gn->mem));
}
