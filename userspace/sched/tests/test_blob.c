/* test_blob.c - the kernel's acceptance rules on hand-built blobs
 * (blob_check.c): structure, coverage, same expression everywhere, and
 * the dump (blob_dump.c). */
#include "sched_blob.h"
#include "test.h"
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

typedef struct { int round, pat, agg, flags, k, m[8]; } cdesc;

/* header + cliques + members; returns the length */
static size_t mkblob(unsigned char *buf, int nranks, unsigned idle, int nrounds, const cdesc *c,
		     int nc)
{
	struct gsync_sched_hdr h;
	struct gsync_sched_clique q;
	uint16_t *mem = calloc(256, sizeof(*mem));
	int nm = 0;
	memset(&h, 0, sizeof(h));
	h.magic = GSYNC_SCHED_MAGIC;
	h.version = GSYNC_SCHED_VERSION;
	h.hdr_len = sizeof(h);
	h.block_bytes = 4096;
	h.nranks = (uint16_t)nranks;
	h.nrounds = (uint16_t)nrounds;
	h.ncliques = (uint16_t)nc;
	for (int r = 0; r < 32; r++)
		if (idle >> r & 1)
			h.idle[r / 8] |= (uint8_t)(1u << (r % 8));
	for (int i = 0; i < nc; i++) {
		memset(&q, 0, sizeof(q));
		q.round = (uint16_t)c[i].round;
		q.pattern = (uint8_t)c[i].pat;
		q.flags = (uint8_t)c[i].flags;
		q.aggregator = (uint16_t)c[i].agg;
		q.first = (uint16_t)nm;
		q.nmembers = (uint16_t)c[i].k;
		memcpy(buf + sizeof(h) + i * sizeof(q), &q, sizeof(q));
		for (int j = 0; j < c[i].k; j++)
			mem[nm++] = (uint16_t)c[i].m[j];
	}
	h.nmembers = (uint16_t)nm;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h) + (size_t)nc * sizeof(q), mem, sizeof(*mem) * (size_t)nm);
	free(mem);
	return GSYNC_SCHED_BLOB_LEN((size_t)nc, (size_t)nm);
}

static void want(const unsigned char *b, size_t len, const char *msg, const char *what)
{
	gs_err e = { "" };
	int rc = gs_blob_check(b, len, NULL, &e);
	int good = msg ? rc && strstr(e.msg, msg) : !rc;
	if (!good)
		printf("# rc %d, '%s', want '%s'\n", rc, e.msg, msg ? msg : "accepted");
	ok(good, "blob rules: %s", what);
}

#define U GSYNC_PAT_UNICAST
#define NC(a) ((int)(sizeof(a) / sizeof(a[0])))

static void rules(unsigned char *b)
{
	static const cdesc grid[] = { { 0, U, 0, 0, 2, { 0, 1 } }, { 0, U, 0, 0, 2, { 2, 3 } },
				      { 1, GSYNC_PAT_AGGREGATOR, 2, 0, 2, { 0, 2 } },
				      { 1, GSYNC_PAT_RS_MULTICAST, 0, GSYNC_SCF_UNICAST, 2, { 1, 3 } } };
	want(b, mkblob(b, 4, 0, 2, grid, NC(grid)), NULL, "2x2 grid is accepted");
	static const cdesc twice[] = { { 0, U, 0, 0, 2, { 0, 1 } }, { 0, U, 0, 0, 2, { 1, 2 } } };
	want(b, mkblob(b, 3, 0, 1, twice, NC(twice)),
	     "rounds[0].cliques[1]: rank 1 is also in rounds[0].cliques[0]", "a rank in two cliques of a round");
	static const cdesc dup[] = { { 0, U, 0, 0, 2, { 0, 1 } }, { 1, U, 0, 0, 3, { 0, 1, 2 } } };
	want(b, mkblob(b, 3, 0, 2, dup, NC(dup)),
	     "rounds[1].cliques[0]: the values of rank 0 and rank 1 both cover rank 0", "overlapping coverage");
	static const cdesc part[] = { { 0, U, 0, 0, 2, { 0, 1 } }, { 0, U, 0, 0, 2, { 2, 3 } } };
	want(b, mkblob(b, 4, 0, 1, part, NC(part)),
	     "after the last round rank 0 covers 2 of the 4 contributing ranks (rank 2 is missing)",
	     "incomplete coverage");
	/* relays 4..7 copy values so that ranks 0,2,3,6 compute (01)(23) and
	 * ranks 1,4,5,7 ((01)2)3: full coverage, different expressions */
	static const cdesc expr[] = {
		{ 0, U, 0, 0, 2, { 0, 1 } }, { 0, U, 0, 0, 2, { 2, 4 } }, { 0, U, 0, 0, 2, { 3, 5 } },
		{ 1, U, 0, 0, 2, { 2, 3 } }, { 1, U, 0, 0, 2, { 1, 4 } }, { 1, U, 0, 0, 2, { 0, 6 } },
		{ 1, U, 0, 0, 2, { 5, 7 } }, { 2, U, 0, 0, 2, { 0, 2 } }, { 2, U, 0, 0, 2, { 1, 5 } },
		{ 2, U, 0, 0, 2, { 3, 6 } }, { 2, U, 0, 0, 2, { 4, 7 } } };
	want(b, mkblob(b, 8, 0xf0, 3, expr, NC(expr)), "rank 0 and rank 1 end with different expressions",
	     "same coverage, different grouping");
	static const cdesc relay[] = { { 0, GSYNC_PAT_AGGREGATOR, 3, 0, 4, { 0, 1, 2, 3 } } };
	want(b, mkblob(b, 4, 0x8, 1, relay, NC(relay)), NULL, "an idle relay rank as aggregator is accepted");
	want(b, mkblob(b, 4, 0xf, 1, relay, NC(relay)), "every rank is idle", "all ranks idle");
	static const cdesc idle2[] = { { 0, U, 0, 0, 2, { 2, 3 } }, { 1, U, 0, 0, 4, { 0, 1, 2, 3 } } };
	want(b, mkblob(b, 4, 0xc, 2, idle2, NC(idle2)),
	     "rounds[0].cliques[0]: no member's value covers a contributing rank", "a clique of idle ranks only");
	static const cdesc flag[] = { { 0, GSYNC_PAT_MULTICAST, 0, GSYNC_SCF_UNICAST, 2, { 0, 1 } } };
	want(b, mkblob(b, 2, 0, 1, flag, NC(flag)), "apply to rs_multicast and aggregator only",
	     "results by unicast on a multicast clique");
}

static void structure(unsigned char *b)
{
	static const cdesc one[] = { { 0, GSYNC_PAT_AGGREGATOR, 1, 0, 3, { 0, 1, 2 } } };
	size_t len = mkblob(b, 3, 0, 1, one, 1);
	struct gsync_sched_hdr *h = (struct gsync_sched_hdr *)b;
	uint16_t *m = (uint16_t *)(b + sizeof(*h) + sizeof(struct gsync_sched_clique));
	want(b, len - 2, "header describes", "length disagrees with the header");
	b[0] ^= 1;
	want(b, len, "header.magic", "bad magic");
	b[0] ^= 1;
	h->block_bytes = 4000;
	want(b, len, "header.block_bytes: 4000", "block below 4096");
	h->block_bytes = (1u << 30) + 16;
	want(b, len, "header.block_bytes: 1073741840", "block above the largest operation");
	h->block_bytes = 4096;
	((struct gsync_sched_clique *)(h + 1))->first = 1;
	want(b, len, "members start at 1, not at 0", "a gap in members[]");
	((struct gsync_sched_clique *)(h + 1))->first = 0;
	((struct gsync_sched_clique *)(h + 1))->nmembers = 2;
	want(b, len, "members[]: 1 of its 3 entries belong to no clique", "a member in no clique");
	((struct gsync_sched_clique *)(h + 1))->nmembers = 3;
	h->nrounds = GSYNC_SCHED_MAX_ROUNDS + 1;
	want(b, len, "header.nrounds: 17 rounds", "too many rounds");
	h->nrounds = 1;
	h->idle[0] = 0x8;
	want(b, len, "header.idle: bit 3 is set but there are 3 ranks", "idle bit beyond nranks");
	h->idle[0] = 0;
	m[1] = 0;
	want(b, len, "members must be distinct ranks in ascending order", "members not ascending");
	m[1] = 1;
	((struct gsync_sched_clique *)(h + 1))->aggregator = 5;
	want(b, len, "aggregator 5 is not a member", "aggregator outside the clique");
	static const cdesc order[] = { { 1, U, 0, 0, 2, { 0, 1 } }, { 0, U, 0, 0, 2, { 1, 2 } } };
	want(b, mkblob(b, 3, 0, 2, order, 2), "cliques must be sorted by round", "rounds out of order");
	want(b, 10, "shorter than the 80-byte header", "truncated blob");
}

static void dump(unsigned char *b)
{
	static const cdesc one[] = { { 0, GSYNC_PAT_MULTICAST, 0, 0, 3, { 0, 1, 2 } } };
	static const cdesc part[] = { { 0, U, 0, 0, 2, { 0, 1 } } };
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	int rc = gs_blob_dump(b, mkblob(b, 3, 0, 1, one, 1), NULL, f);
	fclose(f);
	ok(!rc && strstr(out, "ranks       3 (3 contributing)") && strstr(out, "multicast") &&
	   strstr(out, "0 1 2") && strstr(out, "accepted:"), "dump of an accepted blob");
	free(out);
	f = open_memstream(&out, &n);
	rc = gs_blob_dump(b, mkblob(b, 3, 0, 1, part, 1), NULL, f);
	fclose(f);
	ok(rc && strstr(out, "REJECTED: after the last round rank 0 covers 2 of the 3"),
	   "dump of a rejected blob says why");
	free(out);
}

/* a 3x3 grid of nine ranks: 6 cliques */
static const cdesc grid9[] = {
	{ 0, U, 0, 0, 3, { 0, 1, 2 } }, { 0, U, 0, 0, 3, { 3, 4, 5 } }, { 0, U, 0, 0, 3, { 6, 7, 8 } },
	{ 1, GSYNC_PAT_MULTICAST, 0, 0, 3, { 0, 3, 6 } }, { 1, U, 0, 0, 3, { 1, 4, 7 } },
	{ 1, U, 0, 0, 3, { 2, 5, 8 } } };

/* the 3x3 grid with header.flags FLAGS and group_base BASE (address text,
 * IPv4 in the first 4 bytes; NULL: zero); the blob's length */
static size_t grid_groups(unsigned char *b, unsigned flags, const char *base)
{
	size_t len = mkblob(b, 9, 0, 2, grid9, NC(grid9));
	struct gsync_sched_hdr *h = (struct gsync_sched_hdr *)b;
	h->flags = flags;
	if (base && inet_pton(strchr(base, ':') ? AF_INET6 : AF_INET, base, h->group_base) != 1)
		printf("# bad address %s in the test\n", base);
	return len;
}

/* GSYNC_SCHF_CLIQUE_GROUPS: flags, group_base, the addresses' rules */
static void groups(unsigned char *b)
{
	const unsigned CG = GSYNC_SCHF_CLIQUE_GROUPS;
	want(b, grid_groups(b, CG, NULL), NULL, "clique groups from the group's address are accepted");
	want(b, grid_groups(b, 2, NULL), "header.flags: unknown flags 0x2", "unknown flag 2");
	want(b, grid_groups(b, CG | 0x80000000u, NULL), "header.flags: unknown flags 0x80000000",
	     "unknown flag 1<<31 next to clique groups");
	want(b, grid_groups(b, 0, "239.1.2.0"),
	     "header.group_base: set without GSYNC_SCHF_CLIQUE_GROUPS", "group_base without the flag");
	want(b, grid_groups(b, CG, "239.1.2.0"), NULL, "an IPv4 group_base is accepted");
	want(b, grid_groups(b, CG, "224.0.1.0"), NULL, "IPv4 group_base 224.0.1.0 (the lowest) is accepted");
	want(b, grid_groups(b, CG, "239.255.255.250"), NULL,
	     "IPv4 group_base 239.255.255.250 with 6 cliques (the last is 239.255.255.255) is accepted");
	want(b, grid_groups(b, CG, "239.255.255.252"),
	     "header.group_base: the 6 clique addresses 239.255.255.252 + 0..5 are not all IPv4 multicast",
	     "IPv4 group_base 239.255.255.252 with 6 cliques runs past 239.255.255.255");
	want(b, grid_groups(b, CG, "224.0.0.250"),
	     "header.group_base: the 6 clique addresses 224.0.0.250 + 0..5 are not all IPv4 multicast",
	     "IPv4 group_base 224.0.0.250 (link-local multicast)");
	want(b, grid_groups(b, CG, "10.0.0.1"), "are not all IPv4 multicast addresses",
	     "a unicast IPv4 group_base");
	want(b, grid_groups(b, CG, "ff15::79:0"), NULL, "an IPv6 group_base is accepted");
	want(b, grid_groups(b, CG, "ff0e::"), NULL,
	     "IPv6 group_base ff0e:: (zero past byte 3, so IPv4-shaped but 255.14.0.0) is IPv6");
	want(b, grid_groups(b, CG, "ff15::ffff:fffa"), NULL,
	     "IPv6 group_base ff15::ffff:fffa with 6 cliques (up to ffff:ffff) is accepted");
	want(b, grid_groups(b, CG, "ff15::ffff:fffb"),
	     "header.group_base: the 6 clique addresses ff15::ffff:fffb + 0..5 carry out of the low 32 bits",
	     "IPv6 group_base whose clique addresses carry");
	want(b, grid_groups(b, CG, "2001:db8::1"),
	     "header.group_base: 2001:db8::1 is neither an IPv4 address (bytes 4..15 zero) nor IPv6 multicast",
	     "a unicast IPv6 group_base");
}

/* the dump of blob B into *OUT (free it); 0 if it is accepted */
static int dump_text(const unsigned char *b, size_t len, char **out)
{
	size_t n = 0;
	FILE *f = open_memstream(out, &n);
	int rc = gs_blob_dump(b, len, NULL, f);
	fclose(f);
	return rc;
}

static void dump_groups(unsigned char *b)
{
	char *out = NULL;
	int rc = dump_text(b, grid_groups(b, 0, NULL), &out);
	ok(!rc && strstr(out, "flags       0 (every clique multicasts to the group's address)") &&
	   strstr(out, "rate          members\n") && !strstr(out, "group+"),
	   "dump without clique groups: flags 0, no group column");
	free(out);
	rc = dump_text(b, grid_groups(b, GSYNC_SCHF_CLIQUE_GROUPS, NULL), &out);
	ok(!rc && strstr(out, "flags       0x1 clique_groups: clique i multicasts to the group's address + 1 + i") &&
	   strstr(out, "rate          group   members\n") && strstr(out, " group+1 0 1 2\n") &&
	   strstr(out, " group+6 2 5 8\n"),
	   "dump of derived clique groups: the flag, clique i at group+(i+1)");
	free(out);
	rc = dump_text(b, grid_groups(b, GSYNC_SCHF_CLIQUE_GROUPS, "239.1.2.250"), &out);
	ok(!rc && strstr(out, "clique i multicasts to 239.1.2.250 + i") &&
	   strstr(out, " 239.1.2.250 0 1 2\n") && strstr(out, " 239.1.2.255 2 5 8\n"),
	   "dump of an explicit IPv4 group_base: each clique's address");
	free(out);
	rc = dump_text(b, grid_groups(b, GSYNC_SCHF_CLIQUE_GROUPS, "ff15::ffff:fffa"), &out);
	ok(!rc && strstr(out, " ff15::ffff:fffa 0 1 2\n") && strstr(out, " ff15::ffff:ffff 2 5 8\n"),
	   "dump of an explicit IPv6 group_base: each clique's address");
	free(out);
	rc = dump_text(b, grid_groups(b, GSYNC_SCHF_CLIQUE_GROUPS, "239.255.255.252"), &out);
	ok(rc && strstr(out, "malformed: header.group_base: the 6 clique addresses"),
	   "dump of a group_base the kernel refuses says why");
	free(out);
}

void test_blob_rules(void)
{
	unsigned char *b = calloc(1, 4096);
	rules(b);
	structure(b);
	dump(b);
	groups(b);
	dump_groups(b);
	free(b);
}
