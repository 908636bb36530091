// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Parsing of the /proc/net/gsync table and /proc/net/gsync_stats. Every
 * check here exists so that a malformed or unexpected file produces a
 * precise message instead of a misaligned table or a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "table.h"

/* /proc/net/gsync grows with sockets; refuse absurd inputs, not big ones. */
#define MAX_FILE (64u << 20)

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int read_file_len(const char *path, char **out, size_t *outlen)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap), *nb;
	ssize_t n;
	int fd, err;

	*out = NULL;
	*outlen = 0;
	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(buf);
		return err;
	}
	/* proc files report size 0: read until EOF, growing the buffer. */
	for (;;) {
		if (len + 1 >= cap) {
			if (cap >= MAX_FILE) {
				err = -EFBIG;
				goto fail;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				err = -ENOMEM;
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
fail:
	close(fd);
	free(buf);
	return err;
}

int read_file(const char *path, char **out)
{
	size_t len;
	int rc = read_file_len(path, out, &len);

	if (!rc && memchr(*out, '\0', len)) {
		free(*out);
		*out = NULL;
		return -EBADMSG;	/* binary junk: not a proc text file */
	}
	return rc;
}

int parse_dec_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int parse_hex_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t n = 0;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -1;
	for (s += 2; *s; s++, n++) {
		int c = *s, d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		if (n == 16)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	if (n == 0)
		return -1;
	*out = v;
	return 0;
}

/* Split LINE in place on blanks; up to MAX tokens into TOK. Returns count. */
static unsigned int split(char *line, char **tok, unsigned int max)
{
	unsigned int n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (!*p)
			return n;
		if (n < max)
			tok[n] = p;
		n++;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
}

/* Count blank-separated tokens without modifying. */
static unsigned int count_tokens(const char *p)
{
	unsigned int n = 0;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		n++;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
}

/* Next line of *P (NUL-terminated in place), or NULL at the end. */
static char *next_line(char **p)
{
	char *line = *p, *nl;

	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = line + strlen(line);
	}
	return line;
}

static int valid_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return 0;
	return 1;
}

int table_parse(struct table *t, char *text, const char *what, char *err,
		size_t errlen)
{
	char *p = text, *line;
	unsigned int i, j, nlines = 0, n;

	memset(t, 0, sizeof(*t));
	t->text = text;
	for (line = text; *line; line++)
		nlines += *line == '\n';
	nlines++;
	line = next_line(&p);
	if (!line || count_tokens(line) == 0)
		return fail(err, errlen, "%s: empty file (no header line)", what);
	t->ncols = count_tokens(line);
	t->cols = calloc(t->ncols, sizeof(*t->cols));
	t->cells = calloc((size_t)nlines * t->ncols, sizeof(*t->cells));
	if (!t->cols || !t->cells)
		return fail(err, errlen, "%s: out of memory", what);
	split(line, t->cols, t->ncols);
	for (i = 0; i < t->ncols; i++) {
		if (!valid_name(t->cols[i]))
			return fail(err, errlen, "%s: line 1: bad column name '%.40s'",
				    what, t->cols[i]);
		for (j = 0; j < i; j++)
			if (!strcmp(t->cols[i], t->cols[j]))
				return fail(err, errlen, "%s: line 1: column '%s' appears twice",
					    what, t->cols[i]);
	}
	while ((line = next_line(&p))) {
		unsigned int lineno = t->nrows + 2;

		n = count_tokens(line);
		if (n == 0)
			return fail(err, errlen, "%s: line %u: blank line", what, lineno);
		if (n != t->ncols)
			return fail(err, errlen,
				    "%s: line %u has %u fields, the header has %u columns",
				    what, lineno, n, t->ncols);
		split(line, t->cells + (size_t)t->nrows * t->ncols, t->ncols);
		t->nrows++;
	}
	return 0;
}

int table_col(const struct table *t, const char *name)
{
	unsigned int i;

	for (i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i], name))
			return (int)i;
	return -1;
}

void table_free(struct table *t)
{
	free(t->cols);
	free(t->cells);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

int kv_parse(struct kv *kv, char *text, const char *what, char *err,
	     size_t errlen)
{
	char *p = text, *line, *tok[2];
	unsigned int nlines = 1, lineno = 0, i;

	memset(kv, 0, sizeof(*kv));
	kv->text = text;
	for (line = text; *line; line++)
		nlines += *line == '\n';
	kv->names = calloc(nlines, sizeof(*kv->names));
	kv->values = calloc(nlines, sizeof(*kv->values));
	if (!kv->names || !kv->values)
		return fail(err, errlen, "%s: out of memory", what);
	while ((line = next_line(&p))) {
		lineno++;
		if (split(line, tok, 2) != 2)
			return fail(err, errlen, "%s: line %u: expected \"name value\"",
				    what, lineno);
		if (!valid_name(tok[0]))
			return fail(err, errlen, "%s: line %u: bad name '%.40s'",
				    what, lineno, tok[0]);
		if (parse_dec_u64(tok[1], &kv->values[kv->n]))
			return fail(err, errlen, "%s: line %u: '%.40s' is not a number",
				    what, lineno, tok[1]);
		for (i = 0; i < kv->n; i++)
			if (!strcmp(kv->names[i], tok[0]))
				return fail(err, errlen, "%s: line %u: '%s' appears twice",
					    what, lineno, tok[0]);
		kv->names[kv->n++] = tok[0];
	}
	if (kv->n == 0)
		return fail(err, errlen, "%s: empty file", what);
	return 0;
}

void kv_free(struct kv *kv)
{
	free(kv->names);
	free(kv->values);
	free(kv->text);
	memset(kv, 0, sizeof(*kv));
}
