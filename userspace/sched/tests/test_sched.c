/* test_sched.c - unit tests of gsync-sched (TAP).  Cost formulas against
 * hand-computed cases, exactness of produced schedules, rho solvers,
 * optimizer vs exhaustive search, JSON errors.  argv[1]: topologies dir. */
#include "cli.h"
#include "figure.h"
#include "gs.h"
#include "structure.h"
#include "test.h"
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int n_test, n_fail;
static const char *dir = "../../topologies";

void ok(int cond, const char *fmt, ...)
{
	va_list ap;
	n_test++;
	if (!cond)
		n_fail++;
	printf("%sok %d - ", cond ? "" : "not ", n_test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static int near(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-12;
}

int load(const char *name, gs_topo *t)
{
	char p[512];
	gs_err e;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (gs_topo_load(p, t, &e)) {
		printf("# %s\n", e.msg);
		return -1;
	}
	return 0;
}

/* ---- JSON errors ---- */
static void topo_err(const char *json, const char *want, const char *what)
{
	gs_topo t;
	gs_err e;
	e.msg[0] = 0;
	int rc = gs_topo_parse(json, &t, &e);
	int good = rc != 0 && strstr(e.msg, want) != NULL;
	if (!good)
		printf("# got rc=%d msg '%s', want '%s'\n", rc, e.msg, want);
	if (!rc)
		gs_topo_free(&t);
	ok(good, "topology error: %s", what);
}

#define ISL2 "\"islands\":[{\"id\":\"A\",\"egress_gbps\":10,\"ingress_gbps\":10},{\"id\":\"B\",\"egress_gbps\":10,\"ingress_gbps\":10}]"

static void test_json_errors(void)
{
	topo_err("{\"name\":\"x\",\"islands\":[", "line 1, column", "truncated file gives line/column");
	topo_err("{\"name\":\"x\",\n \"islands\": [1,]}", "line 2", "syntax error on line 2 reported as line 2");
	topo_err("[1,2]", "top level: must be an object", "top level not an object");
	topo_err("{\"name\":\"x\"," ISL2 ",\"links\":[{\"a\":\"A\",\"b\":\"B\",\"latency_ms\":\"5\",\"bandwidth_gbps\":1}]}",
		 "links[0].latency_ms: must be a number", "wrong type names the field");
	topo_err("{\"name\":\"x\"," ISL2 ",\"links\":[{\"a\":\"A\",\"b\":\"Q\",\"latency_ms\":5,\"bandwidth_gbps\":1}]}",
		 "links[0].b: unknown island or node \"Q\"", "unknown island in a link");
	topo_err("{\"name\":\"x\"," ISL2 ",\"links\":[{\"a\":\"A\",\"b\":\"B\",\"latency_ms\":-5,\"bandwidth_gbps\":1}]}",
		 "links[0].latency_ms: must be > 0", "negative latency");
	topo_err("{\"name\":\"x\"," ISL2 ",\"links\":[{\"a\":\"A\",\"b\":\"B\",\"latency_ms\":5,\"bandwidth_gbps\":0}]}",
		 "links[0].bandwidth_gbps: must be > 0", "zero bandwidth");
	topo_err("{\"name\":\"x\",\"islands\":[{\"id\":\"A\",\"egress_gbps\":1,\"ingress_gbps\":1},{\"id\":\"A\",\"egress_gbps\":1,\"ingress_gbps\":1}],\"links\":[]}",
		 "islands[1].id: duplicate id \"A\"", "duplicate island id");
	topo_err("{\"name\":\"x\"," ISL2 ",\"links\":[]}", "topology is disconnected", "disconnected graph");
	topo_err("{\"name\":\"x\"," ISL2 ",\"links\":[{\"a\":\"A\",\"b\":\"B\",\"latency\":5,\"bandwidth_gbps\":1}]}",
		 "links[0].latency: unknown field", "misspelt field is not ignored");
	topo_err("{\"name\":\"x\",\"islands\":[{\"id\":\"A\",\"ingress_gbps\":1}]}",
		 "islands[0]: missing required field \"egress_gbps\"", "missing access rate");
	topo_err("{\"name\":\"x\",\"multicast\":{\"mode\":\"some\"}," ISL2 ",\"links\":[]}",
		 "multicast.mode: must be", "bad multicast mode");
	topo_err("{\"name\":\"x\",\"multicast\":{\"mode\":\"reach\"}," ISL2 ",\"links\":[]}",
		 "needs an integer \"reach\"", "reach mode without reach");
	topo_err("{\"name\":\"x\",\"kind\":\"matrix\",\"islands\":[{\"id\":\"A\",\"egress_gbps\":1,\"ingress_gbps\":1},{\"id\":\"B\",\"egress_gbps\":1,\"ingress_gbps\":1},{\"id\":\"C\",\"egress_gbps\":1,\"ingress_gbps\":1}],"
		 "\"links\":[{\"a\":\"A\",\"b\":\"B\",\"latency_ms\":5,\"bandwidth_gbps\":1},{\"a\":\"A\",\"b\":\"C\",\"latency_ms\":5,\"bandwidth_gbps\":1}]}",
		 "B-C is missing", "matrix with a missing pair");
	topo_err("{\"name\":\"x\"," ISL2 ",\"links\":[{\"a\":\"A\",\"b\":\"B\",\"latency_ms\":5,\"bandwidth_gbps\":1}],\"aggregation\":[{\"at\":\"A\",\"fan_in\":1,\"throughput_gbps\":1}]}",
		 "aggregation[0].fan_in: must be an integer >= 2", "aggregation fan-in below 2");
	topo_err("{\"name\":\"x\"," ISL2 ",\"links\":[{\"a\":\"A\",\"b\":\"B\",\"latency_ms\":5,\"bandwidth_gbps\":1},{\"a\":\"B\",\"b\":\"A\",\"latency_ms\":5,\"bandwidth_gbps\":1}]}",
		 "links[1]: duplicate link", "duplicate link");
	topo_err("{\"name\":\"x\"," ISL2 ",\"links\":[{\"a\":\"A\",\"b\":\"B\",\"latency_ms\":5,\"bandwidth_gbps\":1,\"loss\":1.5}]}",
		 "links[0].loss: must be in [0, 1)", "loss out of range");
}

static void sched_err(const gs_topo *t, const char *json, const char *want, const char *what)
{
	gs_sched s;
	gs_err e;
	e.msg[0] = 0;
	int rc = gs_sched_parse(json, t, &s, &e);
	int good = rc && strstr(e.msg, want);
	if (!good)
		printf("# got rc=%d msg '%s', want '%s'\n", rc, e.msg, want);
	if (!rc)
		gs_sched_free(&s);
	ok(good, "schedule error: %s", what);
}

static void test_sched_errors(const gs_topo *nine)
{
	sched_err(nine, "{\"rounds\":[{\"cliques\":[{\"members\":[\"AMS\",", "line 1", "truncated schedule");
	sched_err(nine, "{\"rounds\":[{\"cliques\":[{\"members\":[\"AMS\",\"XXX\"]}]}]}",
		  "rounds[0].cliques[0].members[1]: unknown island \"XXX\"", "unknown island");
	sched_err(nine, "{\"rounds\":[{\"cliques\":[{\"members\":[\"AMS\",\"FRA\"]},{\"members\":[\"FRA\"]}]}]}",
		  "in two cliques of the same round", "island twice in a round");
	sched_err(nine, "{\"rounds\":[{\"cliques\":[{\"members\":[\"AMS\",\"FRA\"],\"weights\":[0.5,0.6]}]}]}",
		  "weights: must sum to 1", "weights not summing to one");
	sched_err(nine, "{\"rounds\":[{\"cliques\":[{\"members\":[\"AMS\",\"FRA\"],\"pattern\":\"gossip\"}]}]}",
		  "rounds[0].cliques[0].pattern: must be one of", "unknown pattern");
	sched_err(nine, "{\"rounds\":[]}", "rounds: must be a non-empty array", "no rounds");
}

/* ---- cost formulas ---- */
/* simulate JSON on T; BLOCKS: under the block model (--block-model),
 * else as a new model costs it */
static double sim1b(const gs_topo *t, gs_params p, const char *json, gs_result *keep, int blocks)
{
	gs_sched s;
	gs_err e;
	gs_result r;
	if (gs_sched_parse(json, t, &s, &e)) {
		printf("# %s\n", e.msg);
		return NAN;
	}
	gs_model *m = gs_model_new(t, &p);
	if (blocks)                         /* else the model's default: off */
		gs_model_set_block_model(m, 1);
	double T = NAN;
	if (!gs_simulate(m, &s, &r, &e)) {
		T = r.time;
		if (keep)
			*keep = r;
		else
			gs_result_free(&r);
	} else
		printf("# %s\n", e.msg);
	gs_model_free(m);
	gs_sched_free(&s);
	return T;
}

static double sim1(const gs_topo *t, gs_params p, const char *json, gs_result *keep)
{
	return sim1b(t, p, json, keep, 0);
}

static void test_costs(void)
{
	gs_topo two, line, star;
	if (load("two-islands.json", &two) || load("four-line.json", &line) || load("four-star.json", &star)) {
		ok(0, "load small topologies");
		return;
	}
	/* two islands, 8 Gb/s access = 1e9 B/s, 10 ms, one chunk, no overhead */
	gs_params p = { 1e9, 1e9, 0 };
	double T = sim1(&two, p, "{\"rounds\":[{\"cliques\":[{\"members\":[\"A\",\"B\"],\"pattern\":\"multicast\"}]}]}", NULL);
	ok(near(T, 1.010, 1e-9), "multicast k=2: l + M/E = 1.010 s (got %.6f)", T);
	T = sim1(&two, p, "{\"rounds\":[{\"cliques\":[{\"members\":[\"A\",\"B\"],\"pattern\":\"ring\"}]}]}", NULL);
	ok(near(T, 1.020, 1e-9), "ring k=2: 2(k-1)(l + (M/k)/B) = 1.020 s (got %.6f)", T);
	T = sim1(&two, p, "{\"rounds\":[{\"cliques\":[{\"members\":[\"A\",\"B\"],\"pattern\":\"rs_multicast\"}]}]}", NULL);
	ok(near(T, 1.020, 1e-9), "reduce-scatter + multicast all-gather k=2: 2l + M/E = 1.020 s (got %.6f)", T);
	p.o = 1e-3;
	T = sim1(&two, p, "{\"rounds\":[{\"cliques\":[{\"members\":[\"A\",\"B\"],\"pattern\":\"ring\"}]}]}", NULL);
	ok(near(T, 1.022, 1e-9), "per-message overhead counted per step: ring k=2 with o=1ms = 1.022 s (got %.6f)", T);

	/* four islands on a line, 5 ms hops, 10 Gb/s = 1.25e9 B/s everywhere */
	gs_params q = { 1.25e9, 1.25e9, 0 };
	T = sim1(&line, q, "{\"rounds\":[{\"cliques\":[{\"members\":[\"A\",\"B\",\"C\",\"D\"],\"pattern\":\"unicast\"}]}]}", NULL);
	ok(near(T, 4.015, 1e-9), "unicast mesh on a line: link B->C carries 4M: 4 s + 15 ms (got %.6f)", T);
	T = sim1(&line, q, "{\"rounds\":[{\"cliques\":[{\"members\":[\"A\",\"B\",\"C\",\"D\"],\"pattern\":\"multicast\"}]}]}", NULL);
	ok(near(T, 3.015, 1e-9), "multicast on a line: trees count bytes once per link, ingress 3M: 3.015 s (got %.6f)", T);
	/* two rounds with link sharing and 10 chunks */
	q.chunk = q.M / 10;
	gs_result r;
	const char *two_rounds = "{\"rounds\":[{\"cliques\":[{\"members\":[\"A\",\"B\"],\"pattern\":\"multicast\"},{\"members\":[\"C\",\"D\"],\"pattern\":\"multicast\"}]},"
				 "{\"cliques\":[{\"members\":[\"A\",\"C\"],\"pattern\":\"multicast\"},{\"members\":[\"B\",\"D\"],\"pattern\":\"multicast\"}]}]}";
	T = sim1(&line, q, two_rounds, &r);
	ok(near(T, 2.115, 1e-9), "pipelined 2 rounds, concurrent cliques share B->C: 15ms + 0.1 + 0.2 + 9*0.2 = 2.115 s (got %.6f)", T);
	ok(near(r.time_nopipe, 3.015, 1e-9), "same without pipelining: 1.005 + 2.010 = 3.015 s (got %.6f)", r.time_nopipe);
	gs_result_free(&r);

	/* star: PoP hub H with an FPGA (fan-in 4, 100 Gb/s), reach 2 */
	gs_params s = { 1.25e9, 1.25e9, 10e-6 };
	const char *agg = "{\"rounds\":[{\"cliques\":[{\"members\":[\"W\",\"X\",\"Y\",\"Z\"],\"pattern\":\"aggregator\",\"aggregator\":\"H\"}]}]}";
	T = sim1(&star, s, agg, &r);
	ok(near(T, 1.004022, 1e-9), "via PoP aggregator: M/E + 2+2 ms + 2 us FPGA + 2 steps x 10 us = 1.004022 s (got %.6f)", T);
	gs_result_free(&r);
	star.aggs[0].fan_in = 2;
	T = sim1(&star, s, agg, NULL);
	ok(near(T, 2.004022, 1e-9), "fan-in 2 < k=4: members receive 2 partial sums: 2.004022 s (got %.6f)", T);
	star.aggs[0].fan_in = 4;
	star.aggs[0].throughput_gbps = 20;      /* 2.5e9 B/s: 4M takes 2 s */
	T = sim1(&star, s, agg, NULL);
	ok(near(T, 2.004022, 1e-9), "aggregation throughput limit: kM/A = 2 s dominates (got %.6f)", T);
	star.aggs[0].throughput_gbps = 100;
	T = sim1(&star, s, "{\"rounds\":[{\"cliques\":[{\"members\":[\"W\",\"X\",\"Y\",\"Z\"],\"pattern\":\"multicast\"}]}]}", NULL);
	/* reach 2: 3 receivers -> 2 copies: egress 2M = 2 s; ingress 3M = 3 s */
	ok(near(T, 3.004010, 1e-9), "multicast reach 2, k=4: ingress 3M bounds, egress 2 copies (got %.6f)", T);
	gs_topo_free(&two);
	gs_topo_free(&line);
	gs_topo_free(&star);
}

/* ---- rs_multicast shares: whole blocks, block b to position b mod k ---- */
static void test_owned(void)
{
	static const struct { double bytes, block; int k; double own[9]; const char *what; } c[] = {
		{ 4 * 1048576.0, 1048576, 3, { 2 * 1048576.0, 1048576, 1048576 }, "4 blocks over 3: 2, 1, 1 blocks" },
		{ 2 * 1048576.0, 1048576, 3, { 1048576, 1048576, 0 }, "2 blocks over 3: the third owns nothing" },
		{ 1048576, 4 * 1048576.0, 9, { 1048576 }, "block larger than the operation: position 0 owns it all" },
		{ 1048576, 1048576, 9, { 1048576 }, "one block over 9: position 0 owns it all" },
		{ 1000, 300, 3, { 400, 300, 300 }, "partial last block: 1000 B in 300 B blocks over 3 = 400, 300, 300" },
		{ 2.5 * 1048576, 1048576, 2, { 1.5 * 1048576, 1048576 }, "2.5 MiB in 1 MiB blocks over 2: the short block goes to 0" },
		{ 1100, 300, 3, { 300 + 200, 300, 300 }, "1100 B: 4 blocks, the 200 B one is position 0's" },
		{ 1100, 300, 2, { 600, 300 + 200 }, "1100 B over 2: the short block is position 1's" },
		{ 256 * 1048576.0, 4 * 1048576.0, 9, { 32 * 1048576.0, 28 * 1048576.0, 28 * 1048576.0, 28 * 1048576.0,
						    28 * 1048576.0, 28 * 1048576.0, 28 * 1048576.0, 28 * 1048576.0,
						    28 * 1048576.0 }, "64 blocks over 9: 8, then 7 each" },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int good = 1;
		for (int m = 0; m < c[i].k; m++)
			if (gs_owned_bytes(c[i].bytes, c[i].block, c[i].k, m) != c[i].own[m]) {
				printf("# position %d: %.0f, want %.0f\n", m, gs_owned_bytes(c[i].bytes, c[i].block, c[i].k, m),
				       c[i].own[m]);
				good = 0;
			}
		ok(good, "owned bytes: %s", c[i].what);
	}
	/* any case: the shares add up to the operation, differ by at most a
	 * block, and nobody owns anything when there are fewer blocks */
	uint64_t rng = 11;
	int good = 1;
	for (int i = 0; i < 2000 && good; i++) {
		double bytes = 1 + gs_rng_below(&rng, 1 << 22), block = 1 + gs_rng_below(&rng, 1 << 20);
		int k = 1 + gs_rng_below(&rng, 16);
		double sum = 0, lo = INFINITY, hi = 0, nb = ceil(bytes / block);
		int zero = 0;
		for (int m = 0; m < k; m++) {
			double o = gs_owned_bytes(bytes, block, k, m);
			sum += o;
			lo = fmin(lo, o);
			hi = fmax(hi, o);
			zero += o == 0;
		}
		good = sum == bytes && hi - lo <= block && zero == (nb < k ? k - (int)nb : 0);
		if (!good)
			printf("# %.0f bytes, block %.0f, k %d: sum %.0f, spread %.0f, %d own nothing\n", bytes, block, k,
			       sum, hi - lo, zero);
	}
	ok(good, "owned bytes: 2000 random cases add up to the operation, spread <= one block");
}

/* ---- the block model (--block-model) charges rs_multicast owners those
 * shares; off by default ---- */
static void test_block_model(const gs_topo *nine)
{
	const double MiB = 1024.0 * 1024;
	/* four islands on a line,
	 * 1.25e9 B/s everywhere, 5 ms hops, M = 1.25e9 B, no overhead */
	gs_topo line;
	if (load("four-line.json", &line)) {
		ok(0, "load four-line");
		return;
	}
	const char *rs = "{\"rounds\":[{\"cliques\":[{\"members\":[\"A\",\"B\",\"C\",\"D\"],\"pattern\":\"rs_multicast\"}]}]}";
	gs_params q = { 1.25e9, 1.25e9, 0 };
	double T = sim1b(&line, q, rs, NULL, 1);
	ok(near(T, 3.030, 1e-9), "block model: rs_multicast, 1 block over 4: A reduces it all, its ingress takes 3M: 3 s + 2 x 15 ms (got %.6f)", T);
	/* off (the default): M/k each, whatever the blocks */
	double T0 = sim1(&line, q, rs, NULL);
	ok(near(T0, 1.530, 1e-9), "default (no block model): rs_multicast of 1 block over 4 still costs M/4 each: 1.530 s (got %.6f)", T0);
	q.chunk = q.M / 2;
	T = sim1b(&line, q, rs, NULL, 1);
	ok(near(T, 2.030, 1e-9), "block model: rs_multicast, 2 blocks over 4: A and B own M/2, B's ingress takes 2M: 2.030 s (got %.6f)", T);
	q.chunk = q.M / 4;
	T = sim1b(&line, q, rs, NULL, 1);
	ok(near(T, 1.530, 1e-9), "block model: rs_multicast, 4 blocks over 4: M/4 each, ingress 1.5M: 1.530 s (got %.6f)", T);
	gs_topo_free(&line);

	/* positions are by rank (topology order), not by the order listed: with
	 * one block the lowest-ranked member does what an aggregator does */
	gs_params p9 = { 4 * MiB, 4 * MiB, 20e-6 };
	const char *three = "{\"rounds\":[{\"cliques\":[{\"members\":[\"TYO\",\"LON\",\"AMS\"],\"pattern\":\"%s\"%s}]}]}";
	const char *how[3][2] = { { "rs_multicast", "" }, { "aggregator", ",\"aggregator\":\"AMS\"" },
				  { "aggregator", ",\"aggregator\":\"TYO\"" } };
	double bw[3];
	gs_topo soft;                       /* no FPGAs: aggregators reduce in software */
	gs_topo_clone(nine, &soft);
	soft.n_aggs = 0;
	for (int i = 0; i < soft.n_nodes; i++)
		soft.agg_of_node[i] = -1;
	soft.nodes[gs_topo_find(&soft, "TYO")].ingress_gbps = 1;   /* an aggregator there is slower */
	for (int i = 0; i < 3; i++) {
		char json[256];
		gs_result r;
		snprintf(json, sizeof(json), three, how[i][0], how[i][1]);
		bw[i] = isnan(sim1b(&soft, p9, json, &r, 1)) ? NAN : r.bw[0];
		if (!isnan(bw[i]))
			gs_result_free(&r);
	}
	gs_topo_free(&soft);
	ok(near(bw[0], bw[1], 1e-12) && !near(bw[0], bw[2], 1e-3),
	   "block model: rs_multicast of one block loads the links as an aggregator at its lowest rank (AMS %.6f s), not at the first listed (TYO %.6f s): %.6f s",
	   bw[1], bw[2], bw[0]);
}

static void test_paths(const gs_topo *nine, const gs_topo *pub)
{
	int seo = gs_topo_find(nine, "SEO"), bar = gs_topo_find(nine, "BAR");
	int lon = gs_topo_find(nine, "LON"), fra = gs_topo_find(nine, "FRA");
	ok(near(gs_lat(nine, seo, bar) * 1e3, 143.16, 1e-9), "private SEO-BAR = shortest path SEO-TYO-LAX-NYC-BAR 143.16 ms (got %.3f)",
	   gs_lat(nine, seo, bar) * 1e3);
	ok(near(gs_lat(nine, lon, fra) * 1e3, 3.56, 1e-9), "private LON-FRA via AMS 3.56 ms beats the direct 4.96 ms link");
	int a = gs_topo_find(pub, "AMS"), b = gs_topo_find(pub, "BAR"), f = gs_topo_find(pub, "FRA");
	ok(near(gs_lat(pub, a, b) * 1e3, 152.39, 1e-9) && near(gs_lat(pub, f, b) * 1e3, 152.91, 1e-9),
	   "public matrix: pairs use their own entry (AMS-BAR 152.39, FRA-BAR 152.91)");
	char *buf = NULL;
	size_t n = 0;
	FILE *mf = open_memstream(&buf, &n);
	gs_paths_print(nine, mf);
	fclose(mf);
	int lines = 0;
	for (size_t i = 0; i < n; i++)
		lines += buf[i] == '\n';
	ok(lines == 10 && !strncmp(buf, "AMS BAR FRA LAX LON NYC SEO SIN TYO\n", 36),
	   "paths output: header of ids + one row per island");
	free(buf);
}

/* ---- mixing ---- */
static void test_mixing(void)
{
	double a[4] = { 2, 1, 1, 2 }, ev[2];
	gs_sym_eig(a, 2, ev);
	ok(near(fmin(ev[0], ev[1]), 1, 1e-12) && near(fmax(ev[0], ev[1]), 3, 1e-12), "Jacobi eigenvalues of [[2,1],[1,2]] = 1, 3");
	/* every shape is exact, whatever N */
	int all = 1;
	for (int N = 2; N <= 30; N++) {
		gs_struct *st;
		int ns = gs_struct_all(N, &st);
		for (int i = 0; i < ns; i++) {
			gs_sched s;
			gs_sched_init(&s, st[i].nr);
			for (int r = 0; r < st[i].nr; r++)
				for (int c = 0; c < st[i].ncl[r]; c++) {
					int k = 0;
					for (int p = 0; p < N; p++)
						k += st[i].cl[r * N + p] == c;
					gs_clique *q = gs_sched_add_clique(&s, r, k);
					k = 0;
					for (int p = 0; p < N; p++)
						if (st[i].cl[r * N + p] == c) {
							q->w[k] = st[i].w[r * N + p];
							q->m[k++] = p;
						}
				}
			if (!gs_sched_is_exact(&s, N, 1e-12) || gs_rho(&s, N, 0, s.nr, 3) > 1e-6) {
				printf("# N=%d %s not exact\n", N, st[i].desc);
				all = 0;
			}
			gs_sched_free(&s);
			gs_struct_free(&st[i]);
		}
		free(st);
	}
	ok(all, "every grid / two-level / one-clique shape for N = 2..30 is an exact average");
	/* partial schedules: power iteration agrees with the dense solve */
	uint64_t rng = 42;
	int agree = 1;
	for (int trial = 0; trial < 20; trial++) {
		int N = 3 + gs_rng_below(&rng, 10), nr = 1 + gs_rng_below(&rng, 3);
		gs_sched s;
		gs_sched_init(&s, nr);
		for (int r = 0; r < nr; r++) {
			int i = 0;
			while (i < N) {
				int k = 1 + gs_rng_below(&rng, 3);
				if (k > N - i)
					k = N - i;
				gs_clique *q = gs_sched_add_clique(&s, r, k);
				double sum = 0;
				for (int j = 0; j < k; j++) {
					q->m[j] = (i + j + r * 2) % N;
					q->w[j] = 0.5 + gs_rng_unit(&rng);
					sum += q->w[j];
				}
				for (int j = 0; j < k; j++)
					q->w[j] /= sum;
				i += k;
			}
		}
		double a1 = gs_rho(&s, N, 0, nr, 9), a2 = gs_rho_dense(&s, N, 0, nr);
		if (!near(a1, a2, 1e-6)) {
			printf("# trial %d N=%d: power %.9f dense %.9f\n", trial, N, a1, a2);
			agree = 0;
		}
		gs_sched_free(&s);
	}
	ok(agree, "rho by power iteration = rho by dense Jacobi on 20 random partial schedules");
	gs_sched s;
	gs_sched_init(&s, 1);
	for (int c = 0; c < 3; c++) {
		gs_clique *q = gs_sched_add_clique(&s, 0, 3);
		for (int j = 0; j < 3; j++)
			q->m[j] = 3 * c + j;
	}
	ok(near(gs_rho(&s, 9, 0, 1, 1), 1, 1e-9) && !gs_sched_is_exact(&s, 9, 1e-9),
	   "three separate cliques of 3: rho = 1, not exact");
	gs_sched_free(&s);
}

static char *sched_str(const gs_topo *t, const gs_sched *s)
{
	json_t *j = gs_sched_to_json(t, s);
	char *str = json_dumps(j, JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
	json_decref(j);
	return str;
}

static void test_optimizer(const gs_topo *nine, const gs_topo *pub)
{
	gs_params p = { 256.0 * 1024 * 1024, 4.0 * 1024 * 1024, 20e-6 };
	const gs_topo *ts[2] = { nine, pub };
	for (int i = 0; i < 2; i++) {
		gs_model *m = gs_model_new(ts[i], &p);
		gs_opt_cfg c;
		gs_opt_out o, o2;
		gs_opt_defaults(&c);
		int rc = gs_optimize_exact(m, ts[i], &c, &o);
		ok(!rc && gs_sched_is_exact(&o.best, ts[i]->n_islands, 1e-9),
		   "%s: optimizer's schedule is an exact average (product of W = 11^T/N)", ts[i]->name);
		gs_baseline b[GS_BASE_N];
		gs_baselines(m, ts[i], b);
		int beats = 1;
		for (int k = 0; k < GS_BASE_N; k++)
			if (b[k].have && b[k].time < o.time * (1 - 1e-9))
				beats = 0;
		ok(beats, "%s: optimum is no slower than any one-clique baseline", ts[i]->name);
		gs_baselines_free(b);
		gs_optimize_exact(m, ts[i], &c, &o2);
		char *s1 = sched_str(ts[i], &o.best), *s2 = sched_str(ts[i], &o2.best);
		ok(!strcmp(s1, s2) && o.time == o2.time, "%s: same seed, same schedule", ts[i]->name);
		/* JSON round trip */
		gs_sched back;
		gs_err e;
		int prc = gs_sched_parse(s1, ts[i], &back, &e);
		char *s3 = prc ? NULL : sched_str(ts[i], &back);
		ok(!prc && !strcmp(s1, s3), "%s: schedule JSON round-trips", ts[i]->name);
		if (!prc)
			gs_sched_free(&back);
		free(s1);
		free(s2);
		free(s3);
		gs_opt_out_free(&o);
		gs_opt_out_free(&o2);
		gs_model_free(m);
	}
	/* optimizer vs exhaustive on small instances */
	const char *small[] = { "four-line.json", "four-star.json", "six-two-regions.json" };
	for (int i = 0; i < 8; i++) {
		gs_topo t;
		gs_err e;
		char name[64];
		if (i >= 6) {
			/* 9 islands: the heuristic alone (exhaustive is not run inside) */
			gs_gen_synthetic(&t, 9, 200 + (uint64_t)i, &e);
			snprintf(name, sizeof(name), "synthetic 9 islands seed %d (heuristic only)", 200 + i);
		} else if (i < 3) {
			if (load(small[i], &t))
				continue;
			snprintf(name, sizeof(name), "%s", small[i]);
		} else {
			gs_gen_synthetic(&t, 5 + i - 3, 100 + (uint64_t)i, &e);
			snprintf(name, sizeof(name), "synthetic %d islands", 5 + i - 3);
		}
		gs_model *m = gs_model_new(&t, &p);
		gs_opt_cfg c;
		gs_opt_out a, x;
		gs_opt_defaults(&c);
		int r1 = gs_optimize_exact(m, &t, &c, &a), r2 = gs_exhaustive(m, &t, &c, &x);
		double gap = (a.time - x.time) / x.time;
		ok(!r1 && !r2 && gap <= 0.05 && gs_sched_is_exact(&x.best, t.n_islands, 1e-9),
		   "%s: optimizer within 5%% of exhaustive (gap %.2f%%), exhaustive result exact", name, gap * 100);
		gs_opt_out_free(&a);
		gs_opt_out_free(&x);
		gs_model_free(m);
		gs_topo_free(&t);
	}
	/* gossip objective reaches its target */
	gs_model *m = gs_model_new(nine, &p);
	gs_opt_cfg c;
	gs_opt_out g;
	gs_opt_defaults(&c);
	c.target_rho = 0.1;
	int rc = gs_optimize_gossip(m, nine, &c, &g);
	ok(!rc && g.rho_reached <= 0.1 && isfinite(g.time), "gossip: time to rho <= 0.1 found (rho %.3g, %d rounds)",
	   g.rho_reached, g.rounds_used);
	gs_opt_out_free(&g);
	gs_model_free(m);
}

static double brute_best;
static void brute(const gs_topo *t, int *perm, int k, int i)
{
	if (i == k) {
		double mx = 0;
		for (int a = 0; a < k; a++)
			mx = fmax(mx, gs_lat(t, perm[a], perm[(a + 1) % k]));
		brute_best = fmin(brute_best, mx);
		return;
	}
	for (int j = i; j < k; j++) {
		int x = perm[i];
		perm[i] = perm[j];
		perm[j] = x;
		brute(t, perm, k, i + 1);
		perm[j] = perm[i];
		perm[i] = x;
	}
}

static void test_ring_order(void)
{
	/* Held-Karp bottleneck ring vs brute force over all orders */
	gs_topo t;
	gs_err e;
	int good = 1;
	for (int seed = 5; seed < 8; seed++) {
		gs_gen_synthetic(&t, 8, (uint64_t)seed, &e);
		int mem[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, perm[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
		gs_ring_order(&t, mem, 8);
		double got = 0;
		for (int i = 0; i < 8; i++)
			got = fmax(got, gs_lat(&t, mem[i], mem[(i + 1) % 8]));
		brute_best = INFINITY;
		brute(&t, perm, 8, 1);
		if (!near(got, brute_best, 1e-12)) {
			printf("# seed %d: ring %.3f ms, brute force %.3f ms\n", seed, got * 1e3, brute_best * 1e3);
			good = 0;
		}
		gs_topo_free(&t);
	}
	ok(good, "ring order: exact bottleneck ring equals brute force over all orders (3 instances of 8)");
}

static void test_generate(void)
{
	gs_topo t, back;
	gs_err e;
	int rc = gs_gen_synthetic(&t, 64, 3, &e);
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	gs_topo_write(&t, f);
	fclose(f);
	int rc2 = gs_topo_parse(buf, &back, &e);
	ok(!rc && !rc2 && back.n_islands == 64 && back.n_links == t.n_links,
	   "synthetic 64-island topology is connected and round-trips through JSON");
	if (!rc2)
		gs_topo_free(&back);
	free(buf);
	gs_topo_free(&t);
}

/* ---- figures: round ticks, and what the SVG files hold ---- */
static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_figures(const gs_topo *nine)
{
	static const double steps[][2] = { { 0.13, 0.2 }, { 1, 1 }, { 1.5, 2 }, { 2, 2 }, { 2.1, 5 },
					   { 7, 10 }, { 0.0049, 0.005 }, { 450, 500 }, { 5e-7, 5e-7 } };
	int good = 1;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (!near(gs_fig_nice_step(steps[i][0]), steps[i][1], 1e-12)) {
			printf("# nice step of %g: %g, want %g\n", steps[i][0], gs_fig_nice_step(steps[i][0]),
			       steps[i][1]);
			good = 0;
		}
	ok(good, "nice steps are the next 1, 2 or 5 times a power of ten");

	gs_fig_ticks tk;
	char a[32], b[32];
	gs_fig_time_ticks(0.649, 6, &tk);
	gs_fig_tick_label(&tk, 1, a, sizeof(a));
	gs_fig_tick_label(&tk, tk.n, b, sizeof(b));
	ok(!strcmp(tk.unit, "ms") && tk.step == 200 && tk.n == 4 && !strcmp(a, "200") && !strcmp(b, "800"),
	   "649 ms: ticks 0, 200, ... 800 ms (got %s, %s .. %s %s)", tk.unit, a, b, tk.unit);
	gs_fig_time_ticks(1.699, 6, &tk);
	gs_fig_tick_label(&tk, 3, a, sizeof(a));
	ok(!strcmp(tk.unit, "s") && tk.step == 0.5 && tk.n == 4 && !strcmp(a, "1.5"),
	   "1.699 s: ticks 0.0, 0.5, ... 2.0 s (tick 3: %s %s)", a, tk.unit);
	gs_fig_time_ticks(4e-5, 5, &tk);
	ok(!strcmp(tk.unit, "\xc2\xb5s") && near(tk.step, 10, 1e-12) && tk.n == 4, "40 us: ticks 0, 10, ... 40 us");
	gs_fig_time_ticks(0, 5, &tk);
	gs_fig_tick_label(&tk, tk.n, a, sizeof(a));
	ok(!strcmp(tk.unit, "ms") && !strcmp(a, "1.0"), "no data: an axis of 0 to 1.0 ms (%s %s)", a, tk.unit);

	/* any maximum: a round step, the last tick the first at or above it */
	uint64_t rng = 7;
	good = 1;
	for (int i = 0; i < 5000 && good; i++) {
		double max = pow(10, -7 + 11 * gs_rng_unit(&rng)), m;
		gs_fig_time_ticks(max, 6, &tk);
		m = max / tk.per_unit;
		double mag = pow(10, floor(log10(tk.step) + 1e-12)), f = tk.step / mag;
		int round1 = near(f, 1, 1e-9) || near(f, 2, 1e-9) || near(f, 5, 1e-9);
		gs_fig_tick_label(&tk, tk.n, a, sizeof(a));
		char *e;
		double back = strtod(a, &e);
		good = round1 && tk.n * tk.step >= m * (1 - 1e-12) && (tk.n - 1) * tk.step < m && tk.n >= 2 &&
		       tk.n <= 6 && (m >= 1 || max < 1e-6) && (m < 1000 || !strcmp(tk.unit, "s")) && !*e &&
		       near(back, tk.n * tk.step, 1e-9);
		if (!good)
			printf("# max %g: unit %s step %g n %d label %s\n", max, tk.unit, tk.step, tk.n, a);
	}
	ok(good, "5000 maxima from 100 ns to 3 h: round steps, 2..6 intervals, tight, exact labels");

	/* a schedule figure: one panel per round, every island in each */
	gs_sched s;
	gs_sched_init(&s, 2);
	for (int r = 0; r < 2; r++)
		for (int c = 0; c < 3; c++) {
			gs_clique *q = gs_sched_add_clique(&s, r, 3);
			for (int i = 0; i < 3; i++)
				q->m[i] = r ? c + 3 * i : 3 * c + i;
			q->pat = c == 0 ? GS_PAT_AGGREGATOR : GS_PAT_MULTICAST;
			q->agg = c == 0 ? q->m[0] : -1;
		}
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	int rc = gs_fig_schedule_svg(nine, &s, NULL, "3x3 grid", "a caption", f);
	fclose(f);
	ok(!rc && !strncmp(buf, "<?xml", 5) && count(buf, "<gs:panel ") == 2 && count(buf, "kind=\"island\"") == 18 &&
	   count(buf, "<gs:clique ") == 6 && count(buf, "<gs:aggregator ") == 2 && count(buf, "</svg>") == 1 &&
	   strstr(buf, "<title>nine-city-private: 3x3 grid</title>"),
	   "a 3x3 grid on nine-city: 2 panels, 9 islands and 3 cliques in each, 2 aggregators");
	free(buf);
	gs_sched_free(&s);
	gs_sched_init(&s, 0);
	f = open_memstream(&buf, &n);
	rc = gs_fig_schedule_svg(nine, &s, NULL, "empty", NULL, f);
	fclose(f);
	ok(rc == -1 && n == 0, "a schedule without rounds is no figure");
	free(buf);
	gs_sched_free(&s);

	/* a chart: a series never feasible says so in the legend */
	gs_fig_point pts[2] = { { { 0.3, INFINITY }, "a" }, { { 0.5, INFINITY }, "b" } };
	const char *names[] = { "fast", "never" };
	gs_fig_chart ch = { "t", NULL, "x", "time", names, 2, 2, pts };
	f = open_memstream(&buf, &n);
	rc = gs_fig_chart_svg(&ch, f);
	fclose(f);
	ok(!rc && strstr(buf, "<gs:series name=\"never\" color=\"#ff7f0e\" points=\"0\">") &&
	   strstr(buf, "label=\"never (not feasible)\"") && strstr(buf, "unit=\"ms\" min=\"0\" max=\"500\""),
	   "chart: an infeasible series is named so; 0.5 s tops the axis at 500 ms");
	free(buf);
}

/* Every command of the table has a help page, and --help lists it. */
static void test_command_table(void)
{
	unsigned i, bad = 0;
	const char *name, *overview = gs_help_text(NULL);

	for (i = 0; (name = gs_cli_command_name(i)); i++) {
		char word[64];

		snprintf(word, sizeof(word), "\n    %s ", name);
		if (!gs_help_text(name) || !overview || !strstr(overview, word)) {
			ok(0, "command '%s' has a help page and is in --help", name);
			bad++;
		}
	}
	ok(i == 9 && !bad, "all %u commands of the table have a help page and are listed in --help", i);
}

int main(int argc, char **argv)
{
	gs_topo nine, pub;
	if (argc > 1)
		dir = argv[1];
	int l1 = load("nine-city-private.json", &nine), l2 = load("nine-city-public.json", &pub);
	ok(!l1 && nine.n_islands == 9 && nine.n_links == 11 && nine.n_aggs == 9, "nine-city-private loads: 9 islands, 11 links");
	ok(!l2 && pub.n_islands == 9 && pub.n_links == 36 && pub.kind == GS_KIND_MATRIX,
	   "nine-city-public loads: full matrix of 36 pairs");
	if (l1 || l2) {
		printf("1..%d\n", n_test);
		return 1;
	}
	test_json_errors();
	test_sched_errors(&nine);
	test_costs();
	test_owned();
	test_block_model(&nine);
	test_paths(&nine, &pub);
	test_mixing();
	test_ring_order();
	test_generate();
	test_optimizer(&nine, &pub);
	test_export(&nine, &pub);
	test_command_table();
	test_figures(&nine);
	gs_topo_free(&nine);
	gs_topo_free(&pub);
	printf("1..%d\n", n_test);
	return n_fail ? 1 : 0;
}
