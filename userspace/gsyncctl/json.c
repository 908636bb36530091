// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Streaming JSON writer (see json.h). Output is compact, one document. */
#include <inttypes.h>

#include "json.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->count[0] = 0;
	j->after_key = 0;
}

/* Comma between siblings; nothing after a key. */
static void sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->count[j->depth]++)
		fputc(',', j->f);
}

static void open_(struct json *j, int c)
{
	sep(j);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->count[j->depth] = 0;
}

static void close_(struct json *j, int c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void json_obj_begin(struct json *j) { open_(j, '{'); }
void json_obj_end(struct json *j) { close_(j, '}'); }
void json_arr_begin(struct json *j) { open_(j, '['); }
void json_arr_end(struct json *j) { close_(j, ']'); }

static void raw_str(struct json *j, const char *s)
{
	fputc('"', j->f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(j->f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			/* proc files are ASCII; escape anything else safely */
			fprintf(j->f, "\\u%04x", c);
		else
			fputc(c, j->f);
	}
	fputc('"', j->f);
}

void json_key(struct json *j, const char *key)
{
	sep(j);
	raw_str(j, key);
	fputc(':', j->f);
	j->after_key = 1;
}

void json_str(struct json *j, const char *s)
{
	sep(j);
	raw_str(j, s);
}

void json_u64(struct json *j, uint64_t v)
{
	sep(j);
	fprintf(j->f, "%" PRIu64, v);
}

void json_nil(struct json *j)
{
	sep(j);
	fputs("null", j->f);
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
}
