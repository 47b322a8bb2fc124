/*
 * ab.h: the ab engine's analysis: from an experiment's observations (arm
 * and sample, in run order) and its design to the one struct ab_result
 * (core/ab.h) that every output renders. `ab` calls it on the samples it
 * just ran, with the design its sequential engine ended in; `show`,
 * `compare`, `report` and `export` call ab_load() on a stored experiment,
 * whose parameters hold that design, and get the very same numbers.
 */
#ifndef WAKEBENCH_ENGINE_AB_H
#define WAKEBENCH_ENGINE_AB_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "core/ab.h"
#include "stats/stats.h"
#include "store/store.h"

struct ab_obs {
	unsigned arm; /* bit j set: token j applied */
	const struct sample *s;
};

/*
 * The design before the first look: tokens, primary metric and direction,
 * margin, and the budget as asked (max_samples; 0 with a fixed length).
 */
void ab_design_init(struct ab_design *d, unsigned nfeat, const char *const *tokens,
		    const char *metric, int better, double margin, size_t max_samples);
/* What the sequential engine ended in: the plan, the levels, why it stopped. */
void ab_design_end(struct ab_design *d, const struct stats_seq *engine);
/* The design as the experiment's parameters keep it ("design"). */
json_object *ab_design_json(const struct ab_design *d);
/*
 * The design of a stored ab from its parameters (its "feature" tokens,
 * "margin", "design"; without "design", an older wakebench's, the levels
 * are rebuilt from the budget options and d->rebuilt says so) and its
 * workload's primary metric. -1 with why when they describe no ab.
 */
int ab_design_parse(const char *params_json, const char *workload, struct ab_design *d, char *why,
		    size_t len);

/*
 * The analysis: units in run order (consecutive measured samples, one per
 * arm), the paired factorial effects of the primary metric at the design's
 * levels with their verdicts in words, and every evidence metric's effects,
 * Holm-adjusted over all of them. obs must outlive r.
 */
void ab_analyze(const struct ab_design *d, const struct ab_obs *obs, size_t n, struct ab_result *r);
void ab_result_release(struct ab_result *r);

/* "pair"/"pairs" or "block"/"blocks": a unit of this design. */
const char *ab_unit_word(const struct ab_design *d, size_t n);

/*
 * The fewest complete units (pairs; blocks of four with two features) for
 * which every effect of nfeat tokens gets an interval at these per-look
 * levels (the sequential engine's, stats_seq_effects()); with fewer, every
 * verdict is "insufficient". At the level of one look: 6 pairs, 9 blocks.
 */
size_t ab_min_complete(unsigned nfeat, double alpha_two, double alpha_one, double vif);

/* A stored ab experiment, analysed: its result and the samples it rests on. */
struct ab_stored {
	struct ab_result r;
	struct sample *samples;
	struct ab_obs *obs;
	char *arm_name[AB_MAX_ARMS]; /* the configs: "DELAY_DEQUEUE=off" */
	int64_t config_id[AB_MAX_ARMS];
};

/*
 * Load and analyse stored experiment e (kind "ab"): its configs in the
 * order ab added them are the arms. -1 with why (nothing printed) when it
 * is not an ab this wakebench can analyse, or the store cannot be read.
 */
int ab_load(struct store *st, const struct store_experiment *e, struct ab_stored *out, char *why,
	    size_t len);
void ab_stored_release(struct ab_stored *s);

#endif
