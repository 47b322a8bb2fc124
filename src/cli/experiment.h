/*
 * experiment.h: the lifecycle of one experiment, shared by `run` and `ab`:
 * choosing the workload from the command line, resolving its parameters
 * (defaults, then the profile, then explicit options), the provenance
 * (params as JSON, command line, version, host, kernel, environment at the
 * start and the end), and storing every sample as it completes (warm-ups
 * and failed ones too, with their status) so that an interruption loses
 * nothing already measured.
 */
#ifndef WAKEBENCH_EXPERIMENT_H
#define WAKEBENCH_EXPERIMENT_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "cli/cli.h"
#include "engine/experiment.h"
#include "runner/probes.h"
#include "runner/runner.h"
#include "store/store.h"
#include "sys/env.h"
#include "workloads/workload.h"

#define EXPERIMENT_DEFAULT_WORKLOAD "pipe"

/*
 * The run spec of one config (no probes yet), after the workload's and the
 * runner's checks of what only this machine can tell: a failed check exits
 * 2 with its one line, prefixed by cmd.
 */
void experiment_spec(const char *cmd, const struct workload *wl, const void *wl_params,
		     const struct run_params *rp, struct run_spec *spec);

/* The runner's defaults with the workload's own -j default applied. */
void experiment_runner_defaults(const struct workload *wl, struct run_params *rp);

/*
 * stress-ng's options typed out of habit (--pipe N, --timeout, --metrics-brief,
 * --taskset, --pipe-data-size; cli/habits.c): when argv[a] is one that no
 * table of wakebench's has, exit 2 with the whole command line in
 * wakebench's words ("did you mean 'wakebench run pipe -j 4 -t 20s'?");
 * return otherwise.
 */
void experiment_check_habit(const char *cmd, const struct opt *const *tables, size_t ntables,
			    int argc, const char **argv, int a);

/*
 * The workload named on the command line: the first positional argument
 * (option values are skipped using the given groups and every workload's
 * table; an unknown option ends the search), else "pipe". Exits 2 naming
 * the value, the workloads that exist and the closest one when it is
 * unknown, and on stress-ng's options (experiment_check_habit).
 */
const struct workload *experiment_pick_workload(const char *cmd, struct opt_group *groups,
						size_t ngroups, int argc, const char **argv);

/*
 * --profile and --label. --profile is a profile's name or TOOL-VERSION, a
 * release one of the workload's profiles covers (stress-ng-0.18.12).
 */
struct experiment_values {
	const char *profile; /* as given; the default profile's name; NULL: none */
	const char *label;
};

struct experiment_opts {
	struct experiment_values v, defaults;
	/* storage behind the option table */
	struct opt table[3];
	/* experiment_profile_check(): the release --profile named, "" for a profile's name */
	char release[32];
};

/* Build the --profile/--label group for wl (eo holds the table; nothing to release). */
struct opt_group experiment_opts_group(struct experiment_opts *eo, const struct workload *wl);
/*
 * Check --profile against wl's profiles and the releases they cover: exits
 * 2 with one line naming the option, the value and what is allowed when it
 * is neither. A release ("0.21" is read as 0.21.00) goes into eo->release;
 * its mapping is printed once on stderr ("profile: stress-ng 0.18.12 runs as
 * stress-ng-0.16 (stress-ng 0.16.00..0.21.01)").
 */
void experiment_profile_check(const char *cmd, const struct workload *wl,
			      struct experiment_opts *eo);

/*
 * Resolve the workload's parameters: defaults, then the profile's complete
 * set, then every option of wl_group that was given explicitly (its `seen`
 * bits). wl_group->base holds the parsed values (initialised from the
 * defaults before parsing). The result is written into params (params_size
 * bytes). The label is the profile's name, or "custom (based on NAME)" when
 * an explicit option changed one of the profile's values; NULL when the
 * workload has no profiles. base_profile receives the profile's name.
 */
void experiment_resolve(const struct workload *wl, const struct experiment_opts *eo,
			const struct opt_group *wl_group, void *params, char *label,
			size_t labellen, const char **base_profile);

/*
 * Every parameter of the given groups as a JSON object: keys are the long
 * option names with '_' for '-', durations in ns ("duration_ns"), sizes in
 * bytes ("data_size_bytes"), choices as their names.
 */
json_object *experiment_params_json(const struct opt_group *groups, size_t ngroups);

/*
 * The provenance every JSON result starts with: version, command, cmdline,
 * workload, unit, profile.
 */
void experiment_json_provenance(const struct experiment *ex, json_object *o);

/*
 * Where an experiment of this command runs and is kept; cmdline stays the
 * caller's. The store's directory is checked or created here
 * (cli_db_for_open): call it before anything is changed.
 */
static inline struct experiment_where experiment_where_of(const struct ctx *ctx,
							  const char *cmdline)
{
	return (struct experiment_where){ .db = ctx->no_store ? NULL : cli_db_for_open(ctx, true),
					  .root = ctx->root,
					  .debugfs = ctx->debugfs,
					  .cmdline = cmdline };
}

/* Does this profile print stress-ng 0.15's MB/s line under --metrics-brief? */
bool experiment_profile_has_mbps(const char *base_profile);

/* Exit status for a stop signal: 128 + signal number. */
static inline int experiment_signal_status(int sig)
{
	return 128 + sig;
}

/*
 * The command line of a command that measures (run, ab): its own options
 * (NULL for run), the runner's, the workload's, the experiment's, the
 * probes' and the common ones, parsed; the workload's parameters resolved
 * against its profile; the spec of a sample.
 */
struct experiment_cmd {
	struct run_params rp, rp_defaults;
	struct probe_params pp;
	struct experiment_opts eo;
	struct opts_result res;
	struct opt_group groups[6];
	size_t ngroups;
	int own, runner, workload, probes; /* their indices in groups (own: -1 none) */
	const struct workload *wl;
	void *parsed, *wlp; /* the workload's parameters: as given, as resolved */
	char title[96], profile[160];
	const char *base_profile;
	struct run_spec spec;
};

struct experiment_cmd_spec {
	const char *cmd, *usage, *description;
	const struct opt_group *own; /* the command's own options first, or NULL */
	const char *runner_title;
	const struct opt *runner_opts; /* the runner's options; NULL: run's (runner_opts) */
	unsigned formats;	       /* 1 << FMT_* */
	/* the command's runner defaults over the workload's (may be NULL) */
	void (*defaults)(struct run_params *rp);
};

void experiment_cmd_parse(struct experiment_cmd *o, const struct experiment_cmd_spec *cs, int argc,
			  const char **argv, struct ctx *ctx);
/* After the command's own checks: the workload's parameters resolved, the spec. */
void experiment_cmd_resolve(struct experiment_cmd *o, const char *cmd);
void experiment_cmd_release(struct experiment_cmd *o);
/* The parameters stored with the experiment: every option as resolved, and the tracer. */
json_object *experiment_cmd_params(const struct experiment_cmd *o, const struct probe_set *ps);

#endif
