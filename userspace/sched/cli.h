/* cli.h - entry points of the command-line tool */
#ifndef GS_CLI_H
#define GS_CLI_H
int gs_cli_main(int argc, char **argv);
int gs_bench_main(int argc, char **argv);
const char *gs_help_text(const char *sub);    /* NULL: no such subcommand */
/* the I-th command of the command table (cli.c), NULL past the end */
const char *gs_cli_command_name(unsigned i);
#endif
