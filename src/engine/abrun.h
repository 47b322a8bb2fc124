/*
 * abrun.h: running an ab (abrun.c): the arms and their feature vectors, the
 * counterbalanced order of each unit, a toggle with its warm-up, the units
 * while the sequential engine wants them, every sample stored as it comes,
 * the features restored as found, and the result (engine/ab.c) of what
 * ran. `wakebench ab` parses, checks its --feature tokens, prints through
 * the hooks, and renders the result.
 */
#ifndef WAKEBENCH_ENGINE_ABRUN_H
#define WAKEBENCH_ENGINE_ABRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ab.h"
#include "core/summary.h"
#include "engine/ab.h"
#include "engine/experiment.h"
#include "runner/ceiling.h"
#include "runner/runner.h"
#include "sys/features.h"
#include "util/opts.h"

/*
 * Defaults measured on a shared 2-vCPU VM (doc/statistics.md, "Defaults"):
 * short, many, interleaved samples decide; 10 pairs of 5 s did not. Until
 * decided, at most 64 pairs: about 40 s for pipe at these lengths.
 */
#define AB_DEFAULT_DURATION_NS 250000000ull
#define AB_DEFAULT_WARMUP_NS   50000000ull

enum ab_order { ORDER_ABBA = 0, ORDER_RANDOM };
/* --order's names, in the order of enum ab_order, NULL-terminated (option choices) */
extern const char *const ab_order_names[];

struct ab_params {
	struct strlist features;
	int order;
	uint64_t seed;
	double margin;
	bool until_decided;
	uint64_t max_samples;
	uint64_t max_time_ns;
	bool fail_on_regression;
};

struct ab_arm {
	char name[256];			/* "DELAY_DEQUEUE=off,PREEMPT_SHORT=on" */
	char code[AB_MAX_FEATURES + 1]; /* "10": which tokens are applied */
	char tok[AB_MAX_FEATURES][FEATURE_NAME_MAX + 4];
	const char *tokv[AB_MAX_FEATURES];
	char vector[FEATURES_LINE_MAX]; /* the full feature line in this arm */
	int64_t config_id;
	bool have_env;
	struct env env;
};

struct ab_state;

/* What the command does while ab runs: print samples, progress, units. All may be NULL. */
struct ab_hooks {
	void *arg;
	/* a sample of arm was run and stored; st->nunits is its unit's number */
	void (*sample)(void *arg, const struct ab_state *st, unsigned arm, const struct sample *s);
	/* the sample of arm in unit u is next */
	void (*next)(void *arg, const struct ab_state *st, size_t u, unsigned arm);
	/* unit u is done */
	void (*unit)(void *arg, const struct ab_state *st, size_t u);
};

struct ab_state {
	const struct ab_hooks *hooks;
	const char *db;		    /* the store, for the line about a lost sample */
	const char *root, *debugfs; /* where the fingerprint and the features are */
	const struct workload *wl;
	const struct metric_def *primary; /* the workload's: the verdict's metric and direction */
	char punit[64];			  /* its unit as tables show it */
	char ptitle[64];		  /* its name in text: "ops/s", "run time s" */
	const struct run_params *rp;
	const struct ab_params *ap;
	const struct run_spec *spec;
	uint64_t warmup_ns;
	const struct ceiling_shape *ceiling; /* --ceiling: measured after each sample */

	struct features_session fs;
	unsigned nfeat, narms;
	char token[AB_MAX_FEATURES][FEATURE_NAME_MAX + 4]; /* as validated */
	struct ab_arm arms[AB_MAX_ARMS];
	int current; /* arm now applied, -1 before the first */
	unsigned ntoggles;

	struct experiment ex;
	struct sample *samples; /* warm-ups included */
	unsigned *sample_arm;	/* the arm of each */
	struct ab_obs *obs;	/* for the engine: samples[i] in arm sample_arm[i] */
	size_t nsamples, cap;
	long (*unit)[AB_MAX_ARMS]; /* per unit: index into samples, -1 when none */
	size_t nunits, ucap;
	int seq[AB_MAX_ARMS]; /* order of the last unit */
	uint64_t rng;
	bool setup_failed;
	struct stats_seq engine; /* the sequential engine: units, looks, levels, stopping */
	struct ab_design design; /* what the result is computed with */
};

/*
 * The fewest units a run of nfeat tokens can end with a verdict on: for a
 * fixed length (-n n) the minimum at its one look, until decided (budget
 * --max-samples n) the minimum at the levels of n's plan. 6 pairs, 9
 * blocks; a smaller -n or --max-samples is refused before anything runs.
 */
size_t ab_plan_min_units(unsigned nfeat, bool until_decided, size_t n);
/*
 * The size options against that minimum (one or two tokens, as many as
 * --feature was given; until_decided already set): 0, or EXIT_USAGE with
 * the option, the value and the minimum in why.
 */
int ab_check_sizes(const struct ab_params *ap, const struct run_params *rp, char *why, size_t len);
/*
 * ab's runner options: run's, except that -n counts pairs (0, the
 * default, runs until decided) and the warm-up follows every toggle.
 */
const struct opt *ab_runner_opts(void);
/*
 * "ab --feature NO_DELAY_DEQUEUE": this ab as it would run in a VM, with
 * the tokens as validated, else as given when they look like names.
 */
void ab_vm_command(const struct ab_state *st, const struct strlist *fl, char *buf, size_t len);
/* The run's state before the kernel is touched: where, what, with which options. */
void ab_state_init(struct ab_state *st, const struct experiment_where *w, const struct workload *wl,
		   const struct run_params *rp, const struct run_spec *spec,
		   const struct ab_params *ap, const struct ab_hooks *hooks);
/* The arms from the validated tokens and the features as found. */
void ab_build_arms(struct ab_state *st);
/* "A"/"B" with one feature, the code ("10") with two. */
const char *ab_arm_code(const struct ab_state *st, unsigned m);
/* The sequential engine and the result's design, before the first unit. */
void ab_engine_init(struct ab_state *st);
/* Units while the engine wants them and nothing stops the run. */
void ab_loop(struct ab_state *st);
/* Put the kernel back the way it was found. -1 after saying why (the journal is kept). */
int ab_restore(struct ab_state *st);
/* B/A of the primary in unit u; NAN when the unit is incomplete. */
double ab_unit_ratio(const struct ab_state *st, size_t u);
/* The result of what ran (st->obs must outlive r). */
void ab_run_analyse(struct ab_state *st, struct ab_result *r);
/* Arm m's measured samples, summarised as run summarises a config. */
int ab_arm_summary(const struct ab_state *st, unsigned m, struct report_summary *rs);
/* Keys that differ between arm 0 and arm m, apart from the features and per-run facts. */
size_t ab_env_extra(const struct ab_state *st, unsigned m, struct env_delta **out);
/*
 * The --feature tokens checked against the live features (or, when the
 * file cannot be read, the read-only view, so that a misspelling is still
 * bad input), then the file itself: 0, EXIT_USAGE, or the exit status of
 * features that cannot be toggled here, with why and the class (*fail:
 * lockdown, not root, ...; FEATURES_OK for bad input).
 */
int ab_check_tokens(struct ab_state *st, const char *debugfs, const char *btf,
		    const struct strlist *fl, enum features_fail *fail, char *why, size_t len);
/*
 * The end of the run: the result (into r), its design kept in the stored
 * parameters, the experiment ended. Returns its status: "interrupted" (sig),
 * "failed" (ret, a setup or store failure, no complete unit), "complete".
 */
const char *ab_run_end(struct ab_state *st, json_object *params, int ret, int sig,
		       struct ab_result *r);
/* What ab's own output shows (render/ab.c), from the run, its result and the arms' summaries. */
void ab_run_view(struct ab_state *st, const struct ab_result *r, const struct report_summary *rs,
		 bool interrupted, struct ab_run_view *v);
void ab_run_view_release(struct ab_run_view *v);
/* ab's first lines (render_ab_plan()), from the run and the profile's label. */
void ab_run_plan(const struct ab_state *st, const char *profile, struct ab_plan *p);
/* Unit u as it is printed (render_ab_unit()), its arms in the order they ran. */
void ab_unit_line(const struct ab_state *st, size_t u, unsigned total, struct ab_unit_line *l);

#endif
