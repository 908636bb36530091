// SPDX-License-Identifier: GPL-2.0
/*
 * gsync module entry: the family= parameter, init and exit.
 *
 * Locking: gsync_family is set by the module loader before init runs and is
 * never written afterwards, so it is read without locks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/gsync.h>

#include "gsync.h"

int gsync_family = GSYNC_AF_DEFAULT;
module_param_named(family, gsync_family, int, 0444);
GSYNC_EXPORT_FOR_TESTS(gsync_family);
MODULE_PARM_DESC(family,
		 "address family number for AF_GSYNC (one of 13 14 18 19 22 25; default 25)");

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

	err = gsync_netns_register();
	if (err)
		return err;

	err = gsync_socket_register(gsync_family);
	if (err) {
		gsync_netns_unregister();
		return err;
	}

	pr_info("AF_GSYNC registered as address family %d\n", gsync_family);
	return 0;
}

static void __exit gsync_exit(void)
{
	gsync_socket_unregister();
	gsync_netns_unregister();
}

module_init(gsync_init);
module_exit(gsync_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gsync: WAN all-reduce over IP multicast (AF_GSYNC sockets)");
MODULE_AUTHOR("The gsync developers");
/* Autoload for the default family number only; see the README. */
MODULE_ALIAS_NETPROTO(GSYNC_AF_DEFAULT);
