/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * /proc/net/gsync-style tables: a header line of column names, then rows of
 * the same number of space-separated fields. Callers look columns up by
 * name, never by position, so the kernel may add columns freely.
 */
#ifndef GSYNCCTL_TABLE_H
#define GSYNCCTL_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct table {
	char *text;		/* the file, tokens point into it */
	unsigned int ncols;
	char **cols;		/* header names */
	unsigned int nrows;
	char **cells;		/* nrows * ncols, row-major */
};

/*
 * Split TEXT (NUL-terminated, taken over: freed by table_free) into a
 * table. On error returns -1 and writes a one-line reason naming WHAT
 * (the file name) and the line into ERR. Errors: empty input, a header
 * with a bad or duplicate name, a row whose field count differs from the
 * header's, a blank line in the middle.
 */
int table_parse(struct table *t, char *text, const char *what, char *err,
		size_t errlen);

/* Index of column NAME, or -1. */
int table_col(const struct table *t, const char *name);

static inline const char *table_cell(const struct table *t, unsigned int row,
				     unsigned int col)
{
	return t->cells[(size_t)row * t->ncols + col];
}

void table_free(struct table *t);

/*
 * "name value" files (/proc/net/gsync_stats): every line exactly two
 * fields, value a decimal u64. Same error conventions.
 */
struct kv {
	char *text;
	unsigned int n;
	char **names;
	uint64_t *values;
};

int kv_parse(struct kv *kv, char *text, const char *what, char *err,
	     size_t errlen);
void kv_free(struct kv *kv);

/* Strict unsigned decimal (no sign, no blanks, fits in 64 bits). 0 or -1. */
int parse_dec_u64(const char *s, uint64_t *out);
/* Strict "0x" + 1..16 hex digits. 0 or -1. */
int parse_hex_u64(const char *s, uint64_t *out);

/* Read a whole file into a NUL-terminated heap buffer; -errno on error. */
int read_file(const char *path, char **out);
/* The same, binary: NUL bytes allowed, the length (without the added NUL)
 * in *LEN. */
int read_file_len(const char *path, char **out, size_t *len);

#endif
