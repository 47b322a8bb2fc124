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
 * Axes are never reversed: up is more, and a metric where lower is better
 * says so in its label. A change axis whose intervals reach past +100% or
 * -50% is a log-ratio axis (labelled in %), so that one wide interval does
 * not flatten every other.
 *
 * With many samples, plots draw every k-th point (run order) and say so;
 * the boxes, medians, intervals and verdicts always use every sample.
 */
#include "render/render.h"
#include "util/text.h"

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
	"max-width:1040px;padding:0 1em;overflow-wrap:break-word}\n"
	"h1{font-size:1.5em;margin:0 0 .3em;overflow-wrap:anywhere}h2{font-size:1.2em;"
	"margin:1.6em 0 .4em;border-bottom:1px solid #ccc}\n"
	"table{border-collapse:collapse;margin:.4em 0;max-width:100%}td,th{padding:2px 8px;"
	"border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top;"
	"overflow-wrap:break-word}\n"
	"td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"td.cand{word-break:break-all;max-width:22em}td.nm{white-space:nowrap}\n"
	".lbl{display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:3;"
	"overflow:hidden;overflow-wrap:anywhere;max-width:16em}\n"
	"table.env td{max-width:24em}table.env td.val{font-family:monospace;font-size:.85em;"
	"overflow-wrap:anywhere}\n"
	".vt{font-size:.82em;color:#444;max-width:15em;margin-top:2px}\n"
	".badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:.85em;"
	"font-weight:bold;color:#fff;background:#6e7781;white-space:nowrap}\n"
	".b-improvement{background:#1a7f37}.b-regression{background:#c0262d}"
	".b-no-change{background:#0b5cad}.b-inconclusive{background:#9a6700}"
	".b-insufficient,.b-unknown{background:#8c959f}.b-baseline{background:#fff;color:#444;"
	"border:1px solid #999}\n"
	".b-posted{background:#fff;color:#7a4d00;border:1px dashed #9a6700}"
	"tr.posted td{background:#fffaf0}\n"
	".v-regression{color:#b00000;font-weight:bold}.v-improvement{color:#006400;"
	"font-weight:bold}.v-no-change{color:#333;font-weight:bold}\n"
	"ul.headline{list-style:none;padding:0;margin:.5em 0}ul.headline li{margin:.25em 0;"
	"font-size:1.05em;overflow-wrap:anywhere}\n"
	"dl.machine{display:flex;flex-wrap:wrap;gap:2px 18px;margin:.4em 0;font-size:.92em}"
	"dl.machine div{display:flex;gap:5px}dl.machine dt{color:#555}dl.machine dd{margin:0;"
	"overflow-wrap:anywhere}\n"
	".note,.meta{color:#555;font-size:.92em}pre{background:#f6f6f6;padding:.5em;"
	"overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}\n"
	"pre .c{color:#666}\n"
	"ul.legend{list-style:none;display:flex;flex-wrap:wrap;gap:2px 18px;padding:0;"
	"margin:.2em 0 0;font-size:.9em}ul.legend li{max-width:30em;overflow:hidden;"
	"text-overflow:ellipsis;white-space:nowrap}\n"
	".multiples{display:flex;flex-wrap:wrap;gap:8px}figure{margin:0}"
	"figcaption{font-size:.85em;color:#444;max-width:330px}\n"
	"svg.plot{display:block;background:#fff;max-width:100%;height:auto}"
	"svg .area{fill:#fbfbfb;stroke:none}\n"
	"svg .grid{stroke:#e6e6e6;stroke-width:1}svg .axis{stroke:#555;stroke-width:1}\n"
	"svg text{font:11px sans-serif;fill:#333;stroke:none}svg .label{font-size:12px}"
	"svg .title{font-size:12px;font-weight:bold}svg .empty{font-size:13px;fill:#666}\n"
	"svg .box{fill-opacity:.12;stroke-width:1.5}svg .whisk{stroke-width:1.2}"
	"svg .med{stroke-width:3}svg .ci{fill:#222;fill-opacity:.6;stroke:none}"
	"svg .cicap{stroke:#222;stroke-opacity:.8;stroke-width:2}\n"
	"svg .pt{fill-opacity:.6;stroke:#fff;stroke-width:.5}svg .gmed{stroke-dasharray:5 4;"
	"stroke-width:1.2;fill:none}\n"
	"svg .band{fill:#9ecae1;fill-opacity:.35;stroke:none}svg .zero{stroke:#555;"
	"stroke-dasharray:3 3}\n"
	"svg .est{stroke:#222;stroke-width:2}svg .cdf{fill:none;stroke-width:2}\n"
	"svg .t-improvement{fill:#1a7f37;font-weight:bold}svg .t-regression{fill:#c0262d;"
	"font-weight:bold}svg .t-no-change{fill:#0b5cad;font-weight:bold}"
	"svg .t-inconclusive{fill:#9a6700;font-weight:bold}\n"
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

/*
 * The y scale of a metric over [lo, hi]: up is more, whichever way is
 * better (the label says that); a metric that cannot be negative gets no
 * negative ticks.
 */
static void value_scale(struct scale *y, double lo, double hi, const struct svg_frame *f)
{
	double pad = (hi - lo) * 0.04, d0;

	if (!(pad > 0))
		pad = hi ? fabs(hi) * 0.02 : 0.5;
	d0 = lo >= 0 ? fmax(0, lo - pad) : lo - pad;
	scale_linear(y, d0, hi + pad, f->height - f->bottom, f->top);
	scale_nice(y, 6);
}

static const char *better_text(int better)
{
	return better < 0   ? "lower is better"
	       : better > 0 ? "higher is better"
			    : "neither way is better";
}

static char *axis_label(const struct rep_metric *m)
{
	/* the ticks are in the stored unit: a time's label names it */
	bool time = num_unit_is_time(m->unit);

	return xasprintf("%s%s%s%s, %s", m->label, time ? " (" : "", time ? m->unit : "",
			 time ? ")" : "", better_text(m->better));
}

/*
 * A change axis over fractions lo..hi (and the margin): in % on a linear
 * scale, or on a log-ratio scale (ticks still in %) when an interval
 * reaches past +100% or -50%, where a linear axis would squeeze every
 * other interval into a few pixels.
 */
struct chg_axis {
	struct scale s;
	bool log;
};

static void chg_axis(struct chg_axis *a, double lo, double hi, double margin, double r0, double r1)
{
	lo = fmin(lo, -margin);
	hi = fmax(hi, margin);
	a->log = hi > 1 || lo < -0.5;
	if (a->log) {
		double l = log10(fmax(1 + lo, 1e-9)), h = log10(1 + hi), pad = (h - l) * 0.05;

		scale_log(&a->s, pow(10, l - pad), pow(10, h + pad), r0, r1);
	} else {
		double pad = (hi - lo) * 0.05;

		scale_linear(&a->s, (lo - pad) * 100, (hi + pad) * 100, r0, r1);
		scale_nice(&a->s, 8);
	}
}

static double chg_map(const struct chg_axis *a, double frac)
{
	return a->log ? scale_map(&a->s, 1 + frac) : scale_map(&a->s, frac * 100);
}

#define MAX_TICKS 32

/* A tick label: 0.5 -> "-50%", 0 -> "0%", 0.004 -> "+0.4%" (pct in %). */
static void pct_label(double pct, char *buf, size_t len)
{
	if (fabs(pct) < 1e-9)
		snprintf(buf, len, "0%%");
	else
		snprintf(buf, len, "%+.*f%%", fabs(pct) < 1 ? 1 : 0, pct);
}

/*
 * The axis's ticks: pixel positions and labels ("-50%", "0%", "+100%").
 * On a log-ratio axis, ratios that read as round changes (-90%, halving,
 * doubling, +900%, ...), as many as fit without their labels touching.
 */
static size_t chg_ticks(const struct chg_axis *a, double *px, char (*lab)[24], const char **labs)
{
	/* no change first, then powers of ten, then the halvings and doublings between */
	static const double ratios[] = { 1,   0.1, 10,	0.01, 100, 0.001, 1000, 1e4,
					 1e5, 1e6, 0.5, 2,    5,   0.2,	  20,	50 };
	double t[MAX_TICKS], lo = fmin(a->s.d0, a->s.d1), hi = fmax(a->s.d0, a->s.d1);
	size_t n = 0, i, k;

	if (!a->log) {
		n = scale_ticks(&a->s, 8, t, MAX_TICKS);
		for (i = 0; i < n; i++) {
			px[i] = scale_map(&a->s, t[i]);
			pct_label(t[i], lab[i], sizeof(*lab));
			labs[i] = lab[i];
		}
		return n;
	}
	for (i = 0; i < ARRAY_SIZE(ratios) && n < MAX_TICKS; i++) {
		double p = scale_map(&a->s, ratios[i]);
		bool crowded = false;

		/* labels such as "+1900%" need about 55 pixels */
		for (k = 0; k < n; k++)
			crowded |= fabs(px[k] - p) < 55;
		if (ratios[i] < lo || ratios[i] > hi || crowded)
			continue;
		t[n] = ratios[i];
		px[n++] = p;
	}
	/* in the axis's order */
	for (i = 1; i < n; i++)
		for (k = i; k > 0 && t[k - 1] > t[k]; k--) {
			double tt = t[k], pp = px[k];

			t[k] = t[k - 1];
			px[k] = px[k - 1];
			t[k - 1] = tt;
			px[k - 1] = pp;
		}
	for (i = 0; i < n; i++) {
		pct_label((t[i] - 1) * 100, lab[i], sizeof(*lab));
		labs[i] = lab[i];
	}
	return n;
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

/* A group's name in a cell: a long one (a compare label) clamped, whole in its tooltip. */
static void name_cell(struct sbuf *b, const char *name)
{
	if (strlen(name ? name : "") <= 24) {
		sbuf_puts(b, "<td class=\"nm\">");
		text(b, name);
		sbuf_puts(b, "</td>");
		return;
	}
	sbuf_puts(b, "<td><span class=\"lbl\" title=\"");
	text(b, name);
	sbuf_puts(b, "\">");
	text(b, name);
	sbuf_puts(b, "</span></td>");
}

/*
 * A group's name in running text: a long one (a compare label of hundreds
 * of columns) shortened in the middle, whole in its tooltip.
 */
static void prose_name(struct sbuf *b, const char *name)
{
	size_t n = strlen(name ? name : ""), head = 50, tail = 24;
	char *s;

	if (n <= 80) {
		text(b, name);
		return;
	}
	/* not inside a UTF-8 sequence */
	while (head > 0 && ((unsigned char)name[head] & 0xc0) == 0x80)
		head--;
	while (tail > 0 && ((unsigned char)name[n - tail] & 0xc0) == 0x80)
		tail--;
	sbuf_puts(b, "<span title=\"");
	text(b, name);
	sbuf_puts(b, "\">");
	s = xasprintf("%.*s ... %s", (int)head, name, name + n - tail);
	text(b, s);
	free(s);
	sbuf_puts(b, "</span>");
}

static void badge(struct sbuf *b, json_object *g)
{
	const char *key, *word = rep_badge(g, &key);

	sbuf_addf(b, "<span class=\"badge b-%s\">", key);
	text(b, word);
	sbuf_puts(b, "</span>");
}

/* The verdict: a badge, the whole sentence its tooltip (the headline above says it). */
static void verdict_cell(struct sbuf *b, json_object *g)
{
	const char *key, *word = rep_badge(g, &key);

	sbuf_addf(b, "<td><span class=\"badge b-%s\" title=\"", key);
	text(b, rep_str(g, "verdict_text"));
	sbuf_puts(b, "\">");
	text(b, word);
	sbuf_puts(b, "</span></td>");
}

static void interval_cell(struct sbuf *b, json_object *ci, const char *unit)
{
	char lo[32], hi[32], buf[96];

	if (ci && json_object_is_type(ci, json_type_array)) {
		fmt_value(json_object_get_double(json_object_array_get_idx(ci, 0)), unit, lo,
			  sizeof(lo));
		fmt_value(json_object_get_double(json_object_array_get_idx(ci, 1)), unit, hi,
			  sizeof(hi));
		snprintf(buf, sizeof(buf), "[%s, %s]", lo, hi);
	} else {
		snprintf(buf, sizeof(buf), "n too small");
	}
	td_num(b, buf);
}

/* The mark of posted results: a badge whose tooltip says where they came from. */
static void posted_badge(struct sbuf *b, json_object *ext)
{
	sbuf_puts(b, "<span class=\"badge b-posted\" title=\"");
	text(b, rep_str(ext, "note"));
	sbuf_puts(b, "\">posted</span>");
}

static void table_row(const struct rep *r, size_t i, struct sbuf *b)
{
	json_object *g = r->g[i].j, *eff = rep_obj(g, "effect"), *ext = rep_obj(g, "external");
	char med[32], lo[32], hi[32], buf[96], p[32];

	if (ext) {
		/* posted results: their own marked row, the note in words */
		sbuf_addf(b, "<tr class=\"posted\"><td><span class=\"sw %s\"></span></td><td>",
			  gcls(i));
		prose_name(b, r->g[i].name);
		sbuf_puts(b, " ");
		posted_badge(b, ext);
		sbuf_puts(b, "<div class=\"vt\">");
		text(b, rep_str(ext, "note"));
		sbuf_puts(b, "</div></td>");
	} else {
		sbuf_addf(b, "<tr><td><span class=\"sw %s\"></span></td>", gcls(i));
		name_cell(b, r->g[i].name);
	}
	sbuf_addf(b, "<td class=\"num\">%.0f</td><td class=\"num\">%.0f</td>", rep_num(g, "n"),
		  rep_num(g, "boots"));
	fmt_value(rep_num(g, "median"), r->primary.unit, med, sizeof(med));
	td_num(b, med);
	interval_cell(b, rep_obj(g, "median_ci"), r->primary.unit);
	if (r->g[i].baseline) {
		sbuf_puts(b, "<td class=\"num\">100%</td><td></td><td></td>"
			     "<td><span class=\"badge b-baseline\">baseline</span></td></tr>\n");
		return;
	}
	/* a posted run without an interval: the medians' ratio, as a point */
	if (!isfinite(rep_num(eff, "estimate")) && isfinite(rep_num(g, "median_change")))
		fmt_pct(rep_num(g, "median_change"), med, sizeof(med));
	else
		fmt_pct(rep_num(eff, "estimate"), med, sizeof(med));
	td_num(b, med);
	fmt_pct(rep_num(eff, "ci_lo"), lo, sizeof(lo));
	fmt_pct(rep_num(eff, "ci_hi"), hi, sizeof(hi));
	if (isfinite(rep_num(eff, "ci_lo")))
		snprintf(buf, sizeof(buf), "[%s, %s]", lo, hi);
	else if (isfinite(rep_num(g, "median_change")))
		snprintf(buf, sizeof(buf), "no interval");
	else
		buf[0] = '\0';
	td_num(b, buf);
	rep_fmt_p(g, p, sizeof(p));
	td_num(b, p);
	verdict_cell(b, g);
	sbuf_puts(b, "</tr>\n");
}

static void html_table(const struct rep *r, struct sbuf *b)
{
	const char *by = r->by;
	size_t i, k;

	sbuf_puts(b, "<section id=\"verdicts\"><h2>Verdicts</h2>\n<table>\n<tr><th></th><th>");
	text(b, r->ab			      ? "arm"
		: !strcmp(by, "kernel")	      ? "Kernel"
		: !strcmp(by, "label")	      ? "Label"
		: !strcmp(by, "profile")      ? "Profile"
		: !strcmp(by, "host")	      ? "Host"
		: !strncmp(by, "feature:", 8) ? by + 8
					      : by);
	sbuf_puts(b, "</th><th class=\"num\">n</th><th class=\"num\">boots</th><th class=\"num\">");
	text(b, r->primary.label);
	sbuf_puts(b, "</th><th class=\"num\">95% CI of median</th><th class=\"num\">change</th>"
		     "<th class=\"num\">95% CI of change</th><th class=\"num\">p</th>"
		     "<th>verdict</th></tr>\n");
	for (i = 0; i < r->ng; i++)
		table_row(r, i, b);
	sbuf_puts(b, "</table>\n");
	if (r->ng > 1) {
		sbuf_puts(b, "<p class=\"note\">Changes are against the baseline, ");
		prose_name(b, r->g[0].name);
		sbuf_puts(b, ". Inference (the unit of replication is the boot):</p>\n<ul "
			     "class=\"note\">\n");
		for (i = 1; i < r->ng; i++) {
			sbuf_puts(b, "<li>");
			prose_name(b, r->g[i].name);
			sbuf_puts(b, ": ");
			text(b, rep_str(rep_obj(r->g[i].j, "inference"), "note"));
			sbuf_puts(b, "</li>\n");
		}
		sbuf_puts(b, "</ul>\n");
	}
	/* compare's warnings, then its notes (noisy, overloaded) */
	for (k = 0; k < 2; k++) {
		json_object *w = rep_obj(r->doc, k ? "notes" : "warnings");
		size_t n = w ? json_object_array_length(w) : 0;

		for (i = 0; i < n; i++) {
			sbuf_addf(b, "<p class=\"note\">%s: ", k ? "note" : "warning");
			text(b, json_object_get_string(json_object_array_get_idx(w, i)));
			sbuf_puts(b, "</p>\n");
		}
	}
	sbuf_puts(b, "</section>\n");
}

/* ---- posted results ---- */

static void dd_row(struct sbuf *b, const char *what, const char *v)
{
	if (!v)
		return;
	sbuf_puts(b, "<div><dt>");
	text(b, what);
	sbuf_puts(b, "</dt><dd>");
	text(b, v);
	sbuf_puts(b, "</dd></div>");
}

/* The reproducer of experiment slot i (its `wakebench run`), or NULL. */
static const char *repro_cmd_of(const struct rep *r, size_t i)
{
	size_t k, j;

	for (k = 0; k < r->nrepro; k++)
		for (j = 0; j < r->repro[k].n; j++)
			if (r->repro[k].exps[j] == i)
				return r->repro[k].cmd;
	return NULL;
}

/*
 * Each posted result with its provenance: the tool and version, the posted
 * command and arguments, where the text came from, the profile and the
 * run that reproduce it here.
 */
static void html_posted(const struct rep *r, struct sbuf *b)
{
	size_t i;

	if (!r->nposted)
		return;
	sbuf_puts(b, "<section id=\"posted\"><h2>Posted results (not measured here)</h2>\n"
		     "<p class=\"note\">Imported from another tool's output: their numbers are "
		     "as posted, their environment only what the text said.</p>\n");
	for (i = 0; i < r->nposted; i++) {
		const struct rep_posted *p = &r->posted[i];
		const struct store_experiment *e = &r->exps[p->exp];

		sbuf_addf(b, "<dl class=\"machine\"><div><dt><span class=\"sw %s\"></span>",
			  gcls(p->group));
		sbuf_addf(b,
			  "<b>experiment %lld</b></dt><dd><span class=\"badge b-posted\">posted"
			  "</span> ",
			  (long long)e->id);
		text(b, p->note);
		sbuf_puts(b, "</dd></div>");
		dd_row(b, "group", r->g[p->group].name);
		dd_row(b, "tool", p->tool);
		dd_row(b, "version", p->version);
		dd_row(b, "command", e->cmdline);
		dd_row(b, "arguments", p->args);
		dd_row(b, "source", p->source);
		dd_row(b, "format", p->format);
		dd_row(b, "kernel", e->kernel);
		dd_row(b, "host", e->host);
		dd_row(b, "profile", e->profile ? e->profile : "none reproduces it");
		dd_row(b, "reproduce here", repro_cmd_of(r, p->exp));
		sbuf_puts(b, "</dl>\n");
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

/* Quartiles and whiskers (the furthest samples within 1.5 IQR) of g's points. */
static void box_of(const struct rep_group *g, double *q1, double *q3, double *wlo, double *whi)
{
	double *v = xmalloc((g->npts + 1) * sizeof(*v)), iqr;
	size_t k;

	for (k = 0; k < g->npts; k++)
		v[k] = g->pts[k].v;
	qsort(v, g->npts, sizeof(*v), dcmp);
	*q1 = quantile(v, g->npts, 0.25);
	*q3 = quantile(v, g->npts, 0.75);
	iqr = *q3 - *q1;
	*wlo = *q1;
	*whi = *q3;
	for (k = 0; k < g->npts; k++) {
		if (v[k] >= *q1 - 1.5 * iqr && v[k] < *wlo)
			*wlo = v[k];
		if (v[k] <= *q3 + 1.5 * iqr && v[k] > *whi)
			*whi = v[k];
	}
	free(v);
}

/*
 * One group's box: points behind it (every stride-th, jittered), the box
 * and whiskers, the median's CI as a narrow dark band along the centre
 * (inside the box when it fits, a whisker-like bar beyond it when not:
 * never a second box), and the median line across.
 */
static void one_box(const struct rep_group *g, const char *unit, size_t i, const struct band *x,
		    const struct scale *y, size_t stride, size_t *shown, struct sbuf *b)
{
	double cx = band_center(x, i), w = band_width(x), q1, q3, wlo, whi;
	double med = rep_num(g->j, "median");
	json_object *ci = rep_obj(g->j, "median_ci");
	char cls[64], tip[512], m[32], a[32], c[32], l[32], h[32];
	size_t k;

	box_of(g, &q1, &q3, &wlo, &whi);
	fmt_value(med, unit, m, sizeof(m));
	fmt_value(q1, unit, a, sizeof(a));
	fmt_value(q3, unit, c, sizeof(c));
	if (ci && json_object_is_type(ci, json_type_array)) {
		fmt_value(json_object_get_double(json_object_array_get_idx(ci, 0)), unit, l,
			  sizeof(l));
		fmt_value(json_object_get_double(json_object_array_get_idx(ci, 1)), unit, h,
			  sizeof(h));
	} else {
		snprintf(l, sizeof(l), "?");
		snprintf(h, sizeof(h), "? (n too small)");
	}
	snprintf(tip, sizeof(tip),
		 "%s: median %s [95%% CI %s, %s], quartiles %s to %s, %zu samples",
		 g->name ? g->name : "", m, l, h, a, c, g->npts);
	snprintf(cls, sizeof(cls), "grp %s", gcls(i));
	svg_group_begin(b, cls, tip);
	for (k = 0; k < g->npts; k += stride, (*shown)++)
		svg_circle(b, cx + jitter(k) * w * 0.9, scale_map(y, g->pts[k].v), 3.5, "pt");
	if (g->npts) {
		svg_line(b, cx, scale_map(y, wlo), cx, scale_map(y, q1), "whisk");
		svg_line(b, cx, scale_map(y, q3), cx, scale_map(y, whi), "whisk");
		svg_line(b, cx - w / 6, scale_map(y, wlo), cx + w / 6, scale_map(y, wlo), "whisk");
		svg_line(b, cx - w / 6, scale_map(y, whi), cx + w / 6, scale_map(y, whi), "whisk");
		svg_rect(b, cx - w / 2, scale_map(y, q1), cx + w / 2, scale_map(y, q3), "box");
	}
	if (ci && json_object_is_type(ci, json_type_array)) {
		double lo = scale_map(y, json_object_get_double(json_object_array_get_idx(ci, 0)));
		double hi = scale_map(y, json_object_get_double(json_object_array_get_idx(ci, 1)));

		/* an error bar: narrower and darker than the box and its whiskers */
		svg_rect(b, cx - 3, lo, cx + 3, hi, "ci");
		svg_line(b, cx - 8, lo, cx + 8, lo, "cicap");
		svg_line(b, cx - 8, hi, cx + 8, hi, "cicap");
	}
	if (isfinite(med))
		svg_line(b, cx - w / 2, scale_map(y, med), cx + w / 2, scale_map(y, med), "med");
	svg_group_end(b);
}

static void html_boxes(const struct rep *r, struct sbuf *b)
{
	struct svg_frame f = { .top = 20, .bottom = 36, .left = 78, .right = 16, .height = 340 };
	const char **labels = xcalloc(r->ng + 1, sizeof(*labels));
	size_t i, shown = 0, stride = 1;
	struct band x;
	struct scale y;
	double lo, hi;
	char *label = axis_label(&r->primary);

	f.width = fmin(960, fmax(480, 170.0 * (double)r->ng + f.left + f.right));
	range_of(r, &lo, &hi);
	value_scale(&y, lo, hi, &f);
	x = (struct band){ .n = r->ng, .r0 = f.left, .r1 = f.width - f.right, .pad = 0.3 };
	for (i = 0; i < r->ng; i++) {
		labels[i] = r->g[i].name;
		stride = fmax(stride, stride_for(r->g[i].npts, BOX_POINTS));
	}
	sbuf_puts(b, "<section id=\"distribution\"><h2>Distribution per group</h2>\n");
	svg_begin(b, &f,
		  "Box plot per group: quartiles, whiskers, the median with its 95% CI, "
		  "every sample a point");
	svg_axis_y(b, &f, &y, 6, label);
	svg_axis_band(b, &f, &x, labels);
	for (i = 0; i < r->ng; i++)
		one_box(&r->g[i], r->primary.unit, i, &x, &y, stride, &shown, b);
	svg_end(b);
	sbuf_puts(b, "<p class=\"note\">Box: quartiles; whiskers: the furthest samples within 1.5 "
		     "times the box; thick line: the median; dark bar with caps across it: the "
		     "median's 95% CI (compare's); dots: the samples.</p>\n");
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

/* The groups' colours as an HTML list under a plot: it wraps, it never overlaps. */
static void legend(struct sbuf *b, const struct rep *r)
{
	size_t i;

	sbuf_puts(b, "<ul class=\"legend\">");
	for (i = 0; i < r->ng; i++) {
		sbuf_puts(b, "<li title=\"");
		text(b, r->g[i].name);
		sbuf_addf(b, "\"><span class=\"sw %s\"></span>", gcls(i));
		text(b, r->g[i].name);
		sbuf_puts(b, "</li>");
	}
	sbuf_puts(b, "</ul>\n");
}

static void html_order(const struct rep *r, struct sbuf *b)
{
	struct svg_frame f = {
		.width = 960, .height = 300, .top = 12, .bottom = 36, .left = 78, .right = 16
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
	value_scale(&y, lo, hi, &f);
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
		svg_group_begin(b, cls, r->g[i].name);
		for (k = 0; k < n; k += stride)
			if (pts[k].group == i) {
				svg_circle(b, scale_map(&x, (double)k), scale_map(&y, pts[k].v), 4,
					   "pt");
				shown++;
			}
		svg_group_end(b);
	}
	svg_end(b);
	legend(b, r);
	sbuf_puts(b,
		  "<p class=\"note\">Dashed: each group's median over the samples it spans. "
		  "Drift, warm-up, two levels (bimodality) and A/B interleaving show here.</p>\n");
	thin_note(b, shown, n, stride);
	sbuf_puts(b, "</section>\n");
	free(pts);
	free(label);
}

/* ---- forest plot ---- */

static void forest_row(const struct rep *r, size_t i, const struct svg_frame *f,
		       const struct chg_axis *x, double cy, struct sbuf *b)
{
	json_object *g = r->g[i].j, *e = rep_obj(g, "effect");
	double est = rep_num(e, "estimate"), clo = rep_num(e, "ci_lo"), chi = rep_num(e, "ci_hi");
	double mc = rep_num(g, "median_change");
	const char *key, *word = rep_badge(g, &key);
	char cls[32], tip[512], a[32], c[32], d[32];

	fmt_pct(est, a, sizeof(a));
	fmt_pct(clo, c, sizeof(c));
	fmt_pct(chi, d, sizeof(d));
	if (!isfinite(est) && isfinite(mc)) {
		fmt_pct(mc, a, sizeof(a));
		snprintf(tip, sizeof(tip), "%s: %s (the medians' ratio, no interval): %s",
			 r->g[i].name ? r->g[i].name : "", a, rep_str(g, "verdict_text") ?: "");
	} else {
		snprintf(tip, sizeof(tip), "%s: %s [%s, %s]: %s", r->g[i].name ? r->g[i].name : "",
			 a, c, d, rep_str(g, "verdict_text") ?: "");
	}
	snprintf(cls, sizeof(cls), "grp %s", gcls(i));
	svg_group_begin(b, cls, tip);
	svg_text_fit(b, f->left - 8, cy + 4, "end", NULL, r->g[i].name, f->left - 14);
	if (isfinite(clo) && isfinite(chi)) {
		svg_line(b, chg_map(x, clo), cy, chg_map(x, chi), cy, "est");
		svg_line(b, chg_map(x, clo), cy - 6, chg_map(x, clo), cy + 6, "est");
		svg_line(b, chg_map(x, chi), cy - 6, chg_map(x, chi), cy + 6, "est");
		svg_circle(b, chg_map(x, est), cy, 5, NULL);
	} else if (isfinite(mc)) {
		/* one posted run: the medians' change, a point without an interval */
		svg_circle(b, chg_map(x, mc), cy, 5, NULL);
		svg_text(b, chg_map(x, mc) + 10, cy + 4, "start", "note", "no interval");
	} else {
		svg_text_fit(b, (f->left + f->width - f->right) / 2, cy + 4, "middle", "note",
			     rep_str(e, "why") ?: "no interval", f->width - f->right - f->left);
	}
	snprintf(cls, sizeof(cls), "t-%s", key);
	fmt_pct(mc, c, sizeof(c));
	snprintf(tip, sizeof(tip), "%s %s", isfinite(est) ? a : isfinite(mc) ? c : "", word);
	svg_text(b, f->width - f->right + 8, cy + 4, "start", cls, tip);
	svg_group_end(b);
}

static void html_forest(const struct rep *r, struct sbuf *b)
{
	struct svg_frame f = { .width = 960, .top = 16, .bottom = 40, .left = 220, .right = 170 };
	double lo = 0, hi = 0, row = 30, px[MAX_TICKS];
	char lab[MAX_TICKS][24], xl[256], m[32];
	const char *labs[MAX_TICKS];
	struct chg_axis x;
	size_t i, nt;

	if (r->ng < 2)
		return;
	f.height = f.top + f.bottom + row * (double)(r->ng - 1);
	for (i = 1; i < r->ng; i++) {
		json_object *e = rep_obj(r->g[i].j, "effect");

		if (isfinite(rep_num(e, "ci_lo"))) {
			lo = fmin(lo, rep_num(e, "ci_lo"));
			hi = fmax(hi, rep_num(e, "ci_hi"));
		} else if (isfinite(rep_num(r->g[i].j, "median_change"))) {
			lo = fmin(lo, rep_num(r->g[i].j, "median_change"));
			hi = fmax(hi, rep_num(r->g[i].j, "median_change"));
		}
	}
	chg_axis(&x, lo, hi, r->margin, f.left, f.width - f.right);
	nt = chg_ticks(&x, px, lab, labs);
	snprintf(m, sizeof(m), "%g", r->margin * 100);
	snprintf(xl, sizeof(xl), "change of %s vs. %.60s (%s; shaded: +-%s%%, the margin)%s",
		 r->primary.label, r->g[0].name ? r->g[0].name : "", better_text(r->primary.better),
		 m, x.log ? "; log-ratio axis" : "");
	sbuf_puts(b, "<section id=\"changes\"><h2>Changes against the baseline</h2>\n");
	svg_begin(b, &f, "Each group's change against the baseline with its 95% CI and the margin");
	svg_rect(b, chg_map(&x, -r->margin), f.top, chg_map(&x, r->margin), f.height - f.bottom,
		 "band");
	svg_axis_x_at(b, &f, px, labs, nt, xl);
	svg_line(b, chg_map(&x, 0), f.top, chg_map(&x, 0), f.height - f.bottom, "zero");
	for (i = 1; i < r->ng; i++)
		forest_row(r, i, &f, &x, f.top + row * ((double)i - 0.5), b);
	svg_end(b);
	sbuf_puts(b, "<p class=\"note\">A verdict is decided when the whole interval lies outside "
		     "the band (regression or improvement) or inside it (no change).");
	if (x.log)
		sbuf_puts(b, " The axis is logarithmic in the ratio (a doubling is as far from 0% "
			     "as a halving), so that a wide interval does not flatten the others.");
	sbuf_puts(b, "</p>\n</section>\n");
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
	json_object *ev = rep_obj(g->j, "evidence");
	size_t i, n = ev ? json_object_array_length(ev) : 0;

	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(ev, i);
		const char *s = rep_str(e, "name");

		if (s && !strcmp(s, name))
			return e;
	}
	return NULL;
}

/* The range of metric m's values in every group; false when it has none. */
static bool series_range(const struct rep *r, const char *name, double *lo, double *hi)
{
	size_t i, k;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (i = 0; i < r->ng; i++) {
		const struct rep_series *s = series_of(&r->g[i], name);

		for (k = 0; s && k < s->n; k++) {
			*lo = fmin(*lo, s->v[k]);
			*hi = fmax(*hi, s->v[k]);
		}
	}
	return isfinite(*lo);
}

/*
 * The caption's changes: each group's with its interval, and the groups
 * without one once per reason ("6.12, 7.0: insufficient samples").
 */
/* Why group k has no interval for metric name, or NULL when it has one (or no entry). */
static const char *why_of(const struct rep *r, size_t k, const char *name)
{
	json_object *e = evidence_of(&r->g[k], name), *eff = rep_obj(e, "effect");

	if (!e || isfinite(rep_num(eff, "ci_lo")))
		return NULL;
	return rep_str(eff, "why") ?: "n/a";
}

static void multiple_caption(const struct rep *r, const struct rep_metric *m, struct sbuf *b)
{
	const char *sep = "";
	bool moved_any = false;
	size_t i, k;

	sbuf_puts(b, "<figcaption>");
	text(b, m->better < 0	? "Lower is better. "
		: m->better > 0 ? "Higher is better. "
				: "Neither way is better. ");
	for (i = 1; i < r->ng; i++) {
		json_object *eff = rep_obj(evidence_of(&r->g[i], m->name), "effect");
		double clo = rep_num(eff, "ci_lo"), chi = rep_num(eff, "ci_hi");
		char a[32], c[32], d[32];
		bool moved = clo > 0 || chi < 0;

		if (!isfinite(clo))
			continue;
		fmt_pct(rep_num(eff, "estimate"), a, sizeof(a));
		fmt_pct(clo, c, sizeof(c));
		fmt_pct(chi, d, sizeof(d));
		sbuf_puts(b, sep);
		prose_name(b, r->g[i].name);
		sbuf_addf(b, moved ? ": <b>%s [%s, %s]</b>" : ": %s [%s, %s]", a, c, d);
		moved_any |= moved;
		sep = "; ";
	}
	/* the groups without an interval, once per reason */
	for (i = 1; i < r->ng; i++) {
		const char *why = why_of(r, i, m->name);

		for (k = 1; why && k < i; k++)
			if (why_of(r, k, m->name) && !strcmp(why_of(r, k, m->name), why))
				why = NULL;
		if (!why)
			continue;
		sbuf_puts(b, sep);
		prose_name(b, r->g[i].name);
		for (k = i + 1; k < r->ng; k++)
			if (why_of(r, k, m->name) && !strcmp(why_of(r, k, m->name), why)) {
				sbuf_puts(b, ", ");
				prose_name(b, r->g[k].name);
			}
		sbuf_puts(b, ": ");
		text(b, why);
		sep = "; ";
	}
	sbuf_puts(b, *sep ? ". " : "");
	for (i = k = 0; i < r->ng; i++) {
		const struct rep_series *s = series_of(&r->g[i], m->name);

		if (s && s->n)
			continue;
		sbuf_puts(b, k++ ? ", " : "Not measured in ");
		prose_name(b, r->g[i].name);
	}
	sbuf_puts(b, k ? ". " : "");
	if (moved_any)
		sbuf_puts(b, "Bold: the CI excludes 0.");
	sbuf_puts(b, "</figcaption></figure>\n");
}

static void small_multiple(const struct rep *r, const struct rep_metric *m, struct sbuf *b)
{
	struct svg_frame f = {
		.width = 330, .height = 200, .top = 22, .bottom = 30, .left = 58, .right = 10
	};
	double lo, hi;
	const char **labels = xcalloc(r->ng + 1, sizeof(*labels));
	struct band x;
	struct scale y;
	size_t i, k;
	char *title;

	if (!series_range(r, m->name, &lo, &hi)) {
		free(labels);
		return;
	}
	for (i = 0; i < r->ng; i++)
		labels[i] = r->g[i].name;
	/* over more than two decades one stray sample would flatten every box: a log axis */
	if (lo > 0 && hi / lo > 100) {
		scale_log(&y, lo, hi, f.height - f.bottom, f.top);
		scale_nice(&y, 4);
		title = xasprintf("%s (log axis)", m->label);
	} else {
		value_scale(&y, lo, hi, &f);
		title = xstrdup(m->label);
	}
	x = (struct band){ .n = r->ng, .r0 = f.left, .r1 = f.width - f.right, .pad = 0.35 };
	/*
	 * Names that would be cut to alike stubs: the colours (the legend
	 * above) say it, an ab's arms by their letters. About 7 pixels a
	 * character (capitals are wider than the average) and a gap.
	 */
	for (i = 0; i < r->ng; i++)
		if ((double)strlen(labels[i] ? labels[i] : "") * 7 + 6 >
		    (x.r1 - x.r0) / (double)x.n)
			break;
	if (i < r->ng)
		for (i = 0; i < r->ng; i++)
			labels[i] = r->ab ? (i ? "B" : "A") : "";
	sbuf_puts(b, "<figure>");
	svg_begin(b, &f, m->label);
	svg_text(b, f.left, 14, "start", "title", title);
	free(title);
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
		svg_group_begin(b, cls, r->g[i].name);
		for (k = 0; k < s->n; k += stride)
			svg_circle(b, cx + jitter(k) * w, scale_map(&y, s->v[k]), 2.5, "pt");
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
	multiple_caption(r, m, b);
	free(labels);
}

/* Group i's points joined by a line, each marked with a dot of radius rad. */
static void marked_line(struct sbuf *b, size_t i, const char *title, const double *xs,
			const double *ys, size_t n, double rad)
{
	char cls[64];
	size_t k;

	snprintf(cls, sizeof(cls), "cdf %s", gcls(i));
	svg_group_begin(b, cls, title);
	svg_polyline(b, xs, ys, n, NULL);
	for (k = 0; k < n; k++)
		svg_circle(b, xs[k], ys[k], rad, NULL);
	svg_group_end(b);
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
		marked_line(b, i, r->g[i].name, xs, ys, n, 3);
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
	double py[MAX_TICKS];
	char lab[MAX_TICKS][24], xl[200];
	const char *labs[MAX_TICKS];
	struct chg_axis y;
	struct scale x;
	size_t i, k, n, nt;

	for (i = 1; i < r->ng; i++) {
		json_object *pairs = rep_obj(r->g[i].j, "pairs");
		double *px, *pv, lo = 0, hi = 0;

		if (!pairs || !(n = json_object_array_length(pairs)))
			continue;
		px = xcalloc(n, sizeof(*px));
		pv = xcalloc(n, sizeof(*pv));
		for (k = 0; k < n; k++) {
			pv[k] = json_object_get_double(json_object_array_get_idx(pairs, k));
			lo = fmin(lo, pv[k]);
			hi = fmax(hi, pv[k]);
		}
		scale_linear(&x, 0.5, (double)n + 0.5, f.left, f.width - f.right);
		chg_axis(&y, lo, hi, r->margin, f.height - f.bottom, f.top);
		nt = chg_ticks(&y, py, lab, labs);
		sbuf_puts(b, "<section id=\"pairs\"><h2>Each pair</h2>\n");
		snprintf(xl, sizeof(xl), "pair, in run order (%.60s vs. %.60s)",
			 r->g[i].name ? r->g[i].name : "", r->g[0].name ? r->g[0].name : "");
		svg_begin(b, &f, "Each pair's change, in run order, with the margin");
		svg_rect(b, f.left, chg_map(&y, r->margin), f.width - f.right,
			 chg_map(&y, -r->margin), "band");
		svg_axis_y_at(b, &f, py, labs, nt, y.log ? "change (log-ratio axis)" : "change");
		svg_axis_x(b, &f, &x, n < 10 ? n : 10, xl);
		svg_line(b, f.left, chg_map(&y, 0), f.width - f.right, chg_map(&y, 0), "zero");
		for (k = 0; k < n; k++) {
			px[k] = scale_map(&x, (double)k + 1);
			pv[k] = chg_map(&y, pv[k]);
		}
		marked_line(b, i, r->g[i].name, px, pv, n, 3.5);
		svg_end(b);
		sbuf_puts(b, "<p class=\"note\">The paired interval in the table rests on these "
			     "changes; a trend or one stray pair shows here.</p>\n</section>\n");
		free(px);
		free(pv);
	}
}

static void html_evidence(const struct rep *r, struct sbuf *b)
{
	size_t i, zero = 0;

	sbuf_puts(b, "<section id=\"evidence\"><h2>Evidence</h2>\n");
	if (!r->nev) {
		sbuf_puts(
			b,
			"<p>No evidence counters were measured in these samples.</p></section>\n");
		return;
	}
	sbuf_puts(b, "<p class=\"note\">Per-op scheduler counters of each group (dots: samples; "
		     "box: quartiles) and their change against the baseline with its 95% CI "
		     "(compare's; exploratory, no verdicts).</p>\n");
	legend(b, r);
	sbuf_puts(b, "<div class=\"multiples\">\n");
	for (i = 0; i < r->nev; i++) {
		double lo, hi;

		/* nothing to see on an axis: said once below instead */
		if (series_range(r, r->ev[i].name, &lo, &hi) && lo == 0 && hi == 0)
			zero++;
		else
			small_multiple(r, &r->ev[i], b);
	}
	latency_cdf(r, b);
	sbuf_puts(b, "</div>\n");
	if (zero) {
		sbuf_puts(b, "<p class=\"note\">All values 0 in every group (not plotted): ");
		for (i = 0; i < r->nev; i++) {
			double lo, hi;

			if (!series_range(r, r->ev[i].name, &lo, &hi) || lo != 0 || hi != 0)
				continue;
			text(b, r->ev[i].label);
			sbuf_puts(b, --zero ? ", " : ".</p>\n");
		}
	}
	sbuf_puts(b, "</section>\n");
}

/* ---- environment, reproducers, data ---- */

/* The keys a posted side's text did not give: unknown, not differences. */
static void env_unknown_row(const struct rep *r, size_t i, struct sbuf *b)
{
	json_object *u = rep_obj(r->g[i].j, "env_unknown");
	size_t n = u ? json_object_array_length(u) : 0, k;

	if (!n)
		return;
	sbuf_addf(b, "<tr class=\"posted\"><td><span class=\"sw %s\"></span></td>", gcls(i));
	name_cell(b, r->g[i].name);
	sbuf_addf(b,
		  "<td>unknown</td><td colspan=\"3\">%zu key%s not in the posted text "
		  "(unknown, not counted as differences): <span class=\"val\">",
		  n, n == 1 ? "" : "s");
	for (k = 0; k < n; k++) {
		if (k)
			sbuf_puts(b, ", ");
		text(b, rep_str(json_object_array_get_idx(u, k), "key"));
	}
	sbuf_puts(b, "</span></td></tr>\n");
}

static void html_env(const struct rep *r, struct sbuf *b)
{
	size_t i, k, run_keys = 0;

	if (r->ng < 2)
		return;
	sbuf_puts(b,
		  "<section id=\"environment\"><h2>Environment differences against the "
		  "baseline</h2>\n<table class=\"env\">\n<tr><th></th><th>group</th><th>impact</th>"
		  "<th>key</th><th>baseline</th><th>group's value</th></tr>\n");
	for (i = 1; i < r->ng; i++) {
		json_object *d = rep_obj(r->g[i].j, "env_diff");
		size_t n = d ? json_object_array_length(d) : 0, shown = 0;

		for (k = 0; k < n; k++) {
			json_object *e = json_object_array_get_idx(d, k);
			const char *imp = rep_str(e, "impact") ?: "?";

			if (!strcmp(imp, "run")) {
				run_keys++;
				continue;
			}
			sbuf_addf(b, "<tr><td><span class=\"sw %s\"></span></td>", gcls(i));
			name_cell(b, r->g[i].name);
			sbuf_puts(b, "<td>");
			text(b, imp);
			sbuf_puts(b, "</td><td>");
			text(b, rep_str(e, "key"));
			sbuf_puts(b, "</td><td class=\"val\">");
			/* two feature vectors: what changed between them */
			text(b, rep_str(e, "change") ? "" : rep_str(e, "baseline") ?: "(absent)");
			sbuf_puts(b, "</td><td class=\"val\">");
			text(b, rep_str(e, "change") ?: rep_str(e, "value") ?: "(absent)");
			sbuf_puts(b, "</td></tr>\n");
			shown++;
		}
		if (!shown) {
			sbuf_addf(b, "<tr><td><span class=\"sw %s\"></span></td>", gcls(i));
			name_cell(b, r->g[i].name);
			sbuf_puts(b, "<td colspan=\"4\">none</td></tr>\n");
		}
		env_unknown_row(r, i, b);
	}
	sbuf_puts(b, "</table>\n<p class=\"note\">Baseline: ");
	prose_name(b, r->g[0].name);
	sbuf_puts(b, ". Strongest first");
	if (run_keys)
		sbuf_addf(b, "; %zu per-run keys (load, pressure, command line) left out",
			  run_keys);
	sbuf_puts(b, ".</p>\n</section>\n");
}

/* A comment line of the reproducers: one line, whatever a label holds. */
static void repro_comment(struct sbuf *b, const char *s)
{
	char *line = text_printable(s, 0);

	sbuf_puts(b, "<span class=\"c\"># ");
	text(b, line);
	sbuf_puts(b, "</span>\n");
	free(line);
}

static void html_repro(const struct rep *r, struct sbuf *b)
{
	size_t i;

	sbuf_puts(b, "<section id=\"reproduce\"><h2>To reproduce</h2>\n<pre>");
	for (i = 0; i < r->nrepro; i++) {
		const struct rep_repro *rp = &r->repro[i];
		char *what = rep_repro_what(r, rp);

		repro_comment(b, what);
		free(what);
		text(b, rp->cmd ?: "# (its command line was not stored)");
		sbuf_puts(b, "\n");
		if (rp->equiv) {
			repro_comment(b, rp->equiv_note);
			text(b, rp->equiv);
			sbuf_puts(b, "\n");
		}
	}
	if (r->report_cmd) {
		repro_comment(b, "this report");
		text(b, r->report_cmd);
		sbuf_puts(b, "\n");
	}
	sbuf_puts(b, "</pre>\n<p class=\"note\">Commands as typed on another machine: the store "
		     "(--db), output and verbosity options and this machine's paths are left "
		     "out.</p>\n</section>\n");
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
		  "<details><summary>The %zu experiment%s of this report with every sample, as "
		  "<code>wakebench export</code> writes them (compressed, base64): "
		  "<code>wakebench import THIS-FILE.html</code> merges them into a "
		  "store.</summary>\n",
		  n, n == 1 ? "" : "s");
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

/* Each effect in one sentence with its verdict as a coloured badge. */
static void html_headline(const struct rep *r, struct sbuf *b)
{
	size_t i;

	if (r->ng < 2)
		return;
	sbuf_puts(b, "<ul class=\"headline\">\n");
	for (i = 1; i < r->ng; i++) {
		char *h = rep_headline(r, i);

		sbuf_puts(b, "<li>");
		badge(b, r->g[i].j);
		sbuf_puts(b, " ");
		prose_name(b, r->g[i].title);
		sbuf_puts(b, ": ");
		text(b, h);
		sbuf_puts(b, "</li>\n");
		free(h);
	}
	sbuf_puts(b, "</ul>\n");
}

static void html_machine(const struct rep *r, struct sbuf *b)
{
	struct rep_fact facts[12];
	size_t n = rep_machine(r, facts, ARRAY_SIZE(facts)), i;

	if (!n)
		return;
	sbuf_addf(b,
		  "<dl class=\"machine\" title=\"the stored fingerprint of experiment %lld, the "
		  "baseline's first\"><div><dt><b>baseline machine</b></dt><dd></dd></div>",
		  (long long)r->machine_exp);
	for (i = 0; i < n; i++) {
		sbuf_puts(b, "<div><dt>");
		text(b, facts[i].label);
		sbuf_puts(b, "</dt><dd>");
		text(b, facts[i].value);
		sbuf_puts(b, "</dd></div>");
	}
	sbuf_puts(b, "</dl>\n");
}

void rep_html(const struct rep *r, struct sbuf *b)
{
	char when[64], m[16];
	char *title = rep_title(r), *full = xasprintf("wakebench report: %s", title);

	rep_fmt_when(r->made_ns, when, sizeof(when));
	snprintf(m, sizeof(m), "%g%%", r->margin * 100);
	rep_html_begin(b, r->version, full);
	sbuf_puts(b, "<h1>");
	text(b, full);
	sbuf_puts(b, "</h1>\n");
	html_headline(r, b);
	html_machine(r, b);
	sbuf_addf(b,
		  "<p class=\"meta\">%.0f%% confidence, margin %s, %zu sample%s (status ok, "
		  "warm-ups excluded) in %zu group%s; baseline ",
		  r->conf * 100, m, r->nsamples, r->nsamples == 1 ? "" : "s", r->ng,
		  r->ng == 1 ? "" : "s");
	prose_name(b, r->g[0].name);
	sbuf_addf(b, "; %s", better_text(r->primary.better));
	if (r->ab)
		sbuf_puts(b, "; the arms of ab, paired");
	sbuf_addf(b, ". Made %s by wakebench ", when);
	text(b, r->version);
	sbuf_puts(b, ".</p>\n");
	html_table(r, b);
	html_posted(r, b);
	html_boxes(r, b);
	html_order(r, b);
	html_forest(r, b);
	html_pairs(r, b);
	html_evidence(r, b);
	html_env(r, b);
	html_repro(r, b);
	html_data(r, b);
	sbuf_puts(b, "</body>\n</html>\n");
	free(title);
	free(full);
}
