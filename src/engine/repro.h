/*
 * repro.h: the commands a report prints to reproduce its experiments: the
 * stored command line as someone on another machine would type it, and,
 * where one exists, the same measurement with the tool the workload
 * reproduces (stress-ng, perf bench, hackbench), with what differs said.
 */
#ifndef WAKEBENCH_ENGINE_REPRO_H
#define WAKEBENCH_ENGINE_REPRO_H

#include <stdbool.h>

#include "core/experiment.h"

/*
 * A stored command line (as cli_cmdline() quotes it) without what belongs
 * to the machine or the output rather than the experiment: --db, -q/-v,
 * -o, --debugfs, --no-store, vm's qemu, sysroot and temporary-file
 * options, and --format unless keep_format (a report's format is what it
 * made). The program becomes "wakebench" (whatever a stored line names);
 * kernel images (--kernel PATH) their file names. The words are quoted by
 * sh_command() (util/text.h): one line of POSIX sh that gives exactly them,
 * whatever a label or a path holds. Malloc'd.
 */
char *repro_command(const char *cmdline, bool keep_format);

/*
 * Another tool's command for one sample of experiment e, or NULL when the
 * workload reproduces none (schbench, ring) or e's profile is not one of
 * a tool's. *note (malloc'd) says which tool and version, how the samples
 * map onto its runs and, when the command is only the closest one, what
 * differs. median is the experiment's median of its primary metric (the
 * loop count of a fixed-count tool comes from it; NAN when unknown).
 */
char *repro_equivalent(const struct store_experiment *e, double median, char **note);

#endif
