/*
 * ab.c: the analysis of an `ab` experiment (ab.h), the only code that
 * computes ab statistics: units from the observations, the paired
 * factorial effects at the sequential engine's levels, the verdicts in
 * words, the evidence lines with Holm's adjustment; and the design kept in
 * the experiment's parameters, so that a stored ab is analysed again to
 * the last digit.
 */
#include "engine/ab.h"
#include "core/metrics.h"
#include "render/render.h"
#include "util/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the design ---- */

void ab_design_init(struct ab_design *d, unsigned nfeat, const char *const *tokens,
		    const char *metric, int better, double margin, size_t max_samples)
{
	unsigned k;

	if (nfeat < 1 || nfeat > AB_MAX_FEATURES)
		BUG("ab_design_init: %u features", nfeat);
	memset(d, 0, sizeof(*d));
	d->nfeat = nfeat;
	d->narms = 1u << nfeat;
	for (k = 0; k < nfeat; k++)
		snprintf(d->token[k], sizeof(d->token[k]), "%s", tokens[k]);
	snprintf(d->metric, sizeof(d->metric), "%s", metric);
	d->better = better;
	d->margin = margin;
	d->max_samples = max_samples;
	d->until_decided = max_samples > 0;
}

void ab_design_end(struct ab_design *d, const struct stats_seq *engine)
{
	d->until_decided = engine->p.until_decided;
	d->budget = stats_seq_budget(engine);
	d->time_planned = engine->time_planned;
	d->alpha_two = engine->alpha_two;
	d->alpha_one = engine->alpha_one;
	d->vif = engine->vif;
	d->looks = engine->looks;
	d->planned_looks = engine->nplan;
	d->stop = engine->stop;
}

json_object *ab_design_json(const struct ab_design *d)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "until_decided", json_object_new_boolean(d->until_decided));
	json_object_object_add(o, "budget", json_object_new_int64((int64_t)d->budget));
	json_object_object_add(o, "time_planned", json_object_new_boolean(d->time_planned));
	json_object_object_add(o, "alpha_two", json_double(d->alpha_two));
	json_object_object_add(o, "alpha_one", json_double(d->alpha_one));
	json_object_object_add(o, "serial_allowance", json_double(d->vif));
	json_object_object_add(o, "looks", json_object_new_int64((int64_t)d->looks));
	json_object_object_add(o, "planned_looks",
			       json_object_new_int64((int64_t)d->planned_looks));
	json_object_object_add(o, "stopped", json_object_new_string(stats_seq_stop_key(d->stop)));
	return o;
}

/* A finite number of the parameters into *v; false, and *v as it was, otherwise. */
static bool get_num(json_object *o, const char *key, double *v)
{
	double x = rep_num(o, key);

	if (!isfinite(x))
		return false;
	*v = x;
	return true;
}

static bool get_bool(json_object *o, const char *key, bool dflt)
{
	json_object *x;

	if (!json_object_object_get_ex(o, key, &x) || !json_object_is_type(x, json_type_boolean))
		return dflt;
	return json_object_get_boolean(x);
}

/* The design's stored levels; false when a member is missing or out of range. */
static bool parse_levels(json_object *g, struct ab_design *d)
{
	double budget, looks, planned;
	json_object *x;
	size_t k;

	if (!get_num(g, "budget", &budget) || !get_num(g, "alpha_two", &d->alpha_two) ||
	    !get_num(g, "alpha_one", &d->alpha_one) || !get_num(g, "serial_allowance", &d->vif) ||
	    !get_num(g, "looks", &looks) || !get_num(g, "planned_looks", &planned) ||
	    !json_object_object_get_ex(g, "stopped", &x) || budget < 1 ||
	    budget > STATS_SEQ_MAX_UNITS || !(d->alpha_two > 0 && d->alpha_two < 1) ||
	    !(d->alpha_one > 0 && d->alpha_one < 1) || !(d->vif >= 1 && d->vif < 100))
		return false;
	d->budget = (size_t)budget;
	d->looks = (size_t)looks;
	d->planned_looks = (size_t)planned;
	d->until_decided = get_bool(g, "until_decided", false);
	d->time_planned = get_bool(g, "time_planned", false);
	for (k = STATS_SEQ_DECIDED; k <= STATS_SEQ_ENDED; k++)
		if (!strcmp(json_object_get_string(x), stats_seq_stop_key((enum stats_seq_stop)k)))
			d->stop = (enum stats_seq_stop)k;
	return true;
}

/* An older store's ab: the plan its options imply, as the engine would have made it. */
static void rebuild_levels(json_object *params, struct ab_design *d)
{
	struct stats_seq_params sp = { .nfeat = d->nfeat,
				       .margin = d->margin,
				       .better = d->better };
	struct stats_seq s;
	double v;

	sp.until_decided = get_bool(params, "until_decided",
				    !json_object_object_get_ex(params, "samples", NULL));
	sp.units = get_num(params, "samples", &v) && v >= 1 ? (size_t)v : 10;
	sp.max_units = get_num(params, "max_samples", &v) && v >= 1 ? (size_t)v : 64;
	stats_seq_init(&s, &sp);
	d->until_decided = sp.until_decided;
	d->budget = stats_seq_budget(&s);
	d->alpha_two = s.alpha_two;
	d->alpha_one = s.alpha_one;
	d->vif = s.vif;
	d->planned_looks = s.nplan;
	d->stop = sp.until_decided ? STATS_SEQ_ENDED : STATS_SEQ_DONE;
	d->rebuilt = true;
	stats_seq_release(&s);
}

int ab_design_parse(const char *params_json, const char *workload, struct ab_design *d, char *why,
		    size_t len)
{
	json_object *params = params_json ? json_tokener_parse(params_json) : NULL, *feat, *g;
	const struct metric_def *pm = metric_primary(workload);
	const char *tok[AB_MAX_FEATURES];
	double margin = 0.02, max_samples = 0;
	size_t k, nfeat;

	if (!params || !json_object_object_get_ex(params, "feature", &feat) ||
	    !json_object_is_type(feat, json_type_array) ||
	    (nfeat = json_object_array_length(feat)) < 1 || nfeat > AB_MAX_FEATURES) {
		snprintf(why, len, "its parameters name no --feature tokens (1 or 2)");
		json_object_put(params);
		return -1;
	}
	for (k = 0; k < nfeat; k++) {
		tok[k] = json_object_get_string(json_object_array_get_idx(feat, k));
		if (!tok[k] || !*tok[k] || strlen(tok[k]) >= AB_TOKEN_MAX) {
			snprintf(why, len, "its parameters hold a --feature token that is not one");
			json_object_put(params);
			return -1;
		}
	}
	get_num(params, "margin", &margin);
	get_num(params, "max_samples", &max_samples);
	ab_design_init(d, (unsigned)nfeat, tok, pm->name, pm->better, margin, (size_t)max_samples);
	if (!json_object_object_get_ex(params, "design", &g) || !parse_levels(g, d))
		rebuild_levels(params, d);
	json_object_put(params);
	return 0;
}

/* ---- words ---- */

const char *ab_unit_word(const struct ab_design *d, size_t n)
{
	if (d->nfeat == 1)
		return n == 1 ? "pair" : "pairs";
	return n == 1 ? "block" : "blocks";
}

size_t ab_min_complete(unsigned nfeat, double alpha_two, double alpha_one, double vif)
{
	size_t narms = (size_t)1 << nfeat, n, i, k, neff;
	struct stats_seq_effect x[AB_MAX_EFFECTS];
	double *y;
	bool all;

	if (nfeat < 1 || nfeat > AB_MAX_FEATURES)
		BUG("ab_min_complete: %u features", nfeat);
	y = xcalloc(STATS_SEQ_MAX_UNITS * narms, sizeof(*y));
	/* whether an interval exists depends on n and the levels, not on the values */
	for (i = 0; i < STATS_SEQ_MAX_UNITS * narms; i++)
		y[i] = 1000.0 + (double)(i % 7) + (double)(i % narms) * 10.0;
	for (n = 1; n < STATS_SEQ_MAX_UNITS; n++) {
		neff = stats_seq_effects(y, n, nfeat, alpha_two, alpha_one, vif, 0.02, 1, n, x);
		for (all = true, k = 0; k < neff; k++)
			all = all && x[k].e.valid;
		if (all)
			break;
	}
	free(y);
	return n;
}

static void verdict_words(const struct ab_design *d, const struct stats_seq_effect *e, bool primary,
			  char *buf, size_t len)
{
	char detail[256] = "";
	size_t need;

	if (e->v == VERDICT_INSUFFICIENT && primary &&
	    e->e.n_a < (need = ab_min_complete(d->nfeat, d->alpha_two, d->alpha_one, d->vif)))
		snprintf(detail, sizeof(detail),
			 "%zu complete %s; a paired verdict needs at least %zu", e->e.n_a,
			 ab_unit_word(d, e->e.n_a), need);
	else if (e->v == VERDICT_NO_CHANGE && e->eq.valid)
		snprintf(detail, sizeof(detail), "equivalence interval %+.2f%%, %+.2f%% at %.4g%%",
			 e->eq.lo * 100.0, e->eq.hi * 100.0, e->eq.conf * 100.0);
	else if (e->v == VERDICT_INCONCLUSIVE && e->to_decide)
		snprintf(detail, sizeof(detail), "a rough guide: about %zu %s in all might decide",
			 e->to_decide, ab_unit_word(d, e->to_decide));
	else if (e->v == VERDICT_INCONCLUSIVE && e->beyond_budget && d->time_planned)
		/* the clock set the budget: the units that fit in --max-time */
		snprintf(detail, sizeof(detail),
			 "more than the %zu %s that fit in --max-time would be needed to decide",
			 d->budget, ab_unit_word(d, d->budget));
	else if (e->v == VERDICT_INCONCLUSIVE && e->beyond_budget && d->until_decided)
		snprintf(detail, sizeof(detail),
			 "more than --max-samples %zu %s would be needed to decide", d->budget,
			 ab_unit_word(d, d->budget));
	else if (e->v == VERDICT_INCONCLUSIVE && e->beyond_budget)
		/* -n: no --max-samples was in play; the guide stops at the default budget */
		snprintf(detail, sizeof(detail), "more than %zu %s would be needed to decide",
			 d->budget, ab_unit_word(d, d->budget));
	stats_verdict_words(e->v, d->margin, detail, buf, len);
}

/* ---- the analysis ---- */

static bool usable(const struct sample *s)
{
	return s->status == SAMPLE_OK && !s->warmup;
}

/* Units: consecutive measured samples, one per arm, in run order. */
static void form_units(struct ab_result *r, const struct ab_obs *obs, size_t n)
{
	size_t i, cap = 0, filled = 0;
	unsigned m;

	for (i = 0; i < n; i++) {
		if (obs[i].s->warmup)
			continue;
		if (!r->nunits || filled == r->d.narms) {
			if (r->nunits == cap) {
				cap = cap ? 2 * cap : 32;
				r->unit = xrealloc(r->unit, cap * sizeof(*r->unit));
			}
			for (m = 0; m < AB_MAX_ARMS; m++)
				r->unit[r->nunits][m] = -1;
			r->nunits++;
			filled = 0;
		}
		if (obs[i].arm < r->d.narms)
			r->unit[r->nunits - 1][obs[i].arm] = (long)i;
		filled++;
	}
}

/* The values of metric `name` in every arm of unit u, or false when the unit is incomplete. */
static bool unit_values(const struct ab_result *r, const struct ab_obs *obs, size_t u,
			const char *name, double *y)
{
	unsigned m;

	for (m = 0; m < r->d.narms; m++) {
		long i = r->unit[u][m];

		if (i < 0 || !usable(obs[i].s) || !sample_value(obs[i].s, name, &y[m]))
			return false;
	}
	return true;
}

/* The effects of metric `name` at the given levels: one per token, then the interaction. */
static size_t effects_of(const struct ab_result *r, const struct ab_obs *obs, const char *name,
			 int better, double alpha_two, double alpha_one, struct ab_line *out)
{
	const struct ab_design *d = &r->d;
	double *y = xcalloc((r->nunits + 1) * AB_MAX_ARMS, sizeof(*y));
	struct stats_seq_effect x[AB_MAX_EFFECTS];
	size_t n = 0, u, k, neff;

	for (u = 0; u < r->nunits; u++)
		n += unit_values(r, obs, u, name, y + n * d->narms);
	neff = stats_seq_effects(y, n, d->nfeat, alpha_two, alpha_one, d->vif, d->margin, better,
				 d->budget, x);
	for (k = 0; k < neff; k++) {
		snprintf(out[k].what, sizeof(out[k].what), "%s",
			 k < d->nfeat ? d->token[k] : "interaction");
		snprintf(out[k].metric, sizeof(out[k].metric), "%s", name);
		out[k].s = x[k];
		verdict_words(d, &x[k], !strcmp(name, d->metric), out[k].verdict,
			      sizeof(out[k].verdict));
	}
	free(y);
	return neff;
}

static void primary_ratios(struct ab_result *r, const struct ab_obs *obs)
{
	double y[AB_MAX_ARMS];
	size_t u;

	r->ratio = xcalloc(r->nunits + 1, sizeof(*r->ratio));
	for (u = 0; u < r->nunits; u++) {
		if (!unit_values(r, obs, u, r->d.metric, y))
			continue;
		r->ncomplete++;
		if (r->d.nfeat == 1 && y[0] > 0)
			r->ratio[r->ncomplete - 1] = y[1] / y[0];
	}
}

/* Evidence metrics in the order of the first usable sample, with why when never measured. */
static void evidence_metrics(struct ab_result *r, const struct ab_obs *obs, size_t n)
{
	size_t i, k, j;

	for (i = 0; i < n && !r->nevidence; i++) {
		const struct sample *s = obs[i].s;

		if (!usable(s))
			continue;
		r->evidence = xcalloc(s->nmetrics + 1, sizeof(*r->evidence));
		for (k = 0; k < s->nmetrics; k++)
			if (s->metrics[k].flags & METRIC_EVIDENCE)
				snprintf(r->evidence[r->nevidence++].metric, METRIC_NAME_MAX, "%s",
					 s->metrics[k].name);
		if (!r->nevidence) {
			free(r->evidence);
			r->evidence = NULL;
			break;
		}
	}
	for (k = 0; k < r->nevidence; k++) {
		struct ab_evidence *ev = &r->evidence[k];
		bool seen = false;

		for (j = 0; j < n && !seen; j++) {
			const struct metric *m;

			if (!usable(obs[j].s) || !(m = sample_get(obs[j].s, ev->metric)))
				continue;
			if (m->available)
				seen = true;
			else if (!ev->why[0])
				snprintf(ev->why, sizeof(ev->why), "%s",
					 m->why[0] ? m->why : "not measured");
		}
		if (seen)
			ev->why[0] = '\0';
	}
}

static int metric_better(const struct ab_obs *obs, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct metric *m = sample_get(obs[i].s, name);

		if (m)
			return m->better;
	}
	return BETTER_NEUTRAL;
}

/*
 * Every evidence line (metric x effect) at the fixed 95% level, Holm-
 * adjusted over the whole family so that the chance of any false
 * "regression" or "improvement" among them stays at 5%.
 */
static void evidence_lines(struct ab_result *r, const struct ab_obs *obs, size_t n)
{
	struct stats_seq_effect *x;
	size_t i, k = 0;

	r->lines = xcalloc(r->nevidence * AB_MAX_EFFECTS + 1, sizeof(*r->lines));
	for (i = 0; i < r->nevidence; i++)
		k += effects_of(r, obs, r->evidence[i].metric,
				metric_better(obs, n, r->evidence[i].metric), STATS_SEQ_ALPHA,
				STATS_SEQ_ALPHA, r->lines + k);
	r->nlines = k;
	x = xcalloc(k + 1, sizeof(*x));
	for (i = 0; i < k; i++)
		x[i] = r->lines[i].s;
	stats_seq_evidence_adjust(x, k, STATS_SEQ_ALPHA);
	for (i = 0; i < k; i++) {
		r->lines[i].s = x[i];
		verdict_words(&r->d, &x[i], false, r->lines[i].verdict,
			      sizeof(r->lines[i].verdict));
	}
	free(x);
}

void ab_analyze(const struct ab_design *d, const struct ab_obs *obs, size_t n, struct ab_result *r)
{
	memset(r, 0, sizeof(*r));
	r->d = *d;
	r->nobs = n;
	form_units(r, obs, n);
	primary_ratios(r, obs);
	r->neff = effects_of(r, obs, d->metric, d->better, d->alpha_two, d->alpha_one, r->eff);
	evidence_metrics(r, obs, n);
	evidence_lines(r, obs, n);
}

void ab_result_release(struct ab_result *r)
{
	free(r->unit);
	free(r->ratio);
	free(r->evidence);
	free(r->lines);
	memset(r, 0, sizeof(*r));
}

/* ---- a stored ab ---- */

struct load_state {
	struct ab_stored *out;
	size_t n, cap;
};

static int load_row(void *arg, const struct store_row *row)
{
	struct load_state *ls = arg;
	unsigned m;

	for (m = 0; m < ls->out->r.d.narms; m++)
		if (ls->out->config_id[m] == row->cfg->id)
			break;
	if (ls->n == ls->cap) {
		ls->cap = ls->cap ? 2 * ls->cap : 64;
		ls->out->samples = xrealloc(ls->out->samples, ls->cap * sizeof(*ls->out->samples));
		ls->out->obs = xrealloc(ls->out->obs, ls->cap * sizeof(*ls->out->obs));
	}
	ls->out->samples[ls->n] = *row->s;
	ls->out->obs[ls->n].arm = m; /* narms when the config is no arm: never in a unit */
	ls->n++;
	return 0;
}

int ab_load(struct store *st, const struct store_experiment *e, struct ab_stored *out, char *why,
	    size_t len)
{
	struct store_filter f = { .exp_id = e->id };
	struct load_state ls = { .out = out };
	struct ab_design d;
	struct store_config *cfgs;
	size_t ncfg, i;

	memset(out, 0, sizeof(*out));
	if (strcmp(e->kind, "ab")) {
		snprintf(why, len, "experiment %s is a %s, not an ab", e->uuid, e->kind);
		return -1;
	}
	if (ab_design_parse(e->params_json, e->workload, &d, why, len))
		return -1;
	if (store_list_configs(st, &f, &cfgs, &ncfg)) {
		snprintf(why, len, "its configs cannot be read");
		return -1;
	}
	if (ncfg != d.narms) {
		snprintf(why, len, "%zu configs for %u --feature tokens (an ab has %u arms)", ncfg,
			 d.nfeat, d.narms);
		store_configs_free(cfgs, ncfg);
		return -1;
	}
	out->r.d = d;
	for (i = 0; i < ncfg; i++) {
		out->config_id[i] = cfgs[i].id;
		out->arm_name[i] = xstrdup(cfgs[i].name);
	}
	store_configs_free(cfgs, ncfg);
	if (store_foreach_sample(st, &f, 0, load_row, &ls)) {
		snprintf(why, len, "its samples cannot be read");
		ab_stored_release(out);
		return -1;
	}
	for (i = 0; i < ls.n; i++)
		out->obs[i].s = &out->samples[i];
	ab_analyze(&d, out->obs, ls.n, &out->r);
	return 0;
}

void ab_stored_release(struct ab_stored *s)
{
	unsigned m;

	ab_result_release(&s->r);
	for (m = 0; m < AB_MAX_ARMS; m++)
		free(s->arm_name[m]);
	free(s->samples);
	free(s->obs);
	memset(s, 0, sizeof(*s));
}
