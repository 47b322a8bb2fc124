/*
 * bisect.c: a stored bisection (`wakebench report --bisect ID`) as the
 * report's three documents: HTML with a plot of every step's position and
 * its interval between the two references, the mail body and Markdown.
 * The steps, verdicts and intervals are bisect_document()'s, as `bisect
 * report` prints them: nothing is recomputed here.
 *
 * The position of a candidate is 0 at the good reference's level and 1 at
 * the bad one's; "closer to good" is the whole interval below 1/2.
 */
#include "render/render.h"
#include "util/text.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_object *steps_of(const struct rep_bisect *r)
{
	json_object *s;

	return json_object_object_get_ex(r->doc, "steps", &s) ? s : NULL;
}

static size_t nsteps(const struct rep_bisect *r)
{
	json_object *s = steps_of(r);

	return s ? json_object_array_length(s) : 0;
}

static json_object *step_at(const struct rep_bisect *r, size_t i)
{
	return json_object_array_get_idx(steps_of(r), i);
}

static const char *str_or(json_object *o, const char *k, const char *dflt)
{
	const char *s = rep_str(o, k);

	return s && *s ? s : dflt;
}

/* "step 2 (step)", "good reference": what a row is. */
static void step_title(json_object *s, char *buf, size_t len)
{
	const char *role = str_or(s, "role", "?");

	if (isfinite(rep_num(s, "step")))
		snprintf(buf, len, "step %.0f (%s)", rep_num(s, "step"), role);
	else
		snprintf(buf, len, "%s", role);
}

void rep_bisect_outcome(json_object *s, char *buf, size_t len)
{
	const char *v = rep_str(s, "verdict");
	double boots = rep_num(s, "boots"), nexp = rep_num(s, "experiments");

	if (!v)
		snprintf(buf, len, "%.0f boot%s measured", nexp, nexp == 1 ? "" : "s");
	else if (isfinite(rep_num(s, "position")))
		snprintf(buf, len,
			 "%s, position %.2f [%.2f, %.2f] at %.2f%%, %+.1f%% vs good, %+.1f%% vs "
			 "bad, %.0f boot%s",
			 v, rep_num(s, "position"), rep_num(s, "position_lo"),
			 rep_num(s, "position_hi"), 100 * rep_num(s, "level"),
			 100 * rep_num(s, "vs_good"), 100 * rep_num(s, "vs_bad"), boots,
			 boots == 1 ? "" : "s");
	else
		snprintf(buf, len, "%s (%s), %.0f boots", v, str_or(s, "why", "no boot"), boots);
}

static const char *result_of(const struct rep_bisect *r)
{
	return str_or(r->doc, "result", NULL);
}

static const char *kind_of(const struct rep_bisect *r)
{
	const char *k = str_or(r->doc, "kind", "?");

	return !strcmp(k, "run")    ? "bisect run over kernel images"
	       : !strcmp(k, "step") ? "bisect step under git bisect run"
				    : k;
}

/* What a bisection without a stored result says instead (bisect_document()). */
static const char *no_result(const struct rep_bisect *r)
{
	return str_or(r->doc, "no_result", "none stored");
}

/* ---- HTML ---- */

static const char *verdict_cls(const char *v)
{
	return !v ? "g7" : !strcmp(v, "good") ? "g2" : !strcmp(v, "bad") ? "g5" : "g7";
}

/* A label cut to n characters with "..", for the plot's left column. */
static void cut(const char *s, size_t n, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s);
	if (strlen(s) > n && n > 2 && n < len)
		snprintf(buf + n - 2, len - (n - 2), "..");
}

static void html_positions(const struct rep_bisect *r, struct sbuf *b)
{
	struct svg_frame f = { .width = 960, .top = 24, .bottom = 44, .left = 330, .right = 40 };
	double lo = -0.25, hi = 1.25, row = 26;
	struct scale x;
	size_t i, n = 0, k = 0;

	for (i = 0; i < nsteps(r); i++) {
		json_object *s = step_at(r, i);

		if (!isfinite(rep_num(s, "position")))
			continue;
		n++;
		if (isfinite(rep_num(s, "position_lo")))
			lo = fmin(lo, fmax(rep_num(s, "position_lo"), -3));
		if (isfinite(rep_num(s, "position_hi")))
			hi = fmax(hi, fmin(rep_num(s, "position_hi"), 4));
	}
	if (!n)
		return;
	f.height = f.top + f.bottom + row * (double)n;
	scale_linear(&x, lo, hi, f.left, f.width - f.right);
	scale_nice(&x, 8);
	sbuf_puts(b, "<section id=\"positions\"><h2>Each step between the references</h2>\n");
	svg_begin(b, &f,
		  "Each candidate's position between the good (0) and the bad (1) "
		  "reference, with its interval");
	svg_axis_x(b, &f, &x, 8, "position: 0 the good reference's level, 1 the bad one's");
	svg_line(b, scale_map(&x, 0), f.top, scale_map(&x, 0), f.height - f.bottom, "axis");
	svg_line(b, scale_map(&x, 0.5), f.top, scale_map(&x, 0.5), f.height - f.bottom, "zero");
	svg_line(b, scale_map(&x, 1), f.top, scale_map(&x, 1), f.height - f.bottom, "axis");
	svg_text(b, scale_map(&x, 0), f.top - 8, "middle", "label", "good");
	svg_text(b, scale_map(&x, 0.5), f.top - 8, "middle", "label", "midpoint");
	svg_text(b, scale_map(&x, 1), f.top - 8, "middle", "label", "bad");
	for (i = 0; i < nsteps(r); i++) {
		json_object *s = step_at(r, i);
		double cy = f.top + row * ((double)k + 0.5), p = rep_num(s, "position");
		double plo = rep_num(s, "position_lo"), phi = rep_num(s, "position_hi");
		char t[64], name[400], c[48], tip[800], cls[32];

		if (!isfinite(p))
			continue;
		k++;
		step_title(s, t, sizeof(t));
		cut(str_or(s, "candidate", "?"), 26, c, sizeof(c));
		snprintf(name, sizeof(name), "%s: %s", t, c);
		rep_bisect_outcome(s, tip, sizeof(tip));
		snprintf(cls, sizeof(cls), "grp %s", verdict_cls(rep_str(s, "verdict")));
		{
			char *full = xasprintf("%s %s: %s", t, str_or(s, "candidate", "?"), tip);

			svg_group_begin(b, cls, full);
			free(full);
		}
		svg_text(b, f.left - 8, cy + 4, "end", NULL, name);
		if (isfinite(plo) && isfinite(phi)) {
			plo = fmax(plo, x.d0 < x.d1 ? x.d0 : x.d1);
			phi = fmin(phi, x.d0 < x.d1 ? x.d1 : x.d0);
			svg_line(b, scale_map(&x, plo), cy, scale_map(&x, phi), cy, "est");
			svg_line(b, scale_map(&x, plo), cy - 6, scale_map(&x, plo), cy + 6, "est");
			svg_line(b, scale_map(&x, phi), cy - 6, scale_map(&x, phi), cy + 6, "est");
		}
		svg_circle(b, scale_map(&x, p), cy, 5, NULL);
		svg_group_end(b);
	}
	svg_end(b);
	sbuf_puts(b,
		  "<p class=\"note\">A candidate is good when its whole interval lies left of "
		  "the midpoint, bad when it lies right of it, and undecided (git bisect's skip) "
		  "otherwise. Green: good, red: bad, grey: undecided. Intervals are cut at the "
		  "plot's edges.</p>\n</section>\n");
}

static void html_td(struct sbuf *b, const char *s)
{
	sbuf_puts(b, "<td>");
	sbuf_add_xml(b, s ? s : "");
	sbuf_puts(b, "</td>");
}

/* A number cell: "-" when not finite; pct: a fraction shown as a signed percentage. */
static void html_num(struct sbuf *b, double v, int decimals, bool pct)
{
	char buf[32];

	if (!isfinite(v))
		snprintf(buf, sizeof(buf), "-");
	else if (pct)
		snprintf(buf, sizeof(buf), "%+.*f%%", decimals, 100 * v);
	else
		snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	sbuf_addf(b, "<td class=\"num\">%s</td>", buf);
}

static void html_steps(const struct rep_bisect *r, struct sbuf *b)
{
	size_t i;

	sbuf_puts(b, "<section id=\"steps\"><h2>Steps</h2>\n<table>\n<tr><th>step</th>"
		     "<th>candidate</th><th>verdict</th><th>position</th><th>interval</th>"
		     "<th>level</th><th>vs good</th><th>vs bad</th><th>boots</th></tr>\n");
	for (i = 0; i < nsteps(r); i++) {
		json_object *s = step_at(r, i);
		const char *v = rep_str(s, "verdict");
		char t[64], iv[64];

		step_title(s, t, sizeof(t));
		sbuf_puts(b, "<tr>");
		html_td(b, t);
		sbuf_puts(b, "<td class=\"cand\">");
		sbuf_add_xml(b, str_or(s, "candidate", "?"));
		sbuf_puts(b, "</td>");
		if (v) {
			sbuf_addf(b, "<td class=\"%s\">",
				  !strcmp(v, "bad")    ? "v-regression"
				  : !strcmp(v, "good") ? "v-improvement"
						       : "v-no-change");
			sbuf_add_xml(b, v);
			if (rep_str(s, "why")) {
				sbuf_puts(b, " (");
				sbuf_add_xml(b, rep_str(s, "why"));
				sbuf_puts(b, ")");
			}
			sbuf_puts(b, "</td>");
		} else {
			html_td(b, "measured");
		}
		html_num(b, rep_num(s, "position"), 2, false);
		if (isfinite(rep_num(s, "position_lo")))
			snprintf(iv, sizeof(iv), "[%.2f, %.2f]", rep_num(s, "position_lo"),
				 rep_num(s, "position_hi"));
		else
			snprintf(iv, sizeof(iv), "-");
		sbuf_addf(b, "<td class=\"num\">%s</td>", iv);
		if (isfinite(rep_num(s, "level")))
			sbuf_addf(b, "<td class=\"num\">%.2f%%</td>", 100 * rep_num(s, "level"));
		else
			sbuf_puts(b, "<td class=\"num\">-</td>");
		html_num(b, rep_num(s, "vs_good"), 1, true);
		html_num(b, rep_num(s, "vs_bad"), 1, true);
		html_num(b, v ? rep_num(s, "boots") : rep_num(s, "experiments"), 0, false);
		sbuf_puts(b, "</tr>\n");
	}
	sbuf_puts(b,
		  "</table>\n<p class=\"note\">A reference's row counts its boots; a step's "
		  "level is the confidence of its interval (the step's error rate split over its "
		  "looks); vs good and vs bad are the candidate's level against each "
		  "reference's.</p>\n</section>\n");
}

void rep_bisect_html(const struct rep_bisect *r, struct sbuf *b)
{
	const char *id = str_or(r->doc, "id", "?");
	char when[64], *title = xasprintf("wakebench bisection %s", id);

	rep_fmt_when(r->made_ns, when, sizeof(when));
	rep_html_begin(b, r->version, title);
	free(title);
	sbuf_puts(b, "<h1>wakebench bisection ");
	sbuf_add_xml(b, id);
	sbuf_puts(b, "</h1>\n<p class=\"meta\">");
	sbuf_add_xml(b, kind_of(r));
	sbuf_puts(b, ", metric ");
	sbuf_add_xml(b, str_or(r->doc, "metric", "?"));
	sbuf_addf(b, ", %zu step%s. Made %s by wakebench ", nsteps(r), nsteps(r) == 1 ? "" : "s",
		  when);
	sbuf_add_xml(b, r->version);
	sbuf_puts(b, ".</p>\n<p><b>Result:</b> ");
	sbuf_add_xml(b, result_of(r) ? result_of(r) : no_result(r));
	sbuf_puts(b, "</p>\n");
	html_positions(r, b);
	html_steps(r, b);
	if (r->cmdline) {
		sbuf_puts(b, "<section id=\"repro\"><h2>This report</h2>\n<pre>");
		sbuf_add_xml(b, r->cmdline);
		sbuf_puts(b, "</pre>\n<p class=\"note\">'wakebench bisect report' prints the same "
			     "steps; 'wakebench export' writes the experiments' data.</p>\n"
			     "</section>\n");
	}
	sbuf_puts(b, "</body>\n</html>\n");
}

/* ---- mail and Markdown ---- */

void rep_bisect_email(const struct rep_bisect *r, struct sbuf *out)
{
	char when[64], t[64], o[512];
	size_t i;

	rep_email_line(out, "wakebench bisection %s", str_or(r->doc, "id", "?"));
	rep_email_line(out, "%s, metric %s", kind_of(r), str_or(r->doc, "metric", "?"));
	rep_email_line(out, "%s", "");
	for (i = 0; i < nsteps(r); i++) {
		json_object *s = step_at(r, i);

		step_title(s, t, sizeof(t));
		rep_bisect_outcome(s, o, sizeof(o));
		rep_email_line(out, "  %s %s: %s", t, str_or(s, "candidate", "?"), o);
	}
	rep_email_line(out, "%s", "");
	rep_email_line(out, "result: %s", result_of(r) ? result_of(r) : no_result(r));
	rep_email_line(out, "%s", "");
	rep_email_line(out, "position: 0 the good reference's level, 1 the bad one's; good when "
			    "the whole interval is below 1/2, bad when above, else undecided.");
	rep_fmt_when(r->made_ns, when, sizeof(when));
	rep_email_line(out, "%s", "");
	sbuf_puts(out, "-- \n");
	rep_email_line(out, "wakebench %s, report made %s", r->version, when);
}

void rep_bisect_markdown(const struct rep_bisect *r, struct sbuf *out)
{
	char when[64], t[64], o[512];
	size_t i;

	sbuf_puts(out, "## wakebench bisection ");
	rep_md_cell(out, str_or(r->doc, "id", "?"));
	sbuf_puts(out, "\n\n");
	rep_md_cell(out, kind_of(r));
	sbuf_puts(out, ", metric ");
	rep_md_cell(out, str_or(r->doc, "metric", "?"));
	sbuf_puts(out, ".\n\n**Result:** ");
	rep_md_cell(out, result_of(r) ? result_of(r) : no_result(r));
	sbuf_puts(out, "\n\n| step | candidate | outcome |\n| --- | --- | --- |\n");
	for (i = 0; i < nsteps(r); i++) {
		json_object *s = step_at(r, i);

		step_title(s, t, sizeof(t));
		rep_bisect_outcome(s, o, sizeof(o));
		sbuf_puts(out, "| ");
		rep_md_cell(out, t);
		sbuf_puts(out, " | ");
		rep_md_cell(out, str_or(s, "candidate", "?"));
		sbuf_puts(out, " | ");
		rep_md_cell(out, o);
		sbuf_puts(out, " |\n");
	}
	sbuf_puts(out, "\nPosition: 0 the good reference's level, 1 the bad one's; good when the "
		       "whole interval is below 1/2, bad when above, else undecided.\n\n");
	rep_fmt_when(r->made_ns, when, sizeof(when));
	sbuf_addf(out, "<sub>wakebench %s, report made %s</sub>\n", r->version, when);
}

static void print_step(FILE *f, json_object *s)
{
	char *cand = text_printable(rep_str(s, "candidate") ?: "?", 0), out[512];

	rep_bisect_outcome(s, out, sizeof(out));
	text_line(f, "  %-15s %s: %s", rep_str(s, "role") ?: "?", cand, out);
	free(cand);
}

void rep_bisect_text(FILE *f, json_object *doc)
{
	char *res = text_printable(rep_str(doc, "result") ?: rep_str(doc, "no_result"), 0);
	json_object *steps;
	size_t i;

	/* a stored bisection's text: one line each, control characters escaped */
	text_line(f, "bisection %s (%s), metric %s", rep_str(doc, "id"),
		  *rep_str(doc, "kind") ? rep_str(doc, "kind") : "?",
		  *rep_str(doc, "metric") ? rep_str(doc, "metric") : "?");
	if (json_object_object_get_ex(doc, "steps", &steps))
		for (i = 0; i < json_object_array_length(steps); i++)
			print_step(f, json_object_array_get_idx(steps, i));
	fprintf(f, "result: %s\n", res);
	free(res);
}
