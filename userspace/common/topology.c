/* topology.c - load and validate a topology JSON file (schema in
 * docs/topology-format.md).  Syntax errors carry jansson's line/column;
 * semantic errors name the JSON path (e.g. "links[3].latency_ms") so a user
 * can find the bad value without reading our source. */
#include "gs.h"
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* keys every object may carry for human notes */
static int is_comment_key(const char *k)
{
	return k[0] == '_' || !strcmp(k, "comment");
}

/* reject unknown keys: a typo such as "latency" for "latency_ms" must not
 * silently fall back to a default */
static int check_keys(json_t *o, const char *path, const char *const *allowed, gs_err *e)
{
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		int ok = is_comment_key(k);
		for (int i = 0; !ok && allowed[i]; i++)
			ok = !strcmp(k, allowed[i]);
		if (!ok) {
			gs_seterr(e, "%s%s%s: unknown field", path, *path ? "." : "", k);
			return -1;
		}
	}
	return 0;
}

static int get_num(json_t *o, const char *path, const char *key, int required, double def,
		   double *out, gs_err *e)
{
	json_t *v = json_object_get(o, key);
	if (!v) {
		if (required) {
			gs_seterr(e, "%s: missing required field \"%s\"", path, key);
			return -1;
		}
		*out = def;
		return 0;
	}
	if (!json_is_number(v)) {
		gs_seterr(e, "%s.%s: must be a number", path, key);
		return -1;
	}
	*out = json_number_value(v);
	if (!isfinite(*out)) {
		gs_seterr(e, "%s.%s: must be finite", path, key);
		return -1;
	}
	return 0;
}

static int get_pos(json_t *o, const char *path, const char *key, int required, double def,
		   double *out, gs_err *e)
{
	if (get_num(o, path, key, required, def, out, e))
		return -1;
	if (json_object_get(o, key) && !(*out > 0)) {
		gs_seterr(e, "%s.%s: must be > 0", path, key);
		return -1;
	}
	return 0;
}

static int get_str(json_t *o, const char *path, const char *key, int required, const char **out,
		   gs_err *e)
{
	json_t *v = json_object_get(o, key);
	*out = NULL;
	if (!v) {
		if (required) {
			gs_seterr(e, "%s: missing required field \"%s\"", path, key);
			return -1;
		}
		return 0;
	}
	if (!json_is_string(v)) {
		gs_seterr(e, "%s.%s: must be a string", path, key);
		return -1;
	}
	*out = json_string_value(v);
	return 0;
}

static int parse_multicast(json_t *v, const char *path, int *mode, int *reach, gs_err *e)
{
	static const char *const keys[] = { "mode", "reach", NULL };
	const char *m;
	if (!json_is_object(v)) {
		gs_seterr(e, "%s: must be an object like {\"mode\":\"full\"}", path);
		return -1;
	}
	if (check_keys(v, path, keys, e) || get_str(v, path, "mode", 1, &m, e))
		return -1;
	json_t *r = json_object_get(v, "reach");
	*reach = 0;
	if (!strcmp(m, "none"))
		*mode = GS_MC_NONE;
	else if (!strcmp(m, "full"))
		*mode = GS_MC_FULL;
	else if (!strcmp(m, "reach"))
		*mode = GS_MC_REACH;
	else {
		gs_seterr(e, "%s.mode: must be \"none\", \"reach\" or \"full\" (got \"%s\")", path, m);
		return -1;
	}
	if (*mode == GS_MC_REACH) {
		if (!r) {
			gs_seterr(e, "%s: mode \"reach\" needs an integer \"reach\" >= 1", path);
			return -1;
		}
		if (!json_is_integer(r) || json_integer_value(r) < 1 ||
		    json_integer_value(r) > 1000000) {
			gs_seterr(e, "%s.reach: must be an integer >= 1", path);
			return -1;
		}
		*reach = (int)json_integer_value(r);
	} else if (r) {
		gs_seterr(e, "%s.reach: only allowed with mode \"reach\"", path);
		return -1;
	}
	return 0;
}

static int parse_node(json_t *o, const char *path, int island, gs_node *n, gs_err *e)
{
	static const char *const ikeys[] = { "id", "city", "egress_gbps", "ingress_gbps",
					     "multicast", "lat", "lon", NULL };
	const char *id, *city;
	if (!json_is_object(o)) {
		gs_seterr(e, "%s: must be an object", path);
		return -1;
	}
	if (check_keys(o, path, ikeys, e) || get_str(o, path, "id", 1, &id, e) ||
	    get_str(o, path, "city", 0, &city, e))
		return -1;
	if (!*id) {
		gs_seterr(e, "%s.id: must not be empty", path);
		return -1;
	}
	for (const char *c = id; *c; c++)
		if (*c == ' ' || *c == '\t' || *c == '\n' || *c == ',') {
			gs_seterr(e, "%s.id: \"%s\" must not contain spaces or commas", path, id);
			return -1;
		}
	n->id = gs_xstrdup(id);
	n->city = gs_xstrdup(city ? city : id);
	n->is_island = island;
	/* islands must state their access rates; PoPs default to unlimited */
	if (get_pos(o, path, "egress_gbps", island, 0, &n->egress_gbps, e) ||
	    get_pos(o, path, "ingress_gbps", island, 0, &n->ingress_gbps, e))
		return -1;
	n->mc_mode = GS_MC_INHERIT;
	json_t *mc = json_object_get(o, "multicast");
	if (mc) {
		char p[300];
		snprintf(p, sizeof(p), "%.200s.multicast", path);
		if (parse_multicast(mc, p, &n->mc_mode, &n->mc_reach, e))
			return -1;
	}
	json_t *la = json_object_get(o, "lat"), *lo = json_object_get(o, "lon");
	if (la || lo) {
		if (get_num(o, path, "lat", 1, 0, &n->lat, e) ||
		    get_num(o, path, "lon", 1, 0, &n->lon, e))
			return -1;
		if (fabs(n->lat) > 90 || fabs(n->lon) > 180) {
			gs_seterr(e, "%s: lat/lon out of range", path);
			return -1;
		}
		n->has_pos = 1;
	}
	return 0;
}

static int parse_root(json_t *root, gs_topo *t, gs_err *e)
{
	static const char *const keys[] = { "name", "source", "kind", "islands", "nodes", "links",
					    "multicast", "aggregation", "message_overhead_us", NULL };
	const char *s;
	char p[256];
	if (!json_is_object(root)) {
		gs_seterr(e, "top level: must be an object");
		return -1;
	}
	if (check_keys(root, "", keys, e))
		return -1;
	if (get_str(root, "top level", "name", 1, &s, e))
		return -1;
	t->name = gs_xstrdup(s);
	if (get_str(root, "top level", "source", 0, &s, e))
		return -1;
	t->source = gs_xstrdup(s ? s : "");
	if (get_str(root, "top level", "kind", 0, &s, e))
		return -1;
	t->kind = GS_KIND_LINKS;
	if (s && !strcmp(s, "matrix"))
		t->kind = GS_KIND_MATRIX;
	else if (s && strcmp(s, "links")) {
		gs_seterr(e, "kind: must be \"links\" or \"matrix\" (got \"%s\")", s);
		return -1;
	}
	if (get_num(root, "top level", "message_overhead_us", 0, 0, &t->overhead_us, e))
		return -1;
	if (t->overhead_us < 0) {
		gs_seterr(e, "message_overhead_us: must be >= 0");
		return -1;
	}
	t->mc_mode = GS_MC_NONE;
	json_t *mc = json_object_get(root, "multicast");
	if (mc && parse_multicast(mc, "multicast", &t->mc_mode, &t->mc_reach, e))
		return -1;

	json_t *isl = json_object_get(root, "islands"), *nod = json_object_get(root, "nodes");
	if (!isl) {
		gs_seterr(e, "top level: missing required field \"islands\"");
		return -1;
	}
	if (!json_is_array(isl) || json_array_size(isl) < 1) {
		gs_seterr(e, "islands: must be a non-empty array");
		return -1;
	}
	if (nod && !json_is_array(nod)) {
		gs_seterr(e, "nodes: must be an array");
		return -1;
	}
	if (nod && json_array_size(nod) && t->kind == GS_KIND_MATRIX) {
		gs_seterr(e, "nodes: not allowed with kind \"matrix\" (a matrix joins islands directly)");
		return -1;
	}
	t->n_islands = (int)json_array_size(isl);
	t->n_nodes = t->n_islands + (nod ? (int)json_array_size(nod) : 0);
	t->nodes = gs_xcalloc((size_t)t->n_nodes, sizeof(gs_node));
	for (int i = 0; i < t->n_nodes; i++) {
		int island = i < t->n_islands;
		int j = island ? i : i - t->n_islands;
		snprintf(p, sizeof(p), "%s[%d]", island ? "islands" : "nodes", j);
		if (parse_node(json_array_get(island ? isl : nod, (size_t)j), p, island,
			       &t->nodes[i], e))
			return -1;
		for (int k = 0; k < i; k++)
			if (!strcmp(t->nodes[k].id, t->nodes[i].id)) {
				gs_seterr(e, "%s.id: duplicate id \"%s\"", p, t->nodes[i].id);
				return -1;
			}
	}

	json_t *lk = json_object_get(root, "links");
	if (!lk) {
		if (t->n_islands > 1) {
			gs_seterr(e, "top level: missing required field \"links\"");
			return -1;
		}
	} else if (!json_is_array(lk)) {
		gs_seterr(e, "links: must be an array");
		return -1;
	}
	t->n_links = lk ? (int)json_array_size(lk) : 0;
	t->links = gs_xcalloc((size_t)t->n_links, sizeof(gs_link));
	for (int i = 0; i < t->n_links; i++) {
		static const char *const lkeys[] = { "a", "b", "latency_ms", "bandwidth_gbps", "loss",
						     NULL };
		json_t *o = json_array_get(lk, (size_t)i);
		gs_link *l = &t->links[i];
		const char *a, *b;
		snprintf(p, sizeof(p), "links[%d]", i);
		if (!json_is_object(o)) {
			gs_seterr(e, "%s: must be an object", p);
			return -1;
		}
		if (check_keys(o, p, lkeys, e) || get_str(o, p, "a", 1, &a, e) ||
		    get_str(o, p, "b", 1, &b, e))
			return -1;
		l->a = gs_topo_find(t, a);
		l->b = gs_topo_find(t, b);
		if (l->a < 0 || l->b < 0) {
			gs_seterr(e, "%s.%s: unknown island or node \"%s\"", p, l->a < 0 ? "a" : "b",
				  l->a < 0 ? a : b);
			return -1;
		}
		if (l->a == l->b) {
			gs_seterr(e, "%s: link from \"%s\" to itself", p, a);
			return -1;
		}
		if (t->kind == GS_KIND_MATRIX && (!t->nodes[l->a].is_island || !t->nodes[l->b].is_island)) {
			gs_seterr(e, "%s: kind \"matrix\" links must join two islands", p);
			return -1;
		}
		if (get_pos(o, p, "latency_ms", 1, 0, &l->latency_ms, e) ||
		    get_pos(o, p, "bandwidth_gbps", 1, 0, &l->bandwidth_gbps, e) ||
		    get_num(o, p, "loss", 0, 0, &l->loss, e))
			return -1;
		if (l->loss < 0 || l->loss >= 1) {
			gs_seterr(e, "%s.loss: must be in [0, 1)", p);
			return -1;
		}
		for (int k = 0; k < i; k++) {
			gs_link *m = &t->links[k];
			if ((m->a == l->a && m->b == l->b) || (m->a == l->b && m->b == l->a)) {
				gs_seterr(e, "%s: duplicate link %s-%s (also links[%d])", p, a, b, k);
				return -1;
			}
		}
	}
	if (t->kind == GS_KIND_MATRIX) {
		int need = t->n_islands * (t->n_islands - 1) / 2;
		if (t->n_links != need) {
			/* name one missing pair: more useful than a count */
			for (int i = 0; i < t->n_islands; i++)
				for (int j = i + 1; j < t->n_islands; j++) {
					int f = 0;
					for (int k = 0; k < t->n_links && !f; k++)
						f = (t->links[k].a == i && t->links[k].b == j) ||
						    (t->links[k].a == j && t->links[k].b == i);
					if (!f) {
						gs_seterr(e, "links: kind \"matrix\" needs every island pair; %s-%s is missing",
							  t->nodes[i].id, t->nodes[j].id);
						return -1;
					}
				}
		}
	}

	t->agg_of_node = gs_xmalloc(sizeof(int) * (size_t)t->n_nodes);
	for (int i = 0; i < t->n_nodes; i++)
		t->agg_of_node[i] = -1;
	json_t *ag = json_object_get(root, "aggregation");
	if (ag && !json_is_array(ag)) {
		gs_seterr(e, "aggregation: must be an array");
		return -1;
	}
	t->n_aggs = ag ? (int)json_array_size(ag) : 0;
	t->aggs = gs_xcalloc((size_t)t->n_aggs, sizeof(gs_agg));
	for (int i = 0; i < t->n_aggs; i++) {
		static const char *const akeys[] = { "at", "fan_in", "throughput_gbps", "delay_us", NULL };
		json_t *o = json_array_get(ag, (size_t)i), *k;
		gs_agg *a = &t->aggs[i];
		const char *at;
		snprintf(p, sizeof(p), "aggregation[%d]", i);
		if (!json_is_object(o)) {
			gs_seterr(e, "%s: must be an object", p);
			return -1;
		}
		if (check_keys(o, p, akeys, e) || get_str(o, p, "at", 1, &at, e))
			return -1;
		a->node = gs_topo_find(t, at);
		if (a->node < 0) {
			gs_seterr(e, "%s.at: unknown island or node \"%s\"", p, at);
			return -1;
		}
		if (t->agg_of_node[a->node] >= 0) {
			gs_seterr(e, "%s.at: \"%s\" already has an aggregation point", p, at);
			return -1;
		}
		t->agg_of_node[a->node] = i;
		k = json_object_get(o, "fan_in");
		if (!k) {
			gs_seterr(e, "%s: missing required field \"fan_in\"", p);
			return -1;
		}
		if (!json_is_integer(k) || json_integer_value(k) < 2 || json_integer_value(k) > 1000000) {
			gs_seterr(e, "%s.fan_in: must be an integer >= 2", p);
			return -1;
		}
		a->fan_in = (int)json_integer_value(k);
		if (get_pos(o, p, "throughput_gbps", 1, 0, &a->throughput_gbps, e) ||
		    get_num(o, p, "delay_us", 0, 0, &a->delay_us, e))
			return -1;
		if (a->delay_us < 0) {
			gs_seterr(e, "%s.delay_us: must be >= 0", p);
			return -1;
		}
	}
	return 0;
}

int gs_topo_parse(const char *text, gs_topo *t, gs_err *e)
{
	json_error_t je;
	memset(t, 0, sizeof(*t));
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		gs_seterr(e, "line %d, column %d: %s", je.line, je.column, je.text);
		return -1;
	}
	int rc = parse_root(root, t, e);
	json_decref(root);
	if (!rc)
		rc = gs_paths_compute(t, e);
	if (rc)
		gs_topo_free(t);
	return rc;
}

int gs_topo_load(const char *path, gs_topo *t, gs_err *e)
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
		size_t r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
		if (n + 1 < cap)
			break;
		cap *= 2;
		buf = gs_xrealloc(buf, cap);
	}
	fclose(f);
	buf[n] = 0;
	int rc = gs_topo_parse(buf, t, &sub);
	free(buf);
	if (rc)
		gs_seterr(e, "%s: %s", path, sub.msg);
	return rc;
}

void gs_topo_free(gs_topo *t)
{
	for (int i = 0; t->nodes && i < t->n_nodes; i++) {
		free(t->nodes[i].id);
		free(t->nodes[i].city);
	}
	free(t->nodes);
	free(t->links);
	free(t->aggs);
	free(t->agg_of_node);
	free(t->name);
	free(t->source);
	free(t->lat);
	free(t->pred);
	free(t->pred_link);
	memset(t, 0, sizeof(*t));
}

int gs_topo_find(const gs_topo *t, const char *id)
{
	for (int i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].id && !strcmp(t->nodes[i].id, id))
			return i;
	return -1;
}

/* the reach of a send is that of the sending node: its own override, or
 * the network-wide capability */
int gs_topo_reach(const gs_topo *t, int node)
{
	int mode = t->mc_mode, reach = t->mc_reach;
	if (node >= 0 && t->nodes[node].mc_mode != GS_MC_INHERIT) {
		mode = t->nodes[node].mc_mode;
		reach = t->nodes[node].mc_reach;
	}
	return mode == GS_MC_NONE ? 0 : mode == GS_MC_FULL ? INT_MAX : reach;
}

static json_t *mc_json(int mode, int reach)
{
	if (mode == GS_MC_REACH)
		return json_pack("{s:s,s:i}", "mode", "reach", "reach", reach);
	return json_pack("{s:s}", "mode", mode == GS_MC_FULL ? "full" : "none");
}

int gs_topo_write(const gs_topo *t, FILE *f)
{
	json_t *r = json_object(), *isl = json_array(), *nod = json_array(), *lk = json_array(),
	       *ag = json_array();
	json_object_set_new(r, "name", json_string(t->name));
	json_object_set_new(r, "source", json_string(t->source));
	json_object_set_new(r, "kind", json_string(t->kind == GS_KIND_MATRIX ? "matrix" : "links"));
	json_object_set_new(r, "message_overhead_us", json_real(t->overhead_us));
	json_object_set_new(r, "multicast", mc_json(t->mc_mode, t->mc_reach));
	for (int i = 0; i < t->n_nodes; i++) {
		const gs_node *n = &t->nodes[i];
		json_t *o = json_pack("{s:s,s:s}", "id", n->id, "city", n->city);
		if (n->is_island || n->egress_gbps > 0)
			json_object_set_new(o, "egress_gbps", json_real(n->egress_gbps));
		if (n->is_island || n->ingress_gbps > 0)
			json_object_set_new(o, "ingress_gbps", json_real(n->ingress_gbps));
		if (n->has_pos) {
			json_object_set_new(o, "lat", json_real(n->lat));
			json_object_set_new(o, "lon", json_real(n->lon));
		}
		if (n->mc_mode != GS_MC_INHERIT)
			json_object_set_new(o, "multicast", mc_json(n->mc_mode, n->mc_reach));
		json_array_append_new(n->is_island ? isl : nod, o);
	}
	for (int i = 0; i < t->n_links; i++) {
		const gs_link *l = &t->links[i];
		json_t *o = json_pack("{s:s,s:s,s:f,s:f}", "a", t->nodes[l->a].id, "b",
				      t->nodes[l->b].id, "latency_ms", l->latency_ms,
				      "bandwidth_gbps", l->bandwidth_gbps);
		if (l->loss > 0)
			json_object_set_new(o, "loss", json_real(l->loss));
		json_array_append_new(lk, o);
	}
	for (int i = 0; i < t->n_aggs; i++) {
		const gs_agg *a = &t->aggs[i];
		json_array_append_new(ag, json_pack("{s:s,s:i,s:f,s:f}", "at", t->nodes[a->node].id,
						    "fan_in", a->fan_in, "throughput_gbps",
						    a->throughput_gbps, "delay_us", a->delay_us));
	}
	json_object_set_new(r, "islands", isl);
	if (json_array_size(nod))
		json_object_set_new(r, "nodes", nod);
	else
		json_decref(nod);
	json_object_set_new(r, "links", lk);
	json_object_set_new(r, "aggregation", ag);
	int rc = json_dumpf(r, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	fputc('\n', f);
	json_decref(r);
	return rc;
}

int gs_topo_clone(const gs_topo *src, gs_topo *dst)
{
	char *buf = NULL;
	size_t n = 0;
	gs_err e;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		return -1;
	gs_topo_write(src, f);
	fclose(f);
	int rc = gs_topo_parse(buf, dst, &e);
	free(buf);
	return rc;
}
