/*
 * results.h: how samples and summaries are shown to people and tools: a
 * text line per sample, stress-ng's --metrics-brief table, the summary of
 * one config (median with its distribution-free CI, spread, outliers,
 * counters per op, what could not be measured and why, the noise warning),
 * the key environment facts, JSON objects (json-c) for --format json, and
 * the progress line on a terminal.
 *
 * Shared by `run` and `ab`: every printer takes a title (the config or arm
 * name, or NULL) so that an A/B comparison prints each arm the same way.
 */
#ifndef WAKEBENCH_RENDER_RESULTS_H
#define WAKEBENCH_RENDER_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "core/env.h"
#include "core/sample.h"
#include "core/summary.h"
#include "util/json.h"

/* ---- one sample ---- */

/*
 * One line for a completed sample: "sample 2/5: bogo ops/s (real time)
 * 1 235 000  ops 2 470 000  real 2 s ...": the primary metric of the
 * workload first, then ops/s when the primary is another metric, each
 * under the name the summary gives it (metric_title()), numbers by
 * util/number.h;
 * warm-ups say so, failed and interrupted samples give their reason.
 * ordinal is 1-based among measured samples (ignored for warm-ups); total
 * is the planned number of measured samples. title may be NULL.
 */
void report_sample_text(FILE *f, const char *title, const struct sample *s, unsigned ordinal,
			unsigned total, const char *workload);

/*
 * stress-ng's --metrics-brief table for one sample, every line prefixed
 * "wakebench: metrc: [pid] ". name is the stressor column ("pipe").
 * misc_mbps adds stress-ng 0.15's "miscellaneous metrics:" MB/s line (when
 * the sample has mb_per_s_geomean).
 */
void report_metrics_brief(FILE *f, long pid, const char *name, const struct sample *s,
			  bool misc_mbps);

/*
 * The unit of a workload's primary metric as tables show it ("ops/s",
 * "round trips/s", "s", "ns"), into buf or a constant.
 */
const char *report_primary_unit(const char *workload, char *buf, size_t len);

/*
 * The summary table: per metric n, median, 95% CI of the median (or "n too
 * small"), mean, stddev, CV, min, max, outliers; counters per op;
 * unavailable counters with their reason; percentiles read from too few
 * values; the noise warning. Metrics are named as for workload.
 */
void report_summary_text(FILE *f, const char *title, const struct report_summary *rs,
			 const char *workload);
/*
 * The same summary in one line, the primary metric only (ab's arms):
 * "TITLE  bogo ops/s (real time) median 1 235 [95% CI 1 200, 1 300], CV 1.2%,
 * 10 samples", title padded to width, "(noisy)" after a CV above the limit.
 */
void report_summary_line(FILE *f, const char *title, int width, const struct report_summary *rs,
			 const char *workload);

/* Key environment facts: kernel release, preemption, CPUs, governor. */
void report_env_text(FILE *f, const struct env *env);
/* The profile line: "profile: stress-ng-0.15" or "custom (based on ...)". */
void report_profile_text(FILE *f, const char *workload, const char *profile);

/* ---- JSON (json-c objects; the caller owns the reference) ---- */

json_object *report_sample_json(const struct sample *s);
json_object *report_summary_json(const struct report_summary *rs);
json_object *report_env_json(const struct env *env);

/* ---- progress on a terminal ---- */

struct progress {
	bool enabled;
	uint64_t start_ns;
	unsigned done, total; /* measured samples */
	bool shown;
};

void progress_init(struct progress *p, bool enabled, unsigned total);
/*
 * Show "sample i/n, elapsed, ETA, running median" on stderr before sample
 * i runs. median <= 0 or NaN: not known yet.
 */
void progress_show(struct progress *p, const char *title, unsigned next, double median,
		   const char *unit);
/* Erase the progress line (before results are printed to stdout). */
void progress_clear(struct progress *p);

#endif
