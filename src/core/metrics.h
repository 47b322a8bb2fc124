/*
 * metrics.h: the metric registry, the one place where a metric's name,
 * label, unit, direction and kind are spelled.
 *
 * Every value wakebench stores or prints under a name has one definition
 * here: the fixed fields of a sample (ops_per_s, ops_per_cpu_s, real_s),
 * the runner's /proc counters, perf's, the tracepoints', the sched/debug
 * sampler's, and every workload's own metrics (declared in the workload's
 * file as a `struct metric_def` array, wl->metrics, and found through the
 * workload registry). Producers name a metric and get its direction and
 * flags from here (sample_put(), sample_na()); consumers (run, ab, compare,
 * export, show, report, list and the generated docs) read labels, units and
 * directions from here, so that adding a metric is one line in one table
 * and a lower-is-better primary metric is treated right way round
 * everywhere.
 */
#ifndef WAKEBENCH_METRICS_H
#define WAKEBENCH_METRICS_H

#include <stddef.h>

#include "core/sample.h"

enum metric_agg {	       /* how one sample's value is formed from its tasks/instances */
		  AGG_SUM = 0, /* summed over tasks or instances (nvcsw, ops) */
		  AGG_RATE,    /* a total divided by time (ops_per_s) */
		  AGG_RATIO,   /* a total divided by another total (ctxsw_per_op) */
		  AGG_MEAN,    /* mean over instances (real_s) */
		  AGG_MAX,
		  AGG_HIST, /* a percentile of the histograms of all tasks, merged */
		  AGG_FLAG, /* 0/1 */
};

enum {				/* flags, in addition to METRIC_EVIDENCE from sample.h */
       METRIC_PER_OP = 1 << 1,	/* a count per op / per kop */
       METRIC_RAW = 1 << 2,	/* a raw sum: stored, shown with -v only */
       METRIC_PRIMARY = 1 << 3, /* may be a workload's primary metric */
};

struct metric_def {
	const char *name;  /* stored key, stable: "ops_per_s", "ctxsw_per_op" */
	const char *label; /* table label: "ops/s", "ctxsw/op" */
	const char *unit;  /* "ops/s", "ns", "s", "" for counts/ratios */
	int better;	   /* enum better (sample.h) */
	unsigned flags;	   /* METRIC_EVIDENCE | METRIC_PER_OP | METRIC_RAW | METRIC_PRIMARY */
	enum metric_agg agg;
	const char *source; /* "stress-ng", "/proc", "perf", "trace", "sched/debug", "runner",
			       or the workload's name for a workload's own metric */
	const char *help;   /* one line, for `list`, doc/commands.md and the man page */
	/*
	 * A percentile (AGG_HIST): its rank (0.99 for p99; 0 for any other
	 * metric) and the metric that counts the values it was read from in a
	 * sample. With fewer than 1/(1 - quantile) values the nearest rank is
	 * the largest value: p99 of 20 values is their maximum, as is p99.9.
	 */
	double quantile;
	const char *count;
};

/* The definition of a metric by name: the common table, then every workload's. NULL if none. */
const struct metric_def *metric_def(const char *name);
/* Every definition in display order (common ones first, then each workload's); NULL past the end.
 */
const struct metric_def *metric_def_at(size_t i);
/* Display order of a name (for sorting summaries); unknown names last. */
size_t metric_order(const char *name);

/*
 * A metric's unit as shown for a workload: "ops/s" becomes the workload's
 * own op per second ("round trips/s") when its op has a name other than
 * stress-ng's "bogo ops"; every other unit is the registry's. Written
 * into buf, which is returned.
 */
const char *metric_unit(const struct metric_def *d, const char *workload, char *buf, size_t len);

/*
 * The one name of a metric in every text for people (run's sample lines and
 * summary, ab, compare, show, report): its label, a rate of ops naming the
 * workload's op ("bogo ops/s (real time)" for pipe, as stress-ng's column,
 * "round trips/s (real time)" for pingpong, "ops/s (real time)" for a
 * workload this binary does not know). A time's label has no unit: its
 * values carry one, chosen per value (fmt_value()). Written into buf,
 * which is returned.
 */
const char *metric_title(const struct metric_def *d, const char *workload, char *buf, size_t len);
/*
 * metric_title() by name; a name without a definition is its own title, with
 * its control characters as visible escapes (util/text.h: it is stored text).
 */
const char *metric_title_of(const char *name, const char *workload, char *buf, size_t len);
/*
 * Why a metric was not measured, as every output says it: "unavailable
 * (REASON)", whether the stored reason already says "unavailable (...)" or
 * is the bare reason ("perf_event_paranoid=2"); "unavailable" without one.
 */
const char *metric_why_text(const char *why, char *buf, size_t len);
/*
 * Values a percentile needs to be more than the sample's largest value
 * (1/(1 - quantile), rounded up: 100 for p99, 1000 for p99.9); 0 for a
 * metric that is not a percentile.
 */
unsigned long metric_values_needed(const struct metric_def *d);

/*
 * The primary metric of a workload, by the workload's name as stored with
 * an experiment. A workload this binary does not know (a store imported
 * from a newer wakebench) and every workload without a primary of its own
 * get ops_per_s, which is what every store before the registry measured.
 * Never NULL.
 */
const struct metric_def *metric_primary(const char *workload);

/* "higher", "lower" or "neutral": the direction as `list`, export and the docs spell it. */
const char *metric_better_name(int better);

#endif
