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

#include "runner/sample.h"
#include "sys/env.h"

struct store;

enum {
	STORE_CREATE = 1 << 0,   /* create the file (and its directory) if missing */
	STORE_READONLY = 1 << 1,
};

/* Opens or creates; prints one clear line and returns -1 on failure. */
int store_open(const char *path, unsigned flags, struct store **out);
void store_close(struct store *st);

struct experiment_info {
	char uuid[37];        /* filled by store_begin_experiment when empty */
	const char *kind;     /* "run", "ab" */
	const char *workload; /* "pipe" */
	const char *profile;  /* "stress-ng-0.15" or "custom (based on stress-ng-0.15)" */
	const char *params_json; /* every workload and runner parameter */
	const char *cmdline;
	const char *version;
	const char *label;    /* may be NULL */
	const char *host;
	const char *kernel;   /* uname -r */
	uint64_t started_ns;  /* CLOCK_REALTIME */
};

int store_begin_experiment(struct store *st, struct experiment_info *info, int64_t *exp_id);
/* A config of an experiment: "default", or an arm such as "DELAY_DEQUEUE=off". */
int store_add_config(struct store *st, int64_t exp_id, const char *name, const char *features,
		     int64_t *config_id);
/* Commits the sample and all of its metrics in one transaction. */
int store_add_sample(struct store *st, int64_t exp_id, int64_t config_id,
		     const struct sample *s);
/* phase: "start" or "end". */
int store_add_env(struct store *st, int64_t exp_id, const char *phase, const struct env *env);
/* status: "complete", "interrupted", "failed". */
int store_end_experiment(struct store *st, int64_t exp_id, const char *status);

#endif
