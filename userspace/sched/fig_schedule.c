/* fig_schedule.c - a schedule drawn on its topology, as the paper draws
 * rotating cliques: one panel per round, the islands where they are on
 * the map (latitude/longitude from the topology file, nudged apart where
 * cities are close; without coordinates, on a circle), each clique's
 * members joined in the clique's colour, aggregators marked, and a legend.
 * Drawn with cairo (fig_draw.h). */
#include "figure.h"
#include "fig_draw.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAP_W 560.0         /* the largest map area of one panel, px */
#define MAP_H 300.0
#define HEAD_H 46.0         /* panel header: round, times */
#define LINE_H 17.0         /* one line of a panel's clique list */
#define MAX_LIST 8          /* cliques listed per panel, then "and N more" */
#define PAD 16.0            /* page margin */
#define GAP 14.0            /* between panels */
#define LABEL_SIZE 11.0
#define MIN_W 760.0        /* the narrowest page */

typedef struct {
	int n;                  /* nodes */
	double *x, *y;          /* map coordinates in px, from (0,0) */
	double w, h;            /* map extent */
	double mx, my;          /* margins around the map for labels */
	double r;               /* island marker radius */
	int geo;                /* from latitude/longitude */
	int labels;             /* node ids are drawn */
	double *ldx, *ldy;      /* label offsets (left end of the baseline) */
} layout;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Equirectangular projection cut at the widest empty band of longitudes
 * (so that a set of cities around the Pacific is not split); 0 or -1 if
 * not every island has coordinates. */
static int place_geo(const gs_topo *t, layout *L, int *known)
{
	int n = 0;
	for (int i = 0; i < t->n_islands; i++)
		if (!t->nodes[i].has_pos)
			return -1;
	double *lons = gs_xmalloc(sizeof(double) * (size_t)t->n_nodes);
	for (int i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].has_pos)
			lons[n++] = fmod(t->nodes[i].lon + 720.0, 360.0);
	qsort(lons, (size_t)n, sizeof(double), cmp_double);
	double cut = lons[0], gap = lons[0] + 360.0 - lons[n - 1];
	for (int i = 1; i < n; i++)
		if (lons[i] - lons[i - 1] > gap) {
			gap = lons[i] - lons[i - 1];
			cut = lons[i];
		}
	free(lons);
	double x0 = 1e9, x1 = -1e9, y0 = 1e9, y1 = -1e9;
	for (int i = 0; i < t->n_nodes; i++) {
		if (!t->nodes[i].has_pos)
			continue;
		L->x[i] = fmod(t->nodes[i].lon - cut + 720.0, 360.0);
		L->y[i] = -t->nodes[i].lat;
		x0 = fmin(x0, L->x[i]);
		x1 = fmax(x1, L->x[i]);
		y0 = fmin(y0, L->y[i]);
		y1 = fmax(y1, L->y[i]);
		known[i] = 1;
	}
	double sx = x1 - x0 > 1e-9 ? MAP_W / (x1 - x0) : 1e9, sy = y1 - y0 > 1e-9 ? MAP_H / (y1 - y0) : 1e9;
	double s = fmin(sx, sy);
	if (s > 1e8)
		s = 1;      /* one place */
	for (int i = 0; i < t->n_nodes; i++)
		if (known[i]) {
			L->x[i] = (L->x[i] - x0) * s;
			L->y[i] = (L->y[i] - y0) * s;
		}
	return 0;
}

static void place_circle(const gs_topo *t, layout *L, int *known)
{
	int n = t->n_islands;
	double R = fmin(fmax(n * 36.0 / (2 * M_PI), 90.0), 280.0);
	for (int i = 0; i < n; i++) {
		double a = -M_PI / 2 + 2 * M_PI * i / n;
		L->x[i] = R + R * cos(a);
		L->y[i] = R + R * sin(a);
		known[i] = 1;
	}
}

/* nodes without a place (PoPs): the mean of their placed neighbours */
static void place_rest(const gs_topo *t, layout *L, int *known)
{
	double cx = 0, cy = 0;
	int nk = 0;
	for (int i = 0; i < t->n_nodes; i++)
		if (known[i]) {
			cx += L->x[i];
			cy += L->y[i];
			nk++;
		}
	cx /= nk ? nk : 1;
	cy /= nk ? nk : 1;
	for (int i = 0; i < t->n_nodes; i++)
		if (!known[i]) {
			L->x[i] = cx;
			L->y[i] = cy;
		}
	for (int it = 0; it < 50; it++)
		for (int i = 0; i < t->n_nodes; i++) {
			if (known[i])
				continue;
			double sx = 0, sy = 0;
			int k = 0;
			for (int l = 0; l < t->n_links; l++) {
				int o = t->links[l].a == i ? t->links[l].b : t->links[l].b == i ? t->links[l].a : -1;
				if (o >= 0 && o != i) {
					sx += L->x[o];
					sy += L->y[o];
					k++;
				}
			}
			if (k) {
				L->x[i] = sx / k;
				L->y[i] = sy / k;
			}
		}
}

/* push nodes closer than D apart until none is (bounded work) */
static void separate(layout *L, double d)
{
	if (L->n > 400)
		return;
	for (int it = 0; it < 300; it++) {
		int moved = 0;
		for (int i = 0; i < L->n; i++)
			for (int j = i + 1; j < L->n; j++) {
				double dx = L->x[j] - L->x[i], dy = L->y[j] - L->y[i], e = hypot(dx, dy);
				if (e >= d - 1e-6)
					continue;
				if (e < 1e-9) {         /* same place: a fixed direction */
					dx = cos(i * 2.399 + j);
					dy = sin(i * 2.399 + j);
					e = 1;
				}
				double p = (d - hypot(L->x[j] - L->x[i], L->y[j] - L->y[i])) / 2 + 0.01;
				L->x[i] -= dx / e * p;
				L->y[i] -= dy / e * p;
				L->x[j] += dx / e * p;
				L->y[j] += dy / e * p;
				moved = 1;
			}
		if (!moved)
			break;
	}
}

static void layout_nodes(const gs_topo *t, layout *L)
{
	int *known = gs_xcalloc((size_t)t->n_nodes, sizeof(int));
	memset(L, 0, sizeof(*L));
	L->n = t->n_nodes;
	L->x = gs_xcalloc((size_t)L->n, sizeof(double));
	L->y = gs_xcalloc((size_t)L->n, sizeof(double));
	L->ldx = gs_xcalloc((size_t)L->n, sizeof(double));
	L->ldy = gs_xcalloc((size_t)L->n, sizeof(double));
	L->labels = t->n_islands <= 32;
	L->r = t->n_islands <= 32 ? 7 : t->n_islands <= 128 ? 4.5 : 2.5;
	L->geo = t->n_islands > 0 && !place_geo(t, L, known);
	if (!L->geo)
		place_circle(t, L, known);
	place_rest(t, L, known);
	separate(L, L->labels ? 36 : 3 * L->r + 2);
	double x0 = 1e300, y0 = 1e300, x1 = -1e300, y1 = -1e300;
	for (int i = 0; i < L->n; i++) {
		x0 = fmin(x0, L->x[i]);
		y0 = fmin(y0, L->y[i]);
		x1 = fmax(x1, L->x[i]);
		y1 = fmax(y1, L->y[i]);
	}
	for (int i = 0; i < L->n; i++) {
		L->x[i] -= x0;
		L->y[i] -= y0;
	}
	L->w = L->n ? x1 - x0 : 0;
	L->h = L->n ? y1 - y0 : 0;
	L->mx = L->labels ? 48 : 16;
	L->my = L->labels ? 28 : 16;
	free(known);
}

static void layout_free(layout *L)
{
	free(L->x);
	free(L->y);
	free(L->ldx);
	free(L->ldy);
}

static double overlap(const double a[4], const double b[4])
{
	double w = fmin(a[2], b[2]) - fmax(a[0], b[0]), h = fmin(a[3], b[3]) - fmax(a[1], b[1]);
	return w > 0 && h > 0 ? w * h : 0;
}

/* Each id goes where it covers the fewest markers and earlier ids: right,
 * left, above, below or a corner of its marker. */
static void place_labels(cairo_t *cr, const gs_topo *t, layout *L)
{
	double (*box)[4] = gs_xcalloc((size_t)L->n, sizeof(*box));
	const double r = L->r + 3, asc = LABEL_SIZE * 0.72, desc = LABEL_SIZE * 0.22;
	for (int i = 0; i < L->n; i++) {
		double w = fig_text_width(cr, LABEL_SIZE, 0, t->nodes[i].id);
		/* baseline-left offsets of the candidates */
		const double cand[8][2] = {
			{ r, asc / 2 - desc / 2 + 1 }, { -r - w, asc / 2 - desc / 2 + 1 },
			{ -w / 2, -r - desc }, { -w / 2, r + asc },
			{ r * 0.7, -r * 0.7 - desc }, { r * 0.7, r * 0.7 + asc },
			{ -r * 0.7 - w, -r * 0.7 - desc }, { -r * 0.7 - w, r * 0.7 + asc },
		};
		double best = 1e300;
		for (int c = 0; c < 8; c++) {
			double b[4] = { L->x[i] + cand[c][0], L->y[i] + cand[c][1] - asc,
					L->x[i] + cand[c][0] + w, L->y[i] + cand[c][1] + desc };
			double cost = c * 0.5;
			for (int j = 0; j < L->n; j++) {
				double mk[4] = { L->x[j] - r, L->y[j] - r, L->x[j] + r, L->y[j] + r };
				cost += 4 * overlap(b, mk);
				if (j < i)
					cost += 4 * overlap(b, box[j]);
			}
			double page[4] = { -L->mx + 2, -L->my + 2, L->w + L->mx - 2, L->h + L->my - 2 };
			cost += 8 * ((b[2] - b[0]) * (b[3] - b[1]) - overlap(b, page));
			if (cost < best) {
				best = cost;
				L->ldx[i] = cand[c][0];
				L->ldy[i] = cand[c][1];
				memcpy(box[i], b, sizeof(b));
			}
		}
	}
	free(box);
}

/* the lines of clique Q: who exchanges data with whom */
static void clique_edges(cairo_t *cr, const gs_clique *q, const layout *L, double ox, double oy)
{
#define LN(a, b)                                                \
	do {                                                    \
		cairo_move_to(cr, ox + L->x[a], oy + L->y[a]);  \
		cairo_line_to(cr, ox + L->x[b], oy + L->y[b]);  \
	} while (0)
	if (q->pat == GS_PAT_AGGREGATOR && q->agg >= 0) {
		for (int i = 0; i < q->k; i++)
			if (q->m[i] != q->agg)
				LN(q->agg, q->m[i]);
	} else if (q->pat == GS_PAT_RING) {
		for (int i = 0; i < q->k && q->k > 1; i++)
			if (q->k > 2 || i == 0)
				LN(q->m[i], q->m[(i + 1) % q->k]);
	} else if (q->pat == GS_PAT_TREE) {
		for (int i = 1; i < q->k; i++)
			LN(q->m[(i - 1) / 2], q->m[i]);
	} else if (q->k <= 10) {
		for (int i = 0; i < q->k; i++)
			for (int j = i + 1; j < q->k; j++)
				LN(q->m[i], q->m[j]);
	} else {        /* many members: a star from their centre */
		double cx = 0, cy = 0;
		for (int i = 0; i < q->k; i++) {
			cx += L->x[q->m[i]];
			cy += L->y[q->m[i]];
		}
		cx = ox + cx / q->k;
		cy = oy + cy / q->k;
		for (int i = 0; i < q->k; i++) {
			cairo_move_to(cr, cx, cy);
			cairo_line_to(cr, ox + L->x[q->m[i]], oy + L->y[q->m[i]]);
		}
	}
#undef LN
}

static void clique_text(const gs_topo *t, const gs_clique *q, char *buf, size_t n)
{
	size_t k = 0;
	int w = snprintf(buf, n, "%s", gs_pat_name[q->pat]);
	if (w > 0)
		k = (size_t)w;
	if (q->pat == GS_PAT_AGGREGATOR && q->agg >= 0 && k < n) {
		w = snprintf(buf + k, n - k, " at %s", t->nodes[q->agg].id);
		if (w > 0)
			k += (size_t)w;
	}
	for (int i = 0; i < q->k && k < n; i++) {
		w = snprintf(buf + k, n - k, "%s%s", i ? ", " : ": ", t->nodes[q->m[i]].id);
		if (w > 0)
			k += (size_t)w;
	}
}

enum { LG_ISLAND, LG_IDLE, LG_AGG, LG_POP, LG_LINK, LG_CLIQUE, LG_N };
static const char *const lg_text[LG_N] = {
	"island, in its clique's colour", "island idle this round",
	"aggregator: members send to it, it returns the sum", "network node (no island)",
	"physical link", "clique: lines join the islands that exchange data",
};

static double legend_symbol(cairo_t *cr, int e, double x, double y, double r)
{
	switch (e) {
	case LG_ISLAND:
		fig_marker_path(cr, FIG_MK_CIRCLE, x + 8, y, r);
		fig_set_pal(cr, 0, 1);
		cairo_fill_preserve(cr);
		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_set_line_width(cr, 1.5);
		cairo_stroke(cr);
		break;
	case LG_IDLE:
		fig_marker_path(cr, FIG_MK_CIRCLE, x + 8, y, r);
		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_fill_preserve(cr);
		fig_set_gray(cr, 0.55);
		cairo_set_line_width(cr, 1.5);
		cairo_stroke(cr);
		break;
	case LG_AGG:
		fig_marker_path(cr, FIG_MK_DIAMOND, x + 8, y, r);
		fig_set_pal(cr, 0, 1);
		cairo_fill_preserve(cr);
		fig_set_gray(cr, 0);
		cairo_set_line_width(cr, 1.6);
		cairo_stroke(cr);
		break;
	case LG_POP:
		fig_marker_path(cr, FIG_MK_SQUARE, x + 8, y, r * 0.7);
		fig_set_gray(cr, 0.6);
		cairo_fill(cr);
		break;
	case LG_LINK:
		cairo_move_to(cr, x, y);
		cairo_line_to(cr, x + 24, y);
		fig_set_gray(cr, 0.72);
		cairo_set_line_width(cr, 1.2);
		cairo_stroke(cr);
		return 24;
	case LG_CLIQUE:
		cairo_move_to(cr, x, y);
		cairo_line_to(cr, x + 24, y);
		fig_set_pal(cr, 1, 0.8);
		cairo_set_line_width(cr, 2.6);
		cairo_stroke(cr);
		return 24;
	}
	return 16;
}

int gs_fig_schedule_svg(const gs_topo *t, const gs_sched *s, const gs_result *res, const char *title,
			const char *caption, FILE *f)
{
	layout L;
	fig_canvas cv;
	char buf[1024], fit[1024];
	int show[LG_N] = { 0 };
	int nr = s->nr, draw_links = t->kind == GS_KIND_LINKS && t->n_links <= 4000;

	if (nr < 1 || t->n_nodes < 1)
		return -1;
	layout_nodes(t, &L);

	/* what the legend needs, and the longest clique list of a round */
	int list = 0;
	show[LG_ISLAND] = show[LG_CLIQUE] = 1;
	show[LG_POP] = t->n_nodes > t->n_islands;
	show[LG_LINK] = draw_links && t->n_links > 0;
	int *owner = gs_xmalloc(sizeof(int) * (size_t)t->n_nodes);
	for (int r = 0; r < nr; r++) {
		int real = 0, busy = 0;
		for (int c = 0; c < s->r[r].nc; c++) {
			const gs_clique *q = &s->r[r].c[c];
			if (q->k >= 2) {
				real++;
				busy += q->k;
			}
			if (q->pat == GS_PAT_AGGREGATOR && q->agg >= 0 && q->k >= 2)
				show[LG_AGG] = 1;
		}
		if (busy < t->n_islands)
			show[LG_IDLE] = 1;
		int lines = real > MAX_LIST ? MAX_LIST + 1 : real;
		list = lines > list ? lines : list;
	}

	/* geometry: panels in a grid, header above, legend below */
	double map_w = L.w + 2 * L.mx, map_h = L.h + 2 * L.my;
	double pw = fmax(map_w, 360), ph = HEAD_H + map_h + list * LINE_H + 12;
	int cols = nr == 1 ? 1 : pw >= 480 ? 2 : 3;
	cols = cols > nr ? nr : cols;
	/* room for the title and the legend: widen narrow panels */
	pw = fmax(pw, (MIN_W - 2 * PAD - (cols - 1) * GAP) / cols);
	int rows = (nr + cols - 1) / cols;
	double W = 2 * PAD + cols * pw + (cols - 1) * GAP;
	double head = PAD + 22 + 20 + (caption ? 18 : 0) + 10;

	/* the legend flows in lines across the page: measure it first */
	cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1);
	cairo_t *mcr = cairo_create(scratch);
	double lg_x[LG_N], lg_y[LG_N], x = PAD + fig_text_width(mcr, 12, 1, "Legend") + 16, y = 0;
	for (int e = 0; e < LG_N; e++) {
		if (!show[e])
			continue;
		double w = 24 + 8 + fig_text_width(mcr, 12, 0, lg_text[e]) + 22;
		if (x + w > W - PAD && x > PAD + 80) {
			x = PAD + fig_text_width(mcr, 12, 1, "Legend") + 16;
			y += 22;
		}
		lg_x[e] = x;
		lg_y[e] = y;
		x += w;
	}
	if (L.labels)
		place_labels(mcr, t, &L);
	cairo_destroy(mcr);
	cairo_surface_destroy(scratch);
	double H = ceil(head + rows * ph + (rows - 1) * GAP + 16 + y + 22 + PAD);
	W = ceil(W);

	if (fig_open(&cv, W, H)) {
		free(owner);
		layout_free(&L);
		return -1;
	}
	cairo_t *cr = cv.cr;
	FILE *m = cv.meta;
	fprintf(m, " kind=\"schedule\" topology=\"");
	fig_esc(m, t->name);
	fprintf(m, "\" rounds=\"%d\" islands=\"%d\" nodes=\"%d\" layout=\"%s\" width=\"%.0f\" height=\"%.0f\">\n",
		nr, t->n_islands, t->n_nodes, L.geo ? "geographic" : "circle", W, H);

	/* title block */
	fig_set_gray(cr, 0);
	snprintf(buf, sizeof(buf), "%s: %s", t->name, title ? title : s->name);
	fig_text(cr, PAD, PAD + 16, 16, 1, FIG_LEFT, fig_fit(cr, 16, 1, buf, W - 2 * PAD, fit, sizeof(fit)));
	snprintf(buf, sizeof(buf), "%d island%s, %d round%s (one panel each); %s", t->n_islands,
		 t->n_islands == 1 ? "" : "s", nr, nr == 1 ? "" : "s",
		 L.geo ? "islands at their latitude and longitude, moved apart where close"
		       : "islands on a circle (the topology gives no coordinates)");
	fig_set_gray(cr, 0.35);
	fig_text(cr, PAD, PAD + 38, 12, 0, FIG_LEFT, fig_fit(cr, 12, 0, buf, W - 2 * PAD, fit, sizeof(fit)));
	if (caption)
		fig_text(cr, PAD, PAD + 56, 12, 0, FIG_LEFT, fig_fit(cr, 12, 0, caption, W - 2 * PAD, fit, sizeof(fit)));

	for (int r = 0; r < nr; r++) {
		const gs_round *rd = &s->r[r];
		double ox = PAD + (r % cols) * (pw + GAP), oy = head + (r / cols) * (ph + GAP);
		double mox = ox + (pw - map_w) / 2 + L.mx, moy = oy + HEAD_H + L.my;
		int real = 0;
		for (int c = 0; c < rd->nc; c++)
			real += rd->c[c].k >= 2;
		fprintf(m, "<gs:panel round=\"%d\" cliques=\"%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">\n",
			r + 1, real, ox, oy, pw, ph);

		/* frame, map background, header */
		cairo_rectangle(cr, ox + (pw - map_w) / 2, oy + HEAD_H, map_w, map_h);
		cairo_set_source_rgb(cr, 0.965, 0.972, 0.98);
		cairo_fill(cr);
		cairo_rectangle(cr, ox + 0.5, oy + 0.5, pw - 1, ph - 1);
		fig_set_gray(cr, 0.78);
		cairo_set_line_width(cr, 1);
		cairo_stroke(cr);
		fig_set_gray(cr, 0);
		snprintf(buf, sizeof(buf), "Round %d of %d", r + 1, nr);
		double w = fig_text(cr, ox + 10, oy + 20, 13, 1, FIG_LEFT, buf);
		snprintf(buf, sizeof(buf), "  %d clique%s", real, real == 1 ? "" : "s");
		fig_text(cr, ox + 10 + w, oy + 20, 13, 0, FIG_LEFT, buf);
		if (res && r < res->nr) {
			char a[32], b[32];
			gs_fmt_time(res->prop[r], a, sizeof(a));
			gs_fmt_time(res->stage[r], b, sizeof(b));
			snprintf(buf, sizeof(buf), "propagation %s, %s per chunk", a, b);
			fig_set_gray(cr, 0.35);
			fig_text(cr, ox + 10, oy + 37, 11, 0, FIG_LEFT, buf);
		}

		/* physical links under everything */
		if (draw_links) {
			for (int l = 0; l < t->n_links; l++) {
				cairo_move_to(cr, mox + L.x[t->links[l].a], moy + L.y[t->links[l].a]);
				cairo_line_to(cr, mox + L.x[t->links[l].b], moy + L.y[t->links[l].b]);
			}
			fig_set_gray(cr, 0.72);
			cairo_set_line_width(cr, 1.2);
			cairo_stroke(cr);
		}

		/* cliques: lines, then who belongs where */
		for (int i = 0; i < t->n_nodes; i++)
			owner[i] = -1;
		for (int c = 0; c < rd->nc; c++) {
			const gs_clique *q = &rd->c[c];
			for (int i = 0; i < q->k; i++)
				owner[q->m[i]] = c;
			if (q->k < 2)
				continue;
			clique_edges(cr, q, &L, mox, moy);
			fig_set_pal(cr, c, 0.8);
			cairo_set_line_width(cr, 2.6);
			cairo_stroke(cr);
		}
		for (int c = 0; c < rd->nc; c++) {
			const gs_clique *q = &rd->c[c];
			fprintf(m, "<gs:clique index=\"%d\" pattern=\"%s\" color=\"%s\" size=\"%d\"", c + 1,
				gs_pat_name[q->pat], q->k >= 2 ? fig_pal_hex[c % FIG_NPAL] : "none", q->k);
			if (q->pat == GS_PAT_AGGREGATOR && q->agg >= 0) {
				fprintf(m, " aggregator=\"");
				fig_esc(m, t->nodes[q->agg].id);
				fputc('"', m);
			}
			fprintf(m, " members=\"");
			for (int i = 0; i < q->k; i++) {
				if (i)
					fputc(' ', m);
				fig_esc(m, t->nodes[q->m[i]].id);
			}
			fprintf(m, "\"/>\n");
		}

		/* markers: network nodes, islands, aggregators on top */
		for (int i = 0; i < t->n_nodes; i++) {
			double px = mox + L.x[i], py = moy + L.y[i];
			int c = owner[i], idle = c < 0 || rd->c[c].k < 2;
			if (!t->nodes[i].is_island) {
				fig_marker_path(cr, FIG_MK_SQUARE, px, py, L.r * 0.7);
				fig_set_gray(cr, 0.6);
				cairo_fill(cr);
			} else {
				fig_marker_path(cr, FIG_MK_CIRCLE, px, py, L.r);
				if (idle)
					cairo_set_source_rgb(cr, 1, 1, 1);
				else
					fig_set_pal(cr, c, 1);
				cairo_fill_preserve(cr);
				if (idle)
					fig_set_gray(cr, 0.55);
				else
					cairo_set_source_rgb(cr, 1, 1, 1);
				cairo_set_line_width(cr, L.r > 3 ? 1.5 : 0.8);
				cairo_stroke(cr);
			}
			fprintf(m, "<gs:node id=\"");
			fig_esc(m, t->nodes[i].id);
			fprintf(m, "\" kind=\"%s\" clique=\"%d\" x=\"%.2f\" y=\"%.2f\" r=\"%.2f\"/>\n",
				t->nodes[i].is_island ? "island" : "node", idle ? 0 : c + 1, px, py,
				t->nodes[i].is_island ? L.r : L.r * 0.7);
		}
		for (int c = 0; c < rd->nc; c++) {
			const gs_clique *q = &rd->c[c];
			if (q->pat != GS_PAT_AGGREGATOR || q->agg < 0 || q->k < 2)
				continue;
			fig_marker_path(cr, FIG_MK_DIAMOND, mox + L.x[q->agg], moy + L.y[q->agg], L.r);
			fig_set_pal(cr, c, 1);
			cairo_fill_preserve(cr);
			fig_set_gray(cr, 0);
			cairo_set_line_width(cr, 1.6);
			cairo_stroke(cr);
			fprintf(m, "<gs:aggregator id=\"");
			fig_esc(m, t->nodes[q->agg].id);
			fprintf(m, "\" clique=\"%d\" x=\"%.2f\" y=\"%.2f\"/>\n", c + 1, mox + L.x[q->agg],
				moy + L.y[q->agg]);
		}
		if (L.labels)
			for (int i = 0; i < t->n_nodes; i++) {
				fig_set_gray(cr, t->nodes[i].is_island ? 0.1 : 0.45);
				fig_text(cr, mox + L.x[i] + L.ldx[i], moy + L.y[i] + L.ldy[i], LABEL_SIZE, 0, FIG_LEFT,
					 t->nodes[i].id);
			}

		/* the clique list under the map */
		double ly = oy + HEAD_H + map_h + 16;
		int shown = 0;
		for (int c = 0; c < rd->nc; c++) {
			const gs_clique *q = &rd->c[c];
			if (q->k < 2)
				continue;
			if (shown == MAX_LIST) {
				snprintf(buf, sizeof(buf), "and %d more clique%s", real - MAX_LIST,
					 real - MAX_LIST == 1 ? "" : "s");
				fig_set_gray(cr, 0.35);
				fig_text(cr, ox + 40, ly + shown * LINE_H, 11, 0, FIG_LEFT, buf);
				break;
			}
			double yy = ly + shown * LINE_H;
			cairo_move_to(cr, ox + 10, yy - 4);
			cairo_line_to(cr, ox + 32, yy - 4);
			fig_set_pal(cr, c, 0.8);
			cairo_set_line_width(cr, 2.6);
			cairo_stroke(cr);
			fig_marker_path(cr, FIG_MK_CIRCLE, ox + 21, yy - 4, 4);
			fig_set_pal(cr, c, 1);
			cairo_fill(cr);
			clique_text(t, q, buf, sizeof(buf));
			fig_set_gray(cr, 0.1);
			fig_text(cr, ox + 40, yy, 11, 0, FIG_LEFT, fig_fit(cr, 11, 0, buf, pw - 50, fit, sizeof(fit)));
			shown++;
		}
		fprintf(m, "</gs:panel>\n");
	}

	/* legend */
	double lgy = head + rows * ph + (rows - 1) * GAP + 16 + 12;
	fig_set_gray(cr, 0);
	fig_text(cr, PAD, lgy + 4, 12, 1, FIG_LEFT, "Legend");
	fprintf(m, "<gs:legend>\n");
	for (int e = 0; e < LG_N; e++) {
		if (!show[e])
			continue;
		double sw = legend_symbol(cr, e, lg_x[e], lgy + lg_y[e], 6);
		fig_set_gray(cr, 0.1);
		fig_text(cr, lg_x[e] + sw + 8, lgy + lg_y[e] + 4, 12, 0, FIG_LEFT, lg_text[e]);
		fprintf(m, "<gs:entry label=\"%s\"/>\n", lg_text[e]);
	}
	fprintf(m, "</gs:legend>\n");

	snprintf(buf, sizeof(buf),
		 "Schedule %s on topology %s: one panel per round; islands coloured by clique, "
		 "lines join the islands of a clique that exchange data, aggregators drawn as diamonds.",
		 title ? title : s->name, t->name);
	free(owner);
	layout_free(&L);
	snprintf(fit, sizeof(fit), "%s: %s", t->name, title ? title : s->name);
	return fig_close(&cv, fit, buf, f);
}
