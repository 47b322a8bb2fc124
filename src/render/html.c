/*
 * html.c: the report as one self-contained HTML file: CSS in a <style>
 * element, every plot an inline SVG, no script, no font, no image and no
 * link to anything outside the file, so it reads the same offline and in
 * a mail client's attachment viewer. The markup is also well-formed XML
 * (every element closed, only numeric character references), so that an
 * XML parser checks it in the tests.
 *
 * Plots (svg.h draws them):
 *   - per group a box (quartiles, whiskers to 1.5 IQR), the median with
 *     its CI from compare's document as a notch, and every sample a point;
 *   - the samples in run order, coloured by group (drift, warm-up,
 *     bimodality and A/B interleaving show at a glance);
 *   - the change of each group against the baseline with its CI and the
 *     +-margin band (a forest plot);
 *   - evidence small multiples, and the wakeup-latency percentiles as a
 *     CDF on a tail scale when traced.
 * A metric where lower is better is drawn with its axis reversed, so that
 * up (and right, in the forest plot) is always better, and says so.
 *
 * With many samples, plots draw every k-th point (run order) and say so;
 * the boxes, medians, intervals and verdicts always use every sample.
 */
#include "render/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NCOLOURS 8
/* points drawn at most, per box, in the run-order plot, per small multiple */
#define BOX_POINTS   600
#define ORDER_POINTS 4000
#define SMALL_POINTS 150

static const char css[] =
	"body{font:14px/1.4 sans-serif;color:#222;background:#fff;margin:1.5em auto;"
	"max-width:1000px;padding:0 1em}\n"
	"h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.2em;margin:1.6em 0 .4em;"
	"border-bottom:1px solid #ccc}\n"
	"table{border-collapse:collapse;margin:.4em 0}td,th{padding:2px 8px;"
	"border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top}\n"
	"td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"td.cand{word-break:break-all;max-width:22em}\n"
	".v-regression{color:#b00000;font-weight:bold}.v-improvement{color:#006400;"
	"font-weight:bold}.v-no-change{color:#333;font-weight:bold}\n"
	".note,.meta{color:#555;font-size:.92em}pre{background:#f6f6f6;padding:.5em;"
	"overflow-x:auto;white-space:pre-wrap;word-break:break-all}\n"
	".multiples{display:flex;flex-wrap:wrap;gap:8px}figure{margin:0}"
	"figcaption{font-size:.85em;color:#444;max-width:320px}\n"
	"svg.plot{display:block;background:#fff}svg .area{fill:#fbfbfb;stroke:none}\n"
	"svg .grid{stroke:#e6e6e6;stroke-width:1}svg .axis{stroke:#555;stroke-width:1}\n"
	"svg text{font:11px sans-serif;fill:#333;stroke:none}svg .label{font-size:12px}"
	"svg .title{font-size:12px;font-weight:bold}\n"
	"svg .box{fill-opacity:.12;stroke-width:1.5}svg .whisk{stroke-width:1.2}"
	"svg .med{stroke-width:3}svg .ci{fill-opacity:.45;stroke:none}\n"
	"svg .pt{fill-opacity:.55;stroke:none}svg .gmed{stroke-dasharray:5 4;"
	"stroke-width:1.2;fill:none}\n"
	"svg .band{fill:#9ecae1;fill-opacity:.35;stroke:none}svg .zero{stroke:#555;"
	"stroke-dasharray:3 3}\n"
	"svg .est{stroke:#222;stroke-width:2}svg .cdf{fill:none;stroke-width:2}\n"
	".g0{fill:#0072b2;stroke:#0072b2}.g1{fill:#e69f00;stroke:#e69f00}"
	".g2{fill:#009e73;stroke:#009e73}.g3{fill:#cc79a7;stroke:#cc79a7}\n"
	".g4{fill:#56b4e9;stroke:#56b4e9}.g5{fill:#d55e00;stroke:#d55e00}"
	".g6{fill:#8c6d00;stroke:#8c6d00}.g7{fill:#555;stroke:#555}\n"
	"span.sw{display:inline-block;width:.8em;height:.8em;margin-right:.3em}\n"
	"span.g0{background:#0072b2}span.g1{background:#e69f00}span.g2{background:#009e73}"
	"span.g3{background:#cc79a7}span.g4{background:#56b4e9}span.g5{background:#d55e00}"
	"span.g6{background:#8c6d00}span.g7{background:#555}\n";

static const char *gcls(size_t i)
{
	static const char *const c[NCOLOURS] = { "g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7" };

	return c[i % NCOLOURS];
}

static void text(struct sbuf *b, const char *s)
{
	sbuf_add_xml(b, s ? s : "");
}

static json_object *obj(json_object *o, const char *key)
{
	json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static int dcmp(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/* Quantile q of sorted x[0..n) (linear between order statistics): box geometry only. */
static double quantile(const double *x, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t i = (size_t)floor(h);

	if (!n)
		return NAN;
	if (i + 1 >= n)
		return x[n - 1];
	return x[i] + (h - (double)i) * (x[i + 1] - x[i]);
}

/* A deterministic jitter in [-0.5, 0.5) for point k (no randomness in a report). */
static double jitter(size_t k)
{
	uint64_t h = (uint64_t)k * 0x9e3779b97f4a7c15ull;

	h ^= h >> 29;
	return (double)(h % 1000) / 1000.0 - 0.5;
}

static size_t stride_for(size_t n, size_t max)
{
	return n > max ? (n + max - 1) / max : 1;
}

/* The y scale of a metric over [lo, hi], up = better. */
static void value_scale(struct scale *y, double lo, double hi, int better,
			const struct svg_frame *f)
{
	double pad = (hi - lo) * 0.04;

	if (!(pad > 0))
		pad = fabs(hi) * 0.02 + 1e-12;
	if (better < 0)
		scale_linear(y, hi + pad, lo - pad, f->height - f->bottom, f->top);
	else
		scale_linear(y, lo - pad, hi + pad, f->height - f->bottom, f->top);
	scale_nice(y, 6);
}

static char *axis_label(const struct rep_metric *m)
{
	/* the ticks are in the stored unit: a time's label does not name it */
	bool time = num_unit_is_time(m->unit);

	return xasprintf("%s%s%s%s, %s", m->label, time ? " (" : "", time ? m->unit : "",
			 time ? ")" : "",
			 m->better < 0	 ? "lower is better (axis reversed: up is better)"
			 : m->better > 0 ? "higher is better"
					 : "neither way is better");
}

static void thin_note(struct sbuf *b, size_t shown, size_t total, size_t stride)
{
	if (stride <= 1)
		return;
	sbuf_addf(
		b,
		"<p class=\"note\">Points: every %zu%s sample in run order is drawn (%zu of %zu); "
		"boxes, medians, intervals and verdicts use every sample.</p>\n",
		stride,
		stride % 10 == 1 && stride % 100 != 11	 ? "st"
		: stride % 10 == 2 && stride % 100 != 12 ? "nd"
		: stride % 10 == 3 && stride % 100 != 13 ? "rd"
							 : "th",
		shown, total);
}

/* ---- the table ---- */

static void td_num(struct sbuf *b, const char *s)
{
	sbuf_puts(b, "<td class=\"num\">");
	text(b, s);
	sbuf_puts(b, "</td>");
}

static void html_table(const struct rep *r, struct sbuf *b)
{
	const char *by = r->by;
	size_t i;

	sbuf_puts(b, "<section id=\"verdicts\"><h2>Verdicts</h2>\n<table>\n<tr><th></th><th>");
	text(b, !strcmp(by, "kernel")	      ? "Kernel"
		: !strcmp(by, "label")	      ? "Label"
		: !strcmp(by, "profile")      ? "Profile"
		: !strcmp(by, "host")	      ? "Host"
		: !strncmp(by, "feature:", 8) ? by + 8
					      : by);
	sbuf_puts(b, "</th><th>n</th><th>boots</th><th>");
	text(b, r->primary.label);
	sbuf_puts(b, "</th><th>95% CI of median</th><th>vs. ");
	text(b, r->g[0].title);
	sbuf_puts(b, "</th><th>95% CI of change</th><th>p</th><th>verdict</th></tr>\n");
	for (i = 0; i < r->ng; i++) {
		json_object *g = r->g[i].j, *ci = obj(g, "median_ci"), *eff = obj(g, "effect");
		char med[32], lo[32], hi[32], buf[96], p[32];
		const char *v = rep_str(g, "verdict");

		sbuf_addf(b, "<tr><td><span class=\"sw %s\"></span></td><td>", gcls(i));
		text(b, r->g[i].title);
		sbuf_addf(b, "</td><td class=\"num\">%.0f</td><td class=\"num\">%.0f</td>",
			  rep_num(g, "n"), rep_num(g, "boots"));
		fmt_value(rep_num(g, "median"), r->primary.unit, med, sizeof(med));
		td_num(b, med);
		if (ci && json_object_is_type(ci, json_type_array)) {
			fmt_value(json_object_get_double(json_object_array_get_idx(ci, 0)),
				  r->primary.unit, lo, sizeof(lo));
			fmt_value(json_object_get_double(json_object_array_get_idx(ci, 1)),
				  r->primary.unit, hi, sizeof(hi));
			snprintf(buf, sizeof(buf), "[%s, %s]", lo, hi);
		} else {
			snprintf(buf, sizeof(buf), "n too small");
		}
		td_num(b, buf);
		if (r->g[i].baseline) {
			sbuf_puts(b, "<td "
				     "class=\"num\">100%</td><td></td><td></td><td>baseline</td></"
				     "tr>\n");
			continue;
		}
		fmt_pct(rep_num(eff, "estimate"), med, sizeof(med));
		td_num(b, med);
		fmt_pct(rep_num(eff, "ci_lo"), lo, sizeof(lo));
		fmt_pct(rep_num(eff, "ci_hi"), hi, sizeof(hi));
		if (isfinite(rep_num(eff, "ci_lo")))
			snprintf(buf, sizeof(buf), "[%s, %s]", lo, hi);
		else
			buf[0] = '\0';
		td_num(b, buf);
		rep_fmt_p(g, p, sizeof(p));
		td_num(b, p);
		sbuf_puts(b, "<td><span class=\"v-");
		text(b, v ? v : "unknown");
		sbuf_puts(b, "\">");
		text(b, rep_str(g, "verdict_text"));
		sbuf_puts(b, "</span></td></tr>\n");
	}
	sbuf_puts(b, "</table>\n");
	if (r->ng > 1) {
		sbuf_puts(b, "<p class=\"note\">Inference (the unit of replication is the "
			     "boot):</p>\n<ul "
			     "class=\"note\">\n");
		for (i = 1; i < r->ng; i++) {
			sbuf_puts(b, "<li>");
			text(b, r->g[i].title);
			sbuf_puts(b, ": ");
			text(b, rep_str(obj(r->g[i].j, "inference"), "note"));
			sbuf_puts(b, "</li>\n");
		}
		sbuf_puts(b, "</ul>\n");
	}
	{
		json_object *w = obj(r->doc, "warnings");
		size_t n = w ? json_object_array_length(w) : 0;

		for (i = 0; i < n; i++) {
			sbuf_puts(b, "<p class=\"note\">warning: ");
			text(b, json_object_get_string(json_object_array_get_idx(w, i)));
			sbuf_puts(b, "</p>\n");
		}
	}
	sbuf_puts(b, "</section>\n");
}

/* ---- box plots ---- */

static void range_of(const struct rep *r, double *lo, double *hi)
{
	size_t i, k;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (i = 0; i < r->ng; i++)
		for (k = 0; k < r->g[i].npts; k++) {
			*lo = fmin(*lo, r->g[i].pts[k].v);
			*hi = fmax(*hi, r->g[i].pts[k].v);
		}
	if (!isfinite(*lo)) {
		*lo = 0;
		*hi = 1;
	}
}

static void html_boxes(const struct rep *r, struct sbuf *b)
{
	struct svg_frame f = { .top = 20, .bottom = 36, .left = 78, .right = 16, .height = 340 };
	const char **labels = xcalloc(r->ng + 1, sizeof(*labels));
	size_t i, k, shown = 0, stride = 1;
	struct band x;
	struct scale y;
	double lo, hi;
	char *label = axis_label(&r->primary);

	f.width = fmin(960, fmax(420, 130.0 * (double)r->ng + f.left + f.right));
	range_of(r, &lo, &hi);
	value_scale(&y, lo, hi, r->primary.better, &f);
	x = (struct band){ .n = r->ng, .r0 = f.left, .r1 = f.width - f.right, .pad = 0.3 };
	for (i = 0; i < r->ng; i++) {
		labels[i] = r->g[i].title;
		stride = fmax(stride, stride_for(r->g[i].npts, BOX_POINTS));
	}
	sbuf_puts(b, "<section id=\"distribution\"><h2>Distribution per group</h2>\n");
	svg_begin(b, &f,
		  "Box plot per group: quartiles, whiskers, the median with its 95% CI, "
		  "every sample a point");
	svg_axis_y(b, &f, &y, 6, label);
	svg_axis_band(b, &f, &x, labels);
	for (i = 0; i < r->ng; i++) {
		const struct rep_group *g = &r->g[i];
		double *v = xmalloc((g->npts + 1) * sizeof(*v)), cx = band_center(&x, i),
		       w = band_width(&x), q1, q3, iqr, wlo, whi, med = rep_num(g->j, "median");
		json_object *ci = obj(g->j, "median_ci");
		char cls[64], tip[256], m[48], a[48], c[48];

		for (k = 0; k < g->npts; k++)
			v[k] = g->pts[k].v;
		qsort(v, g->npts, sizeof(*v), dcmp);
		q1 = quantile(v, g->npts, 0.25);
		q3 = quantile(v, g->npts, 0.75);
		iqr = q3 - q1;
		wlo = q1;
		whi = q3;
		for (k = 0; k < g->npts; k++) {
			if (v[k] >= q1 - 1.5 * iqr && v[k] < wlo)
				wlo = v[k];
			if (v[k] <= q3 + 1.5 * iqr && v[k] > whi)
				whi = v[k];
		}
		free(v);
		fmt_value(med, r->primary.unit, m, sizeof(m));
		fmt_value(q1, r->primary.unit, a, sizeof(a));
		fmt_value(q3, r->primary.unit, c, sizeof(c));
		snprintf(tip, sizeof(tip), "%s: median %s, quartiles %s to %s, %zu samples",
			 g->title ? g->title : "", m, a, c, g->npts);
		snprintf(cls, sizeof(cls), "grp %s", gcls(i));
		svg_group_begin(b, cls, tip);
		/* every sample a point (every stride-th, in run order), behind the box */
		for (k = 0; k < g->npts; k += stride, shown++)
			svg_circle(b, cx + jitter(k) * w * 0.9, scale_map(&y, g->pts[k].v), 1.8,
				   "pt");
		if (g->npts) {
			svg_line(b, cx, scale_map(&y, wlo), cx, scale_map(&y, q1), "whisk");
			svg_line(b, cx, scale_map(&y, q3), cx, scale_map(&y, whi), "whisk");
			svg_line(b, cx - w / 6, scale_map(&y, wlo), cx + w / 6, scale_map(&y, wlo),
				 "whisk");
			svg_line(b, cx - w / 6, scale_map(&y, whi), cx + w / 6, scale_map(&y, whi),
				 "whisk");
			svg_rect(b, cx - w / 2, scale_map(&y, q1), cx + w / 2, scale_map(&y, q3),
				 "box");
		}
		if (ci && json_object_is_type(ci, json_type_array))
			svg_rect(
				b, cx - w / 4,
				scale_map(&y,
					  json_object_get_double(json_object_array_get_idx(ci, 0))),
				cx + w / 4,
				scale_map(&y,
					  json_object_get_double(json_object_array_get_idx(ci, 1))),
				"ci");
		if (isfinite(med))
			svg_line(b, cx - w / 2, scale_map(&y, med), cx + w / 2, scale_map(&y, med),
				 "med");
		svg_group_end(b);
	}
	svg_end(b);
	sbuf_puts(b, "<p class=\"note\">Box: quartiles; whiskers: the furthest samples within 1.5 "
		     "times the box; thick line: the median; dark bar: its 95% CI (compare's); "
		     "dots: the samples.</p>\n");
	thin_note(b, shown, r->nsamples, stride);
	sbuf_puts(b, "</section>\n");
	free(labels);
	free(label);
}

/* ---- run order ---- */

struct order_pt {
	uint64_t t_ns;
	uint32_t exp, index;
	uint32_t group;
	double v;
};

static int order_cmp(const void *pa, const void *pb)
{
	const struct order_pt *a = pa, *b = pb;

	if (a->t_ns != b->t_ns)
		return a->t_ns < b->t_ns ? -1 : 1;
	if (a->exp != b->exp)
		return a->exp < b->exp ? -1 : 1;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return a->group < b->group ? -1 : a->group > b->group;
}

static void legend(struct sbuf *b, const struct rep *r, const struct svg_frame *f)
{
	double x = f->left + 8, y = f->top - 6;
	size_t i;

	for (i = 0; i < r->ng; i++) {
		char cls[16];
		const char *t = r->g[i].title ? r->g[i].title : "";

		snprintf(cls, sizeof(cls), "%s", gcls(i));
		svg_rect(b, x, y - 8, x + 9, y + 1, cls);
		svg_text(b, x + 12, y, "start", NULL, t);
		x += 24 + 6.2 * (double)fmin(strlen(t), 40);
	}
}

static void html_order(const struct rep *r, struct sbuf *b)
{
	struct svg_frame f = {
		.width = 960, .height = 300, .top = 24, .bottom = 36, .left = 78, .right = 16
	};
	struct order_pt *pts = xmalloc((r->nsamples + 1) * sizeof(*pts));
	size_t n = 0, i, k, stride, shown = 0;
	struct scale x, y;
	double lo, hi;
	char *label = axis_label(&r->primary);

	for (i = 0; i < r->ng; i++)
		for (k = 0; k < r->g[i].npts; k++) {
			const struct rep_point *p = &r->g[i].pts[k];

			pts[n++] = (struct order_pt){ .t_ns = p->t_ns,
						      .exp = p->exp,
						      .index = p->index,
						      .group = (uint32_t)i,
						      .v = p->v };
		}
	qsort(pts, n, sizeof(*pts), order_cmp);
	range_of(r, &lo, &hi);
	value_scale(&y, lo, hi, r->primary.better, &f);
	scale_linear(&x, 0, n > 1 ? (double)(n - 1) : 1, f.left + 6, f.width - f.right - 6);
	stride = stride_for(n, ORDER_POINTS);
	sbuf_puts(b, "<section id=\"run-order\"><h2>Samples in run order</h2>\n");
	svg_begin(b, &f, "Every sample in the order it ran, coloured by group");
	svg_axis_y(b, &f, &y, 6, label);
	svg_axis_x(b, &f, &x, 8, "sample, in the order the samples ran (every group)");
	for (i = 0; i < r->ng; i++) {
		double med = rep_num(r->g[i].j, "median"), first = -1, last = -1;
		char cls[32];

		for (k = 0; k < n; k++)
			if (pts[k].group == i) {
				if (first < 0)
					first = (double)k;
				last = (double)k;
			}
		snprintf(cls, sizeof(cls), "gmed %s", gcls(i));
		if (isfinite(med) && first >= 0)
			svg_line(b, scale_map(&x, first), scale_map(&y, med), scale_map(&x, last),
				 scale_map(&y, med), cls);
	}
	for (i = 0; i < r->ng; i++) {
		char cls[32];

		snprintf(cls, sizeof(cls), "grp %s", gcls(i));
		svg_group_begin(b, cls, r->g[i].title);
		for (k = 0; k < n; k += stride)
			if (pts[k].group == i) {
				svg_circle(b, scale_map(&x, (double)k), scale_map(&y, pts[k].v), 2,
					   "pt");
				shown++;
			}
		svg_group_end(b);
	}
	legend(b, r, &f);
	svg_end(b);
	sbuf_puts(b,
		  "<p class=\"note\">Dashed: each group's median over the samples it spans. "
		  "Drift, warm-up, two levels (bimodality) and A/B interleaving show here.</p>\n");
	thin_note(b, shown, n, stride);
	sbuf_puts(b, "</section>\n");
	free(pts);
	free(label);
}

/* ---- forest plot ---- */

static void html_forest(const struct rep *r, struct sbuf *b)
{
	struct svg_frame f = { .width = 960, .top = 16, .bottom = 40, .left = 210, .right = 250 };
	double lo = -r->margin * 100, hi = r->margin * 100, row = 30;
	struct scale x;
	size_t i;
	char xl[256], m[32];

	if (r->ng < 2)
		return;
	f.height = f.top + f.bottom + row * (double)(r->ng - 1);
	for (i = 1; i < r->ng; i++) {
		json_object *e = obj(r->g[i].j, "effect");

		if (isfinite(rep_num(e, "ci_lo"))) {
			lo = fmin(lo, rep_num(e, "ci_lo") * 100);
			hi = fmax(hi, rep_num(e, "ci_hi") * 100);
		}
	}
	lo -= (hi - lo) * 0.05;
	hi += (hi - lo) * 0.05;
	/* right is better: a lower-is-better metric's axis runs the other way */
	if (r->primary.better < 0)
		scale_linear(&x, hi, lo, f.left, f.width - f.right);
	else
		scale_linear(&x, lo, hi, f.left, f.width - f.right);
	scale_nice(&x, 8);
	snprintf(m, sizeof(m), "%g", r->margin * 100);
	snprintf(xl, sizeof(xl), "change vs. %.60s, %% (%s; shaded: +-%s%%, the margin)",
		 r->g[0].title ? r->g[0].title : "",
		 r->primary.better < 0 ? "lower is better: axis reversed, better to the right"
				       : "better to the right",
		 m);
	sbuf_puts(b, "<section id=\"changes\"><h2>Changes against the baseline</h2>\n");
	svg_begin(b, &f, "Each group's change against the baseline with its 95% CI and the margin");
	svg_rect(b, scale_map(&x, -r->margin * 100), f.top, scale_map(&x, r->margin * 100),
		 f.height - f.bottom, "band");
	svg_axis_x(b, &f, &x, 8, xl);
	svg_line(b, scale_map(&x, 0), f.top, scale_map(&x, 0), f.height - f.bottom, "zero");
	for (i = 1; i < r->ng; i++) {
		json_object *g = r->g[i].j, *e = obj(g, "effect");
		double cy = f.top + row * ((double)i - 0.5), est = rep_num(e, "estimate") * 100;
		double clo = rep_num(e, "ci_lo") * 100, chi = rep_num(e, "ci_hi") * 100;
		char cls[32], tip[400], a[32], c[32], d[32];

		fmt_pct(est / 100, a, sizeof(a));
		fmt_pct(clo / 100, c, sizeof(c));
		fmt_pct(chi / 100, d, sizeof(d));
		snprintf(tip, sizeof(tip), "%s: %s [%s, %s]: %s",
			 r->g[i].title ? r->g[i].title : "", a, c, d,
			 rep_str(g, "verdict_text") ?: "");
		snprintf(cls, sizeof(cls), "grp %s", gcls(i));
		svg_group_begin(b, cls, tip);
		svg_text(b, f.left - 8, cy + 4, "end", NULL, r->g[i].title);
		if (isfinite(clo) && isfinite(chi)) {
			svg_line(b, scale_map(&x, clo), cy, scale_map(&x, chi), cy, "est");
			svg_line(b, scale_map(&x, clo), cy - 6, scale_map(&x, clo), cy + 6, "est");
			svg_line(b, scale_map(&x, chi), cy - 6, scale_map(&x, chi), cy + 6, "est");
			svg_circle(b, scale_map(&x, est), cy, 5, NULL);
		} else {
			svg_text(b, (f.left + f.width - f.right) / 2, cy + 4, "middle", "note",
				 rep_str(e, "why") ?: "no interval");
		}
		snprintf(tip, sizeof(tip), "%s %s", a, rep_str(g, "verdict") ?: "");
		svg_text(b, f.width - f.right + 8, cy + 4, "start", NULL, tip);
		svg_group_end(b);
	}
	svg_end(b);
	sbuf_puts(
		b,
		"<p class=\"note\">A verdict is decided when the whole interval lies outside "
		"the band (regression or improvement) or inside it (no change).</p>\n</section>\n");
}

/* ---- evidence ---- */

static const struct rep_series *series_of(const struct rep_group *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->nev; i++)
		if (!strcmp(g->ev[i].name, name))
			return &g->ev[i];
	return NULL;
}

static json_object *evidence_of(const struct rep_group *g, const char *name)
{
	json_object *ev = obj(g->j, "evidence");
	size_t i, n = ev ? json_object_array_length(ev) : 0;

	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(ev, i);
		const char *s = rep_str(e, "name");

		if (s && !strcmp(s, name))
			return e;
	}
	return NULL;
}

static void small_multiple(const struct rep *r, const struct rep_metric *m, struct sbuf *b)
{
	struct svg_frame f = {
		.width = 310, .height = 200, .top = 22, .bottom = 30, .left = 58, .right = 10
	};
	double lo = INFINITY, hi = -INFINITY;
	const char **labels = xcalloc(r->ng + 1, sizeof(*labels));
	struct band x;
	struct scale y;
	size_t i, k;
	bool moved_any = false;

	for (i = 0; i < r->ng; i++) {
		const struct rep_series *s = series_of(&r->g[i], m->name);

		labels[i] = r->g[i].title;
		for (k = 0; s && k < s->n; k++) {
			lo = fmin(lo, s->v[k]);
			hi = fmax(hi, s->v[k]);
		}
	}
	if (!isfinite(lo)) {
		free(labels);
		return;
	}
	value_scale(&y, lo, hi, m->better, &f);
	x = (struct band){ .n = r->ng, .r0 = f.left, .r1 = f.width - f.right, .pad = 0.35 };
	sbuf_puts(b, "<figure>");
	svg_begin(b, &f, m->label);
	svg_text(b, f.left, 14, "start", "title", m->label);
	svg_axis_y(b, &f, &y, 4, NULL);
	svg_axis_band(b, &f, &x, labels);
	for (i = 0; i < r->ng; i++) {
		const struct rep_series *s = series_of(&r->g[i], m->name);
		double *v, cx = band_center(&x, i), w = band_width(&x);
		size_t stride;
		char cls[32];

		if (!s || !s->n)
			continue;
		stride = stride_for(s->n, SMALL_POINTS);
		snprintf(cls, sizeof(cls), "grp %s", gcls(i));
		svg_group_begin(b, cls, r->g[i].title);
		for (k = 0; k < s->n; k += stride)
			svg_circle(b, cx + jitter(k) * w, scale_map(&y, s->v[k]), 1.5, "pt");
		v = xmalloc(s->n * sizeof(*v));
		memcpy(v, s->v, s->n * sizeof(*v));
		qsort(v, s->n, sizeof(*v), dcmp);
		svg_rect(b, cx - w / 2, scale_map(&y, quantile(v, s->n, 0.25)), cx + w / 2,
			 scale_map(&y, quantile(v, s->n, 0.75)), "box");
		svg_line(b, cx - w / 2, scale_map(&y, quantile(v, s->n, 0.5)), cx + w / 2,
			 scale_map(&y, quantile(v, s->n, 0.5)), "med");
		free(v);
		svg_group_end(b);
	}
	svg_end(b);
	sbuf_puts(b, "<figcaption>");
	text(b, m->better < 0 ? "lower is better (drawn upwards). " : "");
	for (i = 1; i < r->ng; i++) {
		json_object *e = evidence_of(&r->g[i], m->name), *eff = obj(e, "effect");
		double clo = rep_num(eff, "ci_lo"), chi = rep_num(eff, "ci_hi");
		char a[32], c[32], d[32];
		bool moved = clo > 0 || chi < 0;

		if (!e)
			continue;
		fmt_pct(rep_num(eff, "estimate"), a, sizeof(a));
		fmt_pct(clo, c, sizeof(c));
		fmt_pct(chi, d, sizeof(d));
		text(b, r->g[i].title);
		sbuf_puts(b, moved ? ": <b>" : ": ");
		if (isfinite(clo))
			sbuf_addf(b, "%s [%s, %s]", a, c, d);
		else
			text(b, rep_str(eff, "why") ?: "n/a");
		sbuf_puts(b, moved ? "</b>; " : "; ");
		moved_any |= moved;
	}
	if (moved_any)
		sbuf_puts(b, "bold: the CI excludes 0.");
	sbuf_puts(b, "</figcaption></figure>\n");
	free(labels);
}

/* The traced wakeup-latency percentiles of each group as a CDF on a tail scale. */
static void latency_cdf(const struct rep *r, struct sbuf *b)
{
	static const struct {
		const char *name;
		double q;
		const char *label;
	} pc[] = { { "wakeup_lat_p50_ns", 0.5, "p50" },
		   { "wakeup_lat_p90_ns", 0.9, "p90" },
		   { "wakeup_lat_p99_ns", 0.99, "p99" },
		   { "wakeup_lat_p999_ns", 0.999, "p99.9" } };
	struct svg_frame f = {
		.width = 470, .height = 240, .top = 24, .bottom = 34, .left = 50, .right = 12
	};
	double med[ARRAY_SIZE(pc)], lo = INFINITY, hi = -INFINITY;
	struct scale x, y;
	size_t i, k, have = 0;

	for (i = 0; i < r->ng; i++)
		for (k = 0; k < ARRAY_SIZE(pc); k++) {
			const struct rep_series *s = series_of(&r->g[i], pc[k].name);
			double *v;

			if (!s || !s->n)
				continue;
			v = xmalloc(s->n * sizeof(*v));
			memcpy(v, s->v, s->n * sizeof(*v));
			qsort(v, s->n, sizeof(*v), dcmp);
			lo = fmin(lo, fmax(v[0], 1));
			hi = fmax(hi, v[s->n - 1]);
			free(v);
			have++;
		}
	if (!have)
		return;
	scale_log(&x, lo, hi, f.left, f.width - f.right);
	scale_nice(&x, 6);
	/* tail scale: -log10(1 - q), so p50, p90, p99 and p99.9 are evenly apart */
	scale_linear(&y, 0.2, 3.1, f.height - f.bottom, f.top);
	sbuf_puts(b, "<figure>");
	svg_begin(b, &f,
		  "Wakeup-to-run latency percentiles per group (traced), a CDF on a tail scale");
	svg_text(b, f.left, 14, "start", "title", "wakeup latency, ns (CDF, tail scale)");
	svg_axis_x(b, &f, &x, 6, NULL);
	for (k = 0; k < ARRAY_SIZE(pc); k++) {
		double py = scale_map(&y, -log10(1 - pc[k].q));

		svg_line(b, f.left, py, f.width - f.right, py, "grid");
		svg_text(b, f.left - 4, py + 3.5, "end", "tick", pc[k].label);
	}
	svg_line(b, f.left, f.top, f.left, f.height - f.bottom, "axis");
	for (i = 0; i < r->ng; i++) {
		double xs[ARRAY_SIZE(pc)], ys[ARRAY_SIZE(pc)];
		size_t n = 0;
		char cls[32];

		for (k = 0; k < ARRAY_SIZE(pc); k++) {
			const struct rep_series *s = series_of(&r->g[i], pc[k].name);
			double *v;

			if (!s || !s->n)
				continue;
			v = xmalloc(s->n * sizeof(*v));
			memcpy(v, s->v, s->n * sizeof(*v));
			qsort(v, s->n, sizeof(*v), dcmp);
			med[k] = quantile(v, s->n, 0.5);
			free(v);
			xs[n] = scale_map(&x, med[k]);
			ys[n++] = scale_map(&y, -log10(1 - pc[k].q));
		}
		snprintf(cls, sizeof(cls), "cdf %s", gcls(i));
		svg_group_begin(b, cls, r->g[i].title);
		svg_polyline(b, xs, ys, n, NULL);
		for (k = 0; k < n; k++)
			svg_circle(b, xs[k], ys[k], 3, NULL);
		svg_group_end(b);
	}
	svg_end(b);
	sbuf_puts(b, "<figcaption>Median over the samples of each percentile, per group "
		     "(colours as above).</figcaption></figure>\n");
}

/*
 * The arms of one ab: every pair's change (group / baseline - 1) in run
 * order, the margin's band and zero, so that drift, an outlier pair or a
 * change that grows with time shows beside the paired interval.
 */
static void html_pairs(const struct rep *r, struct sbuf *b)
{
	struct svg_frame f = {
		.width = 960, .height = 260, .top = 16, .bottom = 40, .left = 78, .right = 16
	};
	double lo = -r->margin * 100, hi = r->margin * 100;
	struct scale x, y;
	size_t i, k, n;
	char xl[160], cls[32];

	for (i = 1; i < r->ng; i++) {
		json_object *pairs = obj(r->g[i].j, "pairs");
		double *px, *py;

		if (!pairs || !(n = json_object_array_length(pairs)))
			continue;
		px = xcalloc(n, sizeof(*px));
		py = xcalloc(n, sizeof(*py));
		for (k = 0; k < n; k++) {
			py[k] = json_object_get_double(json_object_array_get_idx(pairs, k)) * 100;
			lo = fmin(lo, py[k]);
			hi = fmax(hi, py[k]);
		}
		scale_linear(&x, 0.5, (double)n + 0.5, f.left, f.width - f.right);
		scale_linear(&y, lo - (hi - lo) * 0.05, hi + (hi - lo) * 0.05, f.height - f.bottom,
			     f.top);
		scale_nice(&y, 6);
		sbuf_puts(b, "<section id=\"pairs\"><h2>Each pair</h2>\n");
		snprintf(xl, sizeof(xl), "pair, in run order (%.60s vs. %.60s)",
			 r->g[i].title ? r->g[i].title : "", r->g[0].title ? r->g[0].title : "");
		svg_begin(b, &f, "Each pair's change, in run order, with the margin");
		svg_rect(b, f.left, scale_map(&y, r->margin * 100), f.width - f.right,
			 scale_map(&y, -r->margin * 100), "band");
		svg_axis_y(b, &f, &y, 6, "change, %");
		svg_axis_x(b, &f, &x, n < 10 ? n : 10, xl);
		svg_line(b, f.left, scale_map(&y, 0), f.width - f.right, scale_map(&y, 0), "zero");
		for (k = 0; k < n; k++) {
			px[k] = scale_map(&x, (double)k + 1);
			py[k] = scale_map(&y, py[k]);
		}
		snprintf(cls, sizeof(cls), "cdf %s", gcls(i));
		svg_group_begin(b, cls, r->g[i].title);
		svg_polyline(b, px, py, n, NULL);
		for (k = 0; k < n; k++)
			svg_circle(b, px[k], py[k], 3.5, NULL);
		svg_group_end(b);
		svg_end(b);
		sbuf_puts(b, "<p class=\"note\">The paired interval in the table rests on these "
			     "changes; a trend or one stray pair shows here.</p>\n</section>\n");
		free(px);
		free(py);
	}
}

static void html_evidence(const struct rep *r, struct sbuf *b)
{
	size_t i;

	sbuf_puts(b, "<section id=\"evidence\"><h2>Evidence</h2>\n");
	if (!r->nev) {
		sbuf_puts(
			b,
			"<p>No evidence counters were measured in these samples.</p></section>\n");
		return;
	}
	sbuf_puts(b, "<p class=\"note\">Per-op scheduler counters of each group (dots: samples; "
		     "box: quartiles) and their change against the baseline with its 95% CI "
		     "(compare's; exploratory, no verdicts).</p>\n<div class=\"multiples\">\n");
	for (i = 0; i < r->nev; i++)
		small_multiple(r, &r->ev[i], b);
	latency_cdf(r, b);
	sbuf_puts(b, "</div>\n</section>\n");
}

/* ---- environment, reproducers, data ---- */

static void html_env(const struct rep *r, struct sbuf *b)
{
	size_t i, k, run_keys = 0;

	if (r->ng < 2)
		return;
	sbuf_puts(b, "<section id=\"environment\"><h2>Environment differences against the "
		     "baseline</h2>\n<table>\n<tr><th>group</th><th>impact</th><th>key</th><th>");
	text(b, r->g[0].title);
	sbuf_puts(b, "</th><th>group's value</th></tr>\n");
	for (i = 1; i < r->ng; i++) {
		json_object *d = obj(r->g[i].j, "env_diff");
		size_t n = d ? json_object_array_length(d) : 0, shown = 0;

		for (k = 0; k < n; k++) {
			json_object *e = json_object_array_get_idx(d, k);
			const char *imp = rep_str(e, "impact") ?: "?";

			if (!strcmp(imp, "run")) {
				run_keys++;
				continue;
			}
			sbuf_addf(b, "<tr><td><span class=\"sw %s\"></span>", gcls(i));
			text(b, r->g[i].title);
			sbuf_puts(b, "</td><td>");
			text(b, imp);
			sbuf_puts(b, "</td><td>");
			text(b, rep_str(e, "key"));
			sbuf_puts(b, "</td><td>");
			/* two feature vectors: what changed between them */
			text(b, rep_str(e, "change") ? "" : rep_str(e, "baseline") ?: "(absent)");
			sbuf_puts(b, "</td><td>");
			text(b, rep_str(e, "change") ?: rep_str(e, "value") ?: "(absent)");
			sbuf_puts(b, "</td></tr>\n");
			shown++;
		}
		if (!shown) {
			sbuf_addf(b, "<tr><td><span class=\"sw %s\"></span>", gcls(i));
			text(b, r->g[i].title);
			sbuf_puts(b, "</td><td colspan=\"4\">none</td></tr>\n");
		}
	}
	sbuf_puts(b, "</table>\n");
	if (run_keys)
		sbuf_addf(b,
			  "<p class=\"note\">Strongest first; %zu per-run keys (load, pressure, "
			  "command line) left out.</p>\n",
			  run_keys);
	sbuf_puts(b, "</section>\n");
}

static void html_repro(const struct rep *r, struct sbuf *b)
{
	size_t i;

	sbuf_puts(b, "<section id=\"reproduce\"><h2>To reproduce</h2>\n<pre>");
	for (i = 0; i < r->nexps; i++) {
		const struct store_experiment *e = &r->exps[i];
		char *c;

		if (!r->exp_n[i])
			continue;
		c = xasprintf("# experiment %lld (%s): %s %s on %s, host %s%s%s, %zu samples\n",
			      (long long)e->id, e->uuid, e->kind, e->workload, e->kernel ?: "?",
			      e->host ?: "?", e->label ? ", label " : "", e->label ?: "",
			      r->exp_n[i]);
		text(b, c);
		free(c);
		text(b, e->cmdline ?: "# (its command line was not stored)");
		sbuf_puts(b, "\n");
	}
	if (r->cmdline) {
		sbuf_puts(b, "# this report\n");
		text(b, r->cmdline);
		sbuf_puts(b, "\n");
	}
	sbuf_puts(b, "</pre>\n</section>\n");
}

static void html_data(const struct rep *r, struct sbuf *b)
{
	size_t i, n = 0;

	for (i = 0; i < r->nexps; i++)
		n += r->exp_n[i] != 0;
	sbuf_puts(b, "<section id=\"data\"><h2>Raw data</h2>\n");
	if (!r->data.len) {
		sbuf_puts(b, "<p>Not embedded: ");
		text(b, r->data_why ?: "left out");
		sbuf_puts(b, "</p>\n</section>\n");
		return;
	}
	sbuf_addf(b,
		  "<details><summary>The %zu experiments of this report with every sample, as "
		  "<code>wakebench export</code> writes them (compressed, base64): "
		  "<code>wakebench import THIS-FILE.html</code> merges them into a "
		  "store.</summary>\n",
		  n);
	sbuf_add(b, r->data.buf, r->data.len);
	sbuf_puts(b, "</details>\n</section>\n");
}

void rep_html_begin(struct sbuf *b, const char *version, const char *title)
{
	sbuf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
		     "<meta name=\"viewport\" content=\"width=device-width\"/>\n"
		     "<meta name=\"generator\" content=\"wakebench ");
	text(b, version);
	sbuf_puts(b, "\"/>\n<title>");
	text(b, title);
	sbuf_puts(b, "</title>\n<style>\n");
	sbuf_puts(b, css);
	sbuf_puts(b, "</style>\n</head>\n<body>\n");
}

void rep_html(const struct rep *r, struct sbuf *b)
{
	char when[64], m[16];
	time_t t = (time_t)(r->made_ns / 1000000000ull);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(when, sizeof(when), "?");
	snprintf(m, sizeof(m), "%g%%", r->margin * 100);
	{
		char *title = xasprintf("wakebench report: %s by %s",
					r->workload ? r->workload : "", r->by ? r->by : "");

		rep_html_begin(b, r->version, title);
		free(title);
	}
	sbuf_puts(b, "<h1>wakebench report: ");
	text(b, r->workload);
	sbuf_puts(b, ", ");
	text(b, r->primary.label);
	sbuf_puts(b, " by ");
	text(b, r->by);
	sbuf_addf(b,
		  "</h1>\n<p class=\"meta\">%.0f%% confidence, margin %s, %zu samples (status "
		  "ok, warm-ups excluded) in %zu group%s; baseline ",
		  r->conf * 100, m, r->nsamples, r->ng, r->ng == 1 ? "" : "s");
	text(b, r->g[0].title);
	sbuf_addf(b, "%s. Made %s by wakebench ", r->primary.better < 0 ? "; lower is better" : "",
		  when);
	text(b, r->version);
	sbuf_puts(b, ".</p>\n");
	html_table(r, b);
	html_boxes(r, b);
	html_order(r, b);
	html_forest(r, b);
	html_pairs(r, b);
	html_evidence(r, b);
	html_env(r, b);
	html_repro(r, b);
	html_data(r, b);
	sbuf_puts(b, "</body>\n</html>\n");
}
