/*
 * reproduce.h: the result of `wakebench reproduce`, the one struct its
 * outputs render (render/reproduce.c): the posted figure against this
 * run's interval, the verdict, and the environment keys that differ or
 * that the posted side does not record. engine/reproduce.c computes it.
 */
#ifndef WAKEBENCH_CORE_REPRODUCE_H
#define WAKEBENCH_CORE_REPRODUCE_H

#include <stddef.h>

#include "core/env.h"

enum reproduce_outcome {
	REPRODUCE_REPRODUCED = 0,
	REPRODUCE_NOT_REPRODUCED,
	REPRODUCE_UNDECIDED, /* too few usable samples here for an interval */
};

/* An environment key that differs, or is unknown on the posted side. */
struct reproduce_delta {
	const char *key;
	const char *posted, *here; /* NULL: not recorded on that side */
	enum impact impact;
	char change[512]; /* two feature vectors: what changed (env_vector_change) */
};

struct reproduce_verdict {
	const char *metric; /* registry name */
	int better;	    /* +1 higher is better, -1 lower */
	/* the posted figure: mean, and stddev when it has several runs (else NAN) */
	size_t posted_n;
	double posted_mean, posted_spread;
	/*
	 * this run: the median and its distribution-free CI as run's summary
	 * gives them, `level` the coverage attained (CI NAN below 5 samples)
	 */
	size_t run_n, run_failed;
	double run_median, ci_lo, ci_hi, level;
	/* the interval the posted mean must lie in: the CI widened by the posted spread */
	double accept_lo, accept_hi;
	enum reproduce_outcome outcome;
	double rel; /* this run's median against the posted one: run / posted - 1 */
	char why[160];
	/* who measured: "stress-ng 0.15.06, profile stress-ng-0.15"; here: "wakebench ..." */
	char posted_by[192], here_by[192];
	/* keys that differ, strongest first; keys the posted side does not record */
	struct reproduce_delta *diff;
	size_t ndiff;
	struct reproduce_delta *unknown;
	size_t nunknown;
	struct env here_env; /* owned: diff and unknown point into it and into src */
};

#endif
