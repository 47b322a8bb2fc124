/*
 * svg.c: scales, axes and marks as inline SVG text (svg.h). Coordinates
 * are written with one decimal: a tenth of a pixel is finer than any
 * screen, and it keeps a plot of thousands of points small.
 */
#include "render/svg.h"
#include "util/text.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- buffer ---- */

static void sbuf_grow(struct sbuf *b, size_t more)
{
	if (b->len + more + 1 <= b->alloc)
		return;
	b->alloc = b->alloc ? b->alloc : 4096;
	while (b->len + more + 1 > b->alloc)
		b->alloc *= 2;
	b->buf = xrealloc(b->buf, b->alloc);
}

void sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	sbuf_grow(b, n);
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void sbuf_puts(struct sbuf *b, const char *s)
{
	sbuf_add(b, s, strlen(s));
}

void sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		BUG("vsnprintf '%s'", fmt);
	sbuf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sbuf_add_xml(struct sbuf *b, const char *text)
{
	/*
	 * Stored text may be anything: controls (a newline too: a label is one
	 * line here as on a terminal, and in a <pre> a line a shell could run)
	 * and invalid UTF-8 become visible escapes.
	 */
	char *safe = text_printable(text, 0);
	const char *s = safe, *run = s;

	for (; *s; s++) {
		const char *rep = NULL;

		switch (*s) {
		case '&':
			rep = "&amp;";
			break;
		case '<':
			rep = "&lt;";
			break;
		case '>':
			rep = "&gt;";
			break;
		case '"':
			rep = "&quot;";
			break;
		case '\'':
			rep = "&#39;";
			break;
		default:
			break;
		}
		if (!rep)
			continue;
		sbuf_add(b, run, (size_t)(s - run));
		sbuf_puts(b, rep);
		run = s + 1;
	}
	sbuf_add(b, run, (size_t)(s - run));
	free(safe);
}

void sbuf_release(struct sbuf *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

/* ---- scales ---- */

void scale_linear(struct scale *s, double d0, double d1, double r0, double r1)
{
	if (!isfinite(d0) || !isfinite(d1)) {
		d0 = 0;
		d1 = 1;
	}
	if (d0 == d1) {
		double w = d0 ? fabs(d0) * 0.05 : 1;

		d0 -= w;
		d1 += w;
	}
	s->kind = SCALE_LINEAR;
	s->d0 = d0;
	s->d1 = d1;
	s->r0 = r0;
	s->r1 = r1;
}

void scale_log(struct scale *s, double d0, double d1, double r0, double r1)
{
	double lo = fmin(d0, d1), hi = fmax(d0, d1);

	if (!(lo > 0) || !isfinite(hi)) {
		lo = lo > 0 && isfinite(lo) ? lo : 1;
		hi = fmax(hi, lo);
	}
	if (lo == hi) {
		lo /= 2;
		hi *= 2;
	}
	s->kind = SCALE_LOG;
	s->d0 = d0 <= d1 ? lo : hi;
	s->d1 = d0 <= d1 ? hi : lo;
	s->r0 = r0;
	s->r1 = r1;
}

double scale_map(const struct scale *s, double v)
{
	double t;

	if (s->kind == SCALE_LOG) {
		double lo = fmin(s->d0, s->d1);

		v = v > lo ? v : lo;
		t = (log10(v) - log10(s->d0)) / (log10(s->d1) - log10(s->d0));
	} else {
		t = (v - s->d0) / (s->d1 - s->d0);
	}
	return s->r0 + t * (s->r1 - s->r0);
}

/* 1, 2 or 5 times a power of ten, about span / want. */
static double nice_step(double span, size_t want)
{
	double raw = span / (double)(want ? want : 1), p = pow(10, floor(log10(raw))), m = raw / p;

	if (m < 1.5)
		return p;
	if (m < 3.5)
		return 2 * p;
	if (m < 7.5)
		return 5 * p;
	return 10 * p;
}

double scale_tick_step(const struct scale *s, size_t want)
{
	return nice_step(fabs(s->d1 - s->d0), want);
}

void scale_nice(struct scale *s, size_t want)
{
	double lo = fmin(s->d0, s->d1), hi = fmax(s->d0, s->d1);
	bool rev = s->d0 > s->d1;

	if (s->kind == SCALE_LOG) {
		lo = pow(10, floor(log10(lo)));
		hi = pow(10, ceil(log10(hi)));
	} else {
		double step = nice_step(hi - lo, want);

		lo = floor(lo / step) * step;
		hi = ceil(hi / step) * step;
	}
	s->d0 = rev ? hi : lo;
	s->d1 = rev ? lo : hi;
}

size_t scale_ticks(const struct scale *s, size_t want, double *ticks, size_t max)
{
	double lo = fmin(s->d0, s->d1), hi = fmax(s->d0, s->d1), eps;
	size_t n = 0;

	if (s->kind == SCALE_LOG) {
		static const double mult[] = { 1, 2, 5 };
		double e0 = floor(log10(lo)), e1 = ceil(log10(hi)), e;
		/* many decades: powers of ten only */
		size_t nm = e1 - e0 > (double)want / 2 ? 1 : 3, k;

		for (e = e0; e <= e1 && n < max; e++)
			for (k = 0; k < nm && n < max; k++) {
				double v = mult[k] * pow(10, e);

				if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
					ticks[n++] = v;
			}
		return n;
	} else {
		double step = nice_step(hi - lo, want), v;

		eps = step * 1e-9;
		for (v = ceil((lo - eps) / step) * step; v <= hi + eps && n < max; v += step)
			ticks[n++] = fabs(v) < eps ? 0 : v;
	}
	return n;
}

double band_center(const struct band *b, size_t i)
{
	double w = (b->r1 - b->r0) / (double)(b->n ? b->n : 1);

	return b->r0 + w * ((double)i + 0.5);
}

double band_width(const struct band *b)
{
	return (b->r1 - b->r0) / (double)(b->n ? b->n : 1) * (1 - b->pad);
}

void svg_fmt_num(double v, int digits, char *buf, size_t len)
{
	static const struct {
		double f;
		const char *suffix;
	} si[] = { { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } };
	double a = fabs(v);
	size_t i;

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(si); i++)
		if (a >= si[i].f * 0.9995 && (a >= 1e4 || si[i].f > 1e3)) {
			snprintf(buf, len, "%.*g%s", digits, v / si[i].f, si[i].suffix);
			return;
		}
	if (a >= 1000 || a == 0)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.*g", digits, v);
}

/* ---- frame and axes ---- */

static void put_class(struct sbuf *b, const char *cls)
{
	if (!cls)
		return;
	sbuf_puts(b, " class=\"");
	sbuf_add_xml(b, cls);
	sbuf_puts(b, "\"");
}

void svg_begin(struct sbuf *b, const struct svg_frame *f, const char *title)
{
	sbuf_addf(b,
		  "<svg class=\"plot\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		  "role=\"img\" aria-label=\"",
		  f->width, f->height, f->width, f->height);
	sbuf_add_xml(b, title);
	sbuf_puts(b, "\"><title>");
	sbuf_add_xml(b, title);
	sbuf_puts(b, "</title>\n");
	svg_rect(b, f->left, f->top, f->width - f->right, f->height - f->bottom, "area");
}

void svg_end(struct sbuf *b)
{
	sbuf_puts(b, "</svg>\n");
}

static void y_label(struct sbuf *b, const struct svg_frame *f, const char *label)
{
	double cy = (f->top + f->height - f->bottom) / 2;

	if (!label)
		return;
	sbuf_addf(b,
		  "<text class=\"label\" text-anchor=\"middle\" "
		  "transform=\"translate(12 %.1f) rotate(-90)\">",
		  cy);
	sbuf_add_xml(b, label);
	sbuf_puts(b, "</text>\n");
}

#define AXIS_TICKS_MAX 64

/*
 * The ticks of scale s (about want of them) as pixel positions and labels,
 * with enough digits that neighbouring ticks differ ("1.62M", "1.63M").
 */
static size_t axis_ticks(const struct scale *s, size_t want, double *px, char (*lab)[32],
			 const char **labels)
{
	double ticks[AXIS_TICKS_MAX];
	int digits = 3;
	size_t n = scale_ticks(s, want, ticks, AXIS_TICKS_MAX), i;

	if (s->kind == SCALE_LINEAR && n > 1) {
		double step = ticks[1] - ticks[0], top = fmax(fabs(ticks[0]), fabs(ticks[n - 1]));

		digits = (int)fmax(3, ceil(log10(top / step)) + 1);
		digits = digits > 8 ? 8 : digits;
	}
	for (i = 0; i < n; i++) {
		px[i] = scale_map(s, ticks[i]);
		svg_fmt_num(ticks[i], digits, lab[i], sizeof(lab[i]));
		labels[i] = lab[i];
	}
	return n;
}

void svg_axis_y(struct sbuf *b, const struct svg_frame *f, const struct scale *y, size_t want,
		const char *label)
{
	double py[AXIS_TICKS_MAX];
	char lab[AXIS_TICKS_MAX][32];
	const char *labels[AXIS_TICKS_MAX];
	size_t n = axis_ticks(y, want, py, lab, labels);

	svg_axis_y_at(b, f, py, labels, n, label);
}

void svg_axis_x(struct sbuf *b, const struct svg_frame *f, const struct scale *x, size_t want,
		const char *label)
{
	double px[AXIS_TICKS_MAX];
	char lab[AXIS_TICKS_MAX][32];
	const char *labels[AXIS_TICKS_MAX];
	size_t n = axis_ticks(x, want, px, lab, labels);

	svg_axis_x_at(b, f, px, labels, n, label);
}

void svg_axis_x_at(struct sbuf *b, const struct svg_frame *f, const double *px,
		   const char *const *labels, size_t n, const char *label)
{
	double y0 = f->top, y1 = f->height - f->bottom;
	size_t i;

	for (i = 0; i < n; i++) {
		svg_line(b, px[i], y0, px[i], y1, "grid");
		svg_text(b, px[i], y1 + 13, "middle", "tick", labels[i]);
	}
	svg_line(b, f->left, y1, f->width - f->right, y1, "axis");
	if (label)
		svg_text(b, (f->left + f->width - f->right) / 2, f->height - 4, "middle", "label",
			 label);
}

void svg_axis_y_at(struct sbuf *b, const struct svg_frame *f, const double *py,
		   const char *const *labels, size_t n, const char *label)
{
	double x0 = f->left, x1 = f->width - f->right;
	size_t i;

	for (i = 0; i < n; i++) {
		svg_line(b, x0, py[i], x1, py[i], "grid");
		svg_text(b, x0 - 4, py[i] + 3.5, "end", "tick", labels[i]);
	}
	svg_line(b, x0, f->top, x0, f->height - f->bottom, "axis");
	y_label(b, f, label);
}

/* about 6.5 pixels per character at the tick font size */
#define CHAR_PX 6.5

/* The start of s holding at most n bytes, not ending inside a UTF-8 sequence. */
static size_t utf8_head(const char *s, size_t n)
{
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

void svg_text_fit(struct sbuf *b, double x, double y, const char *anchor, const char *cls,
		  const char *text, double max_px)
{
	size_t fit = (size_t)fmax(4, max_px / CHAR_PX), n = strlen(text ? text : ""), head, tail;
	char *cut;

	if (n <= fit) {
		svg_text(b, x, y, anchor, cls, text ? text : "");
		return;
	}
	sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"", x, y, anchor);
	put_class(b, cls);
	sbuf_puts(b, "><title>");
	sbuf_add_xml(b, text);
	sbuf_puts(b, "</title>");
	/*
	 * Shortened in the middle: the end of a label is as telling as its
	 * start ("A: DELAY_DEQUEUE=on" and "=off", "...-amd64" and "-cloud-amd64")
	 */
	head = utf8_head(text, (fit - 2 + 1) / 2);
	tail = fit - 2 - head;
	while (tail > 0 && ((unsigned char)text[n - tail] & 0xc0) == 0x80)
		tail--;
	cut = xasprintf("%.*s..%s", (int)head, text, text + n - tail);
	sbuf_add_xml(b, cut);
	free(cut);
	sbuf_puts(b, "</text>\n");
}

void svg_axis_band(struct sbuf *b, const struct svg_frame *f, const struct band *x,
		   const char *const *labels)
{
	double y1 = f->height - f->bottom, w = (x->r1 - x->r0) / (double)(x->n ? x->n : 1);
	size_t i;

	svg_line(b, f->left, y1, f->width - f->right, y1, "axis");
	for (i = 0; i < x->n; i++)
		svg_text_fit(b, band_center(x, i), y1 + 14, "middle", "tick",
			     labels[i] ? labels[i] : "", w);
}

/* ---- marks ---- */

void svg_rect(struct sbuf *b, double x0, double y0, double x1, double y1, const char *cls)
{
	sbuf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", fmin(x0, x1),
		  fmin(y0, y1), fabs(x1 - x0), fabs(y1 - y0));
	put_class(b, cls);
	sbuf_puts(b, "/>\n");
}

void svg_line(struct sbuf *b, double x1, double y1, double x2, double y2, const char *cls)
{
	sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"", x1, y1, x2, y2);
	put_class(b, cls);
	sbuf_puts(b, "/>\n");
}

void svg_circle(struct sbuf *b, double cx, double cy, double r, const char *cls)
{
	sbuf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", cx, cy, r);
	put_class(b, cls);
	sbuf_puts(b, "/>\n");
}

void svg_text(struct sbuf *b, double x, double y, const char *anchor, const char *cls,
	      const char *text)
{
	sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"", x, y, anchor);
	put_class(b, cls);
	sbuf_puts(b, ">");
	sbuf_add_xml(b, text);
	sbuf_puts(b, "</text>\n");
}

void svg_polyline(struct sbuf *b, const double *x, const double *y, size_t n, const char *cls)
{
	size_t i;

	if (!n)
		return;
	sbuf_puts(b, "<polyline points=\"");
	for (i = 0; i < n; i++)
		sbuf_addf(b, "%s%.1f,%.1f", i ? " " : "", x[i], y[i]);
	sbuf_puts(b, "\"");
	put_class(b, cls);
	sbuf_puts(b, "/>\n");
}

void svg_group_begin(struct sbuf *b, const char *cls, const char *title)
{
	sbuf_puts(b, "<g");
	put_class(b, cls);
	sbuf_puts(b, ">");
	if (title) {
		sbuf_puts(b, "<title>");
		sbuf_add_xml(b, title);
		sbuf_puts(b, "</title>");
	}
	sbuf_puts(b, "\n");
}

void svg_group_end(struct sbuf *b)
{
	sbuf_puts(b, "</g>\n");
}
