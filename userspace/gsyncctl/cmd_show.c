// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gsyncctl show: one line per socket of the current network namespace.
 * The text table has a fixed choice of columns; --json has every column
 * of /proc/net/gsync, including ones this version does not know.
 */
#include <stdio.h>

#include "cmds.h"
#include "listing.h"
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

static void cell(const struct table *t, unsigned int r, unsigned int k,
		 char *buf, size_t len)
{
	static const char *const direct[NCOL] = {
		"id", "inode", "uid", "state", "group", NULL, "next_seq",
		"inflight", "ops_completed", "ops_failed",
	};

	if (direct[k])
		snprintf(buf, len, "%s", cell_str(t, r, direct[k]));
	else
		listing_rank(t, r, buf, len);
}

/* numbers right-aligned, words (STATE, GROUP) left-aligned */
static const struct listing text = {
	.ncols = NCOL, .heads = heads, .cell = cell,
	.right = (1u << NCOL) - 1 - (1u << 3) - (1u << 4),
};
_Static_assert(NCOL <= LISTING_MAX_COLS, "show: too many columns");

int cmd_show(const struct ctx *c)
{
	struct table t;
	int rc = sockets_load(&t, c->proc_dir);

	if (rc)
		return rc;
	rc = require_cols(&t, required, "show");
	if (!rc) {
		if (c->json)
			listing_json(c, &t, NULL);
		else
			listing_text(c, &t, &text);
	}
	table_free(&t);
	return rc;
}
