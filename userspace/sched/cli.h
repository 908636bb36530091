/* cli.h - entry points of the command-line tool */
#ifndef GS_CLI_H
#define GS_CLI_H
int gs_cli_main(int argc, char **argv);
int gs_bench_main(int argc, char **argv);
const char *gs_help_text(const char *sub);    /* NULL: no such subcommand */
#endif
