/* fig_draw.h - what figure.c and fig_schedule.c share: an SVG canvas on
 * cairo with a metadata stream beside it, text, colours, markers. */
#ifndef GS_FIG_DRAW_H
#define GS_FIG_DRAW_H

#include <cairo.h>
#include <stdio.h>

typedef struct {
	cairo_surface_t *surf;
	cairo_t *cr;
	unsigned char *svg;                 /* what cairo wrote */
	size_t len, cap;
	FILE *meta;                         /* the <metadata> content */
	char *mbuf;
	size_t mlen;
} fig_canvas;

/* a W x H pixel SVG canvas; 0 or -1 */
int  fig_open(fig_canvas *c, double w, double h);
/* finish drawing and write the SVG to OUT with <title>TITLE</title>,
 * <desc>DESC</desc> and <metadata> (what went to c->meta) first in it;
 * frees everything (also on failure).  0 or -1. */
int  fig_close(fig_canvas *c, const char *title, const char *desc, FILE *out);

/* XML text and attribute escaping */
void fig_esc(FILE *f, const char *s);

enum { FIG_LEFT, FIG_CENTER, FIG_RIGHT };
/* text with its baseline at Y; size in px; returns its width */
double fig_text(cairo_t *cr, double x, double y, double size, int bold, int align, const char *s);
double fig_text_width(cairo_t *cr, double size, int bold, const char *s);
/* S cut to at most W px, ending in an ellipsis if cut (into BUF) */
const char *fig_fit(cairo_t *cr, double size, int bold, const char *s, double w, char *buf, size_t n);

#define FIG_NPAL 10
extern const char *const fig_pal_hex[FIG_NPAL];
void fig_set_pal(cairo_t *cr, int i, double alpha);
void fig_set_gray(cairo_t *cr, double v);

enum { FIG_MK_CIRCLE, FIG_MK_SQUARE, FIG_MK_TRIANGLE, FIG_MK_DIAMOND, FIG_MK_N };
/* a marker path centred at X,Y of radius R (not filled or stroked) */
void fig_marker_path(cairo_t *cr, int kind, double x, double y, double r);

#endif
