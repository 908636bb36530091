/* cli_opts.h - the parsed command line of gsync-sched and the helpers the
 * subcommand files share (cli.c parses; cli_export.c exports and applies) */
#ifndef GS_CLI_OPTS_H
#define GS_CLI_OPTS_H

#include "gs.h"

#define GS_MAX_RELAY_ARGS 256

typedef struct {
	const char *cmd;
	double size, chunk;
	int have_size, have_chunk;          /* --size, --chunk given */
	const char *mc, *fanin;
	double agg_gbps, access_gbps, overhead_us;
	int json;
	const char *svg, *out, *objective, *vary, *values, *topodir;
	double target_rho;
	int max_rounds, effort, exhaustive, islands, quick;
	int block_model;                    /* gs_model_set_block_model: --block-model,
					     * --no-block-model, else with --kernel */
	uint64_t seed;
	unsigned pat_mask;
	const char *pos[4];
	int npos;
	/* kernel schedules: export and optimize --apply/--kernel */
	int kernel, no_mc, no_rates, apply;
	int no_cgroups, have_gbase;         /* --no-clique-groups, --group-base */
	uint8_t group_base[16];             /* --group-base, as the blob holds it */
	uint64_t group, start_seq;
	unsigned rank;                      /* or GSYNC_SCHED_ANY_RANK */
	const char *ranks, *netns, *family_file;
	const char *relays[GS_MAX_RELAY_ARGS];
	int nrelays;
} opts;

/* "gsync-sched CMD: <fmt with arg>" and a hint; returns GS_EXIT_USAGE */
int usage_err(const char *cmd, const char *fmt, const char *arg);
/* load a topology and apply the capability overrides of O */
int load_topo(const opts *o, const char *path, gs_topo *t);
/* ... and a schedule on it, with --chunk applied; an exit status */
int load_topo_sched(const opts *o, const char *tpath, const char *spath, gs_topo *t, gs_sched *s);

/* cli_export.c */
int cmd_export(const opts *o);
/* optimize --apply: push the optimized schedule S; REPORT gets the
 * confirmation (stderr when stdout carries JSON) */
int gs_cli_apply_sched(const opts *o, const gs_topo *t, const gs_sched *s, FILE *report);

#endif
