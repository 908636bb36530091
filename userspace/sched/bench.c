/* bench.c - optimizer benchmark: wall time of optimize on the nine-city
 * topologies and on synthetic 64- and 256-island topologies against the
 * targets, and the gap of the optimizer's result to exhaustive search on
 * instances small enough for it.  Prints numbers; never fails on them. */
#include "cli.h"
#include "gs.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int gs_cli_parse_bench(int argc, char **argv, const char **dir, uint64_t *seed, int *quick, int *help);

static double run_opt(const gs_topo *t, uint64_t seed, double *time_out, char *desc, size_t n)
{
	gs_params p = { 256.0 * 1024 * 1024, 4.0 * 1024 * 1024, t->overhead_us * 1e-6 };
	gs_model *m = gs_model_new(t, &p);
	gs_opt_cfg c;
	gs_opt_out o;
	gs_opt_defaults(&c);
	c.seed = seed;
	double t0 = gs_now();
	int rc = gs_optimize_exact(m, t, &c, &o);
	double wall = gs_now() - t0;
	*time_out = rc ? INFINITY : o.time;
	if (desc)
		gs_sched_describe(t, &o.best, desc, n);
	gs_opt_out_free(&o);
	gs_model_free(m);
	return wall;
}

static double run_exh(const gs_topo *t, double *time_out, long *evals)
{
	gs_params p = { 256.0 * 1024 * 1024, 4.0 * 1024 * 1024, t->overhead_us * 1e-6 };
	gs_model *m = gs_model_new(t, &p);
	gs_opt_cfg c;
	gs_opt_out o;
	gs_opt_defaults(&c);
	double t0 = gs_now();
	int rc = gs_exhaustive(m, t, &c, &o);
	double wall = gs_now() - t0;
	*time_out = rc ? INFINITY : o.time;
	*evals = o.evals;
	gs_opt_out_free(&o);
	gs_model_free(m);
	return wall;
}

static void line(const char *name, int n, double wall, double target, double T, const char *desc)
{
	char w[32], tt[32];
	gs_fmt_time(wall, w, sizeof(w));
	gs_fmt_time(T, tt, sizeof(tt));
	printf("%-26s %5d %12s %10.0f ms  %-4s %12s  %s\n", name, n, w, target * 1e3,
	       wall < target ? "met" : "MISS", tt, desc);
}

int gs_bench_main(int argc, char **argv)
{
	const char *dir;
	uint64_t seed;
	int quick, help;
	char **av = gs_xmalloc(sizeof(char *) * (size_t)(argc + 1));
	for (int i = 0; i < argc; i++)
		av[i] = argv[i];
	av[0] = (char *)"bench";
	av[argc] = NULL;
	int rc = gs_cli_parse_bench(argc, av, &dir, &seed, &quick, &help);
	free(av);
	if (rc)
		return rc;
	if (help) {
		fputs(gs_help_text("bench"), stdout);
		return 0;
	}
	printf("gsync-sched optimizer benchmark (256 MiB per sync, seed %llu)\n\n",
	       (unsigned long long)seed);
	printf("%-26s %5s %12s %13s  %-4s %12s  %s\n", "topology", "N", "optimize", "target", "", "time/sync",
	       "optimum");
	const char *files[] = { "nine-city-private.json", "nine-city-public.json" };
	gs_topo nine[2];
	int have[2] = { 0, 0 };
	for (int i = 0; i < 2; i++) {
		char path[1024];
		gs_err e;
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (gs_topo_load(path, &nine[i], &e)) {
			fprintf(stderr, "gsync-sched bench: %s\n", e.msg);
			return GS_EXIT_INPUT;
		}
		have[i] = 1;
		/* median of 5 runs: the first one also warms caches */
		double w[5], T = 0;
		char desc[160];
		for (int r = 0; r < 5; r++)
			w[r] = run_opt(&nine[i], seed, &T, desc, sizeof(desc));
		for (int a = 0; a < 5; a++)
			for (int b = a + 1; b < 5; b++)
				if (w[b] < w[a]) {
					double x = w[a];
					w[a] = w[b];
					w[b] = x;
				}
		line(nine[i].name, nine[i].n_islands, w[2], 0.1, T, desc);
	}
	int sizes[2] = { 64, 256 };
	double targets[2] = { 5, 60 };
	for (int i = 0; i < (quick ? 1 : 2); i++) {
		gs_topo t;
		gs_err e;
		double T;
		char desc[160], name[64];
		gs_gen_synthetic(&t, sizes[i], seed, &e);
		double w = run_opt(&t, seed, &T, desc, sizeof(desc));
		snprintf(name, sizeof(name), "synthetic-%d", sizes[i]);
		line(name, sizes[i], w, targets[i], T, desc);
		gs_topo_free(&t);
	}
	printf("\ngap to exhaustive search (all 1- and 2-round exact schedules; target < 5%%)\n");
	printf("%-26s %5s %12s %12s %8s %12s %10s\n", "topology", "N", "optimizer", "exhaustive", "gap",
	       "exh. wall", "evaluated");
	double worst = 0;
	for (int i = 0; i < 6; i++) {
		gs_topo t, *tp;
		gs_err e;
		char name[64];
		if (i < 2) {
			if (!have[i])
				continue;
			tp = &nine[i];
			snprintf(name, sizeof(name), "%s", nine[i].name);
		} else {
			int n = i < 4 ? 8 : 9;
			gs_gen_synthetic(&t, n, seed + (uint64_t)i, &e);
			tp = &t;
			snprintf(name, sizeof(name), "synthetic-%d seed %llu", n, (unsigned long long)(seed + i));
		}
		double To, Te;
		long ev;
		run_opt(tp, seed, &To, NULL, 0);
		double w = run_exh(tp, &Te, &ev);
		double gap = (To - Te) / Te * 100;
		if (gap > worst)
			worst = gap;
		char a[32], b[32], c[32];
		gs_fmt_time(To, a, sizeof(a));
		gs_fmt_time(Te, b, sizeof(b));
		gs_fmt_time(w, c, sizeof(c));
		printf("%-26s %5d %12s %12s %7.2f%% %12s %10ld\n", name, tp->n_islands, a, b, gap, c, ev);
		if (i >= 2)
			gs_topo_free(&t);
	}
	printf("worst gap %.2f%% (negative: the optimizer found a schedule outside the exhaustive space, e.g. 3 rounds)\n",
	       worst);
	for (int i = 0; i < 2; i++)
		if (have[i])
			gs_topo_free(&nine[i]);
	return 0;
}
