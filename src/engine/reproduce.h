/*
 * reproduce.h: `wakebench reproduce`: what someone posted (an external
 * experiment imported from their text, another host's stored run, a
 * report, a posted file) measured again here with the same workload,
 * profile and parameters, and the one verdict on it: was the posted figure
 * reproduced, and which environment differences could explain a gap,
 * strongest first. The verdict is computed here once, into struct
 * reproduce_verdict, and rendered from it (text, JSON).
 */
#ifndef WAKEBENCH_ENGINE_REPRODUCE_H
#define WAKEBENCH_ENGINE_REPRODUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/env.h"
#include "core/experiment.h"
#include "core/reproduce.h"
#include "core/sample.h"
#include "engine/experiment.h"
#include "store/store.h"
#include "workloads/workload.h"

/*
 * Import a posted file (anything `wakebench import` reads: import_file())
 * into st and return the UUIDs of the experiments it holds, whether they
 * were added now or were already in st (*added counts the new ones).
 * *uuids is malloc'd (37 bytes each). 0, or -1 after import's one line.
 */
int reproduce_import(struct store *st, const char *path, char (**uuids)[37], size_t *n,
		     size_t *added);

/* The experiment to reproduce, as reproduce_source_load() found it. */
struct reproduce_source {
	struct store_experiment *e;
	const struct workload *wl;
	const struct profile *profile; /* NULL: the workload has no profiles */
	const char *metric;	       /* the workload's primary metric */
	/* who posted it: "stress-ng", "0.15.06" (external), else "wakebench", its version */
	const char *tool, *tool_version;
	/* the stored profile when today's mapping of tool_version chose another one */
	const char *stored_profile;
	struct env env; /* its start fingerprint */
	double *values; /* the posted values of metric, one per usable sample */
	size_t nvalues;
};

/*
 * Load experiment exp_id of st and decide how it is reproduced. -1 with
 * one line in why when it cannot be (an ab experiment, a workload or a
 * profile this wakebench does not have, no posted value of the primary
 * metric); 0 otherwise. Release with reproduce_source_release().
 */
int reproduce_source_load(struct store *st, int64_t exp_id, struct reproduce_source *src, char *why,
			  size_t len);
void reproduce_source_release(struct reproduce_source *src);

/*
 * Of the experiments uuids[0..n) of st (a file's, reproduce_import()),
 * how many can be reproduced (*found) and the first of them (*exp_id, -1
 * when none). 0, or -1 on a store failure (reported).
 */
int reproduce_pick(struct store *st, char (*uuids)[37], size_t n, int64_t *exp_id, size_t *found);

/*
 * The words of `wakebench run` that measure src here: the workload,
 * --profile and every stored runner and workload parameter the run's
 * options set (the sample count and the warm-up are left to the caller:
 * a reproduction takes enough samples for a confidence interval).
 * NULL-terminated, malloc'd; free with reproduce_words_free().
 */
char **reproduce_words(const struct reproduce_source *src, size_t *n);
void reproduce_words_free(char **w);

/*
 * The verdict on the measured samples s[0..n) (warm-ups and failed
 * samples skipped) with this run's fingerprint here and its profile name
 * here_profile. Returns 0 (rv filled; release with reproduce_verdict_release()).
 */
int reproduce_judge(const struct reproduce_source *src, const struct sample *s, size_t n,
		    const struct env *here, const char *here_profile, struct reproduce_verdict *rv);
void reproduce_verdict_release(struct reproduce_verdict *rv);

#endif
