/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A tiny streaming JSON writer: objects, arrays, strings, u64 and null.
 * gsyncctl's output is small and flat, so this is hand-written rather
 * than pulling in a JSON library for writing alone.
 */
#ifndef GSYNCCTL_JSON_H
#define GSYNCCTL_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 8

struct json {
	FILE *f;
	int depth;
	int count[JSON_MAX_DEPTH];	/* members written at each level */
	int after_key;			/* a key was written, value follows */
};

void json_init(struct json *j, FILE *f);
void json_obj_begin(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);
void json_u64(struct json *j, uint64_t v);
/* JSON null (not json_null: jansson, linked in for schedules, has that name) */
void json_nil(struct json *j);
/* Finish the document with a newline. */
void json_end(struct json *j);

#endif
