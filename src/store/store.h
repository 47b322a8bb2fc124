/*
 * store.h: the results store (DESIGN section 9). One SQLite file, WAL mode,
 * a busy timeout for concurrent writers, schema version in PRAGMA
 * user_version with ordered migrations. store/store.c is the only file with
 * SQL in it.
 *
 * Each sample is committed as it completes, so a crash loses at most the
 * sample in progress. Experiments carry a UUID so that stores from several
 * hosts merge without collisions.
 */
#ifndef WAKEBENCH_STORE_H
#define WAKEBENCH_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/experiment.h"
#include "core/sample.h"
#include "core/env.h"
#include "util/opts.h"

struct store;

enum {
	/*
	 * create the file if missing; never its directory: a path in a
	 * directory that does not exist is refused (the command creates the
	 * default location's, cli_db_for_open)
	 */
	STORE_CREATE = 1 << 0,
	STORE_READONLY = 1 << 1,
	/*
	 * check the file's structure (PRAGMA quick_check) before use, for a
	 * writer that measures before it stores: a damaged store is refused
	 * before anything is measured, not at the first sample's commit
	 */
	STORE_CHECK = 1 << 2,
	/*
	 * every commit of this connection on the disk before it returns
	 * (synchronous FULL): for a writer whose next step may be the machine
	 * going down, a campaign's boot states; others keep NORMAL, which
	 * survives a killed process but not a crash of the kernel
	 */
	STORE_DURABLE = 1 << 3,
};

/* Opens or creates; prints one clear line and returns -1 on failure. */
int store_open(const char *path, unsigned flags, struct store **out);
void store_close(struct store *st);

struct experiment_info {
	char uuid[37];		 /* filled by store_begin_experiment when empty */
	const char *kind;	 /* "run", "ab" */
	const char *workload;	 /* "pipe" */
	const char *profile;	 /* "stress-ng-0.15" or "custom (based on stress-ng-0.15)" */
	const char *params_json; /* every workload and runner parameter */
	const char *cmdline;
	const char *version;
	const char *label; /* may be NULL */
	const char *host;
	const char *kernel;  /* uname -r */
	uint64_t started_ns; /* CLOCK_REALTIME */
};

int store_begin_experiment(struct store *st, struct experiment_info *info, int64_t *exp_id);
/* A config of an experiment: "default", or an arm such as "DELAY_DEQUEUE=off". */
int store_add_config(struct store *st, int64_t exp_id, const char *name, const char *features,
		     int64_t *config_id);
/* Commits the sample and all of its metrics in one transaction. */
int store_add_sample(struct store *st, int64_t exp_id, int64_t config_id, const struct sample *s);
/* phase: "start" or "end". */
int store_add_env(struct store *st, int64_t exp_id, const char *phase, const struct env *env);
/* status: "complete", "interrupted", "failed". */
int store_end_experiment(struct store *st, int64_t exp_id, const char *status);
/* Replace the parameters, e.g. with what the run resolved them to (ab's design). */
int store_set_params(struct store *st, int64_t exp_id, const char *params_json);

/* ---- environment entries ---- */

/* Append the stored entries of one phase ("start" or "end") to *out. */
int store_load_env(struct store *st, int64_t exp_id, const char *phase, struct env *out);
/* Add (or replace) one entry, e.g. a key learnt after store_add_env(). */
int store_add_env_entry(struct store *st, int64_t exp_id, const char *phase, const char *key,
			const char *value, enum impact impact);

/* ---- finding and reading experiments ---- */

/*
 * ref: a numeric id, or a prefix of a UUID (at least 4 characters). Prints
 * one line naming the reference when it is unknown or ambiguous.
 */
int store_find_experiment(struct store *st, const char *ref, int64_t *exp_id);

/*
 * A read snapshot: between store_read_begin() and store_read_end() every
 * read sees the store as it was at the first one, whatever concurrent
 * writers commit meanwhile (so that lists read one after the other agree).
 * Calls nest: only the outermost pair begins and ends the snapshot.
 */
int store_read_begin(struct store *st);
void store_read_end(struct store *st);

/*
 * Filters of compare/export/report/log: each list matches any of its
 * values (a repeated --label is a union); empty lists and 0 members do not
 * filter; the lists together are an intersection.
 */
struct store_filter {
	struct strlist workload, profile, label, kernel, host;
	uint64_t since_ns; /* experiments started at or after (CLOCK_REALTIME) */
	int64_t exp_id;
	/* store_filter_check(): the kernel list with each prefix resolved (owned) */
	const char **kernel_owned;
	char **kernel_names;
	size_t nkernel_names;
};

/* A one-value list, for a filter set in code: .label = STRLIST_ONE(label). */
#define STRLIST_ONE(s) ((struct strlist){ .v = (const char *[]){ (s) }, .n = (s) != NULL })

/* Experiments matching f (may be NULL), oldest first. */
int store_list_experiments(struct store *st, const struct store_filter *f,
			   struct store_experiment **out, size_t *n);
void store_experiments_free(struct store_experiment *v, size_t n);
/* Configs of the experiments matching f, by id. */
int store_list_configs(struct store *st, const struct store_filter *f, struct store_config **out,
		       size_t *n);
void store_configs_free(struct store_config *v, size_t n);

/* One stored sample as store_foreach_sample() hands it out. */
struct store_row {
	int64_t sample_id;
	const struct store_experiment *exp;
	const struct store_config *cfg;
	const struct sample *s; /* valid during the callback only */
};

enum {
	STORE_ROWS_STATS = 1 << 0,	/* only status ok and not warm-up */
	STORE_ROWS_NO_METRICS = 1 << 1, /* fixed fields only (faster) */
};

/*
 * Call fn for every sample of the experiments matching f, by experiment and
 * sample index. fn returns 0 to go on; a non-zero return stops the walk and
 * is returned.
 */
int store_foreach_sample(struct store *st, const struct store_filter *f, unsigned flags,
			 int (*fn)(void *arg, const struct store_row *row), void *arg);

/* A metric as an experiment defines it. */
struct store_metric_def {
	char *name;
	int better;	/* enum better */
	unsigned flags; /* METRIC_EVIDENCE ... */
};

/* The metrics of one experiment, in the order its samples list them. */
int store_list_metric_defs(struct store *st, int64_t exp_id, struct store_metric_def **out,
			   size_t *n);
void store_metric_defs_free(struct store_metric_def *v, size_t n);

/*
 * The samples of one experiment, in order, each as one JSON object rendered
 * by SQLite's JSON functions (fast enough for exports of 100,000 samples):
 *   {"index", "config", "warmup", "status", "reason", "start_realtime_ns",
 *    "duration_ns", "wall_ns", "instances", "ops", "real_s", "usr_s",
 *    "sys_s", "ops_per_s", "ops_per_cpu_s",
 *    "metrics": {NAME: value, or null when unavailable, ...},
 *    "unavailable": {NAME: why, ...}}
 * fn returns 0 to go on; a non-zero return stops the walk and is returned.
 */
int store_foreach_sample_json(struct store *st, int64_t exp_id,
			      int (*fn)(void *arg, const char *json), void *arg);

/* Columns whose stored values `compare` and `export` can list. */
enum store_field {
	STORE_FIELD_WORKLOAD = 0,
	STORE_FIELD_PROFILE,
	STORE_FIELD_LABEL,
	STORE_FIELD_KERNEL,
	STORE_FIELD_HOST,
};

/*
 * Distinct non-NULL values of a field over all experiments, sorted (kernel
 * releases in version order, see store_kernel_cmp()).
 */
int store_distinct(struct store *st, enum store_field field, char ***vals, size_t *n);
void store_strings_free(char **v, size_t n);
/*
 * Names of the metrics stored for the samples of the experiments matching
 * f, in the order samples list them (for column headers).
 */
int store_metric_names(struct store *st, const struct store_filter *f, char ***names, size_t *n);

/*
 * Order kernel releases by version: 6.6.78 < 6.12.75 < 6.18-rc1 < 6.18 <
 * 6.18.1 < 7.0; after the numbers, a release candidate (-rcN) comes before
 * the release, and other suffixes ("-v8+", "-2712") are ordered as text.
 * Strings that do not start with a number sort after every version.
 */
int store_kernel_cmp(const char *a, const char *b);

/*
 * For each filter value that no stored experiment has, print one line
 * naming the option (--workload, --profile, --label, --kernel, --host) of
 * command cmd, the value and the values that exist; -1 if any was unknown.
 * A --kernel value that is no stored release but the start of exactly one,
 * up to one of . - + _ ~ (6.12.75 of 6.12.75+rpt-rpi-2712; 6.1 of 6.1.0,
 * never of 6.18.1), is replaced by that release; the start of several is
 * refused, naming them. store_filter_release() frees what
 * the replacement allocated.
 */
int store_filter_check(struct store *st, struct store_filter *f, const char *cmd);
void store_filter_release(struct store_filter *f);

/*
 * Parse a --since value: "2026-04-01", "2026-04-01T12:00[:00]" (local
 * time), or a duration meaning "that long ago" ("2h", "90m"). -1 on a
 * malformed value (nothing printed: the caller names the option).
 */
int store_parse_since(const char *s, uint64_t *since_ns);

/* ---- merging ---- */

/*
 * Merge the store at src_path (only read, never modified; an older schema
 * is upgraded in memory) into dst: experiments whose UUID dst already has
 * are skipped. One transaction. *new_exp_ids (malloc'd, may be NULL) gets
 * the ids of the added experiments in dst. Other formats come through
 * engine/import.c, which decides a file's type.
 */
int store_import(struct store *dst, const char *src_path, int64_t **new_exp_ids, size_t *nadded,
		 size_t *nskipped);

/*
 * A source is never trusted: a store is opened read-only and immutable
 * where it can be (creating nothing next to it), with triggers and views
 * off and SQLite's defensive mode on; its schema must be exactly the one
 * wakebench writes at its version, its integrity check must pass, and every
 * value of the experiments merged must have its column's type, every sample
 * a config of its own experiment (else the whole file is refused, naming
 * the experiment and the value). A JSON document is checked the same way.
 *
 * Provenance: keys under "vm." and "lava." are attested by the importing
 * machine, so from a file they become "claimed.KEY". store_import_with()
 * lets the importer attest keys of its own (a vm host: the accelerator,
 * the kernel image's SHA-256, ...; a LAVA log: its job): in the same
 * transaction, every key of the merged experiments starting with
 * attest_prefix is dropped, whatever the source stored, and env is added
 * to their start environment. The source file is never written.
 */
struct store_import_opts {
	const char *attest_prefix; /* "vm.", "lava." or NULL */
	const struct env *env;	   /* may be NULL */
};

int store_import_with(struct store *dst, const char *src_path, const struct store_import_opts *opts,
		      int64_t **new_exp_ids, size_t *nadded, size_t *nskipped);

/*
 * A JSON export document merged as it streams in (engine/import.c parses
 * it): begin (one transaction, name for messages), then each experiment's
 * members but "samples" as one JSON object, k its place in the document,
 * uuid already checked (store_uuid_valid()), and each of its samples, in
 * any order; end checks and merges them all (the same checks as a store's)
 * or refuses the whole document; abort rolls back. 0, or -1 after one line.
 */
int store_json_begin(struct store *dst, const char *name);
int store_json_experiment(struct store *dst, int64_t k, const char *uuid, const char *json,
			  size_t len);
int store_json_sample(struct store *dst, int64_t k, const char *json, size_t len);
int store_json_end(struct store *dst, const struct store_import_opts *opts, int64_t **new_exp_ids,
		   size_t *nadded, size_t *nskipped);
void store_json_abort(struct store *dst);

/* Is the file open as fd this store's own file (an import of a store into itself)? */
bool store_is_file(const struct store *st, int fd);

/* 8-4-4-4-12 lower-case hex digits, as wakebench writes them, and not the nil UUID */
bool store_uuid_valid(const char *s);

/*
 * An empty private store in a temporary file that is gone as soon as it is
 * opened (import's dry run: every check, nothing written, memory bounded).
 */
int store_open_scratch(struct store **out);

/* ---- campaigns (engine/campaign.c) ---- */

struct store_campaign {
	int64_t id;
	char uuid[37];
	uint64_t created_ns, ended_ns; /* CLOCK_REALTIME; ended 0 while running */
	char *state;		       /* running, decided, exhausted, aborted, failed */
	char *backend;
	char *plan_json;
	char *outcome; /* NULL while running */
};

struct store_campaign_boot {
	unsigned idx;
	char *kernel; /* the release planned */
	char *state;  /* planned, booting, measuring, measured, failed, wrong-kernel */
	char *boot_id, *experiment_uuid, *reason; /* NULL until known */
	uint64_t at_ns;				  /* CLOCK_REALTIME of the last change */
};

/* A running campaign with its planned boots (kernels[i] for boot i) and a new UUID. */
int store_campaign_create(struct store *st, const char *backend, const char *plan_json,
			  const char *const *kernels, size_t nboots, int64_t *id, char uuid[37]);
int store_campaign_boot_add(struct store *st, int64_t id, unsigned idx, const char *kernel);
/* The newest campaign (the running one with running_only): 0, 1 when none, -1 on error. */
int store_campaign_latest(struct store *st, bool running_only, struct store_campaign *c);
void store_campaign_release(struct store_campaign *c);
int store_campaign_boots(struct store *st, int64_t id, struct store_campaign_boot **out, size_t *n);
void store_campaign_boots_free(struct store_campaign_boot *v, size_t n);
/* A boot's new state; boot_id and exp_uuid NULL keep what was there. */
int store_campaign_boot_set(struct store *st, int64_t id, unsigned idx, const char *state,
			    const char *boot_id, const char *exp_uuid, const char *reason);
int store_campaign_end(struct store *st, int64_t id, const char *state, const char *outcome);
/* The newest experiment process pid began at or after since_ns: 0, 1 when none, -1. */
int store_experiment_of_owner(struct store *st, pid_t pid, uint64_t since_ns, int64_t *exp_id,
			      char uuid[37]);

/* ---- schema ---- */

/* The schema version this wakebench writes (PRAGMA user_version). */
int store_schema_version(void);
/* The schema version of an open store (after any upgrade). */
int store_user_version(struct store *st);
/* "ok", or the first problem reported by PRAGMA integrity_check (malloc'd). */
char *store_integrity_check(struct store *st);
/*
 * The SQL that takes a store from schema version - 1 to version (1 ..
 * store_schema_version()), NULL for any other version; and the application
 * id every store carries. With them the tests (tests/unit/store-legacy.h)
 * write stores as each older version did, to test the upgrades.
 */
const char *store_migration_sql(int version);
uint32_t store_application_id(void);

#endif
