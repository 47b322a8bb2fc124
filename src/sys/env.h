/*
 * env.h: the environment fingerprint (DESIGN section 8): every fact about
 * the kernel and machine that can change an IPC result, each with an impact
 * class, read at the start and end of every experiment.
 *
 * Missing files are recorded as absent (value "absent" or "unreadable: why"),
 * never as errors. All paths are taken relative to a root (normally "/") so
 * that tests can point the probes at a fake /proc and /sys tree.
 */
#ifndef WAKEBENCH_ENV_H
#define WAKEBENCH_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "core/env.h"
#include "util/util.h"

struct env_opts {
	const char *root;    /* "/" normally; a fake tree in tests */
	const char *debugfs; /* "/sys/kernel/debug" normally (not under root) */
};

/* Collect every key. Never fails for a missing file. */
int env_collect(struct env *env, const struct env_opts *o);

/*
 * The pieces of env_collect(), exposed so that unit tests can drive each
 * parser directly. None of them fails: what cannot be read is described.
 */

/* What a failed open/read of a debugfs file means, as a fingerprint value. */
const char *env_debugfs_reason(int err);

/* Value of `name=` on a kernel command line (before any " -- "); NULL if absent. */
char *env_cmdline_param(const char *cmdline, const char *name);

/*
 * One option of a kernel config text: "y", "m", "250", "\"str\"", "is not set"
 * or NULL when the option does not appear at all. Malloc'd.
 */
char *env_config_value(const char *config, const char *name);

/* The preemption model: "none", "voluntary", "full", "lazy", "rt" or a description. */
struct preempt_sources {
	const char *version; /* uname -v */
	const char *debugfs; /* contents of <debugfs>/sched/preempt, NULL if unreadable */
	const char *cmdline; /* value of preempt= on the command line, NULL if absent */
	const char *config;  /* kernel config text, NULL if unavailable */
};
/* Writes the model to model[] and which source decided it to source[]. */
void env_preempt_derive(const struct preempt_sources *src, char *model, size_t model_len,
			char *source, size_t source_len);

/* "3-5,7" from a bitmap of nbits bits; "none" when empty. */
void env_format_cpulist(const uint8_t *bitmap, size_t nbits, char *buf, size_t len);

/*
 * Summarise one value per CPU (vals[cpu], NULL when the CPU has none) as
 * "v1 (cpus 0-3); v2 (cpus 4-7)" in order of the first CPU of each value.
 * Returns a malloc'd string, or NULL when no CPU has a value.
 */
char *env_group_by_cpu(const char *const *vals, size_t ncpus);

/* Raspberry Pi firmware throttling bits as "0x50000 (under-voltage occurred, throttled occurred)".
 */
void env_throttled_describe(unsigned long bits, char *buf, size_t len);

/* The flavour of a kernel release: "rpi-2712" for "6.12.25+rpt-rpi-2712", "amd64". */
void env_kernel_flavour(const char *release, char *buf, size_t len);

#endif
