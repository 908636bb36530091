// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_metadata.c - the register map lives in three places that must agree:
 * hls/gsync_reduce_hw.h (used by code), kernel.xml (packaging) and
 * metadata/gsync_reduce.embedded.xml (what XRT reads from the xclbin).
 * This checks each XML arg's id and offset against the header constants.
 * usage: test_metadata KERNEL_XML EMBEDDED_XML
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../hls/gsync_reduce_hw.h"
#include "tap.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 16);
	size_t n;

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* Find <arg name="NAME" ...> and read its id= and offset= attributes. */
static int arg_attrs(const char *xml, const char *name, long *id, long *off)
{
	char key[64];
	const char *p, *end, *a;

	snprintf(key, sizeof(key), "<arg name=\"%s\"", name);
	p = strstr(xml, key);
	if (!p || !(end = strchr(p, '>')))
		return -1;
	a = strstr(p, " id=\"");
	if (!a || a > end)
		return -1;
	*id = strtol(a + 5, NULL, 0);
	a = strstr(p, " offset=\"");
	if (!a || a > end)
		return -1;
	*off = strtol(a + 9, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; long id, off; } want[] = {
		{ "src",   GSYNC_HW_ARG_SRC,   GSYNC_HW_REG_SRC },
		{ "dst",   GSYNC_HW_ARG_DST,   GSYNC_HW_REG_DST },
		{ "desc",  GSYNC_HW_ARG_DESC,  GSYNC_HW_REG_DESC },
		{ "njobs", GSYNC_HW_ARG_NJOBS, GSYNC_HW_REG_NJOBS },
	};
	int f, i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s KERNEL_XML EMBEDDED_XML\n", argv[0]);
		return 2;
	}
	for (f = 1; f < 3; f++) {
		char *xml = slurp(argv[f]);
		int ok = xml != NULL;

		for (i = 0; ok && i < 4; i++) {
			long id, off;

			if (arg_attrs(xml, want[i].name, &id, &off) ||
			    id != want[i].id || off != want[i].off) {
				tap_diag("%s: arg %s missing or id/offset differ", argv[f], want[i].name);
				ok = 0;
			}
		}
		tap_result(ok, "%s arg ids/offsets match gsync_reduce_hw.h", argv[f]);
		free(xml);
	}
	return tap_done();
}
