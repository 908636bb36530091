// SPDX-License-Identifier: GPL-2.0
/*
 * gsync module entry: the family= parameter, init and exit.
 *
 * Locking: gsync_family is set by the module loader before init runs and is
 * never written afterwards, so it is read without locks. gsync_wq exists
 * from before the family is registered until after every namespace's state
 * is gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/workqueue.h>
#include <linux/gsync.h>

#include "gsync.h"
#include "offload.h"

int gsync_family = GSYNC_AF_DEFAULT;
module_param_named(family, gsync_family, int, 0444);
GSYNC_EXPORT_FOR_TESTS(gsync_family);
MODULE_PARM_DESC(family,
		 "address family number for AF_GSYNC (one of 13 14 18 19 22 25; default 25)");

/* Every work item of gsync runs here, so unload can wait for all of them. */
struct workqueue_struct *gsync_wq;

static const int gsync_allowed_families[] = GSYNC_AF_ALLOWED;

/*
 * Only numbers that no in-tree family registers are allowed: taking a number
 * that belongs to an unloaded in-tree module would break that module's
 * autoloading and hand its users our sockets.
 */
bool gsync_family_allowed(int family)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(gsync_allowed_families); i++)
		if (gsync_allowed_families[i] == family)
			return true;
	return false;
}
GSYNC_EXPORT_FOR_TESTS(gsync_family_allowed);

static int __init gsync_init(void)
{
	int err;

	if (!gsync_family_allowed(gsync_family)) {
		pr_err("family=%d is not allowed; use one of 13 14 18 19 22 25\n",
		       gsync_family);
		return -EINVAL;
	}

	gsync_wq = alloc_workqueue("gsync", WQ_UNBOUND, 0);
	if (!gsync_wq)
		return -ENOMEM;

	err = gsync_netns_register();
	if (err)
		goto err_wq;

	err = gsync_offload_init();	/* /dev/gsync-offload */
	if (err) {
		gsync_netns_unregister();
		goto err_wq;
	}

	err = gsync_socket_register(gsync_family);
	if (err) {
		gsync_offload_exit();
		gsync_netns_unregister();
		goto err_wq;
	}

	pr_info("AF_GSYNC registered as address family %d\n", gsync_family);
	return 0;

err_wq:
	destroy_workqueue(gsync_wq);
	return err;
}

static void __exit gsync_exit(void)
{
	gsync_socket_unregister();
	gsync_netns_unregister();	/* destroys lingering groups */
	destroy_workqueue(gsync_wq);	/* waits for the last work items */
	gsync_offload_exit();		/* no group or agent is left */
}

module_init(gsync_init);
module_exit(gsync_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gsync: WAN all-reduce over IP multicast (AF_GSYNC sockets)");
MODULE_AUTHOR("The gsync developers");
/*
 * No MODULE_ALIAS_NETPROTO: socket(25, ...) must not let any local user
 * load a network protocol module. The administrator loads gsync (see
 * docs/transport.md, "Who may use gsync").
 */
