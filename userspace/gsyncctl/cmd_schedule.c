// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gsyncctl schedule load|show|clear: a schedule file (a blob from
 * gsync-sched export, or gsync-schedule/1 JSON converted with gsync-sched's
 * own code, compiled in) checked against the kernel's acceptance rules,
 * dumped, or pushed into a group with GSYNC_SCHEDULE_PUSH.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/gsync_sched.h>
#include "cmds.h"
#include "sched_export.h"
#include "sched_push.h"
#include "sockets.h"
#include "table.h"

/* a schedule file and the blob it stands for */
struct loaded {
	char *data;			/* the file */
	size_t len;
	const unsigned char *blob;
	size_t blob_len;
	int have_topo, have_sched;	/* JSON: what to free */
	gs_topo t;
	gs_sched s;
	gs_export_ctx x;
	gs_blob_hooks h;
	const gs_blob_hooks *hooks;	/* JSON: names by path and island */
};

static int json_opts(const struct ctx *c)
{
	return c->topology || c->ranks || c->nrelays || c->no_multicast;
}

static int check_usage(const struct ctx *c)
{
	if (c->json)
		return usage_error("--json does not apply to %s", "schedule");
	if (!strcmp(c->sub, "show")) {
		if (c->have_group || c->rank != GSYNC_SCHED_ANY_RANK)
			return usage_error("%s", "--group and --rank apply to schedule "
				     "load and clear");
		return EXIT_OK;
	}
	if (!c->have_group)
		return usage_error("schedule %s needs --group ID", c->sub);
	if (!strcmp(c->sub, "clear") && (c->have_start || json_opts(c)))
		return usage_error("%s", "schedule clear takes only --group and --rank");
	return EXIT_OK;
}

static int blob_file(const struct ctx *c, struct loaded *l)
{
	uint64_t seq = c->start_seq;

	if (json_opts(c))
		return usage_error("--topology, --ranks, --relay and --no-multicast are "
			     "for JSON schedules; %s is a blob", c->file);
	l->blob = (const unsigned char *)l->data;
	l->blob_len = l->len;
	if (c->have_start && l->len >= sizeof(struct gsync_sched_hdr))
		memcpy(l->data + offsetof(struct gsync_sched_hdr, start_seq),
		       &seq, sizeof(seq));
	return EXIT_OK;
}

static int json_file(const struct ctx *c, struct loaded *l)
{
	/* as gsync-sched export's defaults: rates, clique groups from the
	 * group's address */
	gs_export_opts o = { c->ranks, c->relays, c->nrelays,
			     c->no_multicast, c->start_seq, 0, 0, 0, { 0 } };
	gs_err e;
	char warn[512];
	int rc;

	if (!c->topology)
		return usage_error("%s is not a schedule blob; a JSON schedule needs "
			     "--topology FILE", c->file);
	if (gs_topo_load(c->topology, &l->t, &e)) {
		fprintf(stderr, "gsyncctl: %s\n", e.msg);
		return EXIT_ERR;
	}
	l->have_topo = 1;
	if (gs_sched_parse(l->data, &l->t, &l->s, &e)) {
		fprintf(stderr, "gsyncctl: %s: %s\n", c->file, e.msg);
		return EXIT_ERR;
	}
	l->have_sched = 1;
	o.size = l->s.bytes;	/* the size it was optimized for, if recorded */
	rc = gs_export_build(&l->x, &l->t, &l->s, &o, &e);
	if (rc == GS_EXPORT_BADOPT)
		return usage_error("%s", e.msg);
	if (rc) {
		fprintf(stderr, "gsyncctl: %s: %s\n", c->file, e.msg);
		return EXIT_ERR;
	}
	if (gs_export_few_blocks(&l->x, o.size, warn, sizeof(warn)))
		fprintf(stderr, "gsyncctl: %s: warning: %s\n", c->file, warn);
	gs_export_hooks(&l->x, &l->h);
	l->hooks = &l->h;
	l->blob = l->x.blob;
	l->blob_len = l->x.len;
	return EXIT_OK;
}

static int load_file(const struct ctx *c, struct loaded *l)
{
	int rc;

	memset(l, 0, sizeof(*l));
	rc = read_file_len(c->file, &l->data, &l->len);
	if (rc) {
		fprintf(stderr, "gsyncctl: cannot read %s: %s\n", c->file,
			strerror(-rc));
		return EXIT_ERR;
	}
	return gs_blob_is(l->data, l->len) ? blob_file(c, l) : json_file(c, l);
}

static void free_file(struct loaded *l)
{
	gs_export_free(&l->x);
	if (l->have_sched)
		gs_sched_free(&l->s);
	if (l->have_topo)
		gs_topo_free(&l->t);
	free(l->data);
}

static int push(const struct ctx *c, const void *blob, size_t len)
{
	char err[512];
	int rc = sched_push(c->family_file, c->group, c->rank, blob, len,
			    err, sizeof(err));

	if (rc == SCHED_PUSH_OK)
		return EXIT_OK;
	fprintf(stderr, "gsyncctl: schedule %s: %s\n", c->sub, err);
	return rc == SCHED_PUSH_NOMODULE ? EXIT_NOMODULE : EXIT_ERR;
}

static int schedule_load(const struct ctx *c, const struct loaded *l)
{
	struct gsync_sched_hdr h;
	char target[64];
	gs_err e;
	int rc;

	if (gs_blob_check(l->blob, l->blob_len, l->hooks, &e)) {
		fprintf(stderr, "gsyncctl: %s: %s (not loaded)\n", c->file, e.msg);
		return EXIT_ERR;
	}
	rc = push(c, l->blob, l->blob_len);
	if (rc)
		return rc;
	memcpy(&h, l->blob, sizeof(h));
	sched_target_name(c->group, c->rank, target, sizeof(target));
	printf("loaded %s into %s: %u rounds, %u cliques, %u ranks, from ",
	       c->file, target, h.nrounds, h.ncliques, h.nranks);
	if (h.start_seq)
		printf("operation %llu\n", (unsigned long long)h.start_seq);
	else
		printf("the next operation\n");
	return EXIT_OK;
}

static int schedule_show(const struct ctx *c, const struct loaded *l)
{
	if (l->hooks)
		printf("%s: gsync-schedule/1 on %s (%s), as the kernel gets it:\n",
		       c->file, c->topology, l->t.name);
	else
		printf("%s:\n", c->file);
	return gs_blob_dump(l->blob, l->blob_len, l->hooks, stdout) ?
	       EXIT_ERR : EXIT_OK;
}

static int schedule_clear(const struct ctx *c)
{
	char target[64];
	int rc = push(c, NULL, 0);

	if (rc)
		return rc;
	sched_target_name(c->group, c->rank, target, sizeof(target));
	printf("cleared %s: the default schedule from the next operation\n",
	       target);
	return EXIT_OK;
}

int cmd_schedule(const struct ctx *c)
{
	struct loaded l;
	int rc = check_usage(c);

	if (rc)
		return rc;
	if (!strcmp(c->sub, "clear"))
		return schedule_clear(c);
	rc = load_file(c, &l);
	if (!rc)
		rc = !strcmp(c->sub, "load") ? schedule_load(c, &l)
					      : schedule_show(c, &l);
	free_file(&l);
	return rc;
}
