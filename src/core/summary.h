/*
 * summary.h: the summary of one config (a run's, an ab arm's): per metric
 * the median with its distribution-free CI, the spread, the outliers, what
 * could not be measured and why. engine/summary.c computes it; `run`'s and
 * `ab`'s text and JSON render it (render/results.c).
 */
#ifndef WAKEBENCH_CORE_SUMMARY_H
#define WAKEBENCH_CORE_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/effect.h"
#include "core/sample.h"

/* Default noise threshold: a CV above it earns a warning. */
#define REPORT_CV_WARN 0.05
/* Confidence level of the summaries' intervals. */
#define REPORT_CONF 0.95

struct metric_summary {
	char name[METRIC_NAME_MAX];
	int better;
	bool available;		  /* measured in at least one usable sample */
	char why[METRIC_WHY_MAX]; /* when unavailable: the first reason given */
	struct summary sum;
	/* sample indices (struct sample.index) flagged as outliers */
	uint32_t *outliers;
	size_t noutliers;
	/*
	 * A percentile (metric_def.quantile): the fewest values a usable
	 * sample read it from (0: not known, e.g. a store from before the
	 * counts were kept) and the values it needs to be more than the
	 * sample's largest (metric_values_needed()); too_few_values when a
	 * sample had fewer.
	 */
	uint64_t fewest_values;
	unsigned long values_needed;
	bool too_few_values;
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

const struct metric_summary *report_summary_get(const struct report_summary *rs, const char *name);
/* True when the primary metric's CV exceeds rs->cv_warn. */
bool report_noisy(const struct report_summary *rs);

#endif
