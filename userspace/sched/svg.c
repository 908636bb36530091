/* svg.c - figures: a schedule drawn on its topology (one panel per round,
 * each clique a coloured star from its centroid to its members), and a line
 * chart for sweeps.  Plain SVG 1.1 text, no library needed. */
#include "gs.h"
#include <math.h>
#include <string.h>

static const char *const pal[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
				   "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f" };

static void esc(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
}

/* node positions in a w x h box: equirectangular lon/lat when every node
 * has one, else a circle */
static void layout(const gs_topo *t, double w, double h, double *x, double *y)
{
	int all = 1;
	for (int i = 0; i < t->n_nodes; i++)
		all &= t->nodes[i].has_pos;
	if (all && t->n_nodes > 1) {
		double x0 = 1e9, x1 = -1e9, y0 = 1e9, y1 = -1e9;
		for (int i = 0; i < t->n_nodes; i++) {
			x0 = fmin(x0, t->nodes[i].lon);
			x1 = fmax(x1, t->nodes[i].lon);
			y0 = fmin(y0, t->nodes[i].lat);
			y1 = fmax(y1, t->nodes[i].lat);
		}
		double sx = x1 > x0 ? (w - 60) / (x1 - x0) : 1, sy = y1 > y0 ? (h - 60) / (y1 - y0) : 1;
		for (int i = 0; i < t->n_nodes; i++) {
			x[i] = 30 + (t->nodes[i].lon - x0) * sx;
			y[i] = 30 + (y1 - t->nodes[i].lat) * sy;
		}
	} else
		for (int i = 0; i < t->n_nodes; i++) {
			double a = 2 * M_PI * i / (t->n_nodes ? t->n_nodes : 1);
			x[i] = w / 2 + (w / 2 - 30) * cos(a);
			y[i] = h / 2 + (h / 2 - 30) * sin(a);
		}
}

int gs_svg_schedule(const gs_topo *t, const gs_sched *s, const char *title, FILE *f)
{
	const double W = 420, H = 300;
	int cols = s->nr < 3 ? s->nr : 3, rows = (s->nr + cols - 1) / cols;
	double x[4096], y[4096];
	if (t->n_nodes > 4096)
		return -1;
	layout(t, W, H - 30, x, y);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
		cols * W, rows * H + 30);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"10\" y=\"20\" font-size=\"14\">");
	esc(f, title);
	fprintf(f, "</text>\n");
	for (int r = 0; r < s->nr; r++) {
		double ox = (r % cols) * W, oy = 30 + (r / cols) * H;
		fprintf(f, "<g transform=\"translate(%.0f,%.0f)\">\n", ox, oy);
		fprintf(f, "<rect x=\"2\" y=\"2\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#ccc\"/>\n", W - 4, H - 4);
		fprintf(f, "<text x=\"8\" y=\"16\">round %d (%d cliques)</text>\n", r + 1, s->r[r].nc);
		fprintf(f, "<g transform=\"translate(0,20)\">\n");
		for (int l = 0; l < t->n_links && t->n_links <= 2000; l++)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
				x[t->links[l].a], y[t->links[l].a], x[t->links[l].b], y[t->links[l].b]);
		for (int c = 0; c < s->r[r].nc; c++) {
			const gs_clique *q = &s->r[r].c[c];
			const char *col = pal[c % 10];
			double cx = 0, cy = 0;
			for (int i = 0; i < q->k; i++) {
				cx += x[q->m[i]];
				cy += y[q->m[i]];
			}
			cx /= q->k;
			cy /= q->k;
			if (q->pat == GS_PAT_AGGREGATOR && q->agg >= 0) {
				cx = x[q->agg];
				cy = y[q->agg];
			}
			for (int i = 0; i < q->k; i++)
				fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\" opacity=\"0.7\"/>\n",
					cx, cy, x[q->m[i]], y[q->m[i]], col);
			if (q->k > 1)
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s</title></circle>\n",
					cx, cy, col, gs_pat_name[q->pat]);
			for (int i = 0; i < q->k; i++) {
				int n = q->m[i];
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"/>\n", x[n], y[n], col);
				if (t->n_islands <= 32) {
					fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x[n] + 6, y[n] - 4);
					esc(f, t->nodes[n].id);
					fprintf(f, "</text>\n");
				}
			}
		}
		fprintf(f, "</g></g>\n");
	}
	fprintf(f, "</svg>\n");
	return 0;
}

int gs_svg_chart(const char *title, const char *xlabel, const char *const *series, int ns,
		 const gs_svg_point *pts, int np, FILE *f)
{
	const double W = 720, H = 420, L = 70, R = 220, T = 40, B = 60;
	double x0 = 1e300, x1 = -1e300, y1 = 0;
	for (int i = 0; i < np; i++) {
		x0 = fmin(x0, pts[i].x);
		x1 = fmax(x1, pts[i].x);
		for (int s = 0; s < ns; s++)
			if (isfinite(pts[i].y[s]))
				y1 = fmax(y1, pts[i].y[s]);
	}
	if (!(x1 > x0))
		x1 = x0 + 1;
	if (!(y1 > 0))
		y1 = 1;
	y1 *= 1.1;
#define PX(v) (L + ((v) - x0) / (x1 - x0) * (W - L - R))
#define PY(v) (H - B - (v) / y1 * (H - T - B))
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"10\" y=\"20\" font-size=\"14\">",
		W, H);
	esc(f, title);
	fprintf(f, "</text>\n<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, H - B, W - R, H - B);
	fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, T, L, H - B);
	for (int i = 0; i <= 5; i++) {
		double v = y1 * i / 5;
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.0f ms</text>\n", L - 4, PY(v) + 4, v * 1e3);
		fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", L, PY(v), W - R, PY(v));
	}
	for (int i = 0; i < np; i++) {
		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%g</text>\n", PX(pts[i].x), H - B + 14, pts[i].x);
		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"9\">", PX(pts[i].x), H - B + 28);
		esc(f, pts[i].label);
		fprintf(f, "</text>\n");
	}
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">", (L + W - R) / 2, H - 10);
	esc(f, xlabel);
	fprintf(f, "</text>\n");
	for (int s = 0; s < ns; s++) {
		const char *col = pal[s % 10];
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
		for (int i = 0; i < np; i++)
			if (isfinite(pts[i].y[s]))
				fprintf(f, "%.1f,%.1f ", PX(pts[i].x), PY(pts[i].y[s]));
		fprintf(f, "\"/>\n");
		for (int i = 0; i < np; i++)
			if (isfinite(pts[i].y[s]))
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", PX(pts[i].x), PY(pts[i].y[s]), col);
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">",
			W - R + 10, T + s * 18.0, col, W - R + 26, T + s * 18.0 + 10);
		esc(f, series[s]);
		fprintf(f, "</text>\n");
	}
	fprintf(f, "</svg>\n");
#undef PX
#undef PY
	return 0;
}
