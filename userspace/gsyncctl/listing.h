/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Socket listings: one row per socket of /proc/net/gsync that passes
 * --id, as an aligned text table or as JSON. gsyncctl show and key show
 * differ only in their columns, which they describe with a struct listing.
 */
#ifndef GSYNCCTL_LISTING_H
#define GSYNCCTL_LISTING_H

#include <stddef.h>

struct ctx;
struct table;

#define LISTING_MAX_COLS 16

struct listing {
	unsigned int ncols;		/* at most LISTING_MAX_COLS */
	const char *const *heads;	/* ncols headings */
	unsigned int right;		/* bit K: column K is right-aligned */
	/* Cell K of row R as text into BUF (LEN bytes). */
	void (*cell)(const struct table *t, unsigned int r, unsigned int k,
		     char *buf, size_t len);
};

/*
 * The heading and the selected rows, columns two spaces apart, each as
 * wide as its widest cell; the last column is never padded. With no
 * row selected, a line that says so.
 */
void listing_text(const struct ctx *c, const struct table *t,
		  const struct listing *l);

/*
 * {"sockets": [{column: value, ...}, ...]} of the selected rows, with
 * the columns in COLS (NULL-terminated; NULL: every column of the table,
 * including ones this version does not know), each typed (json_cell).
 */
void listing_json(const struct ctx *c, const struct table *t,
		  const char *const *cols);

/* "rank/nranks", or "-" for a socket with no group yet. */
void listing_rank(const struct table *t, unsigned int r, char *buf,
		  size_t len);

#endif
