/* figure.c - the SVG canvas (cairo's SVG surface plus a metadata stream),
 * text and markers, round axis ticks, and the line chart of sweeps.  The
 * schedule drawn on its topology is in fig_schedule.c. */
#include "figure.h"
#include "fig_draw.h"
#include <cairo-svg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- canvas ------------------------------------------------------------ */

static cairo_status_t sink(void *closure, const unsigned char *data, unsigned int len)
{
	fig_canvas *c = closure;
	if (c->len + len > c->cap) {
		size_t cap = c->cap ? c->cap : 65536;
		while (cap < c->len + len)
			cap *= 2;
		unsigned char *p = realloc(c->svg, cap);
		if (!p)
			return CAIRO_STATUS_NO_MEMORY;
		c->svg = p;
		c->cap = cap;
	}
	memcpy(c->svg + c->len, data, len);
	c->len += len;
	return CAIRO_STATUS_SUCCESS;
}

int fig_open(fig_canvas *c, double w, double h)
{
	memset(c, 0, sizeof(*c));
	c->meta = open_memstream(&c->mbuf, &c->mlen);
	if (!c->meta)
		return -1;
	c->surf = cairo_svg_surface_create_for_stream(sink, c, w, h);
	cairo_svg_surface_restrict_to_version(c->surf, CAIRO_SVG_VERSION_1_1);
	cairo_svg_surface_set_document_unit(c->surf, CAIRO_SVG_UNIT_PX);
	c->cr = cairo_create(c->surf);
	if (cairo_status(c->cr) != CAIRO_STATUS_SUCCESS) {
		fig_close(c, NULL, NULL, NULL);
		return -1;
	}
	cairo_set_line_join(c->cr, CAIRO_LINE_JOIN_ROUND);
	cairo_set_line_cap(c->cr, CAIRO_LINE_CAP_ROUND);
	/* a white page: viewers show transparency as a pattern or black */
	cairo_set_source_rgb(c->cr, 1, 1, 1);
	cairo_paint(c->cr);
	return 0;
}

int fig_close(fig_canvas *c, const char *title, const char *desc, FILE *out)
{
	int rc = cairo_status(c->cr) == CAIRO_STATUS_SUCCESS ? 0 : -1;
	cairo_destroy(c->cr);
	cairo_surface_finish(c->surf);
	if (cairo_surface_status(c->surf) != CAIRO_STATUS_SUCCESS)
		rc = -1;
	cairo_surface_destroy(c->surf);
	if (fclose(c->meta))
		rc = -1;
	if (!rc && out) {
		/* the metadata goes first inside the root element */
		const unsigned char *root = c->len ? memmem(c->svg, c->len, "<svg", 4) : NULL;
		const unsigned char *end = root ? memchr(root, '>', c->len - (size_t)(root - c->svg)) : NULL;
		if (!end)
			rc = -1;
		else {
			size_t head = (size_t)(end - c->svg) + 1;
			fwrite(c->svg, 1, head, out);
			fputs("\n<title>", out);
			fig_esc(out, title ? title : "");
			fputs("</title>\n<desc>", out);
			fig_esc(out, desc ? desc : "");
			fprintf(out, "</desc>\n<metadata>\n<gs:figure xmlns:gs=\"%s\"", GS_FIG_NS);
			fwrite(c->mbuf, 1, c->mlen, out);
			fputs("</gs:figure>\n</metadata>", out);
			fwrite(c->svg + head, 1, c->len - head, out);
			if (ferror(out))
				rc = -1;
		}
	}
	free(c->mbuf);
	free(c->svg);
	memset(c, 0, sizeof(*c));
	return rc;
}

void fig_esc(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			/* control characters are not allowed in XML 1.0 */
			fputc((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t' ? ' ' : *s, f);
		}
}

/* ---- text, colours, markers ------------------------------------------- */

static void font(cairo_t *cr, double size, int bold)
{
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
}

double fig_text_width(cairo_t *cr, double size, int bold, const char *s)
{
	cairo_text_extents_t e;
	font(cr, size, bold);
	cairo_text_extents(cr, s, &e);
	return e.x_advance;
}

double fig_text(cairo_t *cr, double x, double y, double size, int bold, int align, const char *s)
{
	double w = fig_text_width(cr, size, bold, s);
	cairo_move_to(cr, align == FIG_LEFT ? x : align == FIG_CENTER ? x - w / 2 : x - w, y);
	cairo_show_text(cr, s);
	cairo_new_path(cr);
	return w;
}

const char *fig_fit(cairo_t *cr, double size, int bold, const char *s, double w, char *buf, size_t n)
{
	static const char ell[] = "\xe2\x80\xa6";       /* U+2026 */
	size_t len = strlen(s);
	if (fig_text_width(cr, size, bold, s) <= w || n < sizeof(ell) + 1)
		return s;
	if (len > n - sizeof(ell))
		len = n - sizeof(ell);
	for (;;) {
		while (len && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;      /* never cut a UTF-8 sequence */
		memcpy(buf, s, len);
		strcpy(buf + len, ell);
		if (!len || fig_text_width(cr, size, bold, buf) <= w)
			return buf;
		len--;
	}
}

/* Tableau 10: distinct, and readable on white */
const char *const fig_pal_hex[FIG_NPAL] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
					    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf" };

void fig_set_pal(cairo_t *cr, int i, double alpha)
{
	unsigned v = (unsigned)strtoul(fig_pal_hex[i % FIG_NPAL] + 1, NULL, 16);
	cairo_set_source_rgba(cr, (v >> 16) / 255.0, ((v >> 8) & 255) / 255.0, (v & 255) / 255.0, alpha);
}

void fig_set_gray(cairo_t *cr, double v)
{
	cairo_set_source_rgb(cr, v, v, v);
}

void fig_marker_path(cairo_t *cr, int kind, double x, double y, double r)
{
	cairo_new_sub_path(cr);
	switch (kind) {
	case FIG_MK_SQUARE:
		cairo_rectangle(cr, x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7);
		break;
	case FIG_MK_TRIANGLE:
		cairo_move_to(cr, x, y - r * 1.15);
		cairo_line_to(cr, x + r, y + r * 0.6);
		cairo_line_to(cr, x - r, y + r * 0.6);
		cairo_close_path(cr);
		break;
	case FIG_MK_DIAMOND:
		cairo_move_to(cr, x, y - r * 1.3);
		cairo_line_to(cr, x + r * 1.3, y);
		cairo_line_to(cr, x, y + r * 1.3);
		cairo_line_to(cr, x - r * 1.3, y);
		cairo_close_path(cr);
		break;
	default:
		cairo_arc(cr, x, y, r, 0, 2 * M_PI);
		cairo_close_path(cr);
	}
}

/* ---- ticks ------------------------------------------------------------- */

double gs_fig_nice_step(double raw)
{
	if (!(raw > 0) || !isfinite(raw))
		return 1;
	double mag = pow(10, floor(log10(raw)));
	double f = raw / mag;
	/* f is in [1, 10) up to rounding */
	return (f <= 1 + 1e-9 ? 1 : f <= 2 + 1e-9 ? 2 : f <= 5 + 1e-9 ? 5 : 10) * mag;
}

void gs_fig_time_ticks(double max_s, int target, gs_fig_ticks *tk)
{
	if (!(max_s > 0) || !isfinite(max_s))
		max_s = 1e-3;
	if (target < 1)
		target = 5;
	if (max_s >= 1) {
		tk->unit = "s";
		tk->per_unit = 1;
	} else if (max_s >= 1e-3) {
		tk->unit = "ms";
		tk->per_unit = 1e-3;
	} else {
		tk->unit = "\xc2\xb5s";     /* µs */
		tk->per_unit = 1e-6;
	}
	double m = max_s / tk->per_unit;
	tk->step = gs_fig_nice_step(m / target);
	tk->n = (int)ceil(m / tk->step - 1e-9);
	if (tk->n < 1)
		tk->n = 1;
	tk->decimals = tk->step >= 1 ? 0 : (int)ceil(-log10(tk->step) - 1e-9);
}

void gs_fig_tick_label(const gs_fig_ticks *tk, int i, char *buf, size_t n)
{
	snprintf(buf, n, "%.*f", tk->decimals, i * tk->step);
}

/* ---- line chart ------------------------------------------------------- */

int gs_fig_chart_svg(const gs_fig_chart *c, FILE *f)
{
	const double W = 780, H = 480, L = 84, T = 78, R = W - 220, B = H - 66;
	const int ns = c->ns < GS_FIG_MAX_SERIES ? c->ns : GS_FIG_MAX_SERIES;
	static const double dashes[][2] = { { 0, 0 }, { 7, 4 }, { 2, 4 }, { 10, 3 } };
	fig_canvas cv;
	char buf[160];
	double ymax = 0;

	for (int i = 0; i < c->np; i++)
		for (int s = 0; s < ns; s++)
			if (isfinite(c->pts[i].y[s]))
				ymax = fmax(ymax, c->pts[i].y[s]);
	gs_fig_ticks tk;
	gs_fig_time_ticks(ymax, 6, &tk);
	double top = tk.n * tk.step;            /* in units */
	if (fig_open(&cv, W, H))
		return -1;
	cairo_t *cr = cv.cr;
	FILE *m = cv.meta;
#define PX(i) (L + ((i) + 0.5) * (R - L) / (c->np > 0 ? c->np : 1))
#define PY(v) (B - (v) / tk.per_unit / top * (B - T))

	fprintf(m, " kind=\"chart\" width=\"%.0f\" height=\"%.0f\">\n", W, H);
	fig_set_gray(cr, 0);
	fig_text(cr, 16, 28, 16, 1, FIG_LEFT, c->title ? c->title : "");
	if (c->subtitle) {
		fig_set_gray(cr, 0.35);
		fig_text(cr, 16, 50, 12, 0, FIG_LEFT, c->subtitle);
	}

	/* y: grid, ticks, labels */
	snprintf(buf, sizeof(buf), "%s (%s)", c->ylabel ? c->ylabel : "time", tk.unit);
	fprintf(m, "<gs:axis name=\"y\" label=\"");
	fig_esc(m, c->ylabel ? c->ylabel : "time");
	fprintf(m, "\" unit=\"%s\" min=\"0\" max=\"%.*f\" step=\"%.*f\">\n", tk.unit, tk.decimals, top,
		tk.decimals, tk.step);
	cairo_set_line_width(cr, 1);
	for (int i = 0; i <= tk.n; i++) {
		char lab[32];
		double y = round(B - (double)i / tk.n * (B - T)) + 0.5;
		gs_fig_tick_label(&tk, i, lab, sizeof(lab));
		fprintf(m, "<gs:tick value=\"%s\" label=\"%s\" y=\"%.1f\"/>\n", lab, lab, y);
		fig_set_gray(cr, 0.9);
		cairo_move_to(cr, L, y);
		cairo_line_to(cr, R, y);
		cairo_stroke(cr);
		fig_set_gray(cr, 0);
		cairo_move_to(cr, L - 5, y);
		cairo_line_to(cr, L, y);
		cairo_stroke(cr);
		fig_text(cr, L - 8, y + 4, 12, 0, FIG_RIGHT, lab);
	}
	fprintf(m, "</gs:axis>\n");
	cairo_save(cr);
	cairo_translate(cr, 24, (T + B) / 2);
	cairo_rotate(cr, -M_PI / 2);
	fig_text(cr, 0, 0, 13, 0, FIG_CENTER, buf);
	cairo_restore(cr);

	/* x: one tick per category */
	fprintf(m, "<gs:axis name=\"x\" label=\"");
	fig_esc(m, c->xlabel ? c->xlabel : "");
	fprintf(m, "\" kind=\"category\">\n");
	for (int i = 0; i < c->np; i++) {
		double x = round(PX(i)) + 0.5;
		fprintf(m, "<gs:tick value=\"%d\" label=\"", i);
		fig_esc(m, c->pts[i].label);
		fprintf(m, "\" x=\"%.1f\"/>\n", x);
		cairo_move_to(cr, x, B);
		cairo_line_to(cr, x, B + 5);
		cairo_stroke(cr);
		fig_text(cr, x, B + 20, 12, 0, FIG_CENTER, c->pts[i].label);
	}
	fprintf(m, "</gs:axis>\n");
	fig_text(cr, (L + R) / 2, B + 48, 13, 0, FIG_CENTER, c->xlabel ? c->xlabel : "");
	/* the axes over the grid */
	cairo_move_to(cr, L + 0.5, T);
	cairo_line_to(cr, L + 0.5, B + 0.5);
	cairo_line_to(cr, R, B + 0.5);
	cairo_stroke(cr);

	/* series: lines broken where a value is missing, then markers */
	for (int s = 0; s < ns; s++) {
		int pts = 0, pen = 0;
		for (int i = 0; i < c->np; i++) {
			double v = c->pts[i].y[s];
			if (!isfinite(v)) {
				pen = 0;
				continue;
			}
			pts++;
			if (pen)
				cairo_line_to(cr, PX(i), PY(v));
			else
				cairo_move_to(cr, PX(i), PY(v));
			pen = 1;
		}
		fig_set_pal(cr, s, 1);
		cairo_set_line_width(cr, 2.2);
		cairo_set_dash(cr, dashes[s % 4], dashes[s % 4][0] > 0 ? 2 : 0, 0);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
		for (int i = 0; i < c->np; i++)
			if (isfinite(c->pts[i].y[s]))
				fig_marker_path(cr, s % FIG_MK_N, PX(i), PY(c->pts[i].y[s]), 4.5);
		cairo_fill_preserve(cr);
		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_set_line_width(cr, 1.2);
		cairo_stroke(cr);
		fprintf(m, "<gs:series name=\"");
		fig_esc(m, c->series[s]);
		fprintf(m, "\" color=\"%s\" points=\"%d\">\n", fig_pal_hex[s % FIG_NPAL], pts);
		for (int i = 0; i < c->np; i++)
			if (isfinite(c->pts[i].y[s]))
				fprintf(m, "<gs:point x=\"%d\" y=\"%.9g\" px=\"%.2f\" py=\"%.2f\"/>\n", i,
					c->pts[i].y[s] / tk.per_unit, PX(i), PY(c->pts[i].y[s]));
		fprintf(m, "</gs:series>\n");
	}

	/* legend, right of the plot */
	double lx = R + 24, ly = T + 6;
	fig_set_gray(cr, 0);
	fig_text(cr, lx, ly, 12, 1, FIG_LEFT, "Legend");
	fprintf(m, "<gs:legend>\n");
	for (int s = 0; s < ns; s++) {
		double y = ly + 24 + s * 24;
		int none = 1;
		for (int i = 0; i < c->np; i++)
			none &= !isfinite(c->pts[i].y[s]);
		fig_set_pal(cr, s, 1);
		cairo_set_line_width(cr, 2.2);
		cairo_set_dash(cr, dashes[s % 4], dashes[s % 4][0] > 0 ? 2 : 0, 0);
		cairo_move_to(cr, lx, y - 4);
		cairo_line_to(cr, lx + 32, y - 4);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
		fig_marker_path(cr, s % FIG_MK_N, lx + 16, y - 4, 4.5);
		cairo_fill_preserve(cr);
		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_set_line_width(cr, 1.2);
		cairo_stroke(cr);
		snprintf(buf, sizeof(buf), "%s%s", c->series[s], none ? " (not feasible)" : "");
		fig_set_gray(cr, 0);
		fig_text(cr, lx + 40, y, 12, 0, FIG_LEFT, buf);
		fprintf(m, "<gs:entry label=\"");
		fig_esc(m, buf);
		fprintf(m, "\" series=\"%d\"/>\n", s);
	}
	fprintf(m, "</gs:legend>\n");
#undef PX
#undef PY

	char desc[512];
	int k = snprintf(desc, sizeof(desc), "Line chart of %s (%s) against %s; series:",
			 c->ylabel ? c->ylabel : "time", tk.unit, c->xlabel ? c->xlabel : "");
	for (int s = 0; s < ns && k > 0 && (size_t)k < sizeof(desc); s++)
		k += snprintf(desc + k, sizeof(desc) - (size_t)k, "%s %s", s ? "," : "", c->series[s]);
	return fig_close(&cv, c->title, desc, f);
}
