/*
 * bisect.h: what `wakebench bisect`'s files share: its options, the
 * statuses of `bisect step` (git bisect run's contract) and of its worker,
 * the option parsing of each subcommand.
 */
#ifndef WAKEBENCH_CLI_BISECT_H
#define WAKEBENCH_CLI_BISECT_H

#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"
#include "engine/bisect.h"

/* What `bisect step` exits with (git bisect run's contract). */
enum {
	BISECT_EXIT_GOOD = 0,
	BISECT_EXIT_BAD = 1,
	BISECT_EXIT_SKIP = 125,
	BISECT_EXIT_ERROR = 128, /* wakebench could not do its job: abort the bisection */
	BISECT_EXIT_USAGE = 129, /* bad input: abort too (git's usage status) */
};

/* How the step's child tells its parent the outcome (never seen outside). */
enum {
	WORKER_GOOD = 90,
	WORKER_BAD,
	WORKER_SKIP,
	WORKER_ERROR,
	WORKER_USAGE,
};

struct bisect_params {
	struct strlist good, bad, kernels;
	const char *metric;
	const char *label;
	const char *vm;
	double alpha;
	uint64_t max_boots, max_ref_boots;
	uint64_t cpus;
	uint64_t memory_bytes;
	int accel;
	uint64_t timeout_ns;
	const char *append;
	const char *qemu;
	const char *id;
};

extern const struct bisect_params bisect_defaults;

enum bisect_sub { SUB_NONE, SUB_STEP, SUB_RUN, SUB_REPORT };

/* The options of subcommand sub into p (groups: room for 6); returns how many groups. */
size_t bisect_parse(enum bisect_sub sub, struct bisect_params *p, struct opt_group *groups,
		    struct opts_result *res, int argc, const char **argv, struct ctx *ctx);
/* What the engine measures with: the options and -q, -v. */
struct bisect_settings bisect_settings_of(const struct bisect_params *p, const struct ctx *ctx);
/* `bisect step`: its worker in a child, whatever it ends with mapped for git bisect run. */
int bisect_step(int argc, const char **argv, struct ctx *ctx);

#endif
