// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Socket listings shared by gsyncctl show and key show (listing.h).
 */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "listing.h"
#include "sockets.h"

enum { CELL_MAX = 64 };

int row_selected(const struct ctx *c, const struct table *t, unsigned int r)
{
	return !c->have_id || cell_u64(t, r, "id") == c->id;
}

void listing_rank(const struct table *t, unsigned int r, char *buf, size_t len)
{
	if (!strcmp(cell_str(t, r, "nranks"), "-") ||
	    cell_u64(t, r, "nranks") == 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s/%s", cell_str(t, r, "rank"),
			 cell_str(t, r, "nranks"));
}

static void put(const char *s, size_t width, int right, int last)
{
	if (last)
		printf("%s\n", s);
	else if (right)
		printf("%*s  ", (int)width, s);
	else
		printf("%-*s  ", (int)width, s);
}

void listing_text(const struct ctx *c, const struct table *t,
		  const struct listing *l)
{
	size_t w[LISTING_MAX_COLS];
	char buf[CELL_MAX];
	unsigned int r, k, n = l->ncols, shown = 0;

	for (k = 0; k < n; k++)
		w[k] = strlen(l->heads[k]);
	for (r = 0; r < t->nrows; r++) {
		if (!row_selected(c, t, r))
			continue;
		for (k = 0; k < n; k++) {
			l->cell(t, r, k, buf, sizeof(buf));
			if (strlen(buf) > w[k])
				w[k] = strlen(buf);
		}
	}
	/* headings left-aligned; cells as the listing says */
	for (k = 0; k < n; k++)
		put(l->heads[k], w[k], 0, k + 1 == n);
	for (r = 0; r < t->nrows; r++) {
		if (!row_selected(c, t, r))
			continue;
		shown++;
		for (k = 0; k < n; k++) {
			l->cell(t, r, k, buf, sizeof(buf));
			put(buf, w[k], !!(l->right & (1u << k)), k + 1 == n);
		}
	}
	if (!shown)
		printf("(no gsync sockets%s in this network namespace)\n",
		       c->have_id ? " with that id" : "");
}

void listing_json(const struct ctx *c, const struct table *t,
		  const char *const *cols)
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
		for (k = 0; cols ? cols[k] != NULL : k < t->ncols; k++) {
			/* COLS were checked with require_cols() */
			int col = cols ? table_col(t, cols[k]) : (int)k;

			json_key(&j, t->cols[col]);
			json_cell(&j, t, r, (unsigned int)col);
		}
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
}
