/* bench_main.c - gsync-sched-bench (same as `gsync-sched bench`) */
#include "cli.h"
int main(int argc, char **argv) { return gs_bench_main(argc, argv); }
