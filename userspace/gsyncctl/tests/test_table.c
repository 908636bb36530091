// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of gsyncctl's parsers and JSON writer: tables by column name,
 * "name value" files, strict numbers, and hostile inputs (every input is a
 * fresh heap copy so ASan sees any overrun).
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "table.h"
#include "tap.h"

static int tparse(struct table *t, const char *s, char *err, size_t len)
{
	return table_parse(t, strdup(s), "f", err, len);
}

static int kparse(struct kv *kv, const char *s, char *err, size_t len)
{
	return kv_parse(kv, strdup(s), "f", err, len);
}

static void table_tests(void)
{
	struct table t;
	char err[256];
	int rc;

	rc = tparse(&t, "a b c\n1 2 3\n4  5\t6\n", err, sizeof(err));
	ok(rc == 0 && t.ncols == 3 && t.nrows == 2 && !strcmp(table_cell(&t, 1, 1), "5") &&
	   !strcmp(table_cell(&t, 1, 2), "6"), "a 3x2 table; runs of blanks and tabs separate");
	ok(table_col(&t, "c") == 2 && table_col(&t, "d") == -1, "columns are found by name");
	table_free(&t);
	rc = tparse(&t, "a b c\n1 2 3", err, sizeof(err));
	ok(rc == 0 && t.nrows == 1, "no newline at the end is fine");
	table_free(&t);
	rc = tparse(&t, "a b\n", err, sizeof(err));
	ok(rc == 0 && t.nrows == 0, "a header alone is an empty table");
	table_free(&t);
	rc = tparse(&t, "", err, sizeof(err));
	ok(rc == -1 && strstr(err, "empty"), "empty input: '%s'", err);
	table_free(&t);
	rc = tparse(&t, "   \n1 2\n", err, sizeof(err));
	ok(rc == -1 && strstr(err, "empty"), "a blank header is an error");
	table_free(&t);
	rc = tparse(&t, "a b\n1 2 3\n", err, sizeof(err));
	ok(rc == -1 && strstr(err, "line 2 has 3 fields"), "a row with an extra field: '%s'", err);
	table_free(&t);
	rc = tparse(&t, "a b\n1 2\n1\n", err, sizeof(err));
	ok(rc == -1 && strstr(err, "line 3 has 1 fields"), "a row with a missing field: '%s'", err);
	table_free(&t);
	rc = tparse(&t, "a b a\n1 2 3\n", err, sizeof(err));
	ok(rc == -1 && strstr(err, "twice"), "a duplicate column: '%s'", err);
	table_free(&t);
	rc = tparse(&t, "a B\n1 2\n", err, sizeof(err));
	ok(rc == -1 && strstr(err, "bad column name"), "an upper-case column name: '%s'", err);
	table_free(&t);
	rc = tparse(&t, "a b\n1 2\n\n3 4\n", err, sizeof(err));
	ok(rc == -1 && strstr(err, "blank line"), "a blank line inside: '%s'", err);
	table_free(&t);
	{
		/* a wide header (300 columns) and many rows */
		char *s = malloc(300 * 8 * 1001 + 1), *p = s;
		int i, r;

		for (i = 0; i < 300; i++)
			p += sprintf(p, "c%d%s", i, i < 299 ? " " : "\n");
		for (r = 0; r < 1000; r++)
			for (i = 0; i < 300; i++)
				p += sprintf(p, "%d%s", r, i < 299 ? " " : "\n");
		rc = table_parse(&t, s, "f", err, sizeof(err));
		ok(rc == 0 && t.ncols == 300 && t.nrows == 1000 &&
		   !strcmp(table_cell(&t, 999, 299), "999"), "300 columns x 1000 rows");
		table_free(&t);
	}
	{
		unsigned int seed = 3, i, k, okc = 0;
		char buf[200];

		for (i = 0; i < 5000; i++) {
			unsigned int len = (unsigned int)rand_r(&seed) % sizeof(buf);
			static const char alphabet[] = "ab0 \t\n\n_x-";

			for (k = 0; k < len; k++)
				buf[k] = alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)];
			buf[len] = '\0';
			rc = tparse(&t, buf, err, sizeof(err));
			okc += rc == 0 || rc == -1;
			table_free(&t);
		}
		ok(okc == 5000, "5000 random inputs parse or fail cleanly");
	}
}

static void kv_tests(void)
{
	struct kv kv;
	char err[256];
	int rc;

	rc = kparse(&kv, "sockets_open 3\nsockets_created 18446744073709551615\n", err, sizeof(err));
	ok(rc == 0 && kv.n == 2 && kv.values[1] == UINT64_MAX && !strcmp(kv.names[0], "sockets_open"),
	   "name value lines, u64 max");
	kv_free(&kv);
	rc = kparse(&kv, "", err, sizeof(err));
	ok(rc == -1 && strstr(err, "empty"), "empty stats file: '%s'", err);
	kv_free(&kv);
	rc = kparse(&kv, "a 1 2\n", err, sizeof(err));
	ok(rc == -1, "three fields: '%s'", err);
	kv_free(&kv);
	rc = kparse(&kv, "a\n", err, sizeof(err));
	ok(rc == -1, "one field: '%s'", err);
	kv_free(&kv);
	rc = kparse(&kv, "a x1\n", err, sizeof(err));
	ok(rc == -1 && strstr(err, "not a number"), "a garbage value: '%s'", err);
	kv_free(&kv);
	rc = kparse(&kv, "a 18446744073709551616\n", err, sizeof(err));
	ok(rc == -1 && strstr(err, "not a number"), "an overflowing value: '%s'", err);
	kv_free(&kv);
	rc = kparse(&kv, "a 1\na 2\n", err, sizeof(err));
	ok(rc == -1 && strstr(err, "twice"), "a duplicate name: '%s'", err);
	kv_free(&kv);
}

static void number_tests(void)
{
	uint64_t v;

	ok(parse_dec_u64("0", &v) == 0 && v == 0, "decimal 0");
	ok(parse_dec_u64("18446744073709551615", &v) == 0 && v == UINT64_MAX, "decimal u64 max");
	ok(parse_dec_u64("18446744073709551616", &v) == -1, "decimal overflow");
	ok(parse_dec_u64("", &v) == -1 && parse_dec_u64("-1", &v) == -1 &&
	   parse_dec_u64("+1", &v) == -1 && parse_dec_u64("1 ", &v) == -1 &&
	   parse_dec_u64("0x10", &v) == -1, "decimal rejects empty, sign, blank, hex");
	ok(parse_hex_u64("0x2a", &v) == 0 && v == 42, "hex 0x2a");
	ok(parse_hex_u64("0xFFFFFFFFFFFFFFFF", &v) == 0 && v == UINT64_MAX, "hex u64 max");
	ok(parse_hex_u64("0x10000000000000000", &v) == -1, "hex with 17 digits");
	ok(parse_hex_u64("0x", &v) == -1 && parse_hex_u64("2a", &v) == -1 &&
	   parse_hex_u64("0xg", &v) == -1, "hex rejects no digits, no prefix, bad digit");
}

static void json_tests(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_init(&j, f);
	json_obj_begin(&j);
	json_key(&j, "a");
	json_u64(&j, 18446744073709551615ULL);
	json_key(&j, "s");
	json_str(&j, "q\"b\\\n\x01\xc3");
	json_key(&j, "l");
	json_arr_begin(&j);
	json_u64(&j, 1);
	json_nil(&j);
	json_obj_begin(&j);
	json_obj_end(&j);
	json_arr_end(&j);
	json_key(&j, "e");
	json_arr_begin(&j);
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
	fclose(f);
	if (!ok(!strcmp(buf, "{\"a\":18446744073709551615,\"s\":\"q\\\"b\\\\\\u000a\\u0001\\u00c3\","
			     "\"l\":[1,null,{}],\"e\":[]}\n"),
		"JSON: commas, nesting, escapes"))
		diag("got %s", buf);
	free(buf);
}

int main(void)
{
	table_tests();
	kv_tests();
	number_tests();
	json_tests();
	return tap_done();
}
