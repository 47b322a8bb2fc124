/*
 * svg.h: the plotting module of `wakebench report`: a growing text buffer,
 * scales (linear, logarithmic, bands), axes and marks, written as inline
 * SVG with no script, no font and no reference outside the document.
 *
 * Writing SVG directly is the convention of perf timechart: a plot here is
 * a few hundred elements whose every coordinate the caller decides, so a
 * library (cairo, gnuplot) would add a dependency and an output we cannot
 * embed as text without buying anything. Everything drawn is a function of
 * its arguments; style comes from CSS classes the page defines ("g0".."g7"
 * for the groups' colours, "box", "ci", "pt", "grid", "band", ...).
 */
#ifndef WAKEBENCH_SVG_H
#define WAKEBENCH_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/util.h"

/* ---- a growing text buffer ---- */

struct sbuf {
	char *buf; /* NUL-terminated once anything was added */
	size_t len, alloc;
};

void sbuf_add(struct sbuf *b, const char *s, size_t n);
void sbuf_puts(struct sbuf *b, const char *s);
void sbuf_addf(struct sbuf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* s with & < > " ' as character references (text and attribute values). */
void sbuf_add_xml(struct sbuf *b, const char *s);
void sbuf_release(struct sbuf *b);

/* ---- scales: a domain of values onto a range of pixels ---- */

enum scale_kind { SCALE_LINEAR, SCALE_LOG };

struct scale {
	enum scale_kind kind;
	double d0, d1; /* domain; d0 > d1 is allowed (a reversed axis) */
	double r0, r1; /* range in pixels: d0 maps to r0 */
};

/* A linear scale; a degenerate domain (d0 == d1) is widened around it. */
void scale_linear(struct scale *s, double d0, double d1, double r0, double r1);
/* A log10 scale over a positive domain (values <= 0 are clamped to d0's side). */
void scale_log(struct scale *s, double d0, double d1, double r0, double r1);
double scale_map(const struct scale *s, double v);
/*
 * Widen a linear domain to round numbers at a tick step for about `want`
 * ticks (a log domain to powers of ten), keeping its direction.
 */
void scale_nice(struct scale *s, size_t want);
/*
 * Tick values inside the domain, ascending, at a 1-2-5 step for about
 * `want` ticks (log: 1, 2, 5 times powers of ten, or powers only when they
 * are many). Returns how many were written (at most max).
 */
size_t scale_ticks(const struct scale *s, size_t want, double *ticks, size_t max);
/* The step scale_ticks() uses for a linear domain (for label precision). */
double scale_tick_step(const struct scale *s, size_t want);

/*
 * Categories side by side: n bands over [r0, r1], each with pad (a
 * fraction of its width, 0..1) left empty around it.
 */
struct band {
	size_t n;
	double r0, r1, pad;
};

double band_center(const struct band *b, size_t i);
double band_width(const struct band *b); /* the inner width of one band */

/*
 * A tick label: 2487746 -> "2.49M", 0.0042 -> "0.0042", 150 -> "150", at
 * about `digits` significant digits (3 is usual), ASCII only.
 */
void svg_fmt_num(double v, int digits, char *buf, size_t len);

/* ---- the frame of one plot ---- */

struct svg_frame {
	double width, height;		 /* the whole SVG */
	double left, right, top, bottom; /* the plot area inside it */
};

/*
 * Open an <svg> of frame f's size with a role and a title (its accessible
 * name, also shown as a tooltip), and the plot area's background.
 */
void svg_begin(struct sbuf *b, const struct svg_frame *f, const char *title);
void svg_end(struct sbuf *b);

/*
 * A y axis at the plot's left edge: ticks, labels and grid lines across
 * the plot area, and the axis label written vertically.
 */
void svg_axis_y(struct sbuf *b, const struct svg_frame *f, const struct scale *y, size_t want,
		const char *label);
/* An x axis at the plot's bottom edge for a value scale, with grid lines. */
void svg_axis_x(struct sbuf *b, const struct svg_frame *f, const struct scale *x, size_t want,
		const char *label);
/*
 * Axes whose ticks the caller places (pixel positions px, labels): a
 * change axis labelled in % over a log-ratio scale, say.
 */
void svg_axis_x_at(struct sbuf *b, const struct svg_frame *f, const double *px,
		   const char *const *labels, size_t n, const char *label);
void svg_axis_y_at(struct sbuf *b, const struct svg_frame *f, const double *py,
		   const char *const *labels, size_t n, const char *label);
/*
 * Text of at most max_px pixels wide at the tick font size: a longer one
 * is shortened in the middle with "..", the whole kept as its <title> (a
 * tooltip).
 */
void svg_text_fit(struct sbuf *b, double x, double y, const char *anchor, const char *cls,
		  const char *text, double max_px);
/*
 * An x axis of categories: one label under each band (labels longer than
 * its width are shortened as svg_text_fit() does).
 */
void svg_axis_band(struct sbuf *b, const struct svg_frame *f, const struct band *x,
		   const char *const *labels);

/* ---- marks (cls: CSS classes, space-separated; may be NULL) ---- */

void svg_rect(struct sbuf *b, double x0, double y0, double x1, double y1, const char *cls);
void svg_line(struct sbuf *b, double x1, double y1, double x2, double y2, const char *cls);
void svg_circle(struct sbuf *b, double cx, double cy, double r, const char *cls);
/* anchor: "start", "middle" or "end". */
void svg_text(struct sbuf *b, double x, double y, const char *anchor, const char *cls,
	      const char *text);
/* A polyline through n points. */
void svg_polyline(struct sbuf *b, const double *x, const double *y, size_t n, const char *cls);
/* Open and close a group with classes (and a tooltip title when not NULL). */
void svg_group_begin(struct sbuf *b, const char *cls, const char *title);
void svg_group_end(struct sbuf *b);

#endif
