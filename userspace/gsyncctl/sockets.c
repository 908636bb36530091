// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Loading and validating /proc/net/gsync and /proc/net/gsync_stats. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sockets.h"

#define DEFAULT_DIR "/proc/net"

/* Known u64 columns besides drop_*; state is a word, group hex. */
static const char *const u64_cols[] = {
	"id", "inode", "uid", "rank", "nranks", "next_seq", "inflight",
	"ops_submitted", "ops_completed", "ops_failed", "tx_bytes",
	"tx_packets", "rx_bytes", "rx_packets", "nacks_sent", "nacks_received",
	"retransmits", "mcast_retransmits", "timeouts", "mismatches",
	/* rate control (optional: a module without it has none of them) */
	"reports_sent", "reports_received", "rate_decreases",
	"rate_loss_decreases", "send_rate", "rtt_ms",
	/* keyed groups (optional too); key_mode is a word, the fingerprint
	 * COL_FPR */
	"key_epoch", "key_next_epoch", NULL,
};

enum col_type col_type_of(const char *name)
{
	unsigned int i;

	if (!strcmp(name, "state") || !strcmp(name, "key_mode"))
		return COL_WORD;
	if (!strcmp(name, "key_fingerprint"))
		return COL_FPR;
	if (!strcmp(name, "group"))
		return COL_HEX;
	/* Drop reasons are open-ended: any drop_* column is a counter. */
	if (!strncmp(name, "drop_", 5))
		return COL_U64;
	for (i = 0; u64_cols[i]; i++)
		if (!strcmp(name, u64_cols[i]))
			return COL_U64;
	return COL_UNKNOWN;
}

static int valid_word(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || *s == '_'))
			return 0;
	return 1;
}

/* Exactly 16 lower-case hex digits, as the module prints a fingerprint. */
static int valid_fpr(const char *s)
{
	return strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16;
}

static int check_cell(const char *v, enum col_type type)
{
	uint64_t x;

	if (type == COL_UNKNOWN)
		return 1;
	if (type == COL_WORD)
		return valid_word(v);
	if (!strcmp(v, "-"))
		return 1;
	if (type == COL_FPR)
		return valid_fpr(v);
	return type == COL_HEX ? parse_hex_u64(v, &x) == 0
			       : parse_dec_u64(v, &x) == 0;
}

/*
 * Read DIR/NAME. A missing /proc/net/gsync means the module is not loaded
 * (it creates both files in every namespace); a missing gsync_stats next
 * to an existing gsync is just an error.
 */
static int load(const char *dir, const char *name, char **text, char *path,
		size_t plen)
{
	int rc;

	snprintf(path, plen, "%s/%s", dir ? dir : DEFAULT_DIR, name);
	rc = read_file(path, text);
	if (rc == -ENOENT && !strcmp(name, "gsync")) {
		fprintf(stderr, "gsyncctl: %s does not exist: the gsync kernel "
			"module is not loaded (insmod gsync.ko)\n", path);
		return EXIT_NOMODULE;
	}
	if (rc) {
		fprintf(stderr, "gsyncctl: cannot read %s: %s\n", path,
			strerror(-rc));
		return EXIT_ERR;
	}
	return EXIT_OK;
}

int sockets_load(struct table *t, const char *dir)
{
	char path[4096], err[512], *text;
	unsigned int r, c;
	int rc = load(dir, "gsync", &text, path, sizeof(path));

	memset(t, 0, sizeof(*t));
	if (rc)
		return rc;
	if (table_parse(t, text, path, err, sizeof(err))) {
		fprintf(stderr, "gsyncctl: %s\n", err);
		table_free(t);
		return EXIT_ERR;
	}
	for (c = 0; c < t->ncols; c++) {
		enum col_type type = col_type_of(t->cols[c]);

		for (r = 0; r < t->nrows; r++) {
			const char *v = table_cell(t, r, c);

			if (check_cell(v, type))
				continue;
			fprintf(stderr, "gsyncctl: %s: line %u, column '%s': "
				"'%.40s' is not a valid %s\n", path, r + 2,
				t->cols[c], v, type == COL_WORD ?
				(strcmp(t->cols[c], "state") ? "key mode" : "state") :
				type == COL_HEX ? "hex number (0x...)" :
				type == COL_FPR ? "fingerprint (16 hex digits)" :
				"number");
			table_free(t);
			return EXIT_ERR;
		}
	}
	return EXIT_OK;
}

int nsstats_load(struct kv *kv, const char *dir)
{
	char path[4096], err[512], *text;
	int rc = load(dir, "gsync_stats", &text, path, sizeof(path));

	memset(kv, 0, sizeof(*kv));
	if (rc)
		return rc;
	if (kv_parse(kv, text, path, err, sizeof(err))) {
		fprintf(stderr, "gsyncctl: %s\n", err);
		kv_free(kv);
		return EXIT_ERR;
	}
	return EXIT_OK;
}

int require_cols(const struct table *t, const char *const *names,
		 const char *what)
{
	for (; *names; names++) {
		if (table_col(t, *names) >= 0)
			continue;
		fprintf(stderr, "gsyncctl: %s: /proc/net/gsync has no column "
			"'%s' (module older than gsyncctl?)\n", what, *names);
		return EXIT_ERR;
	}
	return EXIT_OK;
}

uint64_t cell_u64(const struct table *t, unsigned int row, const char *col)
{
	int c = table_col(t, col);
	uint64_t v = 0;
	const char *s;

	if (c < 0)
		return 0;
	s = table_cell(t, row, (unsigned int)c);
	if (parse_dec_u64(s, &v) && parse_hex_u64(s, &v))
		v = 0;
	return v;
}

const char *cell_str(const struct table *t, unsigned int row, const char *col)
{
	int c = table_col(t, col);

	return c < 0 ? "-" : table_cell(t, row, (unsigned int)c);
}

void json_cell(struct json *j, const struct table *t, unsigned int row,
	       unsigned int c)
{
	const char *v = table_cell(t, row, c);
	enum col_type type = col_type_of(t->cols[c]);
	uint64_t x;

	/* Hex ids stay strings: JSON numbers lose precision above 2^53. */
	if (type == COL_WORD ||
	    ((type == COL_HEX || type == COL_FPR) && strcmp(v, "-")))
		json_str(j, v);
	else if (!strcmp(v, "-") && type != COL_UNKNOWN)
		json_nil(j);
	else if (parse_dec_u64(v, &x) == 0)
		json_u64(j, x);
	else
		json_str(j, v);
}
