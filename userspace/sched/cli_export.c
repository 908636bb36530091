/* cli_export.c - gsync-sched export (a schedule as the kernel's blob) and
 * --apply (push it into a running group), for export and optimize. */
#include "cli_opts.h"
#include "gs.h"
#include "netns.h"
#include "sched_export.h"
#include "sched_push.h"
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The operation size: --size, else the size the schedule was optimized
 * for (its "bytes"), else unknown (0: auto is resolved at 256 MiB, and
 * there is no block count to warn about).  optimize --apply: its --size. */
static double op_size(const opts *o, const gs_sched *s)
{
	if (o->have_size || !strcmp(o->cmd, "optimize"))
		return o->size;
	return s->bytes > 0 ? s->bytes : 0;
}

static gs_export_opts export_opts(const opts *o, const gs_sched *s)
{
	gs_export_opts x = { o->ranks, o->relays, o->nrelays, o->no_mc, o->start_seq, op_size(o, s),
			     o->no_rates, o->no_cgroups, { 0 } };
	memcpy(x.group_base, o->group_base, sizeof(x.group_base));
	return x;
}

/* build and check; prints the error and returns the exit status.  Warns
 * (one line on stderr) when an rs_multicast clique would have fewer
 * blocks than members, naming the --chunk that avoids it. */
static int export_sched(const opts *o, const char *what, const gs_topo *t, const gs_sched *s,
			gs_export_ctx *x)
{
	gs_export_opts eo = export_opts(o, s);
	gs_err e;
	char warn[512];
	int rc = gs_export(x, t, s, &eo, &e);
	if (rc == GS_EXPORT_BADOPT)
		return usage_err(o->cmd, "%s", e.msg);
	if (rc) {
		fprintf(stderr, "gsync-sched %s: %s: %s\n", o->cmd, what, e.msg);
		return GS_EXIT_INFEASIBLE;
	}
	if (gs_export_few_blocks(x, eo.size, warn, sizeof(warn)))
		fprintf(stderr, "gsync-sched %s: warning: %s\n", o->cmd, warn);
	return 0;
}

static int write_blob(const opts *o, const gs_export_ctx *x)
{
	int to_stdout = !o->out || !strcmp(o->out, "-");
	if (to_stdout && isatty(STDOUT_FILENO))
		return usage_err(o->cmd, "%s", "refusing to write a binary schedule to a terminal: give -o FILE or redirect stdout");
	FILE *f = to_stdout ? stdout : fopen(o->out, "wb");
	if (!f) {
		fprintf(stderr, "gsync-sched %s: cannot write %s\n", o->cmd, o->out);
		return GS_EXIT_FAIL;
	}
	int bad = fwrite(x->blob, 1, x->len, f) != x->len;
	bad |= to_stdout ? fflush(f) != 0 : fclose(f) != 0;
	if (bad)
		fprintf(stderr, "gsync-sched %s: write to %s failed\n", o->cmd, to_stdout ? "stdout" : o->out);
	return bad ? GS_EXIT_FAIL : 0;
}

static int apply_blob(const opts *o, const gs_export_ctx *x, FILE *report)
{
	char err[512], target[64];
	const struct gsync_sched_hdr *h = (const void *)x->blob;
	if (o->netns && netns_enter("gsync-sched", o->netns))
		return GS_EXIT_APPLY;
	if (sched_push(o->family_file, o->group, o->rank, x->blob, x->len, err, sizeof(err))) {
		fprintf(stderr, "gsync-sched %s: --apply: %s\n", o->cmd, err);
		return GS_EXIT_APPLY;
	}
	sched_target_name(o->group, o->rank, target, sizeof(target));
	fprintf(report, "applied to %s: %u rounds, %u cliques, %u ranks, block %u bytes, from %s",
		target, h->nrounds, h->ncliques, h->nranks, h->block_bytes,
		o->start_seq ? "operation " : "the next operation");
	if (o->start_seq)
		fprintf(report, "%llu", (unsigned long long)o->start_seq);
	fputc('\n', report);
	return 0;
}

int cmd_export(const opts *o)
{
	gs_topo t;
	gs_sched s;
	gs_export_ctx x;
	int rc;
	if (o->npos != 2)
		return usage_err(o->cmd, "%s", "expects SCHEDULE and TOPOLOGY arguments");
	if (o->netns && !o->apply)
		return usage_err(o->cmd, "%s", "--netns goes with --apply");
	if ((rc = load_topo_sched(o, o->pos[1], o->pos[0], &t, &s)))
		return rc;
	rc = export_sched(o, o->pos[0], &t, &s, &x);
	int blob_to_stdout = !o->apply || (o->out && !strcmp(o->out, "-"));
	if (!rc && (o->out || !o->apply))
		rc = write_blob(o, &x);
	if (!rc && o->apply)
		rc = apply_blob(o, &x, blob_to_stdout ? stderr : stdout);
	gs_export_free(&x);
	gs_sched_free(&s);
	gs_topo_free(&t);
	return rc;
}

/* optimize --apply: through JSON and back, so that it behaves exactly as
 * "optimize -o FILE" followed by "export FILE --apply" */
int gs_cli_apply_sched(const opts *o, const gs_topo *t, const gs_sched *s, FILE *report)
{
	json_t *j = gs_sched_to_json(t, s);
	char *text = json_dumps(j, JSON_REAL_PRECISION(17));
	gs_sched back;
	gs_export_ctx x;
	gs_err e;
	int rc;
	json_decref(j);
	if (!text || gs_sched_parse(text, t, &back, &e)) {
		fprintf(stderr, "gsync-sched %s: internal error: the schedule does not read back: %s\n",
			o->cmd, text ? e.msg : "out of memory");
		free(text);
		return GS_EXIT_FAIL;
	}
	free(text);
	rc = export_sched(o, "the optimized schedule", t, &back, &x);
	if (!rc)
		rc = apply_blob(o, &x, report);
	gs_export_free(&x);
	gs_sched_free(&back);
	return rc;
}
