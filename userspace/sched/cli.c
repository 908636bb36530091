/* cli.c - gsync-sched subcommands: option parsing, capability overrides,
 * text tables and --json reports.  The numbers come from model.c,
 * optimize.c, baselines.c; this file only presents them. */
#include "cli.h"
#include "cli_opts.h"
#include "figure.h"
#include "gs.h"
#include "sched_export.h"
#include "sched_push.h"
#include <arpa/inet.h>
#include <getopt.h>
#include <linux/gsync_sched.h>
#include <jansson.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VERSION "0.1"

int usage_err(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "gsync-sched%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'gsync-sched %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
	return GS_EXIT_USAGE;
}

enum { O_SIZE = 256, O_CHUNK, O_MC, O_FANIN, O_AGG, O_ACCESS, O_OVH, O_JSON, O_SVG, O_OBJ,
       O_RHO, O_MAXR, O_SEED, O_EFFORT, O_PATS, O_EXH, O_VARY, O_VALUES, O_ISL, O_TDIR, O_QUICK,
       O_HELP, O_RANKS, O_RELAY, O_NOMC, O_START, O_APPLY, O_NETNS, O_KERNEL, O_FAMFILE,
       O_BLOCKS, O_NOBLOCKS, O_NORATES, O_NOCG, O_GBASE };

static const struct option longopts[] = {
	{ "size", 1, 0, O_SIZE },	  { "chunk", 1, 0, O_CHUNK },	   { "multicast", 1, 0, O_MC },
	{ "fan-in", 1, 0, O_FANIN },	  { "agg-gbps", 1, 0, O_AGG },	   { "access-gbps", 1, 0, O_ACCESS },
	{ "overhead-us", 1, 0, O_OVH },	  { "json", 0, 0, O_JSON },	   { "svg", 1, 0, O_SVG },
	{ "output", 1, 0, 'o' },	  { "objective", 1, 0, O_OBJ },	   { "target-rho", 1, 0, O_RHO },
	{ "max-rounds", 1, 0, O_MAXR },	  { "seed", 1, 0, O_SEED },	   { "effort", 1, 0, O_EFFORT },
	{ "patterns", 1, 0, O_PATS },	  { "exhaustive", 0, 0, O_EXH },   { "vary", 1, 0, O_VARY },
	{ "values", 1, 0, O_VALUES },	  { "islands", 1, 0, O_ISL },	   { "topologies", 1, 0, O_TDIR },
	{ "quick", 0, 0, O_QUICK },	  { "help", 0, 0, O_HELP },	   { "ranks", 1, 0, O_RANKS },
	{ "relay", 1, 0, O_RELAY },	  { "no-multicast", 0, 0, O_NOMC }, { "start-seq", 1, 0, O_START },
	{ "apply", 1, 0, O_APPLY },	  { "netns", 1, 0, O_NETNS },	   { "kernel", 0, 0, O_KERNEL },
	{ "block-model", 0, 0, O_BLOCKS }, { "no-block-model", 0, 0, O_NOBLOCKS },
	{ "no-rates", 0, 0, O_NORATES },
	{ "no-clique-groups", 0, 0, O_NOCG }, { "group-base", 1, 0, O_GBASE },
	{ "family-file", 1, 0, O_FAMFILE }, /* hidden: tests */	   { 0, 0, 0, 0 }
};

static int num(const char *s, double lo, double *out)
{
	char *e;
	double v = strtod(s, &e);
	if (e == s || *e || !isfinite(v) || v < lo)
		return -1;
	*out = v;
	return 0;
}

/*
 * An unsigned decimal integer in LO..HI: digits only (no sign, blanks,
 * fraction, exponent or hex), no overflow. 0 or -1.
 */
static int uint_arg(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *e;
	unsigned long long v;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno || *e || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/*
 * --group-base ADDR: an IPv4 or IPv6 address, as the blob holds it (IPv4
 * in the first 4 bytes), that can be clique 0's (the rules that need the
 * number of cliques are checked at export). 0, or the usage error's exit.
 */
static int group_base_arg(opts *o, const char *s)
{
	uint8_t a[16] = { 0 };
	char msg[GS_ERRLEN + 128];
	gs_err e;

	if (inet_pton(AF_INET, s, a) != 1 && inet_pton(AF_INET6, s, a) != 1)
		return usage_err(o->cmd, "bad --group-base '%s' (an IPv4 or IPv6 address)", s);
	if (gs_blob_group_base_check(a, 1, &e)) {
		snprintf(msg, sizeof(msg), "bad --group-base '%.64s': %s", s, e.msg);
		return usage_err(o->cmd, "%s", msg);
	}
	memcpy(o->group_base, a, sizeof(a));
	o->have_gbase = 1;
	return 0;
}

/* ---- the commands ------------------------------------------------------ */

static int cmd_optimize(const opts *o);
static int cmd_simulate(const opts *o);
static int cmd_compare(const opts *o);
static int cmd_sweep(const opts *o);
static int cmd_paths(const opts *o);
static int cmd_validate(const opts *o);
static int cmd_generate(const opts *o);

/* option groups a command may take as a whole */
#define G_COMMON 1u	/* --size --chunk and the capability overrides */
#define G_KERNEL 2u	/* --ranks --relay --no-multicast --no-rates --start-seq --apply --netns
			   --no-clique-groups --group-base */

/*
 * Every command: its name, what runs it (run with the parsed options, or
 * main with the raw arguments for bench, which is also a program of its
 * own), and the options it accepts besides --help. Any other option is a
 * usage error, not ignored. The help pages are in cli_help.c.
 */
struct gs_command {
	const char *name;
	int (*run)(const opts *o);
	int (*main)(int argc, char **argv);
	unsigned groups;
	int opts[16];	/* 0-terminated */
};

static const struct gs_command commands[] = {
	{ "optimize", cmd_optimize, NULL, G_COMMON | G_KERNEL,
	  { O_JSON, O_SVG, 'o', O_OBJ, O_RHO, O_MAXR, O_SEED, O_EFFORT, O_PATS, O_EXH, O_KERNEL, O_BLOCKS, O_NOBLOCKS, 0 } },
	{ "simulate", cmd_simulate, NULL, G_COMMON, { O_JSON, O_SVG, O_KERNEL, O_BLOCKS, O_NOBLOCKS, 0 } },
	{ "compare", cmd_compare, NULL, G_COMMON,
	  { O_JSON, O_SVG, O_SEED, O_RHO, O_EFFORT, O_PATS, O_BLOCKS, O_NOBLOCKS, 0 } },
	{ "sweep", cmd_sweep, NULL, G_COMMON,
	  { O_JSON, O_SVG, O_SEED, O_VARY, O_VALUES, O_EFFORT, O_KERNEL, O_BLOCKS, O_NOBLOCKS, 0 } },
	{ "paths", cmd_paths, NULL, 0, { O_JSON, 0 } },
	{ "validate", cmd_validate, NULL, 0, { 0 } },
	{ "export", cmd_export, NULL, G_COMMON | G_KERNEL, { 'o', 0 } },
	{ "generate", cmd_generate, NULL, 0, { O_ISL, O_SEED, 'o', 0 } },
	{ "bench", NULL, gs_bench_main, 0, { O_TDIR, O_SEED, O_QUICK, 0 } },
};

static const struct gs_command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* options each command accepts (others are a usage error, not ignored) */
static int allowed(const char *cmd, int opt)
{
	static const int common[] = { O_SIZE, O_CHUNK, O_MC, O_FANIN, O_AGG, O_ACCESS, O_OVH, 0 };
	static const int kernel[] = { O_RANKS, O_RELAY, O_NOMC, O_NORATES, O_START, O_APPLY, O_NETNS,
				      O_NOCG, O_GBASE, O_FAMFILE, 0 };
	const struct gs_command *c = find_command(cmd);

	if (opt == O_HELP)
		return 1;
	if (!c)
		return 0;
	for (int i = 0; common[i]; i++)
		if (common[i] == opt)
			return !!(c->groups & G_COMMON);
	for (int i = 0; kernel[i]; i++)
		if (kernel[i] == opt)
			return !!(c->groups & G_KERNEL);
	for (int i = 0; c->opts[i]; i++)
		if (c->opts[i] == opt)
			return 1;
	return 0;
}

static int parse_opts(int argc, char **argv, opts *o, int *help)
{
	memset(o, 0, sizeof(*o));
	o->cmd = argv[0];
	o->size = 256.0 * 1024 * 1024;
	o->chunk = 4.0 * 1024 * 1024;
	o->agg_gbps = o->access_gbps = o->overhead_us = -1;
	o->target_rho = 0.05;
	o->max_rounds = 32;
	o->effort = 1;
	o->seed = 1;
	o->pat_mask = (1u << GS_PAT_N) - 1;
	o->rank = GSYNC_SCHED_ANY_RANK;
	o->block_model = -1;
	*help = 0;
	optind = 1;
	opterr = 0;
	int c, li;
	double v;
	uint64_t u;
	char name[64];
	while ((li = -1, c = getopt_long(argc, argv, ":o:", longopts, &li)) != -1) {
		if (c == '?')
			return usage_err(o->cmd, "unknown option '%s'", argv[optind - 1]);
		if (c == ':')
			return usage_err(o->cmd, "option '%s' needs a value", argv[optind - 1]);
		if (!allowed(o->cmd, c)) {
			/* name the option, not its value (argv[optind - 1] may be either) */
			if (li >= 0)
				snprintf(name, sizeof(name), "--%s", longopts[li].name);
			else
				snprintf(name, sizeof(name), "-%c", c);
			return usage_err(o->cmd, "option '%s' does not apply to this command", name);
		}
		switch (c) {
		case O_HELP: *help = 1; break;
		case O_SIZE:
			if (gs_parse_size(optarg, &o->size))
				return usage_err(o->cmd, "bad --size '%s'", optarg);
			o->have_size = 1;
			break;
		case O_CHUNK:
			if (gs_parse_size(optarg, &o->chunk))
				return usage_err(o->cmd, "bad --chunk '%s'", optarg);
			o->have_chunk = 1;
			break;
		case O_MC: o->mc = optarg; break;
		case O_FANIN: o->fanin = optarg; break;
		case O_AGG:
			if (num(optarg, 1e-9, &o->agg_gbps))
				return usage_err(o->cmd, "bad --agg-gbps '%s' (a number > 0)", optarg);
			break;
		case O_ACCESS:
			if (num(optarg, 1e-9, &o->access_gbps))
				return usage_err(o->cmd, "bad --access-gbps '%s' (a number > 0)", optarg);
			break;
		case O_OVH:
			if (num(optarg, 0, &o->overhead_us))
				return usage_err(o->cmd, "bad --overhead-us '%s' (a number >= 0)", optarg);
			break;
		case O_JSON: o->json = 1; break;
		case O_SVG: o->svg = optarg; break;
		case 'o': o->out = optarg; break;
		case O_OBJ:
			if (strcmp(optarg, "exact") && strcmp(optarg, "gossip"))
				return usage_err(o->cmd, "bad --objective '%s' (exact or gossip)", optarg);
			o->objective = optarg;
			break;
		case O_RHO:
			if (num(optarg, 0, &v) || v >= 1 || v <= 0)
				return usage_err(o->cmd, "bad --target-rho '%s' (0 < R < 1)", optarg);
			o->target_rho = v;
			break;
		case O_MAXR:
			if (uint_arg(optarg, 1, 10000, &u))
				return usage_err(o->cmd, "bad --max-rounds '%s' (an integer 1..10000)", optarg);
			o->max_rounds = (int)u;
			break;
		case O_SEED:
			if (uint_arg(optarg, 0, UINT64_MAX, &o->seed))
				return usage_err(o->cmd, "bad --seed '%s' (an integer 0..18446744073709551615)",
						 optarg);
			break;
		case O_EFFORT:
			if (uint_arg(optarg, 1, 1000, &u))
				return usage_err(o->cmd, "bad --effort '%s' (an integer 1..1000)", optarg);
			o->effort = (int)u;
			break;
		case O_PATS: {
			char *dup = gs_xstrdup(optarg), *sv = NULL;
			o->pat_mask = 0;
			for (char *tok = strtok_r(dup, ",", &sv); tok; tok = strtok_r(NULL, ",", &sv)) {
				int p = gs_pat_parse(tok);
				if (p < 0 || p == GS_PAT_AUTO) {
					int rc = usage_err(o->cmd, "unknown pattern '%s'", tok);
					free(dup);
					return rc;
				}
				o->pat_mask |= 1u << p;
			}
			free(dup);
			if (!o->pat_mask)
				return usage_err(o->cmd, "empty --patterns '%s'", optarg);
			break;
		}
		case O_EXH: o->exhaustive = 1; break;
		case O_VARY:
			if (strcmp(optarg, "reach") && strcmp(optarg, "fan-in") &&
			    strcmp(optarg, "agg-gbps") && strcmp(optarg, "access-gbps"))
				return usage_err(o->cmd, "bad --vary '%s' (reach, fan-in, agg-gbps, access-gbps)", optarg);
			o->vary = optarg;
			break;
		case O_VALUES: o->values = optarg; break;
		case O_ISL:
			if (uint_arg(optarg, 1, 4096, &u))
				return usage_err(o->cmd, "bad --islands '%s' (an integer 1..4096)", optarg);
			o->islands = (int)u;
			break;
		case O_TDIR: o->topodir = optarg; break;
		case O_QUICK: o->quick = 1; break;
		case O_RANKS: o->ranks = optarg; break;
		case O_RELAY:
			if (o->nrelays == GS_MAX_RELAY_ARGS)
				return usage_err(o->cmd, "too many --relay options ('%s')", optarg);
			o->relays[o->nrelays++] = optarg;
			break;
		case O_NOMC: o->no_mc = 1; break;
		case O_NORATES: o->no_rates = 1; break;
		case O_NOCG: o->no_cgroups = 1; break;
		case O_GBASE:
			if (group_base_arg(o, optarg))
				return GS_EXIT_USAGE;
			break;
		case O_START:
			if (sched_parse_group(optarg, &o->start_seq))
				return usage_err(o->cmd, "bad --start-seq '%s' (an operation sequence number)", optarg);
			break;
		case O_APPLY:
			if (sched_parse_target(optarg, &o->group, &o->rank))
				return usage_err(o->cmd, "bad --apply '%s' (GROUP_ID[:RANK], the id decimal or 0x-hex)",
						 optarg);
			o->apply = 1;
			break;
		case O_NETNS: o->netns = optarg; break;
		case O_KERNEL: o->kernel = 1; break;
		case O_BLOCKS:
		case O_NOBLOCKS:
			if (o->block_model == (c == O_NOBLOCKS))
				return usage_err(o->cmd, "%s", "--block-model and --no-block-model: give one of them");
			o->block_model = c == O_BLOCKS;
			break;
		case O_FAMFILE: o->family_file = optarg; break;
		}
	}
	if (o->block_model < 0)
		o->block_model = o->kernel || o->apply;   /* cost what the kernel runs */
	if (o->no_cgroups && o->have_gbase)
		return usage_err(o->cmd, "%s", "--group-base sets clique 0's address, --no-clique-groups has no clique addresses: give one of them");
	for (int i = optind; i < argc; i++) {
		if (o->npos == 4)
			return usage_err(o->cmd, "too many arguments ('%s')", argv[i]);
		o->pos[o->npos++] = argv[i];
	}
	return 0;
}

/* capability overrides: applied to the loaded topology in place */
static int apply_mc(gs_topo *t, const char *s)
{
	char *e;
	if (!strcmp(s, "none"))
		t->mc_mode = GS_MC_NONE;
	else if (!strcmp(s, "full"))
		t->mc_mode = GS_MC_FULL;
	else {
		const char *r = !strncmp(s, "reach:", 6) ? s + 6 : s;
		long v = strtol(r, &e, 10);
		if (e == r || *e || v < 1 || v > 1000000)
			return -1;
		t->mc_mode = GS_MC_REACH;
		t->mc_reach = (int)v;
	}
	for (int i = 0; i < t->n_nodes; i++)
		t->nodes[i].mc_mode = GS_MC_INHERIT;
	return 0;
}

static int apply_fanin(gs_topo *t, const char *s)
{
	char *e;
	if (!strcmp(s, "none")) {
		t->n_aggs = 0;
		for (int i = 0; i < t->n_nodes; i++)
			t->agg_of_node[i] = -1;
		return 0;
	}
	long v = strtol(s, &e, 10);
	if (e == s || *e || v < 2 || v > 1000000)
		return -1;
	for (int a = 0; a < t->n_aggs; a++)
		t->aggs[a].fan_in = (int)v;
	return 0;
}

static int apply_overrides(gs_topo *t, const opts *o)
{
	if (o->mc && apply_mc(t, o->mc))
		return usage_err(o->cmd, "bad --multicast '%s' (none, full or reach:R)", o->mc);
	if (o->no_mc)
		apply_mc(t, "none");
	if (o->fanin && apply_fanin(t, o->fanin))
		return usage_err(o->cmd, "bad --fan-in '%s' (none or an integer >= 2)", o->fanin);
	for (int a = 0; a < t->n_aggs && o->agg_gbps > 0; a++)
		t->aggs[a].throughput_gbps = o->agg_gbps;
	for (int i = 0; i < t->n_islands && o->access_gbps > 0; i++)
		t->nodes[i].egress_gbps = t->nodes[i].ingress_gbps = o->access_gbps;
	if (o->overhead_us >= 0)
		t->overhead_us = o->overhead_us;
	return 0;
}

int load_topo(const opts *o, const char *path, gs_topo *t)
{
	gs_err e;
	if (gs_topo_load(path, t, &e)) {
		fprintf(stderr, "gsync-sched %s: %s\n", o->cmd, e.msg);
		return GS_EXIT_INPUT;
	}
	int rc = apply_overrides(t, o);
	if (rc)
		gs_topo_free(t);
	return rc;
}

int load_topo_sched(const opts *o, const char *tpath, const char *spath, gs_topo *t, gs_sched *s)
{
	gs_err e;
	int rc = load_topo(o, tpath, t);
	if (rc)
		return rc;
	if (gs_sched_load(spath, t, s, &e)) {
		fprintf(stderr, "gsync-sched %s: %s\n", o->cmd, e.msg);
		gs_topo_free(t);
		return GS_EXIT_INPUT;
	}
	if (o->have_chunk)
		s->chunk_bytes = o->chunk;
	return 0;
}

static gs_params params_of(const opts *o, const gs_topo *t)
{
	gs_params p = { o->size, o->chunk, t->overhead_us * 1e-6 };
	return p;
}

static const char *mc_desc(const gs_topo *t, char *buf, size_t n)
{
	if (t->mc_mode == GS_MC_REACH)
		snprintf(buf, n, "multicast reach %d", t->mc_reach);
	else
		snprintf(buf, n, "multicast %s", t->mc_mode == GS_MC_FULL ? "full" : "none");
	return buf;
}

static void print_header(const opts *o, const gs_topo *t, const gs_params *p, FILE *f)
{
	char a[32], b[32], mc[48];
	gs_fmt_size(p->M, a, sizeof(a));
	gs_fmt_size(p->chunk, b, sizeof(b));
	fprintf(f, "topology   %s (%d islands, %d nodes, %d links, kind %s, %s, %d aggregation points)\n",
		t->name, t->n_islands, t->n_nodes, t->n_links, t->kind == GS_KIND_MATRIX ? "matrix" : "links",
		mc_desc(t, mc, sizeof(mc)), t->n_aggs);
	fprintf(f, "sync size  %s, chunk %s, %.1f us per message\n", a, b, p->o * 1e6);
	if (o->block_model)
		fprintf(f, "model      block model: rs_multicast members carry the blocks they own\n");
	else if (o->kernel)
		fprintf(f, "model      --no-block-model: rs_multicast members carry size/k each, whatever the blocks\n");
}

static void print_sched(const gs_topo *t, gs_model *m, const gs_sched *s, const gs_result *res,
			FILE *f)
{
	char buf[64], b2[64], b3[64];
	fprintf(f, "%-5s %-13s %-10s %s\n", "round", "pattern", "aggregator", "members (weights if not uniform)");
	for (int r = 0; r < s->nr; r++)
		for (int c = 0; c < s->r[r].nc; c++) {
			const gs_clique *q = &s->r[r].c[c];
			int uniform = 1;
			for (int i = 0; i < q->k; i++)
				uniform &= fabs(q->w[i] - 1.0 / q->k) < 1e-12;
			fprintf(f, "%-5d %-13s %-10s", r + 1, gs_pat_name[q->pat],
				q->pat == GS_PAT_AGGREGATOR && q->agg >= 0 ? t->nodes[q->agg].id : "-");
			for (int i = 0; i < q->k; i++) {
				fprintf(f, "%s%s", i ? "," : " ", t->nodes[q->m[i]].id);
				if (!uniform)
					fprintf(f, "(%.4g)", q->w[i]);
			}
			fputc('\n', f);
		}
	if (!res)
		return;
	fprintf(f, "\n%-5s %-11s %-11s %-11s %s\n", "round", "propagation", "bandwidth", "stage/chunk", "bottleneck");
	for (int r = 0; r < res->nr; r++) {
		gs_fmt_time(res->prop[r], buf, sizeof(buf));
		gs_fmt_time(res->bw[r], b2, sizeof(b2));
		gs_fmt_time(res->stage[r], b3, sizeof(b3));
		char rn[64];
		gs_model_res_name(m, res->bottleneck[r], rn, sizeof(rn));
		fprintf(f, "%-5d %-11s %-11s %-11s %s\n", r + 1, buf, b2, b3, rn);
	}
	if (res->nr > 1) {
		char rn[64];
		gs_fmt_time(res->shared, buf, sizeof(buf));
		gs_model_res_name(m, res->shared_bottleneck, rn, sizeof(rn));
		fprintf(f, "%-5s %-11s %-11s %-11s %s (every round's load)\n", "all", "-", "-", buf, rn);
	}
}

static json_t *result_json(gs_model *m, const gs_result *res)
{
	json_t *rounds = json_array();
	for (int r = 0; r < res->nr; r++) {
		char rn[64];
		gs_model_res_name(m, res->bottleneck[r], rn, sizeof(rn));
		json_array_append_new(rounds, json_pack("{s:f,s:f,s:f,s:s}", "propagation_s", res->prop[r],
							"bandwidth_s", res->bw[r], "stage_s", res->stage[r],
							"bottleneck", rn));
	}
	char sn[64];
	gs_model_res_name(m, res->shared_bottleneck, sn, sizeof(sn));
	return json_pack("{s:f,s:f,s:i,s:o,s:f,s:s}", "time_s", res->time, "time_unpipelined_s",
			 res->time_nopipe, "chunks", res->chunks, "rounds", rounds,
			 "shared_stage_s", res->shared, "shared_bottleneck", sn);
}

/* "block_model": true only under the block model (--kernel, or
 * --block-model; otherwise the output is what it was before it) */
static json_t *params_json(const opts *o, const gs_topo *t, const gs_params *p)
{
	json_t *j = json_pack("{s:s,s:i,s:f,s:f,s:f}", "topology", t->name, "islands", t->n_islands,
			      "bytes", p->M, "chunk_bytes", p->chunk, "overhead_us", p->o * 1e6);
	if (o->block_model)
		json_object_set_new(j, "block_model", json_true());
	return j;
}

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9))

static int dump_json(json_t *j)
{
	int rc = json_dumpf(j, stdout, DUMP_FLAGS);
	fputc('\n', stdout);
	json_decref(j);
	return rc ? GS_EXIT_FAIL : GS_EXIT_OK;
}

/* Jansson's integers are signed 64-bit, so a uint64 such as a --seed above
 * 2^63 would come out negative. The caller sets it to the string U64_MARK as
 * the last string of J; dump_json_u64 prints V there instead, in unsigned
 * decimal. (Only the last mark is replaced: a topology's names come first and
 * could hold the same characters.) */
#define U64_MARK "\001u64\001"
#define U64_MARK_JSON "\"\\u0001u64\\u0001\""

static int dump_json_u64(json_t *j, uint64_t v)
{
	char *s = json_dumps(j, DUMP_FLAGS);
	json_decref(j);
	char *at = NULL;
	for (char *p = s; p && (p = strstr(p, U64_MARK_JSON)); p++)
		at = p;
	if (!at) {
		free(s);
		return GS_EXIT_FAIL;
	}
	*at = 0;
	printf("%s%llu%s\n", s, (unsigned long long)v, at + strlen(U64_MARK_JSON));
	free(s);
	return GS_EXIT_OK;
}

/* --svg: the schedule drawn on its topology, one panel per round; RES
 * (optional) gives per-round times, TIME (> 0) the predicted total */
static int write_svg(const opts *o, const gs_topo *t, const gs_sched *s, const gs_result *res, double time,
		     const char *title)
{
	char cap[256], a[32], b[32], c[32];
	FILE *f = fopen(o->svg, "w");
	if (!f) {
		fprintf(stderr, "gsync-sched %s: cannot write %s\n", o->cmd, o->svg);
		return GS_EXIT_FAIL;
	}
	gs_fmt_time(time, a, sizeof(a));
	gs_fmt_size(o->size, b, sizeof(b));
	gs_fmt_size(s->chunk_bytes, c, sizeof(c));
	snprintf(cap, sizeof(cap), "predicted %s per synchronization of %s (chunks of %s), %s average",
		 a, b, c, gs_sched_is_exact(s, t->n_islands, 1e-9) ? "exact" : "partial");
	int rc = gs_fig_schedule_svg(t, s, res, title, time > 0 ? cap : NULL, f);
	if (fclose(f) || rc) {
		fprintf(stderr, "gsync-sched %s: cannot write the figure %s\n", o->cmd, o->svg);
		return GS_EXIT_FAIL;
	}
	return 0;
}

static int write_sched(const opts *o, const gs_topo *t, const gs_sched *s, const gs_result *res)
{
	json_t *j = gs_sched_to_json(t, s);
	json_object_set_new(j, "exact", json_boolean(gs_sched_is_exact(s, t->n_islands, 1e-9)));
	if (res)
		json_object_set_new(j, "predicted_time_s", json_real(res->time));
	FILE *f = fopen(o->out, "w");
	if (!f) {
		fprintf(stderr, "gsync-sched %s: cannot write %s\n", o->cmd, o->out);
		json_decref(j);
		return GS_EXIT_FAIL;
	}
	json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
	fputc('\n', f);
	json_decref(j);
	return fclose(f) ? GS_EXIT_FAIL : 0;
}

static void cfg_of(const opts *o, gs_opt_cfg *c)
{
	gs_opt_defaults(c);
	c->seed = o->seed;
	c->effort = o->effort;
	c->pat_mask = o->pat_mask;
	c->target_rho = o->target_rho;
	c->max_rounds = o->max_rounds;
	c->kernel = o->kernel || o->apply;
}

/* ------------------------------------------------------------------ */
static int cmd_optimize(const opts *o)
{
	gs_topo t;
	int rc;
	if (o->npos != 1)
		return usage_err(o->cmd, "%s", "expects exactly one TOPOLOGY argument");
	if (!o->apply && (o->ranks || o->nrelays || o->start_seq || o->netns || o->no_cgroups ||
			  o->have_gbase))
		return usage_err(o->cmd, "%s", "--ranks, --relay, --start-seq, --netns, --no-clique-groups and --group-base go with --apply");
	if ((rc = load_topo(o, o->pos[0], &t)))
		return rc;
	gs_params p = params_of(o, &t);
	gs_model *m = gs_model_new(&t, &p);
	gs_model_set_block_model(m, o->block_model);
	gs_opt_cfg cfg;
	gs_opt_out out;
	cfg_of(o, &cfg);
	gs_model_set_kernel(m, cfg.kernel);    /* the report costs what it searched */
	int gossip = o->objective && !strcmp(o->objective, "gossip");
	if ((o->exhaustive && (gossip || t.n_islands > 12)) || (gossip && cfg.kernel)) {
		gs_model_free(m);
		gs_topo_free(&t);
		return usage_err(o->cmd, "%s", gossip && cfg.kernel
				 ? "--apply and --kernel: the kernel runs exact schedules only (no --objective gossip)"
				 : "--exhaustive: exact objective and at most 12 islands only");
	}
	double t0 = gs_now();
	int orc = gossip ? gs_optimize_gossip(m, &t, &cfg, &out)
		: o->exhaustive ? gs_exhaustive(m, &t, &cfg, &out) : gs_optimize_exact(m, &t, &cfg, &out);
	double wall = gs_now() - t0;
	if (orc) {
		fprintf(stderr, "gsync-sched optimize: no feasible schedule with these capabilities and patterns\n");
		gs_opt_out_free(&out);
		gs_model_free(m);
		gs_topo_free(&t);
		return GS_EXIT_INFEASIBLE;
	}
	/* report with the chunk the optimizer chose */
	gs_model_set_chunk(m, out.best.chunk_bytes);
	p.chunk = out.best.chunk_bytes;
	gs_result res;
	gs_err e;
	gs_sched rs;
	gs_sched_copy(&rs, &out.best);
	if (gs_simulate(m, &rs, &res, &e)) {
		fprintf(stderr, "gsync-sched optimize: internal error: %s\n", e.msg);
		rc = GS_EXIT_FAIL;
		goto done;
	}
	int exact = gs_sched_is_exact(&rs, t.n_islands, 1e-9);
	double rho = gs_rho(&rs, t.n_islands, 0, rs.nr, 1);
	char desc[256];
	gs_sched_describe(&t, &rs, desc, sizeof(desc));
	if (o->json) {
		json_t *j = json_object();
		json_object_set_new(j, "params", params_json(o, &t, &p));
		json_object_set_new(j, "objective", json_string(gossip ? "gossip" : "exact"));
		json_object_set_new(j, "result", result_json(m, &res));
		json_object_set_new(j, "exact", json_boolean(exact));
		json_object_set_new(j, "rho", json_real(rho));
		if (gossip)
			json_object_set_new(j, "gossip", json_pack("{s:f,s:f,s:i,s:f}", "target_rho", o->target_rho,
								   "time_to_target_s", out.time, "rounds", out.rounds_used,
								   "rho_reached", out.rho_reached));
		json_object_set_new(j, "summary", json_string(desc));
		json_object_set_new(j, "schedule", gs_sched_to_json(&t, &rs));
		json_object_set_new(j, "search", json_pack("{s:f,s:I,s:i,s:s,s:b}", "wall_s", wall,
							  "evaluations", (json_int_t)out.evals, "shapes",
							  out.structures, "seed", U64_MARK,
							  "exhaustive", o->exhaustive));
		rc = dump_json_u64(j, o->seed);
	} else {
		char b1[32], b2[32];
		print_header(o, &t, &p, stdout);
		printf("objective  %s\n", gossip ? "gossip: time until rho <= target" : "exact all-reduce");
		printf("optimum    %s\n", desc);
		gs_fmt_time(res.time, b1, sizeof(b1));
		printf("time       %s per synchronization (pipelined, %d chunks)%s\n", b1, res.chunks,
		       exact ? ", exact average" : "");
		if (gossip) {
			gs_fmt_time(out.time, b2, sizeof(b2));
			printf("gossip     %s to rho %.3g <= %.3g in %d rounds (each its own sync)\n", b2,
			       out.rho_reached, o->target_rho, out.rounds_used);
		} else
			printf("mixing     rho = %.3g\n", rho);
		gs_fmt_time(wall, b2, sizeof(b2));
		printf("search     %s, %ld evaluations, seed %llu%s\n\n", b2, out.evals,
		       (unsigned long long)o->seed, o->exhaustive ? ", exhaustive" : "");
		print_sched(&t, m, &rs, &res, stdout);
		rc = 0;
	}
	if (!rc && o->out)
		rc = write_sched(o, &t, &rs, &res);
	if (!rc && o->svg)
		rc = write_svg(o, &t, &rs, &res, res.time, desc);
	if (!rc && o->apply)
		rc = gs_cli_apply_sched(o, &t, &rs, o->json ? stderr : stdout);
	gs_result_free(&res);
done:
	gs_sched_free(&rs);
	gs_opt_out_free(&out);
	gs_model_free(m);
	gs_topo_free(&t);
	return rc;
}

static int cmd_simulate(const opts *o)
{
	gs_topo t;
	gs_sched s;
	gs_err e;
	int rc;
	if (o->npos != 2)
		return usage_err(o->cmd, "%s", "expects TOPOLOGY and SCHEDULE arguments");
	if ((rc = load_topo_sched(o, o->pos[0], o->pos[1], &t, &s)))
		return rc;
	gs_params p = params_of(o, &t);
	if (!o->have_size && s.bytes > 0)
		p.M = s.bytes;              /* the size the schedule was optimized for */
	if (o->kernel)
		s.chunk_bytes = gs_kernel_block(s.chunk_bytes, p.M);
	p.chunk = s.chunk_bytes;
	gs_model *m = gs_model_new(&t, &p);
	gs_model_set_block_model(m, o->block_model);
	gs_model_set_kernel(m, o->kernel);
	gs_result res;
	if ((o->kernel && gs_kernel_patterns(&s, &e)) || gs_simulate(m, &s, &res, &e)) {
		fprintf(stderr, "gsync-sched simulate: %s: %s\n", o->pos[1], e.msg);
		gs_sched_free(&s);
		gs_model_free(m);
		gs_topo_free(&t);
		return GS_EXIT_INFEASIBLE;
	}
	int exact = gs_sched_is_exact(&s, t.n_islands, 1e-9);
	double rho = gs_rho(&s, t.n_islands, 0, s.nr, 1);
	char desc[256];
	gs_sched_describe(&t, &s, desc, sizeof(desc));
	if (o->json) {
		json_t *j = json_object();
		json_object_set_new(j, "params", params_json(o, &t, &p));
		json_object_set_new(j, "predicted_time_s", json_real(res.time));
		json_object_set_new(j, "result", result_json(m, &res));
		json_object_set_new(j, "exact", json_boolean(exact));
		json_object_set_new(j, "rho", json_real(rho));
		json_object_set_new(j, "summary", json_string(desc));
		json_object_set_new(j, "schedule", gs_sched_to_json(&t, &s));
		rc = dump_json(j);
	} else {
		char b1[32];
		print_header(o, &t, &p, stdout);
		printf("schedule   %s\n", desc);
		gs_fmt_time(res.time, b1, sizeof(b1));
		printf("time       %s per synchronization (pipelined, %d chunks)\n", b1, res.chunks);
		gs_fmt_time(res.time_nopipe, b1, sizeof(b1));
		printf("unpipelined %s (rounds one after another)\n", b1);
		printf("mixing     rho = %.3g%s\n\n", rho, exact ? " (exact average)" : " (partial mixing)");
		print_sched(&t, m, &s, &res, stdout);
	}
	if (!rc && o->svg)
		rc = write_svg(o, &t, &s, &res, res.time, desc);
	gs_result_free(&res);
	gs_sched_free(&s);
	gs_model_free(m);
	gs_topo_free(&t);
	return rc;
}

static int cmd_compare(const opts *o)
{
	gs_topo t;
	int rc;
	if (o->npos != 1)
		return usage_err(o->cmd, "%s", "expects exactly one TOPOLOGY argument");
	if ((rc = load_topo(o, o->pos[0], &t)))
		return rc;
	gs_params p = params_of(o, &t);
	gs_model *m = gs_model_new(&t, &p);
	gs_model_set_block_model(m, o->block_model);
	gs_baseline b[GS_BASE_N];
	gs_opt_cfg cfg;
	gs_opt_out ex, go;
	cfg_of(o, &cfg);
	gs_baselines(m, &t, b);
	int have_ex = !gs_optimize_exact(m, &t, &cfg, &ex);
	int have_go = !gs_optimize_gossip(m, &t, &cfg, &go);
	double colo = gs_colocated_time(t.n_islands, &p);
	double ref = have_ex ? ex.time : INFINITY;
	struct { const char *name; int have; double time; char shape[160]; } row[GS_BASE_N + 3];
	int nr = 0;
	row[nr].name = "colocated datacenter (400G, 10us)";
	row[nr].have = 1;
	row[nr].time = colo;
	snprintf(row[nr++].shape, sizeof(row[0].shape), "ring in one datacenter");
	for (int i = 0; i < GS_BASE_N; i++) {
		row[nr].name = b[i].name;
		row[nr].have = b[i].have;
		row[nr].time = b[i].time;
		if (b[i].have)
			gs_sched_describe(&t, &b[i].s, row[nr].shape, sizeof(row[0].shape));
		else
			snprintf(row[nr].shape, sizeof(row[0].shape), "n/a: %s", b[i].note);
		nr++;
	}
	row[nr].name = "optimized exact schedule";
	row[nr].have = have_ex;
	row[nr].time = have_ex ? ex.time : 0;
	if (have_ex)
		gs_sched_describe(&t, &ex.best, row[nr].shape, sizeof(row[0].shape));
	else
		snprintf(row[nr].shape, sizeof(row[0].shape), "n/a: no feasible schedule");
	nr++;
	char gname[64];
	snprintf(gname, sizeof(gname), "gossip to rho <= %g", o->target_rho);
	row[nr].name = gname;
	row[nr].have = have_go;
	row[nr].time = have_go ? go.time : 0;
	if (have_go) {
		char d[140];
		gs_sched_describe(&t, &go.best, d, sizeof(d));
		snprintf(row[nr].shape, sizeof(row[0].shape), "%d round(s) of [%s]", go.rounds_used, d);
	} else
		snprintf(row[nr].shape, sizeof(row[0].shape), "n/a: target not reached in %d rounds", o->max_rounds);
	nr++;
	if (o->json) {
		json_t *j = json_object(), *rows = json_array();
		json_object_set_new(j, "params", params_json(o, &t, &p));
		for (int i = 0; i < nr; i++) {
			json_t *r = json_pack("{s:s,s:b,s:s}", "name", row[i].name, "feasible", row[i].have,
					      "shape", row[i].shape);
			if (row[i].have) {
				json_object_set_new(r, "time_s", json_real(row[i].time));
				json_object_set_new(r, "vs_colocated", json_real(row[i].time / colo));
				if (isfinite(ref))
					json_object_set_new(r, "vs_optimum", json_real(row[i].time / ref));
			}
			json_array_append_new(rows, r);
		}
		json_object_set_new(j, "rows", rows);
		if (have_ex)
			json_object_set_new(j, "optimum", gs_sched_to_json(&t, &ex.best));
		rc = dump_json(j);
	} else {
		print_header(o, &t, &p, stdout);
		printf("\n%-36s %12s %9s %11s  %s\n", "schedule", "time", "/optimum", "/colocated", "shape");
		for (int i = 0; i < nr; i++) {
			char tb[32];
			if (row[i].have) {
				gs_fmt_time(row[i].time, tb, sizeof(tb));
				printf("%-36s %12s %8.2fx %10.1fx  %s\n", row[i].name, tb,
				       row[i].time / ref, row[i].time / colo, row[i].shape);
			} else
				printf("%-36s %12s %9s %11s  %s\n", row[i].name, "-", "-", "-", row[i].shape);
		}
	}
	if (!rc && o->svg && have_ex)
		rc = write_svg(o, &t, &ex.best, NULL, ex.time, "optimized exact schedule");
	if (!have_ex && !rc)
		rc = GS_EXIT_INFEASIBLE;
	gs_baselines_free(b);
	if (have_ex)
		gs_opt_out_free(&ex);
	gs_opt_out_free(&go);
	gs_model_free(m);
	gs_topo_free(&t);
	return rc;
}

static int cmd_sweep(const opts *o)
{
	gs_topo base;
	int rc;
	if (o->npos != 1)
		return usage_err(o->cmd, "%s", "expects exactly one TOPOLOGY argument");
	if (!o->vary)
		return usage_err(o->cmd, "%s", "needs --vary reach|fan-in|agg-gbps|access-gbps");
	const char *vals = o->values ? o->values
		: !strcmp(o->vary, "reach") ? "none,1,2,4,8,full"
		: !strcmp(o->vary, "fan-in") ? "none,2,3,4,8"
		: !strcmp(o->vary, "agg-gbps") ? "10,20,40,100,400" : "1,10,40,100";
	if ((rc = load_topo(o, o->pos[0], &base)))
		return rc;
	char *dup = gs_xstrdup(vals), *sv = NULL;
	json_t *rows = json_array();
	gs_fig_point pts[64];
	int np = 0;
	if (!o->json) {
		print_header(o, &base, &(gs_params){ o->size, o->chunk, base.overhead_us * 1e-6 }, stdout);
		printf("sweep      %s%s\n\n%-11s %12s %12s %12s %8s  %s\n", o->vary,
		       o->kernel ? " (optimum: schedules the kernel executes)" : "", o->vary,
		       "optimum", "ring", "one-clique", "gain", "optimal schedule");
	}
	for (char *tok = strtok_r(dup, ",", &sv); tok && !rc; tok = strtok_r(NULL, ",", &sv)) {
		gs_topo t;
		double v = 0;
		gs_topo_clone(&base, &t);
		if (!strcmp(o->vary, "reach"))
			rc = apply_mc(&t, tok);
		else if (!strcmp(o->vary, "fan-in"))
			rc = apply_fanin(&t, tok);
		else if (num(tok, 1e-9, &v))
			rc = -1;
		else if (!strcmp(o->vary, "agg-gbps"))
			for (int a = 0; a < t.n_aggs; a++)
				t.aggs[a].throughput_gbps = v;
		else
			for (int i = 0; i < t.n_islands; i++)
				t.nodes[i].egress_gbps = t.nodes[i].ingress_gbps = v;
		if (rc) {
			rc = usage_err(o->cmd, "bad --values entry '%s'", tok);
			gs_topo_free(&t);
			break;
		}
		gs_params p = params_of(o, &t);
		gs_model *m = gs_model_new(&t, &p);
		gs_model_set_block_model(m, o->block_model);
		gs_baseline b[GS_BASE_N];
		gs_opt_cfg cfg;
		gs_opt_out ex;
		cfg_of(o, &cfg);
		gs_model_set_kernel(m, cfg.kernel);    /* baselines costed the same way */
		gs_baselines(m, &t, b);
		int have = !gs_optimize_exact(m, &t, &cfg, &ex);
		double one = INFINITY;
		for (int i = GS_BASE_UNICAST; i < GS_BASE_N; i++)
			if (b[i].have && b[i].time < one)
				one = b[i].time;
		double ring = b[GS_BASE_RING].have ? b[GS_BASE_RING].time : INFINITY;
		char desc[200] = "none feasible";
		if (have)
			gs_sched_describe(&t, &ex.best, desc, sizeof(desc));
		double opt = have ? ex.time : INFINITY;
		if (o->json)
			json_array_append_new(rows, json_pack("{s:s,s:o,s:o,s:o,s:s}", "value", tok,
				"optimum_s", have ? json_real(opt) : json_null(),
				"ring_s", isfinite(ring) ? json_real(ring) : json_null(),
				"one_clique_s", isfinite(one) ? json_real(one) : json_null(), "optimal_schedule", desc));
		else {
			char a[32] = "-", bb[32] = "-", c[32] = "-";
			if (have)
				gs_fmt_time(opt, a, sizeof(a));
			if (isfinite(ring))
				gs_fmt_time(ring, bb, sizeof(bb));
			if (isfinite(one))
				gs_fmt_time(one, c, sizeof(c));
			printf("%-11s %12s %12s %12s %7.2fx  %s\n", tok, a, bb, c, ring / opt, desc);
		}
		if (np < 64) {
			pts[np].y[0] = opt;
			pts[np].y[1] = ring;
			pts[np].y[2] = one;
			snprintf(pts[np].label, sizeof(pts[np].label), "%s", tok);
			np++;
		}
		gs_baselines_free(b);
		if (have)
			gs_opt_out_free(&ex);
		gs_model_free(m);
		gs_topo_free(&t);
	}
	if (!rc && o->json) {
		json_t *j = json_pack("{s:o,s:s,s:o}", "params",
				      params_json(o, &base, &(gs_params){ o->size, o->chunk, base.overhead_us * 1e-6 }),
				      "vary", o->vary, "rows", rows);
		rows = NULL;
		rc = dump_json(j);
	}
	json_decref(rows);
	if (!rc && o->svg) {
		FILE *f = fopen(o->svg, "w");
		const char *series[] = { "optimum (re-optimized)", "ring all-reduce", "best one-clique" };
		char title[160], sub[200], sz[32];
		const char *xl = !strcmp(o->vary, "reach") ? "multicast reach (receivers one send reaches)"
			: !strcmp(o->vary, "fan-in") ? "aggregation fan-in (streams summed at once)"
			: !strcmp(o->vary, "agg-gbps") ? "aggregation throughput (Gb/s)"
			: "access link rate of every island (Gb/s)";
		gs_fmt_size(o->size, sz, sizeof(sz));
		snprintf(title, sizeof(title), "%s: time per synchronization vs %s", base.name, o->vary);
		snprintf(sub, sizeof(sub), "%s per synchronization, cost model prediction%s", sz,
			 o->kernel ? "; optimum among schedules the kernel executes" : "");
		gs_fig_chart ch = { title, sub, xl, "time per synchronization", series, 3, np, pts };
		if (!f) {
			fprintf(stderr, "gsync-sched sweep: cannot write %s\n", o->svg);
			rc = GS_EXIT_FAIL;
		} else if (gs_fig_chart_svg(&ch, f) | fclose(f)) {
			fprintf(stderr, "gsync-sched sweep: cannot write the figure %s\n", o->svg);
			rc = GS_EXIT_FAIL;
		}
	}
	free(dup);
	gs_topo_free(&base);
	return rc;
}

static int cmd_paths(const opts *o)
{
	gs_topo t;
	int rc;
	if (o->npos != 1)
		return usage_err(o->cmd, "%s", "expects exactly one TOPOLOGY argument");
	if ((rc = load_topo(o, o->pos[0], &t)))
		return rc;
	if (o->json) {
		json_t *ids = json_array(), *mat = json_array();
		for (int i = 0; i < t.n_islands; i++) {
			json_t *row = json_array();
			json_array_append_new(ids, json_string(t.nodes[i].id));
			for (int j = 0; j < t.n_islands; j++)
				json_array_append_new(row, json_real(round(gs_lat(&t, i, j) * 1e6) / 1e3));
			json_array_append_new(mat, row);
		}
		rc = dump_json(json_pack("{s:o,s:o}", "islands", ids, "latency_ms", mat));
	} else
		gs_paths_print(&t, stdout);
	gs_topo_free(&t);
	return rc;
}

static int cmd_validate(const opts *o)
{
	gs_topo t;
	gs_sched s;
	gs_err e;
	char mc[48];
	if (o->npos < 1 || o->npos > 2)
		return usage_err(o->cmd, "%s", "expects TOPOLOGY [SCHEDULE]");
	if (gs_topo_load(o->pos[0], &t, &e)) {
		fprintf(stderr, "gsync-sched validate: %s\n", e.msg);
		return GS_EXIT_INPUT;
	}
	printf("%s: ok: %s, %d islands, %d nodes, %d links, %s, %d aggregation points\n", o->pos[0],
	       t.name, t.n_islands, t.n_nodes, t.n_links, mc_desc(&t, mc, sizeof(mc)), t.n_aggs);
	if (o->npos == 2) {
		if (gs_sched_load(o->pos[1], &t, &s, &e)) {
			fprintf(stderr, "gsync-sched validate: %s\n", e.msg);
			gs_topo_free(&t);
			return GS_EXIT_INPUT;
		}
		printf("%s: ok: %d rounds, %s average\n", o->pos[1], s.nr,
		       gs_sched_is_exact(&s, t.n_islands, 1e-9) ? "exact" : "partial");
		gs_sched_free(&s);
	}
	gs_topo_free(&t);
	return 0;
}

static int cmd_generate(const opts *o)
{
	gs_topo t;
	gs_err e;
	if (o->npos)
		return usage_err(o->cmd, "unexpected argument '%s'", o->pos[0]);
	if (!o->islands)
		return usage_err(o->cmd, "%s", "needs --islands N");
	if (gs_gen_synthetic(&t, o->islands, o->seed, &e)) {
		fprintf(stderr, "gsync-sched generate: %s\n", e.msg);
		return GS_EXIT_FAIL;
	}
	FILE *f = o->out ? fopen(o->out, "w") : stdout;
	if (!f) {
		fprintf(stderr, "gsync-sched generate: cannot write %s\n", o->out);
		gs_topo_free(&t);
		return GS_EXIT_FAIL;
	}
	int rc = gs_topo_write(&t, f) ? GS_EXIT_FAIL : 0;
	if (o->out && fclose(f))
		rc = GS_EXIT_FAIL;
	gs_topo_free(&t);
	return rc;
}

int gs_cli_main(int argc, char **argv)
{
	opts o;
	int help;
	if (argc < 2)
		return usage_err(NULL, "%s", "missing command");
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(gs_help_text(NULL), stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("gsync-sched " VERSION "\n");
		return 0;
	}
	if (!strcmp(cmd, "help")) {
		const char *h = gs_help_text(argc > 2 ? argv[2] : NULL);
		if (!h)
			return usage_err(NULL, "no such command '%s'", argv[2]);
		fputs(h, stdout);
		return 0;
	}
	const struct gs_command *c = find_command(cmd);
	if (!c)
		return usage_err(NULL, "unknown command '%s'", cmd);
	if (c->main)
		return c->main(argc - 1, argv + 1);
	int rc = parse_opts(argc - 1, argv + 1, &o, &help);
	if (rc)
		return rc;
	if (help) {
		fputs(gs_help_text(cmd), stdout);
		return 0;
	}
	return c->run(&o);
}

/* The command names in table order (tests: every one has a help page). */
const char *gs_cli_command_name(unsigned i)
{
	return i < sizeof(commands) / sizeof(commands[0]) ? commands[i].name : NULL;
}

/* bench shares option parsing; it lives in bench.c */
int gs_cli_parse_bench(int argc, char **argv, const char **dir, uint64_t *seed, int *quick, int *help);
int gs_cli_parse_bench(int argc, char **argv, const char **dir, uint64_t *seed, int *quick, int *help)
{
	opts o;
	int rc = parse_opts(argc, argv, &o, help);
	if (rc)
		return rc;
	if (o.npos)
		return usage_err("bench", "unexpected argument '%s'", o.pos[0]);
	*dir = o.topodir ? o.topodir : "topologies";
	*seed = o.seed;
	*quick = o.quick;
	return 0;
}
