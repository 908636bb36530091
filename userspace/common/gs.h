/* gs.h - shared types of gsync-sched: topology, schedule, cost model,
 * mixing, optimizer.  One header keeps the (small) program coherent; each
 * .c file implements one concern and is listed next to its prototypes. */
#ifndef GS_H
#define GS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GS_ERRLEN 512
typedef struct { char msg[GS_ERRLEN]; } gs_err;
void gs_seterr(gs_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* exit codes of the CLI (documented in docs/schedules.md and --help) */
enum { GS_EXIT_OK = 0, GS_EXIT_FAIL = 1, GS_EXIT_USAGE = 2, GS_EXIT_INPUT = 3,
       GS_EXIT_INFEASIBLE = 4, GS_EXIT_APPLY = 5 };

/* ---------------- topology (topology.c, paths.c, gen.c) ---------------- */
enum { GS_MC_NONE = 0, GS_MC_REACH = 1, GS_MC_FULL = 2, GS_MC_INHERIT = -1 };
enum { GS_KIND_LINKS = 0, GS_KIND_MATRIX = 1 };

typedef struct {
	char *id, *city;
	int is_island;
	double egress_gbps, ingress_gbps;   /* 0 = unlimited (PoPs) */
	int mc_mode, mc_reach;              /* GS_MC_INHERIT = network-wide */
	int has_pos; double lat, lon;       /* only used for drawing */
} gs_node;

typedef struct {
	int a, b;                           /* node indices */
	double latency_ms, bandwidth_gbps, loss;
} gs_link;

typedef struct {
	int node;                           /* node index */
	int fan_in;                         /* K: streams summed at once */
	double throughput_gbps;             /* A: bytes reduced per second */
	double delay_us;                    /* d_fpga */
} gs_agg;

typedef struct {
	char *name, *source;
	int kind;
	int n_nodes, n_islands;             /* islands are nodes[0..n_islands) */
	gs_node *nodes;
	int n_links; gs_link *links;
	int mc_mode, mc_reach;              /* network-wide multicast */
	int n_aggs; gs_agg *aggs;
	int *agg_of_node;                   /* node -> aggs index or -1 */
	double overhead_us;                 /* per message, per latency step */
	/* derived by gs_paths_compute() */
	double *lat;                        /* [s*n+t] one-way seconds */
	int *pred_link;                     /* [s*n+t] last link on path s->t, -1 */
	int *pred;                          /* [s*n+t] previous node on s->t */
} gs_topo;

int  gs_topo_load(const char *path, gs_topo *t, gs_err *e);
int  gs_topo_parse(const char *text, gs_topo *t, gs_err *e);   /* from memory */
void gs_topo_free(gs_topo *t);
int  gs_topo_find(const gs_topo *t, const char *id);           /* node index or -1 */
int  gs_topo_reach(const gs_topo *t, int node);                /* 0 none, INT_MAX full */
int  gs_topo_write(const gs_topo *t, FILE *f);                 /* JSON */
int  gs_topo_clone(const gs_topo *src, gs_topo *dst);

int  gs_paths_compute(gs_topo *t, gs_err *e);                  /* also checks connectivity */
static inline double gs_lat(const gs_topo *t, int s, int d)      /* seconds */
{
	return t->lat[(size_t)s * t->n_nodes + d];
}
void gs_paths_print(const gs_topo *t, FILE *f);                /* stable text format */

int  gs_gen_synthetic(gs_topo *t, int n, uint64_t seed, gs_err *e);

/* ---------------- schedules (schedule.c, schedule_json.c) -------------- */
enum { GS_PAT_MULTICAST = 0, GS_PAT_RS_MULTICAST, GS_PAT_UNICAST, GS_PAT_RING,
       GS_PAT_TREE, GS_PAT_AGGREGATOR, GS_PAT_INLINE, GS_PAT_N, GS_PAT_AUTO = GS_PAT_N };
extern const char *const gs_pat_name[GS_PAT_N + 1];
/* the patterns the kernel executes (uapi/linux/gsync_sched.h) */
#define GS_KERNEL_PATS ((1u << GS_PAT_MULTICAST) | (1u << GS_PAT_UNICAST) | \
			(1u << GS_PAT_RS_MULTICAST) | (1u << GS_PAT_AGGREGATOR))
int gs_pat_parse(const char *s);

typedef struct {
	int k;
	int *m;                             /* island indices (ring/tree order) */
	double *w;                          /* averaging weight per member, sum 1 */
	int w_given;                        /* weights came from the file (not defaulted) */
	int pat;
	int agg;                            /* node index for aggregator, or -1 */
} gs_clique;

typedef struct { int nc; gs_clique *c; } gs_round;

typedef struct {
	int nr; gs_round *r;
	double chunk_bytes;
	double bytes;                       /* operation size it was optimized for (the
					     * JSON's "bytes"); 0 = not recorded */
	char name[96];
} gs_sched;

void gs_sched_init(gs_sched *s, int nrounds);
gs_clique *gs_sched_add_clique(gs_sched *s, int round, int k);  /* uniform w */
void gs_sched_free(gs_sched *s);
void gs_sched_copy(gs_sched *dst, const gs_sched *src);
int  gs_sched_validate(const gs_topo *t, const gs_sched *s, gs_err *e);
void gs_sched_describe(const gs_topo *t, const gs_sched *s, char *buf, size_t n);

int  gs_sched_load(const char *path, const gs_topo *t, gs_sched *s, gs_err *e);
int  gs_sched_parse(const char *text, const gs_topo *t, gs_sched *s, gs_err *e);
void *gs_sched_to_json(const gs_topo *t, const gs_sched *s);       /* json_t* */

/* ---------------- cost model (model.c, ring.c) ------------------------- */
typedef struct {
	double M;                           /* bytes per synchronization */
	double chunk;                       /* bytes per pipelined chunk */
	double o;                           /* per-message overhead, s */
} gs_params;

/* a clique's cost in isolation: propagation, overhead steps, and the bytes
 * it puts on every resource (sparse). Resources: directed links, node
 * egress, node ingress, aggregator throughput. */
typedef struct {
	int pat, agg, k;
	int feasible;
	double prop;                        /* propagation seconds (incl. d_fpga) */
	int steps;                          /* messages in sequence per chunk */
	int nres; int *res; double *load;   /* bytes per resource for M bytes */
	int *order;                         /* member order used (ring/tree) */
	double t_iso;                       /* one-round time alone */
} gs_ceval;

typedef struct gs_model gs_model;
gs_model *gs_model_new(const gs_topo *t, const gs_params *p);
void gs_model_free(gs_model *m);
const gs_params *gs_model_params(const gs_model *m);
void gs_model_set_chunk(gs_model *m, double chunk);
int  gs_model_nres(const gs_model *m);
double gs_model_rate(const gs_model *m, int res);   /* bytes/s, 0 = unlimited */
void gs_model_res_name(const gs_model *m, int res, char *buf, size_t n);

/* evaluate one clique with a fixed pattern (agg -1 = choose best) */
int  gs_clique_eval(gs_model *m, const int *mem, int k, int pat, int agg, gs_ceval *out);
/* best feasible pattern (and order/aggregator) in isolation */
int  gs_clique_best(gs_model *m, const int *mem, int k, unsigned pat_mask, gs_ceval *out);
enum { GS_PICK_ISO = 0, GS_PICK_LAT = 1, GS_PICK_N = 2 };
int  gs_clique_all(gs_model *m, const int *mem, int k, unsigned pat_mask, gs_ceval out[GS_PAT_N]);
int  gs_clique_pick(const gs_ceval all[GS_PAT_N], int rule, int chunks, double o);
int  gs_model_chunks(const gs_params *p);
void gs_ceval_free(gs_ceval *c);
void gs_ceval_copy(gs_ceval *dst, const gs_ceval *src);
int  gs_pat_feasible(const gs_model *m, const int *mem, int k, int pat, int agg);
/* kernel mode: cost cliques as the kernel runs them.  An aggregator is a
 * rank (a member island, or a relay at a network node) that reduces in
 * software: no FPGA at it, no merging on the way; rs_multicast runs
 * without multicast (all-gather by unicast); auto picks among
 * GS_KERNEL_PATS.  Returns the previous setting. */
int  gs_model_set_kernel(gs_model *m, int on);
int  gs_model_kernel(const gs_model *m);
/* The block model (gsync-sched's default wherever it costs kernel
 * schedules, --kernel and --apply; --no-block-model turns it off): each
 * rs_multicast member is charged the whole blocks it owns
 * (gs_owned_bytes; the block is the chunk, in kernel mode the kernel's
 * block), not M/k, and the optimizer searches the chunks of
 * gs_opt_chunk_candidates() (sched/blocks.h) whatever the model's chunk.
 * Off: M/k each, and the chunk search starts from the model's chunk.
 * Returns the previous setting. */
int  gs_model_set_block_model(gs_model *m, int on);
int  gs_model_block_model(const gs_model *m);

/* The block size the kernel uses for an operation of SIZE bytes under a
 * schedule with CHUNK bytes: block_bytes (CHUNK rounded up to a multiple
 * of 16, at least 4096), raised so that there are at most
 * GSYNC_SCHED_MAX_BLOCKS blocks, at most SIZE (export.c). */
double gs_kernel_block(double chunk, double size);
/* Bytes that member at position POS (0..k-1, ascending rank) of a k-member
 * rs_multicast clique owns, i.e. reduces and multicasts, of an operation of
 * BYTES cut into blocks of BLOCK bytes (the last one may be partial): the
 * kernel gives block b to position b mod k, so with fewer blocks than
 * members some own nothing, and the shares are whole blocks, not BYTES/k. */
double gs_owned_bytes(double bytes, double block, int k, int pos);

typedef struct {
	int nr;
	double *prop;                       /* per round */
	double *stage;                      /* per round, per-chunk stage time */
	double *bw;                         /* per round, max clique bandwidth time */
	int *bottleneck;                    /* per round: resource id or -1 */
	double shared;                      /* per chunk, every round's load on
					     * the busiest resource (rounds that
					     * overlap share it) */
	int shared_bottleneck;              /* that resource, or -1 */
	double time;                        /* pipelined time of the whole sync */
	double time_nopipe;                 /* sum of round times, no pipelining */
	int chunks;
} gs_result;

/* evaluate a schedule of already evaluated cliques: cev[r][c] */
double gs_rounds_time(gs_model *m, gs_ceval **cev, const int *nc, int nr, gs_result *res);
/* evaluate a schedule (patterns AUTO resolved; fills the schedule in) */
int  gs_simulate(gs_model *m, gs_sched *s, gs_result *res, gs_err *e);
void gs_result_free(gs_result *r);

void gs_ring_order(const gs_topo *t, int *mem, int k);     /* in place; exact k <= 12 */
void gs_ring_order_lim(const gs_topo *t, int *mem, int k, int exact_max);
void gs_tree_order(const gs_topo *t, int *mem, int k);     /* in place, heap layout */

/* ---------------- mixing (mixing.c) ------------------------------------ */
double gs_rho(const gs_sched *s, int N, int first, int nrounds, uint64_t seed);
double gs_rho_dense(const gs_sched *s, int N, int first, int nrounds);
int  gs_sym_eig(double *a, int n, double *eval);             /* Jacobi; a destroyed */
int  gs_sched_is_exact(const gs_sched *s, int N, double tol);

/* ---------------- baselines (baselines.c) ------------------------------ */
typedef struct {
	char name[48];
	gs_sched s;
	int have;                           /* 0 = infeasible on this topology */
	double time;
	char note[96];
} gs_baseline;
enum { GS_BASE_RING, GS_BASE_TREE, GS_BASE_UNICAST, GS_BASE_MCAST, GS_BASE_MCAST_AGG,
       GS_BASE_N };
void gs_baselines(gs_model *m, const gs_topo *t, gs_baseline out[GS_BASE_N]);
double gs_colocated_time(int N, const gs_params *p);
void gs_baselines_free(gs_baseline b[GS_BASE_N]);

/* ---------------- optimizer (optimize.c, exhaustive.c, gossip.c) ------- */
/* The chunk search tries chunks of GS_OPT_MIN_CHUNK, twice that, ... up to
 * the whole operation.  Under the block model (gs_model_set_block_model)
 * they are the kernel's blocks under --kernel, each clique's pattern is
 * re-chosen at each, and nothing depends on the chunk the model started
 * with; without it that chunk is the incumbent and the shapes are searched
 * at it. */
#define GS_OPT_MIN_CHUNK 65536
typedef struct {
	uint64_t seed;
	int effort;                         /* multiplier on local-search budget, 1 default */
	unsigned pat_mask;                  /* allowed patterns */
	int max_rounds;                     /* gossip horizon */
	int kernel;                         /* exact objective: only schedules the kernel
					     * executes (disjoint cliques, GS_KERNEL_PATS) */
	double target_rho;
	int verbose;
} gs_opt_cfg;
void gs_opt_defaults(gs_opt_cfg *c);

typedef struct {
	gs_sched best;
	double time;
	long evals;
	int structures;
	double rho_reached;                 /* gossip */
	int rounds_used;                    /* gossip */
} gs_opt_out;

int  gs_optimize_exact(gs_model *m, const gs_topo *t, const gs_opt_cfg *c, gs_opt_out *o);
int  gs_exhaustive(gs_model *m, const gs_topo *t, const gs_opt_cfg *c, gs_opt_out *o);
int  gs_optimize_gossip(gs_model *m, const gs_topo *t, const gs_opt_cfg *c, gs_opt_out *o);
double gs_gossip_time(gs_model *m, const gs_sched *s, int N, double target, int max_rounds,
		      int *rounds_used, double *rho_out);
void gs_opt_out_free(gs_opt_out *o);

/* ---------------- util (util.c) ---------------------------------------- */
uint64_t gs_rng_next(uint64_t *s);
double gs_rng_unit(uint64_t *s);
int gs_rng_below(uint64_t *s, int n);
double gs_now(void);
int gs_parse_size(const char *s, double *out);
void gs_fmt_time(double s, char *buf, size_t n);
void gs_fmt_size(double b, char *buf, size_t n);
void *gs_xmalloc(size_t n);
void *gs_xcalloc(size_t n, size_t sz);
void *gs_xrealloc(void *p, size_t n);
char *gs_xstrdup(const char *s);

#define GS_GBPS_TO_BPS(g) ((g) * 1e9 / 8.0)

#endif
