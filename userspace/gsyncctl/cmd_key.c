// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gsyncctl key generate|show|set: the group secrets of keyed groups.
 * generate writes a new secret as a key file (or to stdout, as wg genkey
 * does); show prints the fingerprint of a key file, or every socket's key
 * mode, epochs and fingerprint from /proc/net/gsync (a key is never
 * readable back from the kernel); set rotates the key of a running group
 * with GSYNC_KEY_PUSH. Secrets are erased once used.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gsync.h"
#include <linux/gsync_sched.h>
#include "cmds.h"
#include "key_push.h"
#include "listing.h"
#include "sockets.h"

static int check_usage(const struct ctx *c)
{
	int set = !strcmp(c->sub, "set");

	if (c->topology || c->ranks || c->nrelays || c->no_multicast)
		return usage_error("%s", "--topology, --ranks, --relay and "
				   "--no-multicast apply to schedule only");
	if (!set && (c->have_group || c->rank != GSYNC_SCHED_ANY_RANK ||
		     c->have_start || c->have_epoch || c->key_mode))
		return usage_error("%s", "--group, --rank, --start-seq, --epoch "
				   "and --mode apply to key set only");
	if (c->force && strcmp(c->sub, "generate"))
		return usage_error("%s", "--force applies to key generate only");
	if (c->json && strcmp(c->sub, "show"))
		return usage_error("%s", "--json applies to key show only");
	if (c->have_id && (strcmp(c->sub, "show") || c->file))
		return usage_error("%s", "--id applies to key show without FILE only");
	if (!set)
		return EXIT_OK;
	if (!c->have_group)
		return usage_error("%s", "key set needs --group ID");
	if (!c->have_epoch)
		return usage_error("%s", "key set needs --epoch N, above the "
				   "group's current epoch");
	if (!c->have_start)
		return usage_error("%s", "key set needs --start-seq N, an "
				   "operation no rank has submitted yet");
	if (!c->start_seq)
		return usage_error("%s", "--start-seq needs an operation sequence "
				   "number (1 or more)");
	return EXIT_OK;
}

/* A key file's refusal in words; FILE named. */
static int key_file_error(const char *file, int err)
{
	struct stat st;

	if (err == -EACCES && !stat(file, &st) && (st.st_mode & 077))
		fprintf(stderr, "gsyncctl: %s: refused: group or others may access "
			"it (mode %04o); a key file must be mode 0600 (chmod 600 "
			"%s)\n", file, (unsigned int)(st.st_mode & 07777), file);
	else if (err == -EINVAL)
		fprintf(stderr, "gsyncctl: %s: not a key file: it must be a regular "
			"file holding one key, 44 characters of base64 and a "
			"newline (gsyncctl key generate writes one)\n", file);
	else
		fprintf(stderr, "gsyncctl: %s: %s\n", file, strerror(-err));
	return EXIT_ERR;
}

/* stdout that others may read: say so, as wg genkey does. */
static void warn_stdout(void)
{
	struct stat st;

	if (!fstat(STDOUT_FILENO, &st) && S_ISREG(st.st_mode) && (st.st_mode & 077))
		fprintf(stderr, "gsyncctl: warning: writing a key to a file group "
			"or others may read (mode %04o); give FILE, or chmod 600 "
			"it\n", (unsigned int)(st.st_mode & 07777));
}

static int key_generate(const struct ctx *c)
{
	uint8_t secret[GSYNC_KEY_LEN];
	char text[GSYNC_KEY_B64_LEN + 1];
	uint64_t fpr;
	int rc = gsync_key_generate(secret);

	if (rc) {
		fprintf(stderr, "gsyncctl: getrandom: %s\n", strerror(-rc));
		return EXIT_ERR;
	}
	fpr = gsync_key_fingerprint(secret);
	if (!c->file) {
		warn_stdout();
		gsync_key_encode(secret, text);
		explicit_bzero(secret, sizeof(secret));
		printf("%s\n", text);
		explicit_bzero(text, sizeof(text));
		return fflush(stdout) ? EXIT_ERR : EXIT_OK;
	}
	rc = gsync_key_file_write(c->file, secret,
				  c->force ? GSYNC_KEY_FILE_OVERWRITE : 0);
	explicit_bzero(secret, sizeof(secret));
	if (rc == -EEXIST) {
		fprintf(stderr, "gsyncctl: %s exists: not overwriting a key "
			"(--force replaces it)\n", c->file);
		return EXIT_ERR;
	}
	if (rc) {
		fprintf(stderr, "gsyncctl: cannot write %s: %s\n", c->file,
			strerror(-rc));
		return EXIT_ERR;
	}
	printf("wrote %s (mode 0600): fingerprint %016" PRIx64 "\n", c->file, fpr);
	return EXIT_OK;
}

static int show_file(const struct ctx *c)
{
	uint8_t secret[GSYNC_KEY_LEN];
	struct json j;
	uint64_t fpr;
	char hex[17];
	int rc = gsync_key_file_read(c->file, secret);

	if (rc)
		return key_file_error(c->file, rc);
	fpr = gsync_key_fingerprint(secret);
	explicit_bzero(secret, sizeof(secret));
	snprintf(hex, sizeof(hex), "%016" PRIx64, fpr);
	if (!c->json) {
		printf("%s\n", hex);
		return EXIT_OK;
	}
	json_init(&j, stdout);
	json_obj_begin(&j);
	json_key(&j, "file");
	json_str(&j, c->file);
	json_key(&j, "fingerprint");
	json_str(&j, hex);
	json_obj_end(&j);
	json_end(&j);
	return EXIT_OK;
}

static const char *const show_cols[] = {
	"id", "state", "group", "rank", "nranks", "key_mode", "key_epoch",
	"key_next_epoch", "key_fingerprint", NULL,
};

/* The text table: heading, then each cell from a row. */
enum { NKCOL = 7 };
static const char *const kheads[NKCOL] = {
	"ID", "GROUP", "RANK", "MODE", "EPOCH", "NEXT", "FINGERPRINT",
};

static int keyed(const struct table *t, unsigned int r)
{
	const char *m = cell_str(t, r, "key_mode");

	return strcmp(m, "none") && strcmp(m, "-");
}

static void kcell(const struct table *t, unsigned int r, unsigned int k,
		  char *buf, size_t len)
{
	static const char *const direct[NKCOL] = {
		"id", "group", NULL, "key_mode", "key_epoch", "key_next_epoch",
		"key_fingerprint",
	};
	const char *v;

	if (!direct[k]) {
		listing_rank(t, r, buf, len);
		return;
	}
	v = cell_str(t, r, direct[k]);
	/* an unkeyed socket has no epoch or fingerprint; NEXT 0: none */
	if ((k >= 4 && !keyed(t, r)) ||
	    (k == 5 && !cell_u64(t, r, "key_next_epoch")))
		v = "-";
	snprintf(buf, len, "%s", v);
}

/* ID, EPOCH and NEXT right-aligned, words and the fingerprint left */
static const struct listing ktext = {
	.ncols = NKCOL, .heads = kheads, .cell = kcell,
	.right = (1u << 0) | (1u << 4) | (1u << 5),
};
_Static_assert(NKCOL <= LISTING_MAX_COLS, "key show: too many columns");

static int show_sockets(const struct ctx *c)
{
	struct table t;
	int rc = sockets_load(&t, c->proc_dir);

	if (rc)
		return rc;
	rc = require_cols(&t, show_cols, "key show");
	if (!rc) {
		if (c->json)
			listing_json(c, &t, show_cols);
		else
			listing_text(c, &t, &ktext);
	}
	table_free(&t);
	return rc;
}

static int key_set(const struct ctx *c)
{
	struct key_push_req r;
	uint8_t secret[GSYNC_KEY_LEN];
	char err[512];
	uint64_t fpr;
	int rc = gsync_key_file_read(c->file, secret);

	if (rc)
		return key_file_error(c->file, rc);
	fpr = gsync_key_fingerprint(secret);
	memset(&r, 0, sizeof(r));
	r.group = c->group;
	r.rank = c->rank == GSYNC_SCHED_ANY_RANK ? GSYNC_KEY_ANY_RANK : c->rank;
	r.mode = c->key_mode ? (unsigned int)c->key_mode : GSYNC_KEY_ENCRYPT;
	r.epoch = c->epoch;
	r.start_seq = c->start_seq;
	r.secret = secret;
	rc = key_push(c->family_file, &r, err, sizeof(err));
	explicit_bzero(secret, sizeof(secret));
	if (rc) {
		fprintf(stderr, "gsyncctl: key set: %s\n", err);
		return rc == KEY_PUSH_NOMODULE ? EXIT_NOMODULE : EXIT_ERR;
	}
	printf("group 0x%" PRIx64 ", ", c->group);
	if (r.rank == GSYNC_KEY_ANY_RANK)
		printf("every rank in this namespace");
	else
		printf("rank %u", r.rank);
	printf(": key epoch %" PRIu32 " (%s, fingerprint %016" PRIx64 ") from "
	       "operation %" PRIu64 "\n", r.epoch, gsync_key_mode_name(r.mode),
	       fpr, r.start_seq);
	return EXIT_OK;
}

int cmd_key(const struct ctx *c)
{
	int rc = check_usage(c);

	if (rc)
		return rc;
	if (!strcmp(c->sub, "generate"))
		return key_generate(c);
	if (!strcmp(c->sub, "set"))
		return key_set(c);
	return c->file ? show_file(c) : show_sockets(c);
}
