/*
 * reproduce.c: the verdict of `wakebench reproduce` (core/reproduce.h) as
 * text and JSON: the posted figure, this run's mean and interval, the
 * verdict line, the environment differences strongest first, and the keys
 * the posted side does not record (the strong ones by name in text, every
 * one in JSON).
 */
#include "render/reproduce.h"
#include "core/metrics.h"
#include "render/results.h"
#include "util/json.h"
#include "util/number.h"
#include "util/text.h"

#include <math.h>
#include <string.h>

const char *reproduce_outcome_key(enum reproduce_outcome o)
{
	switch (o) {
	case REPRODUCE_REPRODUCED:
		return "reproduced";
	case REPRODUCE_NOT_REPRODUCED:
		return "not-reproduced";
	case REPRODUCE_UNDECIDED:
		break;
	}
	return "undecided";
}

static void value_text(const char *wl, double v, char *buf, size_t len)
{
	char unit[64];

	fmt_value(v, report_primary_unit(wl, unit, sizeof(unit)), buf, len);
}

static void print_delta(FILE *f, const struct reproduce_delta *d)
{
	fprintf(f, "  %-8s  ", env_impact_name(d->impact));
	text_fput(f, d->key, 0);
	if (d->change[0]) {
		fputs("\n            ", f);
		text_fold(f, d->change, 12, 12, 100);
	}
	fputs("\n            posted: ", f);
	text_fold(f, d->posted ? d->posted : "(not recorded)", 20, 20, 100);
	fputs("\n            here:   ", f);
	text_fold(f, d->here ? d->here : "(not recorded here)", 20, 20, 100);
	fputc('\n', f);
}

static void print_verdict_line(FILE *f, const struct reproduce_verdict *rv, const char *wl)
{
	char lo[64], hi[64];

	if (rv->outcome == REPRODUCE_UNDECIDED) {
		text_line(f, "verdict: undecided: %s", rv->why);
		return;
	}
	value_text(wl, rv->accept_lo, lo, sizeof(lo));
	value_text(wl, rv->accept_hi, hi, sizeof(hi));
	if (rv->outcome == REPRODUCE_REPRODUCED)
		fprintf(f, "verdict: reproduced (the posted value lies within %s .. %s)\n", lo, hi);
	else
		fprintf(f,
			"verdict: not reproduced: %.1f%% %s here (the posted value lies outside "
			"%s .. %s)\n",
			fabs(rv->rel) * 100.0, rv->rel < 0 ? "lower" : "higher", lo, hi);
}

/*
 * Keys the posted side does not record: the strong ones by name (each could
 * matter), the others counted by impact (every name is in --format json).
 */
static void print_unknown(FILE *f, const struct reproduce_verdict *rv)
{
	size_t count[IMPACT_RUN + 1] = { 0 }, i, k = 0;
	enum impact imp;

	fprintf(f, "\nunknown on the posted side (not recorded there): %zu key%s", rv->nunknown,
		rv->nunknown == 1 ? "" : "s");
	for (i = 0; i < rv->nunknown; i++) {
		count[rv->unknown[i].impact]++;
		if (rv->unknown[i].impact != IMPACT_STRONG)
			continue;
		fprintf(f, k++ % 4 ? ", " : "\n  ");
		text_fput(f, rv->unknown[i].key, 0);
	}
	for (imp = IMPACT_MEDIUM; imp <= IMPACT_RUN; imp++)
		if (count[imp])
			fprintf(f, "%s%zu %s",
				k++ ? imp == IMPACT_MEDIUM ? "\n  and " : ", " : "\n  ", count[imp],
				env_impact_name(imp));
	fputc('\n', f);
}

void reproduce_verdict_text(FILE *f, const struct reproduce_verdict *rv, const char *wl)
{
	char title[96], a[64], b[64], c[64];
	size_t i;

	metric_title_of(rv->metric, wl, title, sizeof(title));
	value_text(wl, rv->posted_mean, a, sizeof(a));
	if (rv->posted_n >= 2) {
		value_text(wl, rv->posted_spread, b, sizeof(b));
		text_line(f, "posted: %s %s (mean of %zu runs, sd %s), %s", title, a, rv->posted_n,
			  b, rv->posted_by);
	} else {
		text_line(f, "posted: %s %s (1 run, spread unknown), %s", title, a, rv->posted_by);
	}
	value_text(wl, rv->run_median, a, sizeof(a));
	value_text(wl, rv->ci_lo, b, sizeof(b));
	value_text(wl, rv->ci_hi, c, sizeof(c));
	if (isfinite(rv->ci_lo))
		text_line(f, "here:   %s %s (median), %.0f%% CI %s .. %s (%zu samples), %s", title,
			  a, rv->level * 100, b, c, rv->run_n, rv->here_by);
	else
		text_line(f, "here:   %s %s (%zu sample%s), %s", title, rv->run_n ? a : "-",
			  rv->run_n, rv->run_n == 1 ? "" : "s", rv->here_by);
	print_verdict_line(f, rv, wl);
	if (rv->ndiff)
		fprintf(f,
			"\n%zu environment difference%s that could explain a gap (strongest "
			"first):\n",
			rv->ndiff, rv->ndiff == 1 ? "" : "s");
	else
		fprintf(f, "\nno environment differences in the keys the posted side records\n");
	for (i = 0; i < rv->ndiff; i++)
		print_delta(f, &rv->diff[i]);
	if (rv->nunknown)
		print_unknown(f, rv);
}

static json_object *delta_json(const struct reproduce_delta *d)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "key", json_object_new_string(d->key));
	json_object_object_add(o, "impact", json_object_new_string(env_impact_name(d->impact)));
	json_object_object_add(o, "posted", json_str_or_null(d->posted));
	json_object_object_add(o, "here", json_str_or_null(d->here));
	if (d->change[0])
		json_object_object_add(o, "change", json_object_new_string(d->change));
	return o;
}

json_object *reproduce_verdict_json(const struct reproduce_verdict *rv)
{
	json_object *o = json_object_new_object(), *p = json_object_new_object(),
		    *h = json_object_new_object(), *d = json_object_new_array(),
		    *u = json_object_new_array();
	size_t i;

	json_object_object_add(o, "outcome",
			       json_object_new_string(reproduce_outcome_key(rv->outcome)));
	json_object_object_add(o, "metric", json_object_new_string(rv->metric));
	json_object_object_add(p, "n", json_object_new_uint64(rv->posted_n));
	json_object_object_add(p, "mean", json_double(rv->posted_mean));
	json_object_object_add(p, "spread", json_double(rv->posted_spread));
	json_object_object_add(p, "by", json_object_new_string(rv->posted_by));
	json_object_object_add(o, "posted", p);
	json_object_object_add(h, "n", json_object_new_uint64(rv->run_n));
	json_object_object_add(h, "failed", json_object_new_uint64(rv->run_failed));
	json_object_object_add(h, "median", json_double(rv->run_median));
	json_object_object_add(h, "ci_lo", json_double(rv->ci_lo));
	json_object_object_add(h, "ci_hi", json_double(rv->ci_hi));
	json_object_object_add(h, "level", json_double(rv->level));
	json_object_object_add(h, "by", json_object_new_string(rv->here_by));
	json_object_object_add(o, "here", h);
	json_object_object_add(o, "accept_lo", json_double(rv->accept_lo));
	json_object_object_add(o, "accept_hi", json_double(rv->accept_hi));
	json_object_object_add(o, "relative", json_double(rv->rel));
	json_object_object_add(o, "why", rv->why[0] ? json_object_new_string(rv->why) : NULL);
	for (i = 0; i < rv->ndiff; i++)
		json_object_array_add(d, delta_json(&rv->diff[i]));
	for (i = 0; i < rv->nunknown; i++)
		json_object_array_add(u, json_object_new_string(rv->unknown[i].key));
	json_object_object_add(o, "differences", d);
	json_object_object_add(o, "unknown", u);
	return o;
}
