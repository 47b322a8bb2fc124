/*
 * bisect.h: bisect's engine (bisect.c): the child processes that measure
 * (this binary's `run`, or `vm ... -- run`), the references and candidates
 * as sets of stored experiments, one step's measuring and decision with
 * stats/bisect.c, the bisect.* keys each step leaves in the store, and a
 * stored bisection read back as a document. `wakebench bisect` (step, run,
 * report) parses its options and calls these; `report --bisect` renders
 * the document.
 */
#ifndef WAKEBENCH_ENGINE_BISECT_H
#define WAKEBENCH_ENGINE_BISECT_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "stats/bisect.h"
#include "store/store.h"
#include "util/opts.h"

/* What a step measures with: the metric, the decision's level, the guests. */
struct bisect_settings {
	const char *metric;
	double alpha;
	uint64_t cpus, memory_bytes, timeout_ns;
	const char *accel; /* "auto", "kvm" or "tcg", as vm's --accel */
	const char *append, *qemu;
	bool quiet, verbose; /* the measurements' own -q, -v */
	/* bisect run: the images in order, and the boots of a step and of each reference */
	const struct strlist *kernels;
	uint64_t max_boots, max_ref_boots;
};

/* The first stop signal, and the child it is passed on to (0: none). */
extern volatile sig_atomic_t bisect_stop_sig;
extern volatile pid_t bisect_child_pid;

/* A set of experiments: a reference or one candidate's boots. */
struct expset {
	int64_t *ids;
	size_t n;
	char *params; /* the first experiment's params JSON */
	char *workload;
};

struct bisect_run_ctx {
	const struct bisect_settings *p;
	struct store *st;
	const char *db;
	const char *const *wl_args; /* the workload and its options */
	size_t nwl;
	char qemu[PATH_MAX];
	/* filled from the references */
	const char *ref_params;
	int64_t good_exp, bad_exp; /* for the environment check (0: none) */
	bool env_checked;
};

enum measure_outcome {
	MEASURE_OK = 0,
	MEASURE_BOOT_FAILED, /* the round failed: a panic, an oops, a hang (vm exit 1) */
	MEASURE_USAGE,	     /* the child refused its arguments */
	MEASURE_CANNOT,	     /* 77: the workload cannot run on that kernel */
	MEASURE_ERROR,
	MEASURE_STOPPED, /* a stop signal */
	MEASURE_ENV,	 /* the environment differs from the references */
	MEASURE_PARAMS,	 /* other workload parameters than the references */
};

/* The bisect.* keys of a step, on each of its experiments. */
struct step_record {
	const char *id, *kind, *role, *candidate, *metric;
	long step;  /* 0: none */
	long index; /* -1: none */
	const struct bisect_step *s;
	const char *result; /* NULL: none */
};

void bisect_signals_install(void);
void bisect_describe(const struct bisect_step *s, char *buf, size_t len);
char *bisect_git_head(void);
int bisect_check_image(const char *image, char *why, size_t len);
int bisect_find_qemu(struct bisect_run_ctx *rc);
void bisect_strlist_free(struct strlist *a);
bool bisect_params_equal(const char *a, const char *b, char *why, size_t len);
struct strlist bisect_args_from_params(const char *params);
int bisect_load_refs(struct bisect_run_ctx *rc, const struct strlist *refs, const char *opt,
		     struct expset *s, double **med, size_t *k);
enum measure_outcome bisect_run_step(struct bisect_run_ctx *rc, const struct bisect_refs *refs,
				     const char *image, const char *label, size_t max_boots,
				     struct bisect_step *s, struct expset *ids, char *why,
				     size_t whylen);
void bisect_store_step_keys(struct store *st, const struct expset *e, const struct step_record *r);
enum measure_outcome bisect_measure_once(struct bisect_run_ctx *rc, const char *image,
					 const char *label, double *level, struct expset *new_ids,
					 char *why, size_t whylen);
void expset_release(struct expset *s);

/*
 * The bisection whose id starts with id_prefix (NULL: the latest) in st
 * as JSON (opt: "CMD: option '--X'", the option that named it, and db, the
 * store's path, for messages): {"id", "kind" ("step" or "run"),
 * "metric", "steps": [{"role", "candidate", "step", "index", "experiments",
 * "verdict", "boots", "position", "position_lo", "position_hi", "level",
 * "vs_good", "vs_bad", "why"}], "result", and "no_result" saying why there is
 * none when it is null} (what `bisect report --format
 * json` prints; a step not decided yet has no "verdict"). Returns EXIT_OK
 * and *out (the caller's reference), or the exit status after saying why.
 */
int bisect_document(struct store *st, const char *id_prefix, const char *opt, const char *db,
		    json_object **out);

/*
 * bisect run: the references (the first and the last image) measured until
 * apart, then the search between them and the confirmation of the first
 * bad image and its predecessor, each step on out and in the store at db.
 * Returns EXIT_OK for a confirmed result, EXIT_RUNTIME otherwise, 128 + N
 * after stop signal N.
 */
int bisect_run(const struct bisect_settings *set, const char *db, const char *const *wl_args,
	       size_t nwl, FILE *out);

#endif
