/*
 * ab.h: the result of one `ab` experiment, the one struct every output
 * renders: ab's text and JSON, `show`, `compare` and `report` (whose row for
 * the arms of one ab is this paired effect), `export` and its KCIDB tests
 * and LAVA cases. engine/ab.c computes it, from a run or from the store;
 * nothing else computes ab statistics.
 *
 * The design is what the run fixed before its first look: the tokens, the
 * margin, and the sequential engine's plan and levels (stored in the
 * experiment's parameters as "design"), so that the numbers computed again
 * from the stored samples are the numbers the run printed.
 */
#ifndef WAKEBENCH_CORE_AB_H
#define WAKEBENCH_CORE_AB_H

#include <stdbool.h>
#include <stddef.h>

#include "core/effect.h"
#include "core/env.h"
#include "core/sample.h"
#include "core/summary.h"

#define AB_MAX_FEATURES 2
#define AB_MAX_ARMS	(1u << AB_MAX_FEATURES)
#define AB_MAX_EFFECTS	3  /* two main effects and their interaction */
#define AB_TOKEN_MAX	68 /* "NO_" and a feature name */

struct ab_design {
	unsigned nfeat, narms;
	char token[AB_MAX_FEATURES][AB_TOKEN_MAX]; /* the treatment: B applies it */
	char metric[METRIC_NAME_MAX];		   /* the workload's primary metric */
	int better;				   /* its direction */
	double margin;
	bool until_decided;
	size_t max_samples;	     /* --max-samples as asked (the wording of the budget) */
	size_t budget;		     /* units the decision was planned for */
	bool time_planned;	     /* the budget is what fitted in --max-time */
	double alpha_two, alpha_one; /* per-look levels */
	double vif;		     /* serial-correlation allowance */
	size_t looks, planned_looks;
	enum stats_seq_stop stop;
	/* the store held no design (an older wakebench): levels rebuilt from the parameters */
	bool rebuilt;
};

/* One effect line: a main effect or the interaction, of the primary or an evidence metric. */
struct ab_line {
	char what[AB_TOKEN_MAX]; /* a token, or "interaction" */
	char metric[METRIC_NAME_MAX];
	struct stats_seq_effect s;
	char verdict[320]; /* in words, as every output says it */
};

/* An evidence metric, in the order of the first usable sample. */
struct ab_evidence {
	char metric[METRIC_NAME_MAX];
	char why[METRIC_WHY_MAX]; /* why it was never measured; empty when it was */
};

struct ab_result {
	struct ab_design d;
	/* the observations, in run order: arm and sample, warm-ups and failures included */
	size_t nobs;
	/* units in run order: per arm the index into the observations, -1 when not run */
	long (*unit)[AB_MAX_ARMS];
	size_t nunits;
	size_t ncomplete;
	/* one feature: arm 1 / arm 0 of the primary metric per complete unit, in run order */
	double *ratio;
	struct ab_line eff[AB_MAX_EFFECTS];
	size_t neff;
	struct ab_evidence *evidence;
	size_t nevidence;
	/* every evidence line, Holm-adjusted over all of them (95% family-wise) */
	struct ab_line *lines;
	size_t nlines;
};

/* An arm as ab's own output shows it beside the result. */
struct ab_arm_view {
	const char *code, *name, *vector; /* "B", "DELAY_DEQUEUE=off", the whole feature line */
	const struct report_summary *summary;
	char ceiling[256];	 /* --ceiling's line; empty without */
	bool have_env;		 /* its fingerprint was taken */
	struct env_delta *delta; /* what differs from arm 0 beside the features and per-run keys */
	size_t ndelta;
};

/* ab's own output: the arms, the result, the units' samples, the toggles. */
struct ab_run_view {
	const struct ab_result *r;
	const struct sample *samples; /* r->unit indexes them */
	unsigned narms;
	struct ab_arm_view arm[AB_MAX_ARMS];
	const char *ptitle; /* the primary metric in text: "bogo ops/s (real time)" */
	const char *workload;
	unsigned ntoggles;
	bool warmups, interrupted;
};

/* ab's first lines: the arms and the plan of the run. */
struct ab_plan {
	const char *workload, *profile;
	unsigned narms;
	const char *code[AB_MAX_ARMS], *name[AB_MAX_ARMS];
	bool until_decided, blocks; /* blocks: two features */
	size_t max_samples, samples;
	uint64_t max_time_ns, duration_ns, warmup_ns;
	char sample_what[128]; /* "2s", "400 000 messages (time limit 1m)" */
	char warmup[32];       /* "50ms", "one run", "none" */
	const char *order;     /* "abba", "random" */
	bool seeded;	       /* --order random: its seed is shown */
	uint64_t seed, instances;
	const char *placement;
	double margin;
};

/* One unit as it is printed when done: "pair 3/10: A 1 235 000, B 1 300 000 ops/s, B/A +5.3%". */
struct ab_unit_line {
	size_t u;
	unsigned total, narms;
	bool blocks;
	const char *code[AB_MAX_ARMS]; /* in the order they ran */
	double value[AB_MAX_ARMS];     /* NAN: see status */
	const char *status[AB_MAX_ARMS];
	const char *unit; /* "ops/s" */
	double ratio;	  /* B/A with one feature, NAN otherwise */
};

#endif
