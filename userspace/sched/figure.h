/* figure.h - gsync-sched's figures (--svg), drawn with cairo's SVG surface:
 * a line chart for sweeps (figure.c) and a schedule drawn on its topology,
 * one panel per round (fig_schedule.c).
 *
 * cairo draws text as glyph outlines, so a figure's words are not in its
 * SVG as text.  Each file therefore also carries them: <title>, <desc> and
 * a <metadata> element in the namespace GS_FIG_NS that lists what was
 * drawn (axes with their ticks, series, legend entries; panels, cliques,
 * node positions).  Tests read it; so can anyone post-processing figures. */
#ifndef GS_FIGURE_H
#define GS_FIGURE_H

#include "gs.h"

#define GS_FIG_NS "urn:x-gsync:figure:1"

/* ---- line chart (figure.c) ---- */
#define GS_FIG_MAX_SERIES 8
typedef struct {
	double y[GS_FIG_MAX_SERIES];        /* seconds; not finite: no point */
	char label[64];                     /* the category (x tick label) */
} gs_fig_point;

typedef struct {
	const char *title, *subtitle;
	const char *xlabel;                 /* x is categorical: one tick per point */
	const char *ylabel;                 /* a time; the unit is chosen from the data */
	const char *const *series;
	int ns, np;
	const gs_fig_point *pts;
} gs_fig_chart;

/* write the chart as SVG to F: 0, or -1 (cairo or write error) */
int gs_fig_chart_svg(const gs_fig_chart *c, FILE *f);

/* ---- a schedule on its topology (fig_schedule.c) ---- */
/* RES (optional) adds per-round propagation and stage times, CAPTION
 * (optional) a line under the title.  0, or -1. */
int gs_fig_schedule_svg(const gs_topo *t, const gs_sched *s, const gs_result *res, const char *title,
			const char *caption, FILE *f);

/* ---- axis ticks (figure.c) ---- */
/* Round ticks for a time axis from 0 to at least MAX seconds: the unit is
 * s, ms or µs (the largest in which MAX is >= 1), the step 1, 2 or 5 times
 * a power of ten in that unit, about TARGET intervals. */
typedef struct {
	const char *unit;                   /* "s", "ms", "µs" (UTF-8) */
	double per_unit;                    /* seconds in one unit */
	double step;                        /* in units */
	int n;                              /* ticks are i * step, i = 0..n */
	int decimals;                       /* of the labels */
} gs_fig_ticks;
void gs_fig_time_ticks(double max_s, int target, gs_fig_ticks *tk);
/* 1, 2 or 5 times a power of ten, the smallest such >= RAW (> 0) */
double gs_fig_nice_step(double raw);
/* label of tick I, the number only (the unit is in the axis label) */
void gs_fig_tick_label(const gs_fig_ticks *tk, int i, char *buf, size_t n);

#endif
