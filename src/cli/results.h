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
#ifndef WAKEBENCH_CLI_RESULTS_H
#define WAKEBENCH_CLI_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "core/sample.h"
#include "stats/stats.h"
#include "sys/env.h"
#include "util/json.h"

/* Default noise threshold: a CV above it earns a warning. */
#define REPORT_CV_WARN 0.05
/* Confidence level of the summaries' intervals. */
#define REPORT_CONF 0.95

/* ---- one sample ---- */

/*
 * One line for a completed sample: "sample 2/5: 1234567.89 ops/s (...)",
 * the primary metric of the workload (by name) first, then ops/s when the
 * primary is another metric;
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

/* ---- the summary of one config ---- */

struct metric_summary {
	char name[METRIC_NAME_MAX];
	int better;
	bool available;		  /* measured in at least one usable sample */
	char why[METRIC_WHY_MAX]; /* when unavailable: the first reason given */
	struct summary sum;
	/* sample indices (struct sample.index) flagged as outliers */
	uint32_t *outliers;
	size_t noutliers;
};

struct report_summary {
	size_t nsamples; /* usable: status ok and not a warm-up */
	size_t nwarmup;
	size_t nfailed;
	size_t ninterrupted;
	size_t nmetrics;
	struct metric_summary *m; /* the primary, ops_per_s, ops_per_cpu_s, then named metrics */
	double cv_warn;
	char primary[METRIC_NAME_MAX]; /* the registry name of the primary metric */
};

/*
 * Summarise the usable samples of s[0..n) (warm-ups, failed and
 * interrupted samples are counted but excluded). primary is the registry
 * name of the workload's primary metric (NULL: ops_per_s): it comes first
 * and decides the noise warning. Returns 0, or -1 when the
 * statistics could not be computed (already reported).
 */
int report_summarize(const struct sample *s, size_t n, const char *primary,
		     struct report_summary *rs);
void report_summary_release(struct report_summary *rs);
const struct metric_summary *report_summary_get(const struct report_summary *rs, const char *name);
/* True when the primary metric's CV exceeds rs->cv_warn. */
bool report_noisy(const struct report_summary *rs);

/*
 * The unit of a workload's primary metric as tables show it ("ops/s",
 * "round trips/s", "s", "ns"), into buf or a constant.
 */
const char *report_primary_unit(const char *workload, char *buf, size_t len);

/*
 * The summary table: per metric n, median, 95% CI of the median (or "n too
 * small"), mean, stddev, CV, min, max, outliers; counters per op;
 * unavailable counters with their reason; the noise warning.
 */
void report_summary_text(FILE *f, const char *title, const struct report_summary *rs);

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
