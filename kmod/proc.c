// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/gsync (one line per open socket) and /proc/net/gsync_stats
 * ("name value" counters) for each network namespace.
 *
 * Locking: the socket list is walked under gsync_net.lock, held from
 * seq_start to seq_stop (process context, may sleep). Counters are atomics.
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/uidgid.h>
#include <net/net_namespace.h>

#include "gsync.h"

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

static int gsync_seq_show(struct seq_file *seq, void *v)
{
	struct gsync_net *gn = gsync_net(seq_file_net(seq));
	struct gsync_sock *gs;

	if (v == &gn->socks) {
		seq_puts(seq, "id inode uid state\n");
		return 0;
	}
	gs = list_entry(v, struct gsync_sock, node);
	seq_printf(seq, "%llu %lu %u %s\n", gs->id, sock_i_ino(&gs->sk),
		   from_kuid_munged(seq_user_ns(seq), sock_i_uid(&gs->sk)),
		   "unconfigured");
	return 0;
}

static const struct seq_operations gsync_seq_ops = {
	.start = gsync_seq_start,
	.next = gsync_seq_next,
	.stop = gsync_seq_stop,
	.show = gsync_seq_show,
};

static int gsync_stats_show(struct seq_file *seq, void *v)
{
	struct gsync_net *gn = gsync_net(seq_file_single_net(seq));

	seq_printf(seq, "sockets_open %d\n", atomic_read(&gn->sockets_open));
	seq_printf(seq, "sockets_created %lld\n",
		   (long long)atomic64_read(&gn->sockets_created));
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
