// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/gsync (one line per open socket) and /proc/net/gsync_stats
 * ("name value" counters, cumulative over every group the namespace has
 * had: netstats.c) for each network namespace.
 *
 * Locking: the socket list is walked under gsync_net.lock, held from
 * seq_start to seq_stop (process context, may sleep); each socket's group
 * counters are copied under its gsync_group.lock. A listed socket's group
 * stays alive: release unlists the socket before destroying the group.
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/uidgid.h>
#include <net/net_namespace.h>

#include "gsync.h"
#include "group.h"
#include "netstats.h"
#include "keys.h"

static void *gsync_seq_start(struct seq_file *seq, loff_t *pos)
{
	struct gsync_net *gn = gsync_net(seq_file_net(seq));

	mutex_lock(&gn->lock);
	return seq_list_start_head(&gn->socks, *pos);
}

static void *gsync_seq_next(struct seq_file *seq, void *v, loff_t *pos)
{
	struct gsync_net *gn = gsync_net(seq_file_net(seq));

	return seq_list_next(v, &gn->socks, pos);
}

static void gsync_seq_stop(struct seq_file *seq, void *v)
{
	struct gsync_net *gn = gsync_net(seq_file_net(seq));

	mutex_unlock(&gn->lock);
}

static const char *const gsync_drop_names[] = GSYNC_DROP_NAMES;
static_assert(ARRAY_SIZE(gsync_drop_names) == GSYNC_DROP_MAX);

#define GSYNC_STAT(f) { #f, offsetof(struct gsync_stats, f) }
static const struct {
	const char *name;
	size_t off;
} gsync_stat_fields[] = {
	GSYNC_STAT(ops_submitted), GSYNC_STAT(ops_completed),
	GSYNC_STAT(ops_failed), GSYNC_STAT(tx_bytes), GSYNC_STAT(tx_packets),
	GSYNC_STAT(rx_bytes), GSYNC_STAT(rx_packets), GSYNC_STAT(nacks_sent),
	GSYNC_STAT(nacks_received), GSYNC_STAT(retransmits),
	GSYNC_STAT(mcast_retransmits), GSYNC_STAT(timeouts),
	GSYNC_STAT(mismatches), GSYNC_STAT(sched_ops), GSYNC_STAT(reduce_jobs),
};
static_assert(ARRAY_SIZE(gsync_stat_fields) ==
	      offsetof(struct gsync_stats, drops) / sizeof(u64));

/* Counters after the drops, printed after the drop_* columns. */
static const struct {
	const char *name;
	size_t off;
} gsync_stat_late[] = {
	GSYNC_STAT(reports_sent), GSYNC_STAT(reports_received),
	GSYNC_STAT(rate_decreases), GSYNC_STAT(rate_loss_decreases),
};
static_assert(offsetof(struct gsync_stats, reports_sent) ==
	      offsetof(struct gsync_stats, drops) + GSYNC_DROP_BASE * sizeof(u64));
static_assert(offsetof(struct gsync_stats, drops_ext) ==
	      offsetof(struct gsync_stats, reports_sent) +
	      ARRAY_SIZE(gsync_stat_late) * sizeof(u64));
static_assert(sizeof(struct gsync_stats) ==
	      offsetof(struct gsync_stats, drops_ext) +
	      (GSYNC_DROP_MAX - GSYNC_DROP_BASE) * sizeof(u64));

static u64 gsync_stat_late_get(const struct gsync_stats *st, unsigned int i)
{
	return *(const u64 *)((const char *)st + gsync_stat_late[i].off);
}

/*
 * The table follows struct gsync_stats's order; /proc/net/gsync puts
 * sched_tag and sched_rounds before sched_ops.
 */
#define GSYNC_STAT_SCHED_COL \
	(offsetof(struct gsync_stats, sched_ops) / sizeof(u64))

static u64 gsync_stat_get(const struct gsync_stats *st, unsigned int i)
{
	return *(const u64 *)((const char *)st + gsync_stat_fields[i].off);
}

static void gsync_seq_header(struct seq_file *seq)
{
	unsigned int i;

	seq_puts(seq, "id inode uid state group rank nranks next_seq inflight");
	for (i = 0; i < ARRAY_SIZE(gsync_stat_fields); i++) {
		if (i == GSYNC_STAT_SCHED_COL)
			seq_puts(seq, " sched_tag sched_rounds");
		seq_printf(seq, " %s", gsync_stat_fields[i].name);
	}
	for (i = 0; i < GSYNC_DROP_MAX; i++)
		seq_printf(seq, " drop_%s", gsync_drop_names[i]);
	for (i = 0; i < ARRAY_SIZE(gsync_stat_late); i++)
		seq_printf(seq, " %s", gsync_stat_late[i].name);
	seq_puts(seq, " send_rate rtt_ms key_mode key_epoch key_next_epoch key_fingerprint\n");
}

static const char *const gsync_key_mode_names[] = {
	[GSYNC_KEY_NONE] = "none",
	[GSYNC_KEY_AUTH] = "auth",
	[GSYNC_KEY_ENCRYPT] = "encrypt",
};
static_assert(ARRAY_SIZE(gsync_key_mode_names) == GSYNC_KEY_MODE_MAX);

static int gsync_seq_show(struct seq_file *seq, void *v)
{
	struct gsync_net *gn = gsync_net(seq_file_net(seq));
	struct gsync_stats st = {};
	struct gsync_group *g;
	struct gsync_sock *gs;
	u64 group = 0, next_seq = 0, inflight = 0;
	u16 rank = 0, nranks = 0, rounds = 0;
	struct gsync_info key = {};	/* its key fields: keys.c */
	u64 tag = 0, rate = 0;
	u32 rtt = 0;
	unsigned int i;

	if (v == &gn->socks) {
		gsync_seq_header(seq);
		return 0;
	}
	gs = list_entry(v, struct gsync_sock, node);
	/* Under gn->lock the socket is listed, so its group is alive. */
	g = smp_load_acquire(&gs->group);
	if (g) {
		spin_lock_bh(&g->lock);
		st = g->stats;
		group = g->cfg.group_id;
		rank = g->cfg.rank;
		nranks = g->cfg.nranks;
		next_seq = g->next_seq;
		inflight = g->next_seq - g->deliver_seq;
		tag = g->sched->tag;
		rounds = g->sched->nrounds;
		rate = gsync_rate_now(g);
		rtt = gsync_rate_rtt_ms(g);
		gsync_keys_info(g->keys, g->next_seq, &key);
		spin_unlock_bh(&g->lock);
	}
	seq_printf(seq, "%llu %lu %u %s 0x%llx %u %u %llu %llu",
		   gs->id, sock_i_ino(&gs->sk),
		   from_kuid_munged(seq_user_ns(seq), sock_i_uid(&gs->sk)),
		   g ? "joined" : "unconfigured", group, rank, nranks,
		   next_seq, inflight);
	for (i = 0; i < ARRAY_SIZE(gsync_stat_fields); i++) {
		if (i == GSYNC_STAT_SCHED_COL)
			seq_printf(seq, " 0x%016llx %u", tag, rounds);
		seq_printf(seq, " %llu", gsync_stat_get(&st, i));
	}
	for (i = 0; i < GSYNC_DROP_MAX; i++)
		seq_printf(seq, " %llu", GSYNC_STATS_DROP(&st, i));
	for (i = 0; i < ARRAY_SIZE(gsync_stat_late); i++)
		seq_printf(seq, " %llu", gsync_stat_late_get(&st, i));
	seq_printf(seq, " %llu %u %s %u %u %016llx\n", rate, rtt,
		   gsync_key_mode_names[key.key_mode], key.key_epoch,
		   key.key_next_epoch, key.key_fingerprint);
	return 0;
}

static const struct seq_operations gsync_seq_ops = {
	.start = gsync_seq_start,
	.next = gsync_seq_next,
	.stop = gsync_seq_stop,
	.show = gsync_seq_show,
};

/*
 * The namespace's counters: sockets, memory, takeovers, then the sum over
 * every group it has had (netstats.c), named like /proc/net/gsync's
 * columns.
 */
static int gsync_stats_show(struct seq_file *seq, void *v)
{
	struct gsync_net *gn = gsync_net(seq_file_single_net(seq));
	struct gsync_stats sum;
	unsigned int groups, i;

	groups = gsync_netstats_sum(gn, &sum);
	seq_printf(seq, "sockets_open %d\n", atomic_read(&gn->sockets_open));
	seq_printf(seq, "sockets_created %lld\n",
		   (long long)atomic64_read(&gn->sockets_created));
	seq_printf(seq, "mem_bytes %lld\n",
		   (long long)atomic64_read(&gn->mem));
	seq_printf(seq, "linger_takeovers %lld\n",
		   (long long)atomic64_read(&gn->linger_takeovers));
	seq_printf(seq, "groups_live %u\n", groups);
	for (i = 0; i < ARRAY_SIZE(gsync_stat_fields); i++)
		seq_printf(seq, "%s %llu\n", gsync_stat_fields[i].name,
			   gsync_stat_get(&sum, i));
	for (i = 0; i < GSYNC_DROP_MAX; i++)
		seq_printf(seq, "drop_%s %llu\n", gsync_drop_names[i],
			   GSYNC_STATS_DROP(&sum, i));
	for (i = 0; i < ARRAY_SIZE(gsync_stat_late); i++)
		seq_printf(seq, "%s %llu\n", gsync_stat_late[i].name,
			   gsync_stat_late_get(&sum, i));
	return 0;
}

int gsync_proc_init_net(struct net *net)
{
	if (!IS_ENABLED(CONFIG_PROC_FS))
		return 0;
	if (!proc_create_net("gsync", 0444, net->proc_net, &gsync_seq_ops,
			     sizeof(struct seq_net_private)))
		return -ENOMEM;
	if (!proc_create_net_single("gsync_stats", 0444, net->proc_net,
				    gsync_stats_show, NULL)) {
		remove_proc_entry("gsync", net->proc_net);
		return -ENOMEM;
	}
	return 0;
}

void gsync_proc_exit_net(struct net *net)
{
	remove_proc_entry("gsync_stats", net->proc_net);
	remove_proc_entry("gsync", net->proc_net);
}
