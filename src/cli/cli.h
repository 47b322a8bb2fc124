/*
 * cli.h: what every subcommand shares: the context built by main.c (common
 * options, environment overrides), the common option table, and the
 * entry points of the command table.
 *
 * Only main.c and cli/ exit the process; each command returns its exit
 * status (enum in util/util.h) after restoring whatever it changed.
 */
#ifndef WAKEBENCH_CLI_H
#define WAKEBENCH_CLI_H

#include <stdbool.h>

#include "sys/features.h"
#include "util/opts.h"
#include "util/text.h"
#include "util/util.h"

enum output_format {
	FMT_TEXT = 0,
	FMT_JSON,
	FMT_METRICS_BRIEF,
	FMT_CSV,
	FMT_KCIDB,	/* export only */
	FMT_LAVA,	/* export only: framed for a console (engine/lava.c) */
	FMT_LAVA_CASES, /* export only: LAVA test cases, result.txt lines */
};

extern const char *const format_names[];

struct store;

struct ctx {
	int argc; /* the whole command line, for provenance */
	const char **argv;

	/* common options */
	const char *db_path; /* --db, else WAKEBENCH_DB, else the XDG default */
	bool no_store;
	int format;	     /* enum output_format */
	const char *debugfs; /* --debugfs, default /sys/kernel/debug */
	bool quiet, verbose;

	/* the command's row in main.c's table: what it sets up (CMD_*) */
	unsigned cmd_flags;
	struct store *store; /* cli_store(): opened on first use, closed by main */

	/* environment overrides used by tests (documented in doc/commands.md) */
	const char *root;      /* WAKEBENCH_ROOT: where /proc and /sys are read, default "/" */
	const char *state_dir; /* WAKEBENCH_STATE_DIR: default /run/wakebench */
};

/* What main.c's command table says a command sets up, as git's commands[] do. */
enum {
	CMD_READS_STORE = 1 << 0,    /* cli_store(): the store at --db, read-only */
	CMD_WRITES_STORE = 1 << 1,   /* cli_store(): the store at --db, created if need be */
	CMD_TOUCHES_KERNEL = 1 << 2, /* may write the scheduler features (ab, features) */
};

/*
 * The store of a command whose row says CMD_READS_STORE (opened read-only)
 * or CMD_WRITES_STORE (opened for writing, created if need be) at --db on
 * first use (after its options are parsed, so that bad input is exit
 * 2 whether or not a store exists), closed by main after the command. NULL
 * after saying why (exit EXIT_RUNTIME).
 */
struct store *cli_store(struct ctx *ctx);

/* Which common options a command accepts (and lists in its help). */
enum {
	COMMON_DB = 1 << 0,	   /* --db */
	COMMON_NO_STORE = 1 << 1,  /* --no-store */
	COMMON_FORMAT = 1 << 2,	   /* --format, restricted to the formats given */
	COMMON_DEBUGFS = 1 << 3,   /* --debugfs */
	COMMON_VERBOSITY = 1 << 4, /* -q, -v */
	COMMON_ALL = (1 << 5) - 1,
};

/*
 * The common options a command accepts, as one group: `which` is a mask of
 * COMMON_*, `formats` a mask of 1 << FMT_* for --format. Options left out are
 * neither accepted nor listed. One command runs per process, so the table
 * lives in static storage.
 */
struct opt_group cli_common_group_for(struct ctx *ctx, unsigned which, unsigned formats);
/* Every common option and every format. */
struct opt_group cli_common_group(struct ctx *ctx);

/*
 * Parse argv with the given groups (the common group is appended by the
 * caller as it needs). On -h prints "usage: wakebench CMD USAGE", the
 * description and every group's options to stdout and exits 0; on bad
 * input exits 2 after the one-line message.
 */
void cli_parse(const char *cmd, const char *usage, const char *description,
	       struct opt_group *groups, size_t ngroups, int argc, const char **argv,
	       int stop_at_first_pos, struct opts_result *res, struct ctx *ctx);

/*
 * Shell completion (cli/complete.c): main starts it for `wakebench __complete
 * WORD...` with the word being completed and the one before it (NULL right
 * after the command); cli_parse() then calls cli_complete() with its groups,
 * which prints the candidates for that word and exits, before parsing.
 */
void cli_complete_begin(const char *cur, const char *prev);
bool cli_completing(void);
NORETURN void cli_complete(const char *cmd, const struct opt_group *groups, size_t ngroups,
			   int argc, const char **argv, const struct ctx *ctx);
/* The same with common and run's runner, probe and experiment options (reproduce's first pass). */
NORETURN void cli_complete_run_options(const char *cmd, const struct opt_group *common, int argc,
				       const char **argv, const struct ctx *ctx);

/* Exit 2 unless ctx->format is one of the allowed formats (bitmask of 1 << FMT_x). */
void cli_require_format(const char *cmd, const struct ctx *ctx, unsigned allowed);

/* The store path after --db / WAKEBENCH_DB /
 * ${XDG_DATA_HOME:-$HOME/.local/share}/wakebench/results.db. */
const char *cli_db_path(const struct ctx *ctx);
/* "stored: experiment UUID in PATH" on stdout, the path escaped as any text (util/text.h). */
void cli_print_stored(const struct ctx *ctx, const char *uuid);
/*
 * The same for a command about to open the store. A store named by hand
 * (--db, WAKEBENCH_DB) in a directory that does not exist is a typo: exit 2,
 * nothing created. Only the default location's directory is created (0700,
 * with its parents), and only when `create`: exit 1 when it cannot be.
 */
const char *cli_db_for_open(const struct ctx *ctx, bool create);

/* The command line, shell-quoted, malloc'd. */
char *cli_cmdline(const struct ctx *ctx);

/* "SIGINT", "SIGQUIT", "SIGRTMIN+1": the name of a stop signal (signal_name). */
const char *cli_signal_name(int sig);

/* Is stderr a terminal (progress lines are shown only then)? */
bool cli_progress_enabled(const struct ctx *ctx);

/*
 * The kernel's BTF under WAKEBENCH_ROOT (the features' read-only view under
 * lockdown reads it), or "" for the running kernel's own.
 */
void cli_btf_path(const struct ctx *ctx, char *buf, size_t len);

/* The default of --debugfs; ctx->debugfs points here unless --debugfs was given. */
extern const char cli_default_debugfs[];
bool cli_debugfs_given(const struct ctx *ctx);

/* What a command needs of the kernel before it runs (cli_kernel_prepare). */
enum {
	CLI_NEED_DEBUGFS = 1 << 0, /* sched/features, sched/debug */
	CLI_NEED_TRACEFS = 1 << 1, /* sched tracepoints (--trace) */
	/*
	 * The command takes the features journal itself (ab, features set): a
	 * live owner is refused there, so it is not warned about here.
	 */
	CLI_CHANGES_FEATURES = 1 << 2,
	/* The command is the on-demand recovery (features restore): no check here. */
	CLI_RECOVERS_FEATURES = 1 << 3,
};

/*
 * The way into a command that measures or reads or writes the scheduler
 * features, called right after its options are parsed: as root with the
 * standard debugfs (no --debugfs, no WAKEBENCH_ROOT), what `need` names and
 * is not mounted is mounted in a private mount namespace, said once on
 * stderr. Then the features journal: one left by a wakebench that is gone
 * (a crash, SIGKILL) is restored and removed, with a warning saying so; a
 * live owner's is warned about (its toggles are under way). An empty
 * --debugfs is exit 2. Returns 0, or an exit status when the command must
 * not go on (the restore failed: the journal is kept).
 */
int cli_kernel_prepare(struct ctx *ctx, const char *cmd, unsigned need);

/*
 * The one error line for scheduler features that cannot be used here
 * (fail and why from sys/features.h), saying what works instead. Not root
 * (the standard debugfs, or EACCES on a --debugfs): "CMD needs root to
 * VERB '<debugfs>/sched/features'", not how to mount debugfs (as root, the
 * command mounts it itself). Kernel lockdown: nothing can be changed on
 * this kernel. With vm_cmd ("ab --feature NO_DELAY_DEQUEUE"), both add
 * how to run it in a VM instead (`wakebench vm --kernel IMAGE -- ...`).
 * Returns the exit status, features_fail_exit(fail).
 */
int cli_features_unusable(const struct ctx *ctx, const char *cmd, const char *verb,
			  enum features_fail fail, const char *why, const char *vm_cmd);

int cmd_run(int argc, const char **argv, struct ctx *ctx);
int cmd_ab(int argc, const char **argv, struct ctx *ctx);
int cmd_compare(int argc, const char **argv, struct ctx *ctx);
int cmd_env(int argc, const char **argv, struct ctx *ctx);
int cmd_features(int argc, const char **argv, struct ctx *ctx);
int cmd_list(int argc, const char **argv, struct ctx *ctx);
int cmd_log(int argc, const char **argv, struct ctx *ctx);
int cmd_show(int argc, const char **argv, struct ctx *ctx);
int cmd_export(int argc, const char **argv, struct ctx *ctx);
int cmd_import(int argc, const char **argv, struct ctx *ctx);
int cmd_vm(int argc, const char **argv, struct ctx *ctx);
int cmd_report(int argc, const char **argv, struct ctx *ctx);
int cmd_bisect(int argc, const char **argv, struct ctx *ctx);
int cmd_reproduce(int argc, const char **argv, struct ctx *ctx);
int cmd_campaign(int argc, const char **argv, struct ctx *ctx);

#endif
