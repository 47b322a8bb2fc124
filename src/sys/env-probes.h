/*
 * env-probes.h: what the fingerprint probes (env-kernel.c, env-machine.c)
 * share inside sys/: the collection context (root of the /proc and /sys
 * tree, debugfs, and the few texts several probes need: release, version,
 * command line, kernel config) and the path-relative readers.
 *
 * Not a public contract: callers outside sys/ use env.h.
 */
#ifndef WAKEBENCH_ENV_PROBES_H
#define WAKEBENCH_ENV_PROBES_H

#include <limits.h>

#include "sys/env.h"

struct env_ctx {
	struct env *env;
	const char *root;    /* "/" or a fake tree */
	const char *debugfs; /* not under root */
	char *release;	     /* /proc/sys/kernel/osrelease, NULL if unreadable */
	char *version;	     /* /proc/sys/kernel/version (uname -v), NULL if unreadable */
	char *cmdline;	     /* /proc/cmdline, NULL if unreadable */
	char *config;	     /* kernel config text, NULL if none found */
	char *config_source; /* where it came from, or why there is none */
};

void env_ctx_init(struct env_ctx *c, struct env *env, const struct env_opts *o);
void env_ctx_release(struct env_ctx *c);

/* root + rel into buf ("/proc/x" stays "/proc/x" when root is "/"). */
void env_path(const struct env_ctx *c, const char *rel, char *buf, size_t len);
/* Read root + rel whole; -1 with errno set on failure. */
int env_read(const struct env_ctx *c, const char *rel, char **out);
/* Read root + rel, trimmed of trailing whitespace; NULL (errno set) on failure. */
char *env_read_trim(const struct env_ctx *c, const char *rel);
/* A file's value as a key, or "absent (no REL)" / "unreadable (REL: why)". */
void env_file_key(struct env_ctx *c, const char *key, enum impact impact, const char *rel);
/* True when the tree is the live system (root "/"): syscalls describe it. */
int env_live(const struct env_ctx *c);

void env_probe_kernel(struct env_ctx *c);
void env_probe_sched(struct env_ctx *c);
void env_probe_cpus(struct env_ctx *c);
void env_probe_platform(struct env_ctx *c);
void env_probe_cgroup(struct env_ctx *c);
void env_probe_machine(struct env_ctx *c);
void env_probe_run(struct env_ctx *c);

#endif
