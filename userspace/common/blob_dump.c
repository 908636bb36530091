/* blob_dump.c - a kernel schedule blob in human-readable form: header,
 * one line per clique, and whether the kernel would accept it. */
#include "sched_blob.h"
#include <inttypes.h>
#include <string.h>

static void dump_size(FILE *f, uint32_t b)
{
	if (b % (1u << 20) == 0)
		fprintf(f, "%u bytes (%u MiB)\n", b, b >> 20);
	else if (b % 1024 == 0)
		fprintf(f, "%u bytes (%u KiB)\n", b, b >> 10);
	else
		fprintf(f, "%u bytes\n", b);
}

/* flags, and the address rule of clique groups */
static void dump_flags(const struct gsync_sched_hdr *hd, FILE *f)
{
	char base[64];
	if (!(hd->flags & GSYNC_SCHF_CLIQUE_GROUPS)) {
		fprintf(f, "flags       %#x (every clique multicasts to the group's address)\n",
			hd->flags);
		return;
	}
	gs_blob_clique_group(hd, 0, base, sizeof(base));
	if (!strcmp(base, "group+1"))	/* derived from the group's address */
		snprintf(base, sizeof(base), "the group's address + 1");
	fprintf(f, "flags       %#x clique_groups: clique i multicasts to %s + i (no effect in a "
		"unicast group)\n", hd->flags, base);
}

static void dump_header(const gs_blob_view *v, const gs_blob_hooks *h, size_t len, FILE *f)
{
	const struct gsync_sched_hdr *hd = &v->hdr;
	unsigned nidle = 0;
	fprintf(f, "gsync schedule blob, version %u, %zu bytes\n", hd->version, len);
	for (unsigned r = 0; r < hd->nranks; r++)
		nidle += hd->idle[r / 8] >> (r % 8) & 1;
	fprintf(f, "ranks       %u (%u contributing", hd->nranks, hd->nranks - nidle);
	if (nidle) {
		fprintf(f, "; idle:");
		for (unsigned r = 0; r < hd->nranks; r++)
			if (hd->idle[r / 8] >> (r % 8) & 1)
				fprintf(f, " %u", r);
	}
	fprintf(f, ")\n");
	if (h && h->rank_name)
		for (unsigned r = 0; r < hd->nranks; r++) {
			char name[96];
			gs_blob_rank_name(h, r, name, sizeof(name));
			fprintf(f, "            %s\n", name);
		}
	fprintf(f, "rounds      %u\ncliques     %u (%u member entries)\nblock       ", hd->nrounds,
		hd->ncliques, hd->nmembers);
	dump_size(f, hd->block_bytes);
	if (hd->start_seq)
		fprintf(f, "start_seq   %" PRIu64 "\n", (uint64_t)hd->start_seq);
	else
		fprintf(f, "start_seq   0 (the next operation)\n");
	dump_flags(hd, f);
}

/* width of the group column: 0 without clique groups (no column) */
static int group_width(const gs_blob_view *v)
{
	char g[64];
	int w = 5;
	if (!(v->hdr.flags & GSYNC_SCHF_CLIQUE_GROUPS))
		return 0;
	for (unsigned ci = 0; ci < v->hdr.ncliques; ci++) {
		gs_blob_clique_group(&v->hdr, ci, g, sizeof(g));
		if ((int)strlen(g) > w)
			w = (int)strlen(g);
	}
	return w;
}

static void dump_cliques(const gs_blob_view *v, const gs_blob_hooks *h, FILE *f)
{
	int gw = group_width(v);
	fprintf(f, "\n%-5s %-22s %-13s %-8s %-10s %-13s ", "round", "clique", "pattern", "results",
		"aggregator", "rate");
	if (gw)
		fprintf(f, "%-*s ", gw, "group");
	fprintf(f, "members\n");
	for (unsigned ci = 0; ci < v->hdr.ncliques; ci++) {
		const struct gsync_sched_clique *q = &v->cl[ci];
		char name[128], agg[16] = "-", rate[24] = "-", grp[64];
		gs_blob_clique_name(v, h, ci, name, sizeof(name));
		if (q->pattern == GSYNC_PAT_AGGREGATOR)
			snprintf(agg, sizeof(agg), "%u", q->aggregator);
		if (q->rate_kbit >= 1000000)
			snprintf(rate, sizeof(rate), "%.4g Gbit/s", q->rate_kbit / 1e6);
		else if (q->rate_kbit >= 1000)
			snprintf(rate, sizeof(rate), "%.4g Mbit/s", q->rate_kbit / 1e3);
		else if (q->rate_kbit)
			snprintf(rate, sizeof(rate), "%u kbit/s", q->rate_kbit);
		fprintf(f, "%-5u %-22s %-13s %-8s %-10s %-13s", q->round, name, gs_blob_pat_name(q->pattern),
			q->pattern == GSYNC_PAT_UNICAST ? "unicast"
			: q->flags & GSYNC_SCF_UNICAST ? "unicast" : "mcast", agg, rate);
		if (gw) {
			gs_blob_clique_group(&v->hdr, ci, grp, sizeof(grp));
			fprintf(f, " %-*s", gw, grp);
		}
		for (unsigned i = 0; i < q->nmembers; i++)
			fprintf(f, " %u", v->mem[q->first + i]);
		fputc('\n', f);
	}
}

int gs_blob_dump(const void *data, size_t len, const gs_blob_hooks *h, FILE *f)
{
	gs_blob_view v;
	gs_err e;
	int rc = gs_blob_parse(data, len, h, &v, &e);
	if (rc) {
		fprintf(f, "malformed: %s\n", e.msg);
	} else {
		dump_header(&v, h, len, f);
		dump_cliques(&v, h, f);
		rc = gs_blob_rules(&v, h, &e);
		if (rc)
			fprintf(f, "\nREJECTED: %s\n", e.msg);
		else
			fprintf(f, "\naccepted: an exact all-reduce with the same result bits on every rank\n");
	}
	gs_blob_view_free(&v);
	return rc;
}
