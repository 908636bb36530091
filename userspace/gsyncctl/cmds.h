/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Subcommands of gsyncctl and the options they share. */
#ifndef GSYNCCTL_CMDS_H
#define GSYNCCTL_CMDS_H

#include <stdint.h>

struct ctx {
	const char *proc_dir;		/* hidden --proc-dir: tests */
	const char *family_file;	/* hidden --family-file: tests */
	int json;
	int have_id;
	uint64_t id;			/* --id: one socket only */
};

struct table;

/* Does row R pass the --id filter? */
int row_selected(const struct ctx *c, const struct table *t, unsigned int r);

int cmd_family(const struct ctx *c);
int cmd_show(const struct ctx *c);
int cmd_stats(const struct ctx *c);

/* help.c: NULL or "" for the overview; returns EXIT_OK or EXIT_USAGE. */
int print_help(const char *cmd);
void print_usage_hint(void);

#endif
