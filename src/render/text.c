/*
 * text.c: the report as text people paste: a mail body (plain ASCII, at
 * most 72 columns, no tabs: what a kernel mailing list expects) and
 * GitHub-flavoured Markdown for an issue tracker. Both carry the same
 * things as the HTML file but the plots: compare's table in the report's
 * "Kernel | ops/s | vs 6.6" shape with both intervals and the verdicts,
 * the evidence that moved, the environment differences strongest first,
 * the commands that reproduce each experiment, and wakebench's version.
 *
 * Every line of the mail goes through rep_email_line(), which wraps what is
 * longer than REP_EMAIL_COLS, so the limit holds for any stored text.
 */
#include "render/render.h"
#include "util/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- shared helpers ---- */

double rep_num(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !v ||
	    (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)))
		return NAN;
	return json_object_get_double(v);
}

const char *rep_str(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !v ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static json_object *rep_obj(json_object *o, const char *key)
{
	json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

void rep_fmt_p(json_object *group, char *buf, size_t len)
{
	json_object *eff = rep_obj(group, "effect"), *inf = rep_obj(group, "inference");
	const char *level = rep_str(inf, "level");
	double p = rep_num(eff, "p");

	/* within-boot p between one boot each would claim what the verdict does not */
	if (!isfinite(p) || (level && !strcmp(level, "one-boot")))
		snprintf(buf, len, "-");
	else
		fmt_p(p, buf, len);
}

/* "Kernel", "Label", ..., or the feature's name. */
static const char *by_title(const char *by)
{
	static const char *const names[][2] = {
		{ "kernel", "Kernel" },
		{ "label", "Label" },
		{ "profile", "Profile" },
		{ "host", "Host" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(by, names[i][0]))
			return names[i][1];
	return !strncmp(by, "feature:", 8) ? by + 8 : by;
}

/* Plain ASCII: unsafe characters escaped, every other non-ASCII byte a '?'. */
static char *ascii(const char *s)
{
	char *t = text_printable(s ? s : "", 0), *p;

	for (p = t; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	return t;
}

/* "[lo, hi]": of a change in percent (unit NULL), else of a value in unit. */
static void interval(json_object *arr_or_eff, const char *unit, char *buf, size_t len)
{
	double lo, hi;
	char a[32], b[32];

	if (json_object_is_type(arr_or_eff, json_type_array)) {
		lo = json_object_get_double(json_object_array_get_idx(arr_or_eff, 0));
		hi = json_object_get_double(json_object_array_get_idx(arr_or_eff, 1));
	} else {
		lo = rep_num(arr_or_eff, "ci_lo");
		hi = rep_num(arr_or_eff, "ci_hi");
	}
	if (!arr_or_eff || !isfinite(lo) || !isfinite(hi)) {
		snprintf(buf, len, unit ? "n too small" : "");
		return;
	}
	if (!unit) {
		fmt_pct(lo, a, sizeof(a));
		fmt_pct(hi, b, sizeof(b));
	} else {
		fmt_value(lo, unit, a, sizeof(a));
		fmt_value(hi, unit, b, sizeof(b));
	}
	snprintf(buf, len, "[%s, %s]", a, b);
}

void rep_fmt_when(uint64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(buf, len, "?");
}

/* ---- email ---- */

/*
 * One logical line, wrapped at spaces to REP_EMAIL_COLS, continuation
 * lines indented by `indent`. A command (cmd) breaks only outside its
 * single quotes (cli_cmdline() quotes that way), each broken line ending in
 * " \\" so that a shell reads them as one command; a word wider than the
 * line is split with a bare "\\" and continues unindented (the shell joins
 * the halves).
 */
static void email_wrap(struct sbuf *out, const char *line, size_t indent, bool cmd)
{
	char *a = ascii(line);
	const char *p = a;
	bool first = true, hard = false;

	do {
		size_t lead = first || hard ? 0 : indent, width = REP_EMAIL_COLS - lead,
		       n = strlen(p);
		size_t cut = 0, i;
		bool q = false;

		if (n <= width) {
			sbuf_addf(out, "%*s%s", (int)lead, "", p);
			while (out->len && out->buf[out->len - 1] == ' ')
				out->buf[--out->len] = '\0';
			sbuf_puts(out, "\n");
			break;
		}
		width -= cmd ? 2 : 0;
		for (i = 0; i <= width && i < n; i++) {
			if (cmd && !q && p[i] == '\\') {
				i++;
				continue;
			}
			if (cmd && p[i] == '\'')
				q = !q;
			else if (p[i] == ' ' && !q && i > 0)
				cut = i;
		}
		hard = !cut;
		if (hard)
			cut = width;
		sbuf_addf(out, "%*s", (int)lead, "");
		sbuf_add(out, p, cut);
		sbuf_puts(out, !cmd ? "\n" : hard ? "\\\n" : " \\\n");
		p += cut;
		while (!hard && *p == ' ')
			p++;
		first = false;
	} while (*p);
	free(a);
}

void rep_email_line(struct sbuf *out, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	email_wrap(out, s, 4, false);
	free(s);
}

#define TITLE_MAX 14

static void email_table(const struct rep *r, struct sbuf *out)
{
	const char *base = r->g[0].title ? r->g[0].title : "baseline";
	char vs[64], *b = ascii(base);
	size_t i, w = strlen(by_title(r->by));

	for (i = 0; i < r->ng; i++) {
		size_t l = strlen(r->g[i].title ? r->g[i].title : "");

		if (l > w)
			w = l;
	}
	w = w > TITLE_MAX ? TITLE_MAX : w;
	/* "vs 6.6" as the report's table has it; a longer baseline is named above */
	if (strlen(b) <= 6) {
		snprintf(vs, sizeof(vs), "vs %s", b);
	} else {
		snprintf(vs, sizeof(vs), "vs base");
		rep_email_line(out, "base: %s", b);
	}
	rep_email_line(out, "%-*s %9s %-22s %7s %s", (int)w, by_title(r->by),
		       strlen(r->primary.label) <= 8 ? r->primary.label
		       : r->primary.unit[0]	     ? r->primary.unit
						     : "value",
		       "95% CI", vs, "95% CI");
	for (i = 0; i < r->ng; i++) {
		json_object *g = r->g[i].j, *eff = rep_obj(g, "effect");
		char *t = ascii(r->g[i].title), med[32], ci[80], chg[32], cci[80];

		fmt_value(rep_num(g, "median"), r->primary.unit, med, sizeof(med));
		interval(rep_obj(g, "median_ci"), r->primary.unit, ci, sizeof(ci));
		if (r->g[i].baseline) {
			snprintf(chg, sizeof(chg), "base");
			cci[0] = '\0';
		} else {
			fmt_pct(rep_num(eff, "estimate"), chg, sizeof(chg));
			interval(eff, NULL, cci, sizeof(cci));
		}
		if (strlen(t) > w) {
			rep_email_line(out, "%s", t);
			t[0] = '\0';
		}
		rep_email_line(out, "%-*s %9s %-22s %7s %s", (int)w, t, med, ci, chg, cci);
		if (!r->g[i].baseline) {
			char p[32], line[640];

			rep_fmt_p(g, p, sizeof(p));
			snprintf(line, sizeof(line), "  = %s%s%s%s",
				 rep_str(g, "verdict_text") ?: "?",
				 strcmp(p, "-") ? (p[0] == '<' ? " (p " : " (p = ") : "",
				 strcmp(p, "-") ? (p[0] == '<' ? "< 0.0001" : p) : "",
				 strcmp(p, "-") ? ")" : "");
			email_wrap(out, line, 4, false);
		}
		free(t);
	}
	free(b);
}

static void email_evidence(const struct rep *r, struct sbuf *out)
{
	size_t i, k;
	bool any = false;

	for (i = 1; i < r->ng; i++) {
		json_object *ev = rep_obj(r->g[i].j, "evidence");
		size_t n = ev ? json_object_array_length(ev) : 0, moved = 0;
		char *t = ascii(r->g[i].title);

		for (k = 0; k < n; k++) {
			json_object *e = json_object_array_get_idx(ev, k),
				    *eff = rep_obj(e, "effect");
			double lo = rep_num(eff, "ci_lo"), hi = rep_num(eff, "ci_hi");
			struct rep_metric m;
			char a[32], bb[32], chg[32], ci[80];

			if (!(lo > 0 || hi < 0))
				continue;
			if (!any)
				rep_email_line(out, "%s", "");
			if (!any)
				rep_email_line(
					out,
					"Evidence that moved (95%% CI of the change excludes 0;");
			if (!any)
				rep_email_line(out, "exploratory, no verdicts):");
			any = true;
			if (!moved++)
				rep_email_line(out, "  %s vs %s:", t, r->g[0].title);
			rep_metric(rep_str(e, "name") ?: "?", r->workload, 0, &m);
			fmt_value(rep_num(e, "baseline_median"), m.unit, a, sizeof(a));
			fmt_value(rep_num(e, "median"), m.unit, bb, sizeof(bb));
			fmt_pct(rep_num(eff, "estimate"), chg, sizeof(chg));
			interval(eff, NULL, ci, sizeof(ci));
			rep_email_line(out, "    %-20s %8s -> %-8s %7s %s", m.label, a, bb, chg,
				       ci);
		}
		free(t);
	}
	if (!any && r->ng > 1) {
		rep_email_line(out, "%s", "");
		rep_email_line(out, "Evidence: no counter per op moved (every 95%% CI of a change "
				    "includes 0, or none was measured).");
	}
}

static void email_env(const struct rep *r, struct sbuf *out)
{
	size_t i, k;

	if (r->ng < 2)
		return;
	rep_email_line(out, "%s", "");
	rep_email_line(out, "Environment differences vs %s (strongest first):", r->g[0].title);
	for (i = 1; i < r->ng; i++) {
		json_object *d = rep_obj(r->g[i].j, "env_diff");
		size_t n = d ? json_object_array_length(d) : 0, shown = 0, hidden = 0;

		rep_email_line(out, "  %s:", r->g[i].title);
		for (k = 0; k < n; k++) {
			json_object *e = json_object_array_get_idx(d, k);
			const char *imp = rep_str(e, "impact") ?: "?";
			char line[1024];

			if (!strcmp(imp, "run"))
				continue;
			if (shown == 12) {
				hidden++;
				continue;
			}
			if (rep_str(e, "change"))
				snprintf(line, sizeof(line), "    %-8s %s: %s", imp,
					 rep_str(e, "key") ?: "?", rep_str(e, "change"));
			else
				snprintf(line, sizeof(line), "    %-8s %s: %s -> %s", imp,
					 rep_str(e, "key") ?: "?",
					 rep_str(e, "baseline") ?: "(absent)",
					 rep_str(e, "value") ?: "(absent)");
			email_wrap(out, line, 13, false);
			shown++;
		}
		if (!shown)
			rep_email_line(out, "    none (apart from per-run keys such as the load)");
		if (hidden)
			rep_email_line(out, "    ... %zu more: wakebench env --diff", hidden);
	}
}

static void email_repro(const struct rep *r, struct sbuf *out)
{
	size_t i;

	rep_email_line(out, "%s", "");
	rep_email_line(out, "To reproduce (each experiment's own command line):");
	for (i = 0; i < r->nexps; i++) {
		const struct store_experiment *e = &r->exps[i];

		if (!r->exp_n[i])
			continue;
		rep_email_line(out, "  # experiment %lld (%.8s): %s %s on %s, host %s%s%s",
			       (long long)e->id, e->uuid, e->kind, e->workload, e->kernel ?: "?",
			       e->host ?: "?", e->label ? ", label " : "", e->label ?: "");
		if (e->cmdline) {
			char *line = xasprintf("  %s", e->cmdline);

			email_wrap(out, line, 6, true);
			free(line);
		} else {
			rep_email_line(out, "  (its command line was not stored)");
		}
	}
	if (r->cmdline) {
		char *line = xasprintf("  %s", r->cmdline);

		rep_email_line(out, "  # this report:");
		email_wrap(out, line, 6, true);
		free(line);
	}
}

void rep_email(const struct rep *r, struct sbuf *out)
{
	char when[64], m[16];
	size_t i;

	snprintf(m, sizeof(m), "%g%%", r->margin * 100);
	rep_email_line(out, "wakebench report: %s, %s by %s", r->workload, r->primary.label, r->by);
	rep_email_line(
		out, "%.0f%% confidence, margin %s, %zu samples (status ok, warm-ups excluded)%s",
		r->conf * 100, m, r->nsamples, r->primary.better < 0 ? "; lower is better" : "");
	rep_email_line(out, "%s", "");
	email_table(r, out);
	email_evidence(r, out);
	email_env(r, out);
	{
		json_object *w = rep_obj(r->doc, "warnings");
		size_t n = w ? json_object_array_length(w) : 0;

		for (i = 0; i < n; i++) {
			char *line =
				xasprintf("warning: %s",
					  json_object_get_string(json_object_array_get_idx(w, i)));

			if (!i)
				rep_email_line(out, "%s", "");
			email_wrap(out, line, 4, false);
			free(line);
		}
	}
	email_repro(r, out);
	rep_fmt_when(r->made_ns, when, sizeof(when));
	rep_email_line(out, "%s", "");
	sbuf_puts(out, "-- \n");
	rep_email_line(out, "wakebench %s, report made %s", r->version, when);
}

/* ---- Markdown ---- */

/* A table cell: stored text with the characters Markdown acts on escaped. */
void rep_md_cell(struct sbuf *out, const char *s)
{
	char *t = text_printable(s ? s : "", 0), *p;

	for (p = t; *p; p++) {
		if (strchr("\\|*_`<>[]#~", *p))
			sbuf_add(out, "\\", 1);
		sbuf_add(out, p, 1);
	}
	free(t);
}

static void md_table(const struct rep *r, struct sbuf *out)
{
	size_t i;

	sbuf_puts(out, "| ");
	rep_md_cell(out, by_title(r->by));
	sbuf_puts(out, " | n | boots | ");
	rep_md_cell(out, r->primary.label);
	sbuf_puts(out, " | 95% CI of median | vs. ");
	rep_md_cell(out, r->g[0].title);
	sbuf_puts(out, " | 95% CI of change | p | verdict |\n");
	sbuf_puts(out, "|:---|---:|---:|---:|:---|---:|:---|---:|:---|\n");
	for (i = 0; i < r->ng; i++) {
		json_object *g = r->g[i].j, *eff = rep_obj(g, "effect"),
			    *ci = rep_obj(g, "median_ci");
		char med[32], lo[32], hi[32], chg[32], cci[80], p[32];

		fmt_value(rep_num(g, "median"), r->primary.unit, med, sizeof(med));
		sbuf_puts(out, "| ");
		rep_md_cell(out, r->g[i].title);
		sbuf_addf(out, " | %.0f | %.0f | %s | ", rep_num(g, "n"), rep_num(g, "boots"), med);
		if (ci && json_object_is_type(ci, json_type_array)) {
			fmt_value(json_object_get_double(json_object_array_get_idx(ci, 0)),
				  r->primary.unit, lo, sizeof(lo));
			fmt_value(json_object_get_double(json_object_array_get_idx(ci, 1)),
				  r->primary.unit, hi, sizeof(hi));
			sbuf_addf(out, "[%s, %s]", lo, hi);
		} else {
			sbuf_puts(out, "n too small");
		}
		if (r->g[i].baseline) {
			sbuf_puts(out, " | 100% | | | baseline |\n");
			continue;
		}
		fmt_pct(rep_num(eff, "estimate"), chg, sizeof(chg));
		interval(eff, NULL, cci, sizeof(cci));
		rep_fmt_p(g, p, sizeof(p));
		sbuf_addf(out, " | %s | %s | %s | **", chg, cci, p);
		rep_md_cell(out, rep_str(g, "verdict_text") ?: rep_str(g, "verdict") ?: "?");
		sbuf_puts(out, "** |\n");
	}
}

static void md_evidence(const struct rep *r, struct sbuf *out)
{
	size_t i, k;

	if (r->ng < 2 || !r->nev)
		return;
	sbuf_addf(out, "\n### Evidence per op vs. ");
	rep_md_cell(out, r->g[0].title);
	sbuf_puts(out, "\n\nExploratory: the change of each counter with its 95% CI, no verdicts. "
		       "**Bold**: the interval excludes 0.\n\n"
		       "| group | metric | baseline | median | change | 95% CI |\n"
		       "|:---|:---|---:|---:|---:|:---|\n");
	for (i = 1; i < r->ng; i++) {
		json_object *ev = rep_obj(r->g[i].j, "evidence");
		size_t n = ev ? json_object_array_length(ev) : 0;

		for (k = 0; k < n; k++) {
			json_object *e = json_object_array_get_idx(ev, k),
				    *eff = rep_obj(e, "effect");
			double lo = rep_num(eff, "ci_lo"), hi = rep_num(eff, "ci_hi");
			bool moved = lo > 0 || hi < 0;
			struct rep_metric m;
			char a[32], b[32], chg[32], ci[80];

			rep_metric(rep_str(e, "name") ?: "?", r->workload, 0, &m);
			fmt_value(rep_num(e, "baseline_median"), m.unit, a, sizeof(a));
			fmt_value(rep_num(e, "median"), m.unit, b, sizeof(b));
			fmt_pct(rep_num(eff, "estimate"), chg, sizeof(chg));
			interval(eff, NULL, ci, sizeof(ci));
			sbuf_puts(out, "| ");
			rep_md_cell(out, r->g[i].title);
			sbuf_puts(out, " | ");
			rep_md_cell(out, m.label);
			sbuf_addf(out, " | %s | %s | %s%s%s | %s |\n", a, b, moved ? "**" : "", chg,
				  moved ? "**" : "", ci[0] ? ci : "n/a");
		}
	}
}

static void md_env(const struct rep *r, struct sbuf *out)
{
	size_t i, k;

	if (r->ng < 2)
		return;
	sbuf_puts(out, "\n### Environment differences vs. ");
	rep_md_cell(out, r->g[0].title);
	sbuf_puts(out, " (strongest first)\n\n| group | impact | key | baseline | value |\n"
		       "|:---|:---|:---|:---|:---|\n");
	for (i = 1; i < r->ng; i++) {
		json_object *d = rep_obj(r->g[i].j, "env_diff");
		size_t n = d ? json_object_array_length(d) : 0, shown = 0;

		for (k = 0; k < n; k++) {
			json_object *e = json_object_array_get_idx(d, k);
			const char *imp = rep_str(e, "impact") ?: "?";

			if (!strcmp(imp, "run"))
				continue;
			sbuf_puts(out, "| ");
			rep_md_cell(out, r->g[i].title);
			sbuf_addf(out, " | %s | ", imp);
			rep_md_cell(out, rep_str(e, "key"));
			sbuf_puts(out, " | ");
			/* two feature vectors: what changed between them */
			rep_md_cell(out, rep_str(e, "change") ? "" : rep_str(e, "baseline") ?: "(absent)");
			sbuf_puts(out, " | ");
			rep_md_cell(out, rep_str(e, "change") ?: rep_str(e, "value") ?: "(absent)");
			sbuf_puts(out, " |\n");
			shown++;
		}
		if (!shown) {
			sbuf_puts(out, "| ");
			rep_md_cell(out, r->g[i].title);
			sbuf_puts(out, " | | none | | |\n");
		}
	}
}

/*
 * A line of the fenced block of commands: the fence is four backticks, so
 * a run of four in stored text (which would close it) loses one.
 */
static void md_code_line(struct sbuf *out, const char *s)
{
	char *t = text_printable(s ? s : "", 0), *p;
	size_t run = 0;

	for (p = t; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run == 4) {
			run = 0;
			continue;
		}
		sbuf_add(out, p, 1);
	}
	sbuf_puts(out, "\n");
	free(t);
}

void rep_markdown(const struct rep *r, struct sbuf *out)
{
	char when[64];
	size_t i;

	sbuf_puts(out, "## wakebench report: ");
	rep_md_cell(out, r->workload);
	sbuf_puts(out, ", ");
	rep_md_cell(out, r->primary.label);
	sbuf_puts(out, " by ");
	rep_md_cell(out, r->by);
	sbuf_addf(out,
		  "\n\n%.0f%% confidence, margin %g%%, %zu samples (status ok, warm-ups "
		  "excluded)%s.\n\n",
		  r->conf * 100, r->margin * 100, r->nsamples,
		  r->primary.better < 0 ? "; lower is better" : "");
	md_table(r, out);
	md_evidence(r, out);
	md_env(r, out);
	{
		json_object *w = rep_obj(r->doc, "warnings");
		size_t n = w ? json_object_array_length(w) : 0;

		for (i = 0; i < n; i++) {
			sbuf_puts(out, i ? "" : "\n");
			sbuf_puts(out, "> warning: ");
			rep_md_cell(out, json_object_get_string(json_object_array_get_idx(w, i)));
			sbuf_puts(out, "\n");
		}
	}
	sbuf_puts(out, "\n### To reproduce\n\n````sh\n");
	for (i = 0; i < r->nexps; i++) {
		const struct store_experiment *e = &r->exps[i];
		char *c;

		if (!r->exp_n[i])
			continue;
		c = xasprintf("# experiment %lld (%.8s): %s %s on %s, host %s%s%s",
			      (long long)e->id, e->uuid, e->kind, e->workload, e->kernel ?: "?",
			      e->host ?: "?", e->label ? ", label " : "", e->label ?: "");
		md_code_line(out, c);
		free(c);
		md_code_line(out, e->cmdline ?: "# (its command line was not stored)");
	}
	if (r->cmdline) {
		md_code_line(out, "# this report:");
		md_code_line(out, r->cmdline);
	}
	rep_fmt_when(r->made_ns, when, sizeof(when));
	sbuf_puts(out, "````\n\n");
	sbuf_addf(out, "<sub>wakebench %s, report made %s</sub>\n", r->version, when);
}
