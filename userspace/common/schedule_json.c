/* schedule_json.c - read and write schedules as JSON (format in
 * docs/schedules.md).  Members are named by island id so a schedule file
 * stays valid when a topology file is reordered. */
#include "gs.h"
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int known(const char *k, const char *const *allowed)
{
	if (k[0] == '_' || !strcmp(k, "comment"))
		return 1;
	for (int i = 0; allowed[i]; i++)
		if (!strcmp(k, allowed[i]))
			return 1;
	return 0;
}

static int check_keys(json_t *o, const char *path, const char *const *allowed, gs_err *e)
{
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) if (!known(k, allowed))
	{
		gs_seterr(e, "%s%s%s: unknown field", path, *path ? "." : "", k);
		return -1;
	}
	return 0;
}

static int parse_clique(json_t *o, const gs_topo *t, gs_sched *s, int r, int c, gs_err *e)
{
	static const char *const keys[] = { "members", "pattern", "aggregator", "weights", NULL };
	char p[128];
	snprintf(p, sizeof(p), "rounds[%d].cliques[%d]", r, c);
	if (!json_is_object(o)) {
		gs_seterr(e, "%s: must be an object", p);
		return -1;
	}
	if (check_keys(o, p, keys, e))
		return -1;
	json_t *mem = json_object_get(o, "members");
	if (!mem) {
		gs_seterr(e, "%s: missing required field \"members\"", p);
		return -1;
	}
	if (!json_is_array(mem) || json_array_size(mem) < 1) {
		gs_seterr(e, "%s.members: must be a non-empty array of island ids", p);
		return -1;
	}
	int k = (int)json_array_size(mem);
	gs_clique *q = gs_sched_add_clique(s, r, k);
	for (int i = 0; i < k; i++) {
		json_t *v = json_array_get(mem, (size_t)i);
		if (!json_is_string(v)) {
			gs_seterr(e, "%s.members[%d]: must be an island id (string)", p, i);
			return -1;
		}
		int n = gs_topo_find(t, json_string_value(v));
		if (n < 0 || !t->nodes[n].is_island) {
			gs_seterr(e, "%s.members[%d]: unknown island \"%s\"", p, i, json_string_value(v));
			return -1;
		}
		for (int j = 0; j < i; j++)
			if (q->m[j] == n) {
				gs_seterr(e, "%s.members[%d]: duplicate member \"%s\"", p, i, t->nodes[n].id);
				return -1;
			}
		q->m[i] = n;
	}
	json_t *pat = json_object_get(o, "pattern");
	if (pat) {
		if (!json_is_string(pat) || gs_pat_parse(json_string_value(pat)) < 0) {
			gs_seterr(e, "%s.pattern: must be one of multicast, rs_multicast, unicast, ring, tree, aggregator, inline, auto",
				  p);
			return -1;
		}
		q->pat = gs_pat_parse(json_string_value(pat));
	}
	json_t *ag = json_object_get(o, "aggregator");
	if (ag && !json_is_null(ag)) {
		if (!json_is_string(ag) || gs_topo_find(t, json_string_value(ag)) < 0) {
			gs_seterr(e, "%s.aggregator: unknown node %s%s%s", p, json_is_string(ag) ? "\"" : "",
				  json_is_string(ag) ? json_string_value(ag) : "(not a string)",
				  json_is_string(ag) ? "\"" : "");
			return -1;
		}
		q->agg = gs_topo_find(t, json_string_value(ag));
		if (q->pat != GS_PAT_AGGREGATOR && q->pat != GS_PAT_AUTO) {
			gs_seterr(e, "%s.aggregator: only meaningful with pattern \"aggregator\"", p);
			return -1;
		}
		if (q->pat == GS_PAT_AUTO)
			q->pat = GS_PAT_AGGREGATOR;
	}
	json_t *w = json_object_get(o, "weights");
	if (w) {
		if (!json_is_array(w) || (int)json_array_size(w) != k) {
			gs_seterr(e, "%s.weights: must be an array of %d numbers (one per member)", p, k);
			return -1;
		}
		for (int i = 0; i < k; i++) {
			json_t *v = json_array_get(w, (size_t)i);
			if (!json_is_number(v)) {
				gs_seterr(e, "%s.weights[%d]: must be a number", p, i);
				return -1;
			}
			q->w[i] = json_number_value(v);
		}
		q->w_given = 1;
	}
	return 0;
}

int gs_sched_parse(const char *text, const gs_topo *t, gs_sched *s, gs_err *e)
{
	static const char *const keys[] = { "format", "topology", "name", "bytes", "chunk_bytes",
					    "exact", "rho", "predicted_time_s", "objective",
					    "rounds", NULL };
	json_error_t je;
	memset(s, 0, sizeof(*s));
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		gs_seterr(e, "line %d, column %d: %s", je.line, je.column, je.text);
		return -1;
	}
	int rc = -1;
	json_t *rounds = json_object_get(root, "rounds"), *v;
	if (!json_is_object(root)) {
		gs_seterr(e, "top level: must be an object");
		goto out;
	}
	if (check_keys(root, "", keys, e))
		goto out;
	v = json_object_get(root, "format");
	if (v && (!json_is_string(v) || strcmp(json_string_value(v), "gsync-schedule/1"))) {
		gs_seterr(e, "format: expected \"gsync-schedule/1\"");
		goto out;
	}
	if (!rounds) {
		gs_seterr(e, "top level: missing required field \"rounds\"");
		goto out;
	}
	if (!json_is_array(rounds) || json_array_size(rounds) < 1) {
		gs_seterr(e, "rounds: must be a non-empty array");
		goto out;
	}
	gs_sched_init(s, (int)json_array_size(rounds));
	v = json_object_get(root, "name");
	snprintf(s->name, sizeof(s->name), "%s", json_is_string(v) ? json_string_value(v) : "schedule");
	v = json_object_get(root, "chunk_bytes");
	if (v) {
		if (!json_is_number(v) || !(json_number_value(v) >= 1)) {
			gs_seterr(e, "chunk_bytes: must be a number >= 1");
			goto out;
		}
		s->chunk_bytes = json_number_value(v);
	}
	/* the operation size the schedule was optimized for (optimize writes
	 * it; older files have none) */
	v = json_object_get(root, "bytes");
	if (v) {
		if (!json_is_integer(v) || json_integer_value(v) < 1) {
			gs_seterr(e, "bytes: must be a positive integer (the operation size in bytes the schedule was optimized for)");
			goto out;
		}
		s->bytes = (double)json_integer_value(v);
	}
	for (int r = 0; r < s->nr; r++) {
		static const char *const rkeys[] = { "cliques", NULL };
		json_t *ro = json_array_get(rounds, (size_t)r), *cl;
		char p[64];
		snprintf(p, sizeof(p), "rounds[%d]", r);
		if (!json_is_object(ro)) {
			gs_seterr(e, "%s: must be an object with \"cliques\"", p);
			goto out;
		}
		if (check_keys(ro, p, rkeys, e))
			goto out;
		cl = json_object_get(ro, "cliques");
		if (!json_is_array(cl) || json_array_size(cl) < 1) {
			gs_seterr(e, "%s.cliques: must be a non-empty array", p);
			goto out;
		}
		for (size_t c = 0; c < json_array_size(cl); c++)
			if (parse_clique(json_array_get(cl, c), t, s, r, (int)c, e))
				goto out;
	}
	rc = gs_sched_validate(t, s, e);
out:
	json_decref(root);
	if (rc && s->r)
		gs_sched_free(s);
	return rc;
}

int gs_sched_load(const char *path, const gs_topo *t, gs_sched *s, gs_err *e)
{
	FILE *f = fopen(path, "rb");
	gs_err sub;
	if (!f) {
		gs_seterr(e, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = gs_xmalloc(cap);
	for (;;) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (n + 1 < cap)
			break;
		cap *= 2;
		buf = gs_xrealloc(buf, cap);
	}
	fclose(f);
	buf[n] = 0;
	int rc = gs_sched_parse(buf, t, s, &sub);
	free(buf);
	if (rc)
		gs_seterr(e, "%s: %s", path, sub.msg);
	return rc;
}

void *gs_sched_to_json(const gs_topo *t, const gs_sched *s)
{
	json_t *root = json_object(), *rounds = json_array();
	json_object_set_new(root, "format", json_string("gsync-schedule/1"));
	json_object_set_new(root, "topology", json_string(t->name));
	json_object_set_new(root, "name", json_string(s->name));
	if (s->bytes >= 1)
		json_object_set_new(root, "bytes", json_integer((json_int_t)llround(s->bytes)));
	json_object_set_new(root, "chunk_bytes", json_real(s->chunk_bytes));
	for (int r = 0; r < s->nr; r++) {
		json_t *cl = json_array();
		for (int c = 0; c < s->r[r].nc; c++) {
			const gs_clique *q = &s->r[r].c[c];
			json_t *o = json_object(), *m = json_array(), *w = json_array();
			for (int i = 0; i < q->k; i++) {
				json_array_append_new(m, json_string(t->nodes[q->m[i]].id));
				json_array_append_new(w, json_real(q->w[i]));
			}
			json_object_set_new(o, "members", m);
			json_object_set_new(o, "pattern", json_string(gs_pat_name[q->pat]));
			if (q->pat == GS_PAT_AGGREGATOR && q->agg >= 0)
				json_object_set_new(o, "aggregator", json_string(t->nodes[q->agg].id));
			json_object_set_new(o, "weights", w);
			json_array_append_new(cl, o);
		}
		json_array_append_new(rounds, json_pack("{s:o}", "cliques", cl));
	}
	json_object_set_new(root, "rounds", rounds);
	return root;
}
