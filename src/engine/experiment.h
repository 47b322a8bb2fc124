/*
 * experiment.h: an experiment's lifecycle, shared by run and ab: the
 * environment fingerprint at its start and end, the store opened (and a
 * damaged one refused) before anything is measured, the experiment, its
 * configs and its samples stored as they come, its end status.
 */
#ifndef WAKEBENCH_ENGINE_EXPERIMENT_H
#define WAKEBENCH_ENGINE_EXPERIMENT_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "core/env.h"
#include "runner/runner.h"
#include "store/store.h"
#include "workloads/workload.h"

/* Where an experiment runs and is kept. */
struct experiment_where {
	const char *db;		    /* the store; NULL: none (--no-store) */
	const char *root, *debugfs; /* where /proc, /sys and the features are read */
	const char *cmdline;	    /* the command line, for provenance */
};

struct experiment {
	const char *root, *debugfs; /* where the fingerprint is read */
	const char *kind;	    /* "run", "ab" */
	const struct workload *wl;
	const char *profile; /* label: "stress-ng-0.15" or "custom (based on ...)" */
	const char *base_profile;
	const char *label;
	char *params_json;
	char *cmdline;

	struct store *store; /* NULL with --no-store */
	int64_t exp_id;
	struct experiment_info info;
	char host[256];
	char kernel[256];

	struct env env_start, env_end;
	bool have_env_end;
	uint32_t next_index; /* index of the next sample, warm-ups included */
	bool store_failed;   /* a write to the store failed (already reported) */
};

/*
 * Start: collect the environment, open the store at w->db (NULL: none),
 * record the experiment and the start environment. params is the JSON
 * object of experiment_params_json() (the profile is added to it; the
 * caller keeps its reference). Returns 0, or -1 after reporting.
 */
int experiment_begin(struct experiment *ex, const struct experiment_where *w, const char *kind,
		     const struct workload *wl, const char *profile, const char *base_profile,
		     const char *label, json_object *params);
/* A config (arm) of the experiment: "default", "DELAY_DEQUEUE=off". */
int experiment_add_config(struct experiment *ex, const char *name, const char *features,
			  int64_t *config_id);
/*
 * Number the sample (s->index) and store it, committed at once. Returns 0,
 * or -1 when the store failed (reported; ex->store_failed is set).
 */
int experiment_add_sample(struct experiment *ex, int64_t config_id, struct sample *s);
/*
 * End: collect the environment again, store it and the final status
 * ("complete", "interrupted", "failed"), close the store. Returns 0 or -1.
 */
/* Replace the stored parameters (what the run resolved them to, e.g. ab's design). */
int experiment_set_params(struct experiment *ex, json_object *params);
int experiment_end(struct experiment *ex, const char *status);
void experiment_release(struct experiment *ex);

/*
 * The samples of one config, as run and reproduce take them: the warm-up
 * (when spec->rp->warmup_ns), then spec->rp->samples samples, each stored
 * under config_id as it completes; the loop stops early on a stop signal
 * (runner_stop_signal()), an interrupted sample or a store failure. The
 * hooks (each may be NULL) let the command show progress (before: the
 * 1-based number of the measured sample about to start), add to a
 * measured sample before it is stored (measured), say what a failed store
 * lost (lost) and print a stored sample (stored). s has room for
 * spec->rp->samples + 1; n counts the samples stored (warm-up included),
 * measured the measured ones among them.
 */
struct experiment_measure {
	struct experiment *ex;
	int64_t config_id;
	const struct run_spec *spec;
	struct sample *s;
	size_t n;
	unsigned measured;
	void *arg;
	void (*before)(void *arg, unsigned next);
	void (*measured_hook)(void *arg, struct sample *s, uint64_t duration_ns);
	void (*lost)(void *arg, bool warmup);
	void (*stored)(void *arg, const struct sample *s);
};

/* 0, or -1 on a setup failure of the runner (reported). */
int experiment_measure(struct experiment_measure *m);

#endif
