// SPDX-License-Identifier: GPL-2.0 OR MIT
/* gsyncctl family: the AF number the loaded module registered. */
#include <errno.h>
#include <stdio.h>

#include "gsync.h"
#include "cmds.h"
#include "json.h"
#include "sockets.h"

int cmd_family(const struct ctx *c)
{
	const char *path = c->family_file ? c->family_file : GSYNC_FAMILY_PATH;
	int fam = gsync_family_at(path);
	struct json j;

	if (fam < 0) {
		if (fam == -ENOENT && !c->family_file)
			fprintf(stderr, "gsyncctl: %s\n", gsync_family_error(fam));
		else
			fprintf(stderr, "gsyncctl: %s: %s\n", path,
				fam == -ENOENT ? "does not exist: the gsync kernel "
				"module is not loaded" : gsync_family_error(fam));
		return fam == -ENOENT ? EXIT_NOMODULE : EXIT_ERR;
	}
	if (c->json) {
		json_init(&j, stdout);
		json_obj_begin(&j);
		json_key(&j, "family");
		json_u64(&j, (uint64_t)fam);
		json_obj_end(&j);
		json_end(&j);
	} else {
		printf("%d\n", fam);
	}
	return EXIT_OK;
}
