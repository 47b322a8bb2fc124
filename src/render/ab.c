/*
 * ab.c: an ab result as text and JSON (ab.h). Nothing here computes: every
 * number and every verdict's words come from the struct.
 */
#include "render/ab.h"
#include "core/metrics.h"
#include "render/json.h"
#include "render/results.h"
#include "stats/stats.h"
#include "util/json.h"
#include "util/number.h"
#include "util/text.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/*
 * Stored text made safe in buf: a stored ab's tokens and metric names come
 * from its parameters and samples, which may be another machine's.
 */
static const char *safe(const char *s, char *buf, size_t len)
{
	text_printable_buf(s ? s : "", 0, buf, len);
	return buf;
}

/* One line: "  LABEL METRIC +1.2% [95% CI ...], Wilcoxon p = ... (N units)", labels w wide. */
static void ab_line_text(FILE *f, const char *label, int w, const struct ab_line *x,
			 const char *metric)
{
	const struct effect *e = &x->s.e;
	char est[32], lo[32], hi[32], p[32], adj[48] = "", lb[256];

	label = safe(label, lb, sizeof(lb));
	if (!e->valid) {
		fprintf(f, "  %-*s %s%sn/a: %s\n", w, label, metric, metric[0] ? " " : "",
			e->why ? e->why : "not computed");
		return;
	}
	fmt_pct(e->est, est, sizeof(est));
	fmt_pct(e->lo, lo, sizeof(lo));
	fmt_pct(e->hi, hi, sizeof(hi));
	if (!isnan(x->s.p_adjusted)) {
		fmt_p(x->s.p_adjusted, p, sizeof(p));
		snprintf(adj, sizeof(adj), ", Holm p %s%s", p[0] == '<' ? "" : "= ", p);
	}
	fmt_p(e->p, p, sizeof(p));
	fprintf(f, "  %-*s %s%s%s [%.4g%% CI %s, %s], Wilcoxon p %s%s%s (%zu %s)\n", w, label,
		metric, metric[0] ? " " : "", est, e->conf * 100.0, lo, hi, p[0] == '<' ? "" : "= ",
		p, adj, e->n_a, e->n_a == 1 ? "unit" : "units");
}

/* An evidence line's label: the metric, and the token with two features. */
static void evidence_label(const struct ab_design *d, const char *metric, const char *what,
			   char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", metric, d->nfeat > 1 ? " " : "", d->nfeat > 1 ? what : "");
}

static void evidence_text(FILE *f, const struct ab_result *r)
{
	const struct ab_design *d = &r->d;
	char label[160];
	int w = 28;
	size_t i, k;

	if (!r->nevidence)
		return;
	for (k = 0; k < r->nlines; k++) {
		char title[64];

		/* evidence is counted per op: no op to name, so no workload is needed */
		metric_title_of(r->lines[k].metric, NULL, title, sizeof(title));
		evidence_label(d, title, r->lines[k].what, label, sizeof(label));
		w = (int)strlen(label) > w ? (int)strlen(label) : w;
	}
	fprintf(f,
		"evidence per op (same paired estimate; %s vs %s; Holm-adjusted over %zu lines):\n",
		d->nfeat == 1 ? "B" : "with the token", d->nfeat == 1 ? "A" : "without", r->nlines);
	for (i = 0; i < r->nevidence; i++) {
		const struct ab_evidence *ev = &r->evidence[i];
		char title[64], why[METRIC_WHY_MAX + 16];

		/* evidence is counted per op: no op to name, so no workload is needed */
		metric_title_of(ev->metric, NULL, title, sizeof(title));
		if (ev->why[0]) {
			text_line(f, "  %-*s %s", w, title,
				  metric_why_text(ev->why, why, sizeof(why)));
			continue;
		}
		for (k = 0; k < r->nlines; k++) {
			const struct ab_line *x = &r->lines[k];

			if (strcmp(x->metric, ev->metric) || !strcmp(x->what, "interaction"))
				continue;
			evidence_label(d, title, x->what, label, sizeof(label));
			ab_line_text(f, label, w, x, "");
		}
	}
}

/* "NO_DELAY_DEQUEUE: ops/s +3.21% [95% CI +1.02%, +5.40%], improvement beyond the 2% margin" */
static void verdict_line(FILE *f, const struct ab_line *x, const char *metric)
{
	const struct effect *e = &x->s.e;
	char est[32], lo[32], hi[32];

	if (!e->valid) {
		text_line(f, "%s: %s n/a, %s", x->what, metric, x->verdict);
		return;
	}
	fmt_pct(e->est, est, sizeof(est));
	fmt_pct(e->lo, lo, sizeof(lo));
	fmt_pct(e->hi, hi, sizeof(hi));
	text_line(f, "%s: %s %s [%.4g%% CI %s, %s], %s", x->what, metric, est, e->conf * 100.0, lo,
		  hi, x->verdict);
}

void render_ab_text(FILE *f, const struct ab_result *r, const char *ptitle, bool interrupted)
{
	const struct ab_design *d = &r->d;
	size_t k;

	fprintf(f, "\n");
	evidence_text(f, r);
	if (r->nevidence)
		fprintf(f, "\n");
	fprintf(f, "effects on %s (paired, %s vs %s%s%s):\n", ptitle,
		d->nfeat == 1 ? "B" : "with the token", d->nfeat == 1 ? "A" : "without",
		interrupted ? ", interrupted run" : "", d->better < 0 ? "; lower is better" : "");
	for (k = 0; k < r->neff; k++)
		ab_line_text(f, r->eff[k].what, 28, &r->eff[k], ptitle);
	if (r->neff > d->nfeat) {
		const struct ab_line *x = &r->eff[r->neff - 1];

		text_line(f, "interaction (%s's effect with %s applied vs without): %s",
			  d->token[0], d->token[1],
			  !x->s.e.valid			  ? "not computed"
			  : x->s.v == VERDICT_NO_CHANGE	  ? "none larger than the margin"
			  : stats_verdict_decided(x->s.v) ? "present, beyond the margin"
							  : "not excluded");
	}
	if (d->rebuilt)
		fprintf(f, "levels: rebuilt from the options (stored by a wakebench that kept no "
			   "design)\n");
	/* the verdicts last, alone: what a reader looks for first */
	fprintf(f, "\n");
	for (k = 0; k < d->nfeat && k < r->neff; k++)
		verdict_line(f, &r->eff[k], ptitle);
}

json_object *render_ab_line_json(const struct ab_line *x)
{
	const struct effect *e = &x->s.e, *q = &x->s.eq;
	json_object *o = render_effect_json(e, (int)x->s.v, x->verdict);

	json_object_object_add(o, "what", json_object_new_string(x->what));
	json_object_object_add(o, "units", json_object_new_int64((int64_t)e->n_a));
	json_object_object_add(o, "equivalence_ci_lo", json_double(q->valid ? q->lo : NAN));
	json_object_object_add(o, "equivalence_ci_hi", json_double(q->valid ? q->hi : NAN));
	json_object_object_add(o, "equivalence_conf", json_double(q->conf));
	json_object_object_add(o, "samples_to_decide",
			       x->s.to_decide ? json_object_new_int64((int64_t)x->s.to_decide)
					      : NULL);
	if (!isnan(x->s.p_adjusted))
		json_object_object_add(o, "p_adjusted", json_double(x->s.p_adjusted));
	return o;
}

static json_object *sequential_json(const struct ab_design *d)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "until_decided", json_object_new_boolean(d->until_decided));
	json_object_object_add(o, "looks", json_object_new_int64((int64_t)d->looks));
	json_object_object_add(o, "planned_looks",
			       json_object_new_int64((int64_t)d->planned_looks));
	json_object_object_add(o, "family_conf", json_double(1 - STATS_SEQ_ALPHA));
	json_object_object_add(o, "per_look_conf", json_double(1 - d->alpha_two));
	json_object_object_add(o, "equivalence_conf", json_double(1 - 2 * d->alpha_one));
	json_object_object_add(o, "serial_allowance", json_double(d->vif));
	json_object_object_add(o, "stopped", json_object_new_string(stats_seq_stop_key(d->stop)));
	if (d->rebuilt)
		json_object_object_add(o, "rebuilt", json_object_new_boolean(true));
	return o;
}

void render_ab_json(const struct ab_result *r, json_object *o)
{
	json_object *effects = json_object_new_array(), *evidence = json_object_new_array(),
		    *adj = json_object_new_object();
	size_t k;

	for (k = 0; k < r->neff; k++)
		json_object_array_add(effects, render_ab_line_json(&r->eff[k]));
	json_object_object_add(o, "effects", effects);
	json_object_object_add(o, "sequential", sequential_json(&r->d));
	for (k = 0; k < r->nlines; k++) {
		json_object *x = render_ab_line_json(&r->lines[k]);

		json_object_object_add(x, "metric", json_object_new_string(r->lines[k].metric));
		json_object_array_add(evidence, x);
	}
	json_object_object_add(o, "evidence", evidence);
	json_object_object_add(adj, "method", json_object_new_string("holm"));
	json_object_object_add(adj, "family", json_object_new_int64((int64_t)r->nlines));
	json_object_object_add(adj, "alpha", json_double(STATS_SEQ_ALPHA));
	json_object_object_add(o, "evidence_adjustment", adj);
}

void render_ab_run_text(FILE *f, const struct ab_run_view *v, bool verbose)
{
	const struct ab_arm_view *a0 = &v->arm[0];
	char title[300];
	int w = 0;
	unsigned m;
	size_t i;

	fprintf(f, "\n");
	for (m = 0; m < v->narms; m++) {
		int n = (int)(strlen(v->arm[m].code) + strlen(v->arm[m].name) + 3);

		w = n > w ? n : w;
	}
	for (m = 0; m < v->narms; m++) {
		const struct ab_arm_view *a = &v->arm[m];

		snprintf(title, sizeof(title), "%s: %s", a->code, a->name);
		if (verbose) {
			report_summary_text(f, title, a->summary, v->workload);
		} else {
			strncat(title, " ", sizeof(title) - strlen(title) - 1);
			report_summary_line(f, title, w, a->summary, v->workload);
		}
		if (a->ceiling[0])
			fprintf(f, "  %s\n", a->ceiling);
	}
	if (!verbose)
		fprintf(f, "(all metrics of each arm: -v)\n");
	for (m = 1; m < v->narms; m++) {
		const struct ab_arm_view *a = &v->arm[m];

		if (!a->have_env)
			continue;
		if (!a->ndelta)
			fprintf(f,
				"environment: arm %s differs from arm %s only in sched.features\n",
				a->code, a0->code);
		for (i = 0; i < a->ndelta; i++)
			fprintf(f,
				"environment: WARNING: %s differs between arms %s and %s "
				"(%s: '%s' vs '%s')\n",
				a->delta[i].key, a0->code, a->code,
				env_impact_name(a->delta[i].impact),
				a->delta[i].a ? a->delta[i].a : "absent",
				a->delta[i].b ? a->delta[i].b : "absent");
	}
	fprintf(f, "toggles: %u, each followed by a discarded warm-up%s\n", v->ntoggles,
		v->warmups ? "" : " (none: --warmup 0)");
}

void render_ab_run_json(const struct ab_run_view *v, json_object *o)
{
	json_object *arms = json_object_new_array(), *units = json_object_new_array(),
		    *envd = json_object_new_array();
	unsigned m;
	size_t u, i;

	for (m = 0; m < v->narms; m++) {
		json_object *a = json_object_new_object();

		json_object_object_add(a, "label", json_object_new_string(v->arm[m].code));
		json_object_object_add(a, "name", json_object_new_string(v->arm[m].name));
		json_object_object_add(a, "features", json_object_new_string(v->arm[m].vector));
		json_object_object_add(a, "summary", report_summary_json(v->arm[m].summary));
		json_object_array_add(arms, a);
	}
	json_object_object_add(o, "arms", arms);
	for (u = 0; u < v->r->nunits; u++) {
		json_object *row = json_object_new_object();

		for (m = 0; m < v->narms; m++) {
			long k = v->r->unit[u][m];

			json_object_object_add(row, v->arm[m].code,
					       k >= 0 ? report_sample_json(&v->samples[k]) : NULL);
		}
		json_object_array_add(units, row);
	}
	json_object_object_add(o, "units", units);
	render_ab_json(v->r, o);
	for (m = 1; m < v->narms; m++)
		for (i = 0; i < v->arm[m].ndelta; i++) {
			const struct env_delta *d = &v->arm[m].delta[i];
			json_object *x = json_object_new_object();

			json_object_object_add(x, "arms", json_object_new_string(v->arm[m].code));
			json_object_object_add(x, "key", json_object_new_string(d->key));
			json_object_object_add(x, "a", json_str_or_null(d->a));
			json_object_object_add(x, "b", json_str_or_null(d->b));
			json_object_array_add(envd, x);
		}
	json_object_object_add(o, "environment_differences", envd);
}

void render_ab_plan(FILE *f, const struct ab_plan *p)
{
	const char *units = p->blocks ? "blocks" : "pairs";
	char budget[32];
	unsigned m;

	report_profile_text(f, p->workload, p->profile);
	for (m = 0; m < p->narms; m++)
		fprintf(f, "arm %s: %s\n", p->code[m], p->name[m]);
	if (p->until_decided) {
		fprintf(f, "until decided: up to %zu %s, ", p->max_samples, units);
		if (p->max_time_ns) {
			format_duration(p->max_time_ns, budget, sizeof(budget));
			fprintf(f, "within %s, ", budget);
		}
	} else {
		fprintf(f, "%zu %s, ", p->samples, units);
	}
	fprintf(f, "%s each, order %s", p->sample_what, p->order);
	if (p->seeded)
		fprintf(f, " (seed %" PRIu64 ")", p->seed);
	fprintf(f,
		", warm-up %s after every toggle, %" PRIu64
		" instance%s, placement %s, margin %g%%\n",
		p->warmup, p->instances, p->instances == 1 ? "" : "s", p->placement,
		p->margin * 100.0);
	fflush(f);
}

void render_ab_unit(FILE *f, const struct ab_unit_line *l)
{
	unsigned m;

	fprintf(f, "%s %zu/%u:", l->blocks ? "block" : "pair", l->u + 1, l->total);
	/* commas between the arms: a grouped number has spaces of its own */
	for (m = 0; m < l->narms; m++) {
		char v[48];

		fmt_value(l->value[m], l->unit, v, sizeof(v));
		fprintf(f, "%s %s %s", m ? "," : "", l->code[m], l->status[m] ? l->status[m] : v);
	}
	/* a time carries its unit in each value */
	if (!num_unit_is_time(l->unit))
		fprintf(f, " %s", l->unit);
	if (isfinite(l->ratio)) {
		char r[32];

		fmt_pct(l->ratio - 1.0, r, sizeof(r));
		fprintf(f, ", B/A %s", r);
	}
	fprintf(f, "\n");
	fflush(f);
}
