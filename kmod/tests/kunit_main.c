// SPDX-License-Identifier: GPL-2.0
/*
 * gsync_kunit.ko: the KUnit suites of gsync. Each *_test.c file registers
 * its own suites; this file only carries the module metadata. Loading this
 * module (after gsync.ko) runs every suite; results appear under
 * /sys/kernel/debug/kunit/<suite>/results.
 */
#include <linux/module.h>

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for gsync");
MODULE_IMPORT_NS(GSYNC_KUNIT);
