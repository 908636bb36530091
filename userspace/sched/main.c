/* main.c - gsync-sched */
#include "cli.h"
int main(int argc, char **argv) { return gs_cli_main(argc, argv); }
