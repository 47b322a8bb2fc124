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
#include <stdarg.h>
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

json_object *rep_obj(json_object *o, const char *key)
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

/* "Kernel", "Label", ..., the feature's name, or an ab's "Arm". */
static const char *by_title(const struct rep *r)
{
	const char *by = r->by;
	static const char *const names[][2] = {
		{ "kernel", "Kernel" },
		{ "label", "Label" },
		{ "profile", "Profile" },
		{ "host", "Host" },
	};
	size_t i;

	if (r->ab)
		return "Arm";
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(by, names[i][0]))
			return names[i][1];
	return !strncmp(by, "feature:", 8) ? by + 8 : by;
}

char *rep_title(const struct rep *r)
{
	if (r->ab)
		return xasprintf("%s, %s (%c) vs. %s (%c), %s", r->workload, r->g[0].arm + 3,
				 r->g[0].arm[0], r->g[1].arm + 3, r->g[1].arm[0], r->primary.label);
	return xasprintf("%s, %s by %s", r->workload, r->primary.label, r->by);
}

/* A posted group's headline: "(posted: NOTE) " before what rep_headline() says. */
static char *posted_headline(json_object *g, char *h)
{
	json_object *ext = rep_obj(g, "external");
	char *t;

	if (!ext)
		return h;
	t = xasprintf("(posted: %s) %s", rep_str(ext, "note") ?: "?", h);
	free(h);
	return t;
}

static char *headline(const struct rep *r, size_t i)
{
	json_object *g = r->g[i].j, *eff = rep_obj(g, "effect");
	const char *vt = rep_str(g, "verdict_text") ?: rep_str(eff, "why") ?: "no verdict";
	char est[32], lo[32], hi[32];

	if (!isfinite(rep_num(eff, "estimate")) && isfinite(rep_num(g, "median_change"))) {
		fmt_pct(rep_num(g, "median_change"), est, sizeof(est));
		return xasprintf("%s %s (the medians' ratio, no interval), %s", est,
				 r->primary.label, vt);
	}
	if (!isfinite(rep_num(eff, "estimate")))
		return xstrdup(vt);
	fmt_pct(rep_num(eff, "estimate"), est, sizeof(est));
	if (!isfinite(rep_num(eff, "ci_lo")))
		return xasprintf("%s %s, %s", est, r->primary.label, vt);
	fmt_pct(rep_num(eff, "ci_lo"), lo, sizeof(lo));
	fmt_pct(rep_num(eff, "ci_hi"), hi, sizeof(hi));
	return xasprintf("%s %s [%s, %s], %s", est, r->primary.label, lo, hi, vt);
}

char *rep_headline(const struct rep *r, size_t i)
{
	return posted_headline(r->g[i].j, headline(r, i));
}

const char *rep_badge(json_object *group, const char **key)
{
	static const char *const words[][2] = {
		{ "improvement", "improvement" },   { "regression", "regression" },
		{ "no-change", "no change" },	    { "inconclusive", "inconclusive" },
		{ "insufficient", "insufficient" },
	};
	const char *v = rep_str(group, "verdict");
	size_t i;

	/* one posted run: no verdict at all (compare's verdict_text says why) */
	if (v && !strcmp(v, "insufficient") && rep_obj(group, "external")) {
		*key = "insufficient";
		return "no verdict";
	}
	for (i = 0; v && i < ARRAY_SIZE(words); i++)
		if (!strcmp(v, words[i][0])) {
			*key = words[i][0];
			return words[i][1];
		}
	*key = "unknown";
	return v ? v : "no verdict";
}

/* How many CPUs a list such as "0-3,6" names (0 when it is not one). */
static unsigned cpu_count(const char *list)
{
	unsigned n = 0, a, b;
	const char *p = list;
	char *end;

	while (p && *p) {
		a = (unsigned)strtoul(p, &end, 10);
		if (end == p)
			return 0;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = (unsigned)strtoul(p, &end, 10);
			if (end == p || b < a)
				return 0;
		}
		n += b - a + 1;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return 0;
	}
	return n;
}

static void fact(struct rep_fact *out, size_t *n, const char *label, const char *fmt, ...)
	PRINTF_LIKE(4, 5);
static void fact(struct rep_fact *out, size_t *n, const char *label, const char *fmt, ...)
{
	va_list ap;

	out[*n].label = label;
	va_start(ap, fmt);
	vsnprintf(out[*n].value, sizeof(out->value), fmt, ap);
	va_end(ap);
	(*n)++;
}

size_t rep_machine(const struct rep *r, struct rep_fact *out, size_t max)
{
	const struct env *e = &r->machine;
	const char *model = env_get(e, "machine.model"), *cpu = env_get(e, "cpu.model");
	const char *online = env_get(e, "cpu.online"), *arch = env_get(e, "kernel.arch");
	const char *gov = env_get(e, "cpu.governor"), *accel = env_get(e, "vm.accel");
	const char *host = env_get(e, "host.name");
	size_t n = 0;

	if (!e->n || max < 8)
		return 0;
	if (model && cpu && strcmp(model, cpu))
		fact(out, &n, "model", "%s, %s", model, cpu);
	else if (model || cpu)
		fact(out, &n, "model", "%s", model ? model : cpu);
	if (online)
		fact(out, &n, "CPUs", "%u (online %s)%s%s", cpu_count(online), online,
		     arch ? ", " : "", arch ? arch : "");
	fact(out, &n, "kernel", "%s", env_get(e, "kernel.release") ?: "unknown");
	fact(out, &n, "preemption", "%s", env_get(e, "kernel.preempt") ?: "unknown");
	/* "absent (no cpufreq)": there is no governor to name */
	if (gov && !strncmp(gov, "absent", 6))
		fact(out, &n, "governor", "none%s", gov + 6);
	else if (gov)
		fact(out, &n, "governor", "%s", gov);
	if (env_get(e, "mem.page_size"))
		fact(out, &n, "page size", "%s", env_get(e, "mem.page_size"));
	if (accel)
		fact(out, &n, "virtualised", "a wakebench vm guest (qemu %s%s)", accel,
		     !strcmp(accel, "tcg") ? ": emulated, absolute numbers are not the host's"
					   : "");
	else if (host && strcmp(host, "(none)"))
		fact(out, &n, "host", "%s", host);
	return n;
}

char *rep_repro_what(const struct rep *r, const struct rep_repro *rp)
{
	const struct store_experiment *e = &r->exps[rp->exps[0]];
	char *ids = NULL, *kernels = NULL, *host, *t;
	size_t i, k, samples = 0;

	for (i = 0; i < rp->n; i++) {
		const struct store_experiment *x = &r->exps[rp->exps[i]];
		bool seen = false;

		samples += r->exp_n[rp->exps[i]];
		t = xasprintf("%s%s%lld", ids ? ids : "", ids ? ", " : "", (long long)x->id);
		free(ids);
		ids = t;
		for (k = 0; k < i && !seen; k++)
			seen = !strcmp(r->exps[rp->exps[k]].kernel ?: "?", x->kernel ?: "?");
		if (seen)
			continue;
		t = xasprintf("%s%s%s", kernels ? kernels : "", kernels ? ", " : "",
			      x->kernel ?: "?");
		free(kernels);
		kernels = t;
	}
	/* a vm guest's host name is "(none)": nothing to say */
	host = e->host && strcmp(e->host, "(none)") ? xasprintf(", host %s", e->host) : xstrdup("");
	if (rp->n == 1)
		t = xasprintf("experiment %s (%.8s): %s %s on %s%s%s%s, %zu sample%s", ids, e->uuid,
			      e->kind, e->workload, kernels, host, e->label ? ", label " : "",
			      e->label ?: "", samples, samples == 1 ? "" : "s");
	else
		t = xasprintf("experiments %s: %s %s on %s%s%s%s, %zu samples", ids, e->kind,
			      e->workload, kernels, host, e->label ? ", label " : "",
			      e->label ?: "", samples);
	free(host);
	free(ids);
	free(kernels);
	return t;
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
 * single quotes (sh_command() quotes that way), each broken line ending in
 * " \\" so that a shell reads them as one command; a word wider than the
 * line is split with a bare "\\" and continues unindented (the shell joins
 * the halves): inside single quotes the quote is closed before the "\\" and
 * opened again on the next line, and never right after a backslash that
 * quotes the next character.
 */
static void email_wrap(struct sbuf *out, const char *line, size_t indent, bool cmd)
{
	char *a = ascii(line), *p = a;
	bool first = true, hard = false;

	do {
		size_t lead = first || hard ? 0 : indent, width = REP_EMAIL_COLS - lead,
		       n = strlen(p);
		size_t cut = 0, hcut = 0, i;
		bool q = false, hq = false;

		if (n <= width) {
			sbuf_addf(out, "%*s%s", (int)lead, "", p);
			while (out->len && out->buf[out->len - 1] == ' ')
				out->buf[--out->len] = '\0';
			sbuf_puts(out, "\n");
			break;
		}
		width -= cmd ? 2 : 0;
		for (i = 0; i <= width && i < n; i++) {
			/* a hard cut before p[i], with the quote closed there when open */
			if (i && i + q <= width)
				hcut = i, hq = q;
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
			cut = cmd ? hcut : width;
		sbuf_addf(out, "%*s", (int)lead, "");
		sbuf_add(out, p, cut);
		sbuf_puts(out, !cmd ? "\n" : !hard ? " \\\n" : hq ? "'\\\n" : "\\\n");
		p += cut;
		while (!hard && *p == ' ')
			p++;
		if (hard && hq) {
			char *rest = xasprintf("'%s", p);

			free(a);
			a = p = rest;
		}
		first = false;
	} while (*p);
	free(a);
}

void rep_email_line(struct sbuf *out, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	email_wrap(out, s, 4, false);
	free(s);
}

#define TITLE_MAX 14

/*
 * The change in a table: the effect's estimate, or for a posted run
 * without an interval the medians' ratio.
 */
static void point_change(json_object *g, char *buf, size_t len)
{
	double est = rep_num(rep_obj(g, "effect"), "estimate");

	fmt_pct(isfinite(est) ? est : rep_num(g, "median_change"), buf, len);
}

/* The keys group i's posted side did not give, joined by ", " (malloc'd; NULL: none). */
static char *unknown_keys(const struct rep *r, size_t i, size_t *n)
{
	json_object *u = rep_obj(r->g[i].j, "env_unknown");
	struct sbuf b = { 0 };
	size_t k;

	*n = u ? json_object_array_length(u) : 0;
	for (k = 0; k < *n; k++)
		sbuf_addf(&b, "%s%s", k ? ", " : "",
			  rep_str(json_object_array_get_idx(u, k), "key") ?: "?");
	return b.buf;
}

/* One posted result's provenance in one line: "posted: NOTE; args ...; from ...; ..." (malloc'd).
 */
static char *posted_line(const struct rep *r, const struct rep_posted *p)
{
	const struct store_experiment *e = &r->exps[p->exp];
	struct sbuf b = { 0 };

	sbuf_addf(&b, "experiment %lld (%.8s), %s: %s", (long long)e->id, e->uuid,
		  r->g[p->group].name ?: "?", p->note);
	if (e->cmdline)
		sbuf_addf(&b, "; posted command: %s", e->cmdline);
	else if (p->args)
		sbuf_addf(&b, "; arguments: %s", p->args);
	if (p->source)
		sbuf_addf(&b, "; from %s", p->source);
	if (p->format)
		sbuf_addf(&b, " (%s)", p->format);
	sbuf_addf(&b, "; kernel %s, host %s; profile %s", e->kernel ?: "unknown",
		  e->host ?: "unknown", e->profile ?: "none reproduces it");
	return b.buf;
}

static void email_posted(const struct rep *r, struct sbuf *out)
{
	size_t i;

	if (!r->nposted)
		return;
	rep_email_line(out, "%s", "");
	rep_email_line(out, "Posted results (imported from another tool's output, not measured "
			    "here):");
	for (i = 0; i < r->nposted; i++) {
		char *line = posted_line(r, &r->posted[i]), *t = ascii(line);
		char *l2 = xasprintf("  %s", t);

		email_wrap(out, l2, 4, false);
		free(l2);
		free(t);
		free(line);
	}
}

static void email_table(const struct rep *r, struct sbuf *out)
{
	const char *base = r->g[0].name ? r->g[0].name : "baseline";
	char vs[64], *b = ascii(base);
	size_t i, w = strlen(by_title(r));

	for (i = 0; i < r->ng; i++) {
		size_t l = strlen(r->g[i].name ? r->g[i].name : "");

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
	rep_email_line(out, "%-*s %9s %-22s %7s %s", (int)w, by_title(r),
		       strlen(r->primary.label) <= 8 ? r->primary.label
		       : r->primary.unit[0]	     ? r->primary.unit
						     : "value",
		       "95% CI", vs, "95% CI");
	for (i = 0; i < r->ng; i++) {
		json_object *g = r->g[i].j, *eff = rep_obj(g, "effect");
		char *t = ascii(r->g[i].name), med[32], ci[80], chg[32], cci[80];

		fmt_value(rep_num(g, "median"), r->primary.unit, med, sizeof(med));
		interval(rep_obj(g, "median_ci"), r->primary.unit, ci, sizeof(ci));
		if (r->g[i].baseline) {
			snprintf(chg, sizeof(chg), "base");
			cci[0] = '\0';
		} else {
			point_change(g, chg, sizeof(chg));
			interval(eff, NULL, cci, sizeof(cci));
		}
		if (strlen(t) > w) {
			rep_email_line(out, "%s", t);
			t[0] = '\0';
		}
		rep_email_line(out, "%-*s %9s %-22s %7s %s", (int)w, t, med, ci, chg, cci);
		if (rep_obj(g, "external"))
			rep_email_line(out, "  posted: %s",
				       rep_str(rep_obj(g, "external"), "note") ?: "?");
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
		char *t = ascii(r->g[i].name);

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
				rep_email_line(out, "  %s vs %s:", t, r->g[0].name);
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

static void email_unknown(const struct rep *r, size_t i, struct sbuf *out)
{
	size_t n;
	char *keys = unknown_keys(r, i, &n), *line;

	if (!n)
		return;
	line = xasprintf("    unknown  %zu key%s not in the posted text (unknown, not counted as "
			 "differences): %s",
			 n, n == 1 ? "" : "s", keys);
	email_wrap(out, line, 13, false);
	free(line);
	free(keys);
}

static void email_env(const struct rep *r, struct sbuf *out)
{
	size_t i, k;

	if (r->ng < 2)
		return;
	rep_email_line(out, "%s", "");
	rep_email_line(out, "Environment differences vs %s (strongest first):", r->g[0].name);
	for (i = 1; i < r->ng; i++) {
		json_object *d = rep_obj(r->g[i].j, "env_diff");
		size_t n = d ? json_object_array_length(d) : 0, shown = 0, hidden = 0;

		rep_email_line(out, "  %s:", r->g[i].name);
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
		email_unknown(r, i, out);
	}
}

/* A comment of a block of commands, wrapped, every line starting with "  # ". */
static void email_comment(struct sbuf *out, const char *text)
{
	char *a = ascii(text), *p = a;

	while (*p) {
		size_t width = REP_EMAIL_COLS - 4, n = strlen(p), cut = n, i;

		if (n > width) {
			for (cut = 0, i = 1; i <= width; i++)
				if (p[i] == ' ')
					cut = i;
			if (!cut)
				cut = width;
		}
		sbuf_puts(out, "  # ");
		sbuf_add(out, p, cut);
		sbuf_puts(out, "\n");
		p += cut;
		while (*p == ' ')
			p++;
	}
	free(a);
}

static void email_command(struct sbuf *out, const char *cmd)
{
	char *line = xasprintf("  %s", cmd);

	email_wrap(out, line, 6, true);
	free(line);
}

static void email_repro(const struct rep *r, struct sbuf *out)
{
	size_t i;

	rep_email_line(out, "%s", "");
	rep_email_line(out, "To reproduce (as typed on another machine: no --db, output or "
			    "verbosity options, no paths of this one):");
	for (i = 0; i < r->nrepro; i++) {
		const struct rep_repro *rp = &r->repro[i];
		char *what = rep_repro_what(r, rp);

		email_comment(out, what);
		free(what);
		if (rp->cmd)
			email_command(out, rp->cmd);
		else
			rep_email_line(out, "  (its command line was not stored)");
		if (rp->equiv) {
			email_comment(out, rp->equiv_note);
			email_command(out, rp->equiv);
		}
	}
	if (r->report_cmd) {
		rep_email_line(out, "  # this report:");
		email_command(out, r->report_cmd);
	}
}

/* The effects in one sentence each, and the baseline's machine. */
static void email_head(const struct rep *r, struct sbuf *out)
{
	struct rep_fact facts[12];
	size_t n = rep_machine(r, facts, ARRAY_SIZE(facts)), i;
	char *line = NULL;

	for (i = 1; i < r->ng; i++) {
		const char *key, *word = rep_badge(r->g[i].j, &key);
		char *h = rep_headline(r, i),
		     *l = xasprintf("[%s] %s: %s", word, r->g[i].title ? r->g[i].title : "", h);

		email_wrap(out, l, 4, false);
		free(l);
		free(h);
	}
	for (i = 0; i < n; i++) {
		char *t = xasprintf("%s%s%s %s", line ? line : "", line ? "; " : "", facts[i].label,
				    facts[i].value);

		free(line);
		line = t;
	}
	if (line) {
		char *t = xasprintf("Baseline machine: %s", line);

		email_wrap(out, t, 4, false);
		free(t);
		free(line);
	}
}

void rep_email(const struct rep *r, struct sbuf *out)
{
	char when[64], m[16];
	size_t i, k;

	snprintf(m, sizeof(m), "%g%%", r->margin * 100);
	{
		char *title = rep_title(r);

		rep_email_line(out, "wakebench report: %s", title);
		rep_email_line(out, "%s", "");
		free(title);
	}
	email_head(r, out);
	rep_email_line(
		out, "%.0f%% confidence, margin %s, %zu sample%s (status ok, warm-ups excluded)%s",
		r->conf * 100, m, r->nsamples, r->nsamples == 1 ? "" : "s",
		r->primary.better < 0 ? "; lower is better" : "");
	rep_email_line(out, "%s", "");
	email_table(r, out);
	email_posted(r, out);
	email_evidence(r, out);
	email_env(r, out);
	/* compare's warnings, then its notes (noisy, overloaded) */
	for (k = 0; k < 2; k++) {
		json_object *w = rep_obj(r->doc, k ? "notes" : "warnings");
		size_t n = w ? json_object_array_length(w) : 0;

		for (i = 0; i < n; i++) {
			char *line =
				xasprintf("%s: %s", k ? "note" : "warning",
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
	rep_md_cell(out, by_title(r));
	sbuf_puts(out, " | n | boots | ");
	rep_md_cell(out, r->primary.label);
	sbuf_puts(out, " | 95% CI of median | vs. ");
	rep_md_cell(out, r->g[0].name);
	sbuf_puts(out, " | 95% CI of change | p | verdict |\n");
	sbuf_puts(out, "|:---|---:|---:|---:|:---|---:|:---|---:|:---|\n");
	for (i = 0; i < r->ng; i++) {
		json_object *g = r->g[i].j, *eff = rep_obj(g, "effect"),
			    *ci = rep_obj(g, "median_ci");
		char med[32], lo[32], hi[32], chg[32], cci[80], p[32];

		fmt_value(rep_num(g, "median"), r->primary.unit, med, sizeof(med));
		sbuf_puts(out, "| ");
		rep_md_cell(out, r->g[i].name);
		if (rep_obj(g, "external")) {
			sbuf_puts(out, " *(posted: ");
			rep_md_cell(out, rep_str(rep_obj(g, "external"), "note"));
			sbuf_puts(out, ")*");
		}
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
		point_change(g, chg, sizeof(chg));
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
	rep_md_cell(out, r->g[0].name);
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
			rep_md_cell(out, r->g[i].name);
			sbuf_puts(out, " | ");
			rep_md_cell(out, m.label);
			sbuf_addf(out, " | %s | %s | %s%s%s | %s |\n", a, b, moved ? "**" : "", chg,
				  moved ? "**" : "", ci[0] ? ci : "n/a");
		}
	}
}

static void md_unknown(const struct rep *r, size_t i, struct sbuf *out)
{
	size_t n;
	char *keys = unknown_keys(r, i, &n);

	if (!n)
		return;
	sbuf_puts(out, "| ");
	rep_md_cell(out, r->g[i].name);
	sbuf_addf(out, " | unknown | %zu key%s not in the posted text | | ", n, n == 1 ? "" : "s");
	rep_md_cell(out, keys);
	sbuf_puts(out, " |\n");
	free(keys);
}

static void md_env(const struct rep *r, struct sbuf *out)
{
	size_t i, k;

	if (r->ng < 2)
		return;
	sbuf_puts(out, "\n### Environment differences vs. ");
	rep_md_cell(out, r->g[0].name);
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
			rep_md_cell(out, r->g[i].name);
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
			rep_md_cell(out, r->g[i].name);
			sbuf_puts(out, " | | none | | |\n");
		}
		md_unknown(r, i, out);
	}
}

static void md_posted(const struct rep *r, struct sbuf *out)
{
	size_t i;

	if (!r->nposted)
		return;
	sbuf_puts(out, "\n### Posted results (imported from another tool's output, not measured "
		       "here)\n\n");
	for (i = 0; i < r->nposted; i++) {
		char *line = posted_line(r, &r->posted[i]);

		sbuf_puts(out, "- ");
		rep_md_cell(out, line);
		sbuf_puts(out, "\n");
		free(line);
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

/* The effects as a list, each verdict in bold, then the baseline's machine. */
static void md_head(const struct rep *r, struct sbuf *out)
{
	struct rep_fact facts[12];
	size_t n = rep_machine(r, facts, ARRAY_SIZE(facts)), i;

	for (i = 1; i < r->ng; i++) {
		const char *key, *word = rep_badge(r->g[i].j, &key);
		char *h = rep_headline(r, i);

		sbuf_addf(out, "- **%s** ", word);
		rep_md_cell(out, r->g[i].title);
		sbuf_puts(out, ": ");
		rep_md_cell(out, h);
		sbuf_puts(out, "\n");
		free(h);
	}
	if (r->ng > 1)
		sbuf_puts(out, "\n");
	if (!n)
		return;
	sbuf_puts(out, "Baseline machine:");
	for (i = 0; i < n; i++) {
		sbuf_addf(out, "%s %s ", i ? ";" : "", facts[i].label);
		rep_md_cell(out, facts[i].value);
	}
	sbuf_puts(out, ".\n\n");
}

static void md_repro(const struct rep *r, struct sbuf *out)
{
	size_t i;

	sbuf_puts(out, "\n### To reproduce\n\nAs typed on another machine: no --db, output or "
		       "verbosity options, no paths of this one.\n\n````sh\n");
	for (i = 0; i < r->nrepro; i++) {
		const struct rep_repro *rp = &r->repro[i];
		char *what = rep_repro_what(r, rp), *c = xasprintf("# %s", what);

		md_code_line(out, c);
		free(c);
		free(what);
		md_code_line(out, rp->cmd ?: "# (its command line was not stored)");
		if (rp->equiv) {
			c = xasprintf("# %s", rp->equiv_note);
			md_code_line(out, c);
			free(c);
			md_code_line(out, rp->equiv);
		}
	}
	if (r->report_cmd) {
		md_code_line(out, "# this report:");
		md_code_line(out, r->report_cmd);
	}
	sbuf_puts(out, "````\n\n");
}

void rep_markdown(const struct rep *r, struct sbuf *out)
{
	char when[64], *title = rep_title(r);
	size_t i, k;

	sbuf_puts(out, "## wakebench report: ");
	rep_md_cell(out, title);
	free(title);
	sbuf_puts(out, "\n\n");
	md_head(r, out);
	sbuf_addf(out,
		  "%.0f%% confidence, margin %g%%, %zu sample%s (status ok, warm-ups "
		  "excluded)%s.\n\n",
		  r->conf * 100, r->margin * 100, r->nsamples, r->nsamples == 1 ? "" : "s",
		  r->primary.better < 0 ? "; lower is better" : "");
	md_table(r, out);
	md_posted(r, out);
	md_evidence(r, out);
	md_env(r, out);
	/* compare's warnings, then its notes (noisy, overloaded) */
	for (k = 0; k < 2; k++) {
		json_object *w = rep_obj(r->doc, k ? "notes" : "warnings");
		size_t n = w ? json_object_array_length(w) : 0;

		for (i = 0; i < n; i++) {
			sbuf_puts(out, i ? "" : "\n");
			sbuf_addf(out, "> %s: ", k ? "note" : "warning");
			rep_md_cell(out, json_object_get_string(json_object_array_get_idx(w, i)));
			sbuf_puts(out, "\n");
		}
	}
	md_repro(r, out);
	rep_fmt_when(r->made_ns, when, sizeof(when));
	sbuf_addf(out, "<sub>wakebench %s, report made %s</sub>\n", r->version, when);
}
