// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gsyncctl show: one line per socket of the current network namespace.
 * The text table has a fixed choice of columns; --json has every column
 * of /proc/net/gsync, including ones this version does not know.
 */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "sockets.h"

static const char *const required[] = {
	"id", "inode", "uid", "state", "group", "rank", "nranks", "next_seq",
	"inflight", "ops_submitted", "ops_completed", "ops_failed", NULL,
};

/* Text table: heading, then how to build each cell from a row. */
enum { NCOL = 10 };
static const char *const heads[NCOL] = {
	"ID", "INODE", "UID", "STATE", "GROUP", "RANK", "NEXT_SEQ", "INFLIGHT",
	"OPS", "FAILED",
};

static void cell(const struct table *t, unsigned int r, int k, char *buf,
		 size_t len)
{
	static const char *const direct[NCOL] = {
		"id", "inode", "uid", "state", "group", NULL, "next_seq",
		"inflight", "ops_completed", "ops_failed",
	};

	if (direct[k]) {
		snprintf(buf, len, "%s", cell_str(t, r, direct[k]));
		return;
	}
	/* RANK is "rank/nranks"; unconfigured sockets show "-". */
	if (!strcmp(cell_str(t, r, "nranks"), "-") ||
	    cell_u64(t, r, "nranks") == 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s/%s", cell_str(t, r, "rank"),
			 cell_str(t, r, "nranks"));
}

int row_selected(const struct ctx *c, const struct table *t, unsigned int r)
{
	return !c->have_id || cell_u64(t, r, "id") == c->id;
}

static void show_text(const struct ctx *c, const struct table *t)
{
	size_t w[NCOL];
	char buf[64];
	unsigned int r, shown = 0;
	int k;

	for (k = 0; k < NCOL; k++)
		w[k] = strlen(heads[k]);
	for (r = 0; r < t->nrows; r++) {
		if (!row_selected(c, t, r))
			continue;
		for (k = 0; k < NCOL; k++) {
			cell(t, r, k, buf, sizeof(buf));
			if (strlen(buf) > w[k])
				w[k] = strlen(buf);
		}
	}
	for (k = 0; k < NCOL; k++)
		printf("%-*s%s", (int)w[k], heads[k], k + 1 < NCOL ? "  " : "\n");
	for (r = 0; r < t->nrows; r++) {
		if (!row_selected(c, t, r))
			continue;
		shown++;
		for (k = 0; k < NCOL; k++) {
			cell(t, r, k, buf, sizeof(buf));
			/* numbers right-aligned, words left-aligned */
			if (k == 3 || k == 4 || k + 1 == NCOL)
				printf("%-*s", k + 1 == NCOL ? 0 : (int)w[k], buf);
			else
				printf("%*s", (int)w[k], buf);
			printf("%s", k + 1 < NCOL ? "  " : "\n");
		}
	}
	if (!shown)
		printf("(no gsync sockets%s in this network namespace)\n",
		       c->have_id ? " with that id" : "");
}

static void show_json(const struct ctx *c, const struct table *t)
{
	struct json j;
	unsigned int r, k;

	json_init(&j, stdout);
	json_obj_begin(&j);
	json_key(&j, "sockets");
	json_arr_begin(&j);
	for (r = 0; r < t->nrows; r++) {
		if (!row_selected(c, t, r))
			continue;
		json_obj_begin(&j);
		for (k = 0; k < t->ncols; k++) {
			json_key(&j, t->cols[k]);
			json_cell(&j, t, r, k);
		}
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
}

int cmd_show(const struct ctx *c)
{
	struct table t;
	int rc = sockets_load(&t, c->proc_dir);

	if (rc)
		return rc;
	rc = require_cols(&t, required, "show");
	if (!rc) {
		if (c->json)
			show_json(c, &t);
		else
			show_text(c, &t);
	}
	table_free(&t);
	return rc;
}
