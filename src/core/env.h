/*
 * env.h: the environment fingerprint (DESIGN section 8) as a data structure:
 * every fact about the kernel and machine that can change an IPC result, as
 * an ordered list of keys, each with an impact class, and what differs
 * between two fingerprints. The probes that read one are sys/env.h's.
 */
#ifndef WAKEBENCH_CORE_ENV_H
#define WAKEBENCH_CORE_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

enum impact {
	IMPACT_STRONG = 0,
	IMPACT_MEDIUM,
	IMPACT_WEAK,
	IMPACT_IDENTITY,
	IMPACT_RUN, /* per-run facts: load, pressure, command line */
};

struct env_entry {
	char *key; /* "kernel.release", "cpu.governor", "sched.features" */
	char *value;
	enum impact impact;
};

struct env {
	size_t n, alloc;
	struct env_entry *e;
};

void env_set(struct env *env, const char *key, enum impact impact, const char *fmt, ...)
	PRINTF_LIKE(4, 5);
const char *env_get(const struct env *env, const char *key);
void env_release(struct env *env);
const char *env_impact_name(enum impact i);
int env_impact_parse(const char *name); /* -1 if unknown */

/* One difference between two fingerprints. */
struct env_delta {
	const char *key;
	const char *a, *b; /* NULL when absent on that side */
	enum impact impact;
	/* two feature vectors: what changed, env_vector_change()'s words; else "" */
	char change[512];
};

/*
 * Keys whose values differ between a and b, strongest impact first, then by
 * key. *out is malloc'd; pointers refer into a and b.
 */
size_t env_diff(const struct env *a, const struct env *b, struct env_delta **out);

/*
 * Feature vectors (sched.features and the state decoded from sched/debug:
 * "PLACE_LAG NO_HRTICK ..."): whether v is one, the state of feature name
 * in it (1 on, 0 off as NO_NAME, -1 absent), and how vector b differs from
 * a in words: "DELAY_DEQUEUE on -> off; added X Y; removed Z" ("" when the
 * same features in the same states); readable on one side only (lockdown),
 * the other side's text and a count: "unreadable: ... -> 26 features".
 * env_vector_change() returns false, buf "", when neither side is a vector.
 */
bool env_is_vector(const char *v);

/*
 * Whether other work competed for the CPUs when the fingerprint was taken:
 * the 1-minute load average (run.loadavg) above the online CPUs
 * (cpu.online), and as many other tasks as CPUs runnable at that moment
 * (run.runnable; a store without it: the average alone). *load and *cpus
 * are set either way (0 when unknown).
 */
#define ENV_OVERLOADED "run.overloaded" /* the flag an experiment stores */
bool env_overloaded(const struct env *env, double *load, unsigned *cpus);
/* A stored experiment's start: its run.overloaded flag, or (an older store) what it rests on. */
bool env_was_overloaded(const struct env *env);
int env_vector_state(const char *v, const char *name);
/* The feature name of a vector's token of toklen bytes ("NO_" dropped) into buf. */
void env_vector_name(const char *tok, size_t toklen, char *buf, size_t len);
bool env_vector_change(const char *a, const char *b, char *buf, size_t len);

#endif
