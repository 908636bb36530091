/* test.h - what the unit test files of gsync-sched share (TAP output in
 * test_sched.c; the kernel-blob tests in test_export.c and test_blob.c) */
#ifndef GS_TEST_H
#define GS_TEST_H
#include "gs.h"

void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* a topology of the topologies directory (argv[1]) by file name */
int load(const char *name, gs_topo *t);

void test_export(const gs_topo *nine, const gs_topo *pub);   /* test_export.c */
void test_blob_rules(void);                                  /* test_blob.c */
#endif
