/*
 * compare.h: compare's engine: the stored samples grouped by a key, each
 * group against the baseline with boots as units, in one struct (struct
 * compare) that `compare` renders as text, JSON and CSV, and whose JSON
 * (compare_document()) `report` renders: no other command computes these
 * statistics.
 */
#ifndef WAKEBENCH_ENGINE_COMPARE_H
#define WAKEBENCH_ENGINE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "core/ab.h"
#include "core/env.h"
#include "core/metrics.h"
#include "core/summary.h"
#include "stats/stats.h"
#include "store/store.h"

#define COMPARE_CONF   0.95 /* every interval's level */
#define COMPARE_MARGIN 0.02 /* the default margin */
/* a group above this coefficient of variation is called noisy: the run summary's own limit */
#define NOISY_CV REPORT_CV_WARN

struct compare_request {
	const char *by;	      /* NULL: compare's default (kernel) */
	const char *baseline; /* NULL: compare's default */
	double margin;	      /* <= 0: compare's default */
	bool pool;
	const struct store_filter *filter; /* NULL: every experiment */
	const int64_t *only;		   /* when not NULL: only these experiments */
	size_t nonly;
	bool with_parts;     /* each group lists its parts (experiment, config) */
	const char *debugfs; /* NULL: /sys/kernel/debug (feature names for --by's check) */
};

enum by_key { BY_KERNEL, BY_LABEL, BY_PROFILE, BY_HOST, BY_FEATURE };

/* The unit a group's change against the baseline was inferred on. */
enum unit_level { UNIT_BOOT, UNIT_EXPERIMENT, UNIT_SAMPLE, UNIT_PAIR };

/* Values of one metric in one group; in a group, each value's boot and experiment. */
struct series {
	char *name;
	int better;
	double *v;
	size_t n, alloc;
	size_t *boot_tag, *exp_tag;
};

/* The change of one evidence metric against the baseline, at the group's unit. */
struct ev_change {
	const char *name;
	double base_median, median;
	struct effect e;
	double p_adjusted; /* paired: Holm over ab's evidence lines; NAN otherwise */
};

/* The samples of one config of one experiment. */
struct part {
	int64_t exp_id, cfg_id;
	size_t exp_index; /* in the experiment list */
	char *cfg_name;
	char *value; /* of the grouping key */
	double *ops;
	size_t n, alloc;
	struct series *ev;
	size_t nev;
	struct env env;	 /* start fingerprint of the experiment */
	char *signature; /* strong keys that set it apart within its value */
	size_t boot;	 /* index in compare.boots: the unit of replication */
	/* by feature: the vectors without the grouped feature (NULL when unknown) */
	char *features_rest, *features_debug_rest;
	char *cfg_features; /* the config's vector (an ab arm's), NULL for a run */
	bool overloaded;    /* its experiment started with the load above the CPUs */
	size_t group;
	/*
	 * A posted result imported from another tool's output (kind "external",
	 * or the env key external.tool): not measured here. origin is "stress-ng
	 * 0.21.00" (the tool and version it names), "measured" otherwise.
	 */
	bool external;
	char *origin;
};

/* Where a group of posted results came from: the env keys external.* of its first experiment. */
struct external_origin {
	const char *tool, *version, *format, *args, *source; /* NULL when not known */
	const char *profile, *cmdline; /* the profile reproducing it; the posted command */
	size_t runs;		       /* posted runs: one sample each */
	size_t nexps;		       /* experiments (pastes, files) */
	char note[192];		       /* "stress-ng 0.21.00, 1 run, not measured here" */
};

struct group {
	char *value, *split, *title;
	char *shown; /* the title as text output prints it (control characters escaped) */
	size_t *parts, nparts;
	double *ops;
	size_t n;
	size_t *boot_tag, *exp_tag; /* per value of ops: its boot and its experiment */
	size_t nboots;
	struct series *ev;
	size_t nev;
	const struct env *env; /* of its first experiment */
	bool env_posted;       /* ... which is a posted result */
	int64_t first_exp;
	bool baseline;
	struct summary sum;
	bool noisy;
	int64_t *overloaded; /* its experiments that started with the load above the CPUs */
	size_t noverloaded;
	struct effect eff;
	struct boot_effect beff; /* eff is beff.e */
	enum unit_level unit;
	enum verdict verdict;
	size_t more;
	struct ev_change *evc; /* one per evidence metric the baseline has too */
	size_t nevc;
	/* UNIT_PAIR: the arms of one ab, whose paired result this group's change is */
	struct ab_design abd;
	char ab_verdict[320];
	double *pair_ratio; /* each complete unit's group / baseline, in run order */
	size_t npair;
	/*
	 * Posted results: external when every part is one (ext says where they
	 * came from), nexternal the parts that are (pooled with measured ones
	 * under --pool). A group or baseline of one posted run has no interval
	 * and no verdict; why says so, and point is the change of the medians.
	 */
	bool external;
	size_t nexternal;
	struct external_origin ext;
	char why[384];
	double point;
	/*
	 * The environment against the baseline: differences in keys both sides
	 * know (env_diff(), strongest first), and, where one side is a posted
	 * result, the keys only the measured side has: unknown, not different.
	 */
	struct env_delta *envd;
	size_t nenvd;
	struct env_delta *unknown; /* a/b as env_diff() has them; the posted side NULL */
	size_t nunknown;
};

struct compare {
	struct store *st;
	enum by_key by;
	const char *feature; /* for BY_FEATURE */
	const char *by_name;
	struct store_experiment *exps;
	size_t nexps;
	struct part *parts;
	size_t nparts, partalloc;
	size_t cur_exp_first; /* first part of the experiment being read */
	struct group *groups;
	size_t ngroups;
	char **boots; /* distinct boot ids ("exp:UUID" when the store has none) */
	size_t nboots;
	size_t baseline;
	double margin;
	int better;
	const char *workload;
	/* the workload's primary metric (the registry's): what the table compares */
	const struct metric_def *primary;
	char what[64]; /* the primary as inference lines name it: "ops/s", "run time s" */
	char **warnbuf;
	size_t nwarn;
	char **notes; /* about the groups: noisy, overloaded (text: "note: ...") */
	size_t nnotes;
	/* compare_document(): only these experiments; each group lists its parts */
	const int64_t *only;
	size_t nonly;
	bool with_parts;
	const char *debugfs; /* where the running kernel's feature names are read */
};

/*
 * Read, group, pick the baseline, analyse: everything up to the output.
 * Returns EXIT_OK, or the exit status after saying why (EXIT_USAGE for a
 * --by, --baseline or feature name that names nothing). Warnings go to
 * stderr as compare gives them.
 */
int compare_build(struct compare *c, struct store *st, const struct compare_request *rq);
void compare_release(struct compare *c);
/* The result as `compare --format json` prints it. */
json_object *compare_json(const struct compare *c);
/*
 * compare's JSON document for rq, with, in every group, "parts":
 * [{"experiment": ID, "config": NAME}], the experiments' configs whose
 * samples it holds. Returns EXIT_OK and *out (the caller's reference), or
 * the exit status after saying why (*out NULL).
 */
int compare_document(struct store *st, const struct compare_request *rq, json_object **out);

/*
 * The words that mark posted results: "stress-ng 0.21.00, 1 run, not
 * measured here" (tool or version NULL: not known; pooled: pooled with
 * measured ones).
 */
void compare_posted_note(const char *tool, const char *version, size_t runs, bool pooled, char *buf,
			 size_t len);

/* The words every output uses: a unit, the inference behind a change, a verdict. */
const char *compare_unit_name(enum unit_level u, bool plural);
void compare_inference_text(const struct compare *c, const struct group *g, char *buf, size_t len);
void compare_verdict_text(const struct compare *c, const struct group *g, char *buf, size_t len);

#endif
