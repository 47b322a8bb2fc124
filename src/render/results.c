/*
 * results.c: printing samples and summaries (see results.h). Text is for
 * people and keeps to one line per sample so a long run can be watched;
 * --metrics-brief reproduces stress-ng's table byte for byte so existing
 * scripts and eyes can read wakebench's numbers; JSON is built with json-c
 * and carries everything, including what could not be measured and why.
 *
 * The summaries themselves come from engine/summary.c; this file only
 * lays the numbers out.
 */
#include "render/results.h"
#include "core/metrics.h"
#include "util/number.h"
#include "util/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers ---- */

static void fmt_clock(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = ns / 1000000000ULL;

	if (s >= 3600)
		snprintf(buf, len, "%llu:%02llu:%02llu", (unsigned long long)(s / 3600),
			 (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
	else
		snprintf(buf, len, "%llu:%02llu", (unsigned long long)(s / 60),
			 (unsigned long long)(s % 60));
}

/* ---- metric names ---- */

static bool metric_is_raw(const char *name)
{
	const struct metric_def *d = metric_def(name);

	return d && (d->flags & METRIC_RAW);
}

const char *report_primary_unit(const char *workload, char *buf, size_t len)
{
	return metric_unit(metric_primary(workload), workload, buf, len);
}

/* ---- one sample ---- */

/* sep, "label value": the value by the one formatter, a time with its unit. */
static void sample_metric_text(FILE *f, const char *sep, const struct sample *s, const char *name,
			       const char *workload)
{
	const struct metric *m = sample_get(s, name);
	const struct metric_def *d = metric_def(name);
	char v[64], title[96];

	if (!m)
		return;
	metric_title_of(name, workload, title, sizeof(title));
	if (!m->available) {
		fprintf(f, "%s%s n/a", sep, title);
		return;
	}
	fmt_value(m->value, d ? d->unit : "", v, sizeof(v));
	fprintf(f, "%s%s %s", sep, title, v);
}

void report_sample_text(FILE *f, const char *title, const struct sample *s, unsigned ordinal,
			unsigned total, const char *workload)
{
	const struct metric_def *p = metric_primary(workload);
	char ops[32], real[32], usr[32], sys[32];

	if (title)
		fprintf(f, "[%s] ", title);
	if (s->warmup)
		fprintf(f, "warm-up:");
	else
		fprintf(f, "sample %u/%u:", ordinal, total);
	if (s->status != SAMPLE_OK) {
		const char *st = sample_status_name(s->status);
		bool says = !strncmp(s->reason, st, strlen(st)); /* "interrupted by SIGINT" */

		text_line(f, " %s%s%s%s", says ? "" : st, says ? "" : ": ",
			  s->reason[0] ? s->reason : "no reason given",
			  s->warmup ? " (warm-up, discarded)" : " (excluded from statistics)");
		return;
	}
	/* the primary, then ops/s when it is another metric: by their summary names */
	sample_metric_text(f, " ", s, p->name, workload);
	if (strcmp(p->name, "ops_per_s"))
		sample_metric_text(f, "  ", s, "ops_per_s", workload);
	fmt_count(s->ops, ops, sizeof(ops));
	fmt_time(s->real_s, real, sizeof(real));
	fmt_time(s->usr_s, usr, sizeof(usr));
	fmt_time(s->sys_s, sys, sizeof(sys));
	fprintf(f, "  ops %s  real %s  usr %s  sys %s", ops, real, usr, sys);
	sample_metric_text(f, "  ", s, "ctxsw_per_op", workload);
	sample_metric_text(f, "  ", s, "migrations_per_kop", workload);
	sample_metric_text(f, "  ", s, "run_delay_ns_per_op", workload);
	if (s->warmup)
		fprintf(f, "  (discarded)");
	fputc('\n', f);
}

void report_metrics_brief(FILE *f, long pid, const char *name, const struct sample *s,
			  bool misc_mbps)
{
	const struct metric *mb = sample_get(s, "mb_per_s_geomean");

	fprintf(f, "wakebench: metrc: [%ld] ", pid);
	fprintf(f, "%-13s %9.9s %9.9s %9.9s %9.9s %12s %14s\n", "stressor", "bogo ops", "real time",
		"usr time", "sys time", "bogo ops/s", "bogo ops/s");
	fprintf(f, "wakebench: metrc: [%ld] ", pid);
	fprintf(f, "%-13s %9.9s %9.9s %9.9s %9.9s %12s %14s\n", "", "", "(secs) ", "(secs) ",
		"(secs) ", "(real time)", "(usr+sys time)");
	fprintf(f, "wakebench: metrc: [%ld] ", pid);
	fprintf(f, "%-13s %9llu %9.2f %9.2f %9.2f %12.2f %14.2f\n", name,
		(unsigned long long)s->ops, s->real_s, s->usr_s, s->sys_s, s->ops_per_s,
		s->ops_per_cpu_s);
	if (misc_mbps && mb && mb->available) {
		fprintf(f, "wakebench: metrc: [%ld] miscellaneous metrics:\n", pid);
		fprintf(f, "wakebench: metrc: [%ld] ", pid);
		fprintf(f, "%-13s %13.2f %s (geometic mean of %u instances)\n", name, mb->value,
			"MB per sec pipe write rate", s->instances);
	}
}

/* ---- the summary ---- */

static void outliers_text(const struct metric_summary *ms, char *buf, size_t len)
{
	size_t used = 0, i;

	if (!ms->noutliers) {
		snprintf(buf, len, "-");
		return;
	}
	buf[0] = '\0';
	for (i = 0; i < ms->noutliers; i++) {
		int w = snprintf(buf + used, len - used, "%s#%u", i ? "," : "",
				 (unsigned)ms->outliers[i]);

		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
}

/* The metric column: wide enough for the longest name shown (26 at least). */
static int label_width(const struct report_summary *rs, const char *workload)
{
	size_t k, w = 26;
	char title[96];

	for (k = 0; k < rs->nmetrics; k++) {
		size_t l = strlen(metric_title_of(rs->m[k].name, workload, title, sizeof(title)));

		if (l > w && !metric_is_raw(rs->m[k].name))
			w = l;
	}
	return (int)w;
}

static void summary_row(FILE *f, const struct metric_summary *ms, int w, const char *workload)
{
	const struct summary *su = &ms->sum;
	const struct metric_def *d = metric_def(ms->name);
	const char *unit = d ? d->unit : "";
	char med[48], lo[48], hi[48], ci[120], mean[48], sd[48], cv[16], mn[48], mx[48];
	char out[128], title[96];

	fmt_value(su->median, unit, med, sizeof(med));
	if (su->ci_valid) {
		fmt_value(su->ci_lo, unit, lo, sizeof(lo));
		fmt_value(su->ci_hi, unit, hi, sizeof(hi));
		if (su->ci_below_conf)
			snprintf(ci, sizeof(ci), "  [%s, %s] %.1f%%", lo, hi, su->ci_level * 100.0);
		else
			snprintf(ci, sizeof(ci), "  [%s, %s]", lo, hi);
	} else {
		snprintf(ci, sizeof(ci), "  n too small");
	}
	fmt_value(su->mean, unit, mean, sizeof(mean));
	fmt_value(su->n >= 2 ? su->stddev : NAN, unit, sd, sizeof(sd));
	if (su->n >= 2 && isfinite(su->cv))
		snprintf(cv, sizeof(cv), "%.1f%%", su->cv * 100.0);
	else
		snprintf(cv, sizeof(cv), "-");
	fmt_value(su->min, unit, mn, sizeof(mn));
	fmt_value(su->max, unit, mx, sizeof(mx));
	outliers_text(ms, out, sizeof(out));
	fprintf(f, "  %-*s %3zu %12s %-27s %12s %12s %7s %12s %12s  %s\n", w,
		metric_title_of(ms->name, workload, title, sizeof(title)), su->n, med, ci, mean, sd,
		cv, mn, mx, out);
}

/*
 * Percentiles read from fewer values than they need are the sample's
 * largest value, whatever their rank: one line per histogram (per count
 * metric), naming every percentile of it that is so.
 */
static void too_few_text(FILE *f, const struct report_summary *rs, const char *workload)
{
	size_t k, j;
	char title[96];

	for (k = 0; k < rs->nmetrics; k++) {
		const struct metric_summary *ms = &rs->m[k];
		const struct metric_def *d = metric_def(ms->name), *dj;
		size_t named = 0;

		if (!ms->available || !ms->too_few_values || !d || !d->count)
			continue;
		/* the first of its histogram speaks for all of them */
		for (j = 0; j < k; j++)
			if (rs->m[j].available && rs->m[j].too_few_values &&
			    (dj = metric_def(rs->m[j].name)) && dj->count &&
			    !strcmp(dj->count, d->count))
				break;
		if (j < k)
			continue;
		fprintf(f, "  warning: ");
		for (j = k; j < rs->nmetrics; j++) {
			const struct metric_summary *mj = &rs->m[j];

			if (!mj->available || !mj->too_few_values || !(dj = metric_def(mj->name)) ||
			    !dj->count || strcmp(dj->count, d->count))
				continue;
			fprintf(f, "%s%s (needs %lu values)", named++ ? ", " : "",
				metric_title(dj, workload, title, sizeof(title)),
				mj->values_needed);
		}
		fprintf(f,
			" rest%s on as few as %llu values in a sample (%s): each is that sample's "
			"largest value, not its percentile; longer samples (-t) measure more\n",
			named == 1 ? "s" : "", (unsigned long long)ms->fewest_values,
			metric_title_of(d->count, workload, title, sizeof(title)));
	}
}

void report_summary_text(FILE *f, const char *title, const struct report_summary *rs,
			 const char *workload)
{
	size_t k;
	bool any_unavailable = false;
	int w = label_width(rs, workload);
	char name[96], why[METRIC_WHY_MAX + 16];

	fprintf(f, "\n");
	if (title)
		fprintf(f, "[%s] ", title);
	fprintf(f, "summary: %zu sample%s", rs->nsamples, rs->nsamples == 1 ? "" : "s");
	if (rs->nwarmup)
		fprintf(f, ", %zu warm-up excluded", rs->nwarmup);
	if (rs->nfailed)
		fprintf(f, ", %zu failed excluded", rs->nfailed);
	if (rs->ninterrupted)
		fprintf(f, ", %zu interrupted excluded", rs->ninterrupted);
	fprintf(f, "\n");
	if (!rs->nsamples) {
		fprintf(f, "  no usable sample: nothing to summarise\n");
		return;
	}
	fprintf(f, "  %-*s %3s %12s %-27s %12s %12s %7s %12s %12s  %s\n", w, "metric", "n",
		"median", "  95% CI of the median", "mean", "stddev", "CV", "min", "max",
		"outliers");
	for (k = 0; k < rs->nmetrics; k++) {
		if (!rs->m[k].available) {
			any_unavailable = true;
			continue;
		}
		if (!metric_is_raw(rs->m[k].name))
			summary_row(f, &rs->m[k], w, workload);
	}
	if (any_unavailable) {
		for (k = 0; k < rs->nmetrics; k++)
			if (!rs->m[k].available)
				fprintf(f, "  %-*s %s\n", w,
					metric_title_of(rs->m[k].name, workload, name,
							sizeof(name)),
					metric_why_text(rs->m[k].why, why, sizeof(why)));
	}
	too_few_text(f, rs, workload);
	if (report_noisy(rs)) {
		const struct metric_summary *p = report_summary_get(rs, rs->primary);

		fprintf(f,
			"  warning: noisy: the CV of %s is %.1f%% (above %.0f%%); "
			"differences smaller than that need more samples (-n)\n",
			metric_title_of(p->name, workload, name, sizeof(name)), p->sum.cv * 100.0,
			rs->cv_warn * 100.0);
	}
}

void report_summary_line(FILE *f, const char *title, int width, const struct report_summary *rs,
			 const char *workload)
{
	const struct metric_summary *p = report_summary_get(rs, rs->primary);
	const struct summary *su = p ? &p->sum : NULL;
	const struct metric_def *d = p ? metric_def(p->name) : NULL;
	const char *unit = d ? d->unit : "";
	char med[32], lo[32], hi[32], ci[96] = "n too small for a CI", cv[48] = "", mtitle[64];

	fprintf(f, "%-*s ", width, title);
	if (!rs->nsamples || !p || !p->available) {
		fprintf(f, "no usable sample\n");
		return;
	}
	fmt_value(su->median, unit, med, sizeof(med));
	if (su->ci_valid) {
		fmt_value(su->ci_lo, unit, lo, sizeof(lo));
		fmt_value(su->ci_hi, unit, hi, sizeof(hi));
		/* the table's: the attained level only when below the 95% asked for */
		if (su->ci_below_conf)
			snprintf(ci, sizeof(ci), "%.1f%% CI %s, %s", su->ci_level * 100.0, lo, hi);
		else
			snprintf(ci, sizeof(ci), "95%% CI %s, %s", lo, hi);
	}
	if (su->n >= 2 && isfinite(su->cv))
		snprintf(cv, sizeof(cv), ", CV %.1f%%%s", su->cv * 100.0,
			 report_noisy(rs) ? " (noisy)" : "");
	fprintf(f, "%s median %s [%s]%s, %zu sample%s",
		metric_title_of(p->name, workload, mtitle, sizeof(mtitle)), med, ci, cv,
		rs->nsamples, rs->nsamples == 1 ? "" : "s");
	if (rs->nfailed)
		fprintf(f, ", %zu failed excluded", rs->nfailed);
	if (rs->ninterrupted)
		fprintf(f, ", %zu interrupted excluded", rs->ninterrupted);
	fprintf(f, "\n");
}

/* ---- environment and profile ---- */

static const char *env_or(const struct env *env, const char *key, const char *absent)
{
	const char *v = env_get(env, key);

	return v && *v ? v : absent;
}

void report_env_text(FILE *f, const struct env *env)
{
	text_line(f,
		  "environment: kernel %s, preemption %s, CPUs online %s (allowed %s), governor %s",
		  env_or(env, "kernel.release", "unknown"),
		  env_or(env, "kernel.preempt", "unknown"), env_or(env, "cpu.online", "unknown"),
		  env_or(env, "cpu.allowed", "unknown"), env_or(env, "cpu.governor", "unknown"));
}

void report_profile_text(FILE *f, const char *workload, const char *profile)
{
	text_line(f, "workload: %s, profile: %s", workload, profile ? profile : "none");
}

/* ---- JSON ---- */

json_object *report_sample_json(const struct sample *s)
{
	json_object *o = json_object_new_object(), *m = json_object_new_object();
	size_t i;

	json_object_object_add(o, "index", json_object_new_int64(s->index));
	json_object_object_add(o, "warmup", json_object_new_boolean(s->warmup));
	json_object_object_add(o, "status", json_object_new_string(sample_status_name(s->status)));
	json_object_object_add(o, "reason",
			       s->reason[0] ? json_object_new_string(s->reason) : NULL);
	json_object_object_add(o, "start_realtime_ns",
			       json_object_new_uint64(s->start_realtime_ns));
	json_object_object_add(o, "duration_ns", json_object_new_uint64(s->duration_ns));
	json_object_object_add(o, "wall_ns", json_object_new_uint64(s->wall_ns));
	json_object_object_add(o, "instances", json_object_new_int64(s->instances));
	json_object_object_add(o, "ops", json_object_new_uint64(s->ops));
	json_object_object_add(o, "real_s", json_double(s->real_s));
	json_object_object_add(o, "usr_s", json_double(s->usr_s));
	json_object_object_add(o, "sys_s", json_double(s->sys_s));
	json_object_object_add(o, "ops_per_s", json_double(s->ops_per_s));
	json_object_object_add(o, "ops_per_cpu_s", json_double(s->ops_per_cpu_s));
	for (i = 0; i < s->nmetrics; i++) {
		const struct metric *mt = &s->metrics[i];
		json_object *e = json_object_new_object();

		json_object_object_add(e, "value", mt->available ? json_double(mt->value) : NULL);
		json_object_object_add(e, "available", json_object_new_boolean(mt->available));
		if (!mt->available)
			json_object_object_add(e, "why", json_object_new_string(mt->why));
		json_object_object_add(e, "better",
				       json_object_new_string(metric_better_name(mt->better)));
		json_object_object_add(m, mt->name, e);
	}
	json_object_object_add(o, "metrics", m);
	return o;
}

json_object *report_summary_json(const struct report_summary *rs)
{
	json_object *o = json_object_new_object(), *ms = json_object_new_object();
	size_t k, i;

	json_object_object_add(o, "samples", json_object_new_int64((int64_t)rs->nsamples));
	json_object_object_add(o, "warmup", json_object_new_int64((int64_t)rs->nwarmup));
	json_object_object_add(o, "failed", json_object_new_int64((int64_t)rs->nfailed));
	json_object_object_add(o, "interrupted", json_object_new_int64((int64_t)rs->ninterrupted));
	json_object_object_add(o, "confidence", json_double(REPORT_CONF));
	json_object_object_add(o, "cv_warn", json_double(rs->cv_warn));
	json_object_object_add(o, "noisy", json_object_new_boolean(report_noisy(rs)));
	for (k = 0; k < rs->nmetrics; k++) {
		const struct metric_summary *m = &rs->m[k];
		const struct summary *su = &m->sum;
		json_object *e = json_object_new_object(), *out;

		json_object_object_add(e, "available", json_object_new_boolean(m->available));
		json_object_object_add(e, "better",
				       json_object_new_string(metric_better_name(m->better)));
		if (!m->available) {
			json_object_object_add(e, "why", json_object_new_string(m->why));
			json_object_object_add(ms, m->name, e);
			continue;
		}
		json_object_object_add(e, "n", json_object_new_int64((int64_t)su->n));
		json_object_object_add(e, "median", json_double(su->median));
		if (su->ci_valid) {
			json_object *ci = json_object_new_object();

			json_object_object_add(ci, "lo", json_double(su->ci_lo));
			json_object_object_add(ci, "hi", json_double(su->ci_hi));
			json_object_object_add(ci, "level", json_double(su->ci_level));
			json_object_object_add(e, "median_ci", ci);
			if (su->ci_below_conf)
				json_object_object_add(
					e, "median_ci_note",
					json_object_new_string("[min, max], the widest interval: "
							       "below the level asked for"));
		} else {
			json_object_object_add(e, "median_ci", NULL);
			json_object_object_add(e, "median_ci_note",
					       json_object_new_string("n too small"));
		}
		json_object_object_add(e, "mean", json_double(su->mean));
		json_object_object_add(e, "stddev", json_double(su->n >= 2 ? su->stddev : NAN));
		json_object_object_add(e, "cv", json_double(su->n >= 2 ? su->cv : NAN));
		json_object_object_add(e, "min", json_double(su->min));
		json_object_object_add(e, "max", json_double(su->max));
		out = json_object_new_array();
		for (i = 0; i < m->noutliers; i++)
			json_object_array_add(out, json_object_new_int64(m->outliers[i]));
		json_object_object_add(e, "outlier_samples", out);
		if (m->values_needed) {
			/* a percentile: how many values it rests on, and whether enough */
			json_object_object_add(e, "values_needed",
					       json_object_new_int64((int64_t)m->values_needed));
			json_object_object_add(
				e, "fewest_values",
				m->fewest_values ? json_object_new_int64((int64_t)m->fewest_values)
						 : NULL);
			json_object_object_add(e, "too_few_values",
					       json_object_new_boolean(m->too_few_values));
		}
		json_object_object_add(ms, m->name, e);
	}
	json_object_object_add(o, "metrics", ms);
	return o;
}

json_object *report_env_json(const struct env *env)
{
	json_object *o = json_object_new_object();
	size_t i;

	for (i = 0; i < env->n; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "value", json_object_new_string(env->e[i].value));
		json_object_object_add(e, "impact",
				       json_object_new_string(env_impact_name(env->e[i].impact)));
		json_object_object_add(o, env->e[i].key, e);
	}
	return o;
}

/* ---- progress ---- */

void progress_init(struct progress *p, bool enabled, unsigned total)
{
	memset(p, 0, sizeof(*p));
	p->enabled = enabled;
	p->total = total;
	p->start_ns = now_ns();
}

void progress_show(struct progress *p, const char *title, unsigned next, double median,
		   const char *unit)
{
	uint64_t elapsed = now_ns() - p->start_ns;
	char el[32], eta[32], med[32], safe[256];

	if (!p->enabled)
		return;
	fmt_clock(elapsed, el, sizeof(el));
	if (p->done)
		fmt_clock(elapsed / p->done * (p->total > p->done ? p->total - p->done : 0), eta,
			  sizeof(eta));
	else
		snprintf(eta, sizeof(eta), "?");
	if (median > 0)
		fmt_quantity(median, unit ? unit : "ops/s", med, sizeof(med));
	else
		snprintf(med, sizeof(med), "-");
	if (title)
		text_printable_buf(title, 0, safe, sizeof(safe));
	fprintf(stderr, "\r\033[Kwakebench: %s%s%ssample %u/%u  elapsed %s  ETA %s  median %s",
		title ? "[" : "", title ? safe : "", title ? "] " : "", next, p->total, el, eta,
		med);
	fflush(stderr);
	p->shown = true;
}

void progress_clear(struct progress *p)
{
	if (!p->enabled || !p->shown)
		return;
	fprintf(stderr, "\r\033[K");
	fflush(stderr);
	p->shown = false;
}
