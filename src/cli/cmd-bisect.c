/*
 * cmd-bisect.c: `wakebench bisect`: find the kernel that changed a metric
 * (doc/bisect.md).
 *
 *   bisect step    one verdict for `git bisect run`: is the kernel under test
 *                  (this boot, or an image booted in `vm`) closer to the good
 *                  or to the bad reference? Exit 0 good, 1 bad, 125 skip,
 *                  >= 128 abort.
 *   bisect run     bisection over an ordered list of kernel images, each
 *                  booted in `vm`, then the confirmation of the result.
 *   bisect report  the steps of a stored bisection and its result.
 *
 * The decisions are stats/bisect.c's (boots as units, sequential looks);
 * the measurements are this very binary's `run`, or `vm ... -- run`, as
 * child processes writing into the same store, so that a boot is exactly
 * what `vm` and `compare` call a boot. Each step's experiments carry its
 * verdict as bisect.* keys of their environment (phase "end", impact run),
 * which is what `bisect report` reads back: no table of its own.
 *
 * `git bisect run` reads every status from 1 to 127 except 125 as "bad",
 * and wakebench's own statuses (1 runtime error, 2 usage, 77 cannot run)
 * would all be taken for a verdict. So `bisect step` runs in a child
 * process and its parent maps whatever that child ends with: its verdicts
 * to 0, 1 and 125, a usage error to 129, every other failure (die() deep
 * down, a crash) to 128, a stop signal N to 128 + N, as git itself does.
 */
#include "cli/cli.h"
#include "engine/bisect.h"
#include "render/render.h"
#include "runner/vm.h"
#include "stats/bisect.h"
#include "stats/stats.h"
#include "store/store.h"
#include "sys/vmhost.h"
#include "util/text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>
#include <uuid/uuid.h>

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

static const char *const accel_names[] = { "auto", "kvm", "tcg", NULL };

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

static const struct bisect_params bisect_defaults = {
	.metric = "ops_per_s",
	.alpha = BISECT_ALPHA_DEFAULT,
	.max_boots = BISECT_MAX_BOOTS_DEFAULT,
	.max_ref_boots = BISECT_MAX_REF_BOOTS_DEFAULT,
	.cpus = 2,
	.memory_bytes = 1ull << 30,
	.timeout_ns = 600ull * 1000000000ull,
};

/* What the engine measures with: the options and -q, -v. */
static struct bisect_settings settings_of(const struct bisect_params *p, const struct ctx *ctx)
{
	return (struct bisect_settings){ .metric = p->metric,
					 .alpha = p->alpha,
					 .cpus = p->cpus,
					 .memory_bytes = p->memory_bytes,
					 .timeout_ns = p->timeout_ns,
					 .accel = accel_names[p->accel],
					 .append = p->append,
					 .qemu = p->qemu,
					 .quiet = ctx->quiet,
					 .verbose = ctx->verbose,
					 .kernels = &p->kernels,
					 .max_boots = p->max_boots,
					 .max_ref_boots = p->max_ref_boots };
}

/*
 * One option table per subcommand, as git's parse-options subcommands have:
 * an option of another subcommand is refused by name (bad_for_sub()), never
 * accepted and ignored. step and run share the decision's and the guests'.
 */
static const struct opt bisect_step_opts[] = {
	{ .type = OPT_STRLIST,
	  .long_name = "good",
	  .offset = offsetof(struct bisect_params, good),
	  .argh = "REF",
	  .help = "the good reference: a stored label, an experiment id or UUID prefix "
		  "(repeatable)" },
	{ .type = OPT_STRLIST,
	  .long_name = "bad",
	  .offset = offsetof(struct bisect_params, bad),
	  .argh = "REF",
	  .help = "the bad reference, as --good" },
	{ .type = OPT_STRING,
	  .long_name = "vm",
	  .offset = offsetof(struct bisect_params, vm),
	  .argh = "IMAGE",
	  .help = "boot this kernel image in vm to measure it (default: measure this boot)" },
	{ .type = OPT_STRING,
	  .long_name = "label",
	  .offset = offsetof(struct bisect_params, label),
	  .argh = "TEXT",
	  .help = "label of the candidate's experiments (default: git rev-parse HEAD)" },
	OPT_END_ROW,
};

static const struct opt bisect_run_opts[] = {
	{ .type = OPT_STRLIST,
	  .long_name = "kernel",
	  .short_name = 'k',
	  .offset = offsetof(struct bisect_params, kernels),
	  .argh = "IMAGE",
	  .help = "the kernel images in order, first good, last bad (repeat)" },
	{ .type = OPT_UINT,
	  .long_name = "max-ref-boots",
	  .offset = offsetof(struct bisect_params, max_ref_boots),
	  .argh = "N",
	  .help = "boots of each reference (the first and the last image)",
	  .min = 2,
	  .max = BISECT_MAX_BOOTS },
	OPT_END_ROW,
};

static const struct opt bisect_decide_opts[] = {
	{ .type = OPT_STRING,
	  .long_name = "metric",
	  .short_name = 'm',
	  .offset = offsetof(struct bisect_params, metric),
	  .argh = "NAME",
	  .help = "the metric decided on: ops_per_s, ops_per_cpu_s or a stored metric such as "
		  "ctxsw_per_op" },
	{ .type = OPT_DOUBLE,
	  .long_name = "alpha",
	  .offset = offsetof(struct bisect_params, alpha),
	  .argh = "P",
	  .help = "chance that a step calls a candidate on the wrong side of the midpoint",
	  .min = 0.0001,
	  .max = 0.5 },
	{ .type = OPT_UINT,
	  .long_name = "max-boots",
	  .offset = offsetof(struct bisect_params, max_boots),
	  .argh = "N",
	  .help = "boots of a candidate in one step (vm); a step without --vm measures once",
	  .min = 1,
	  .max = BISECT_MAX_BOOTS },
	OPT_END_ROW,
};

static const struct opt bisect_vm_opts[] = {
	{ .type = OPT_UINT,
	  .long_name = "cpus",
	  .offset = offsetof(struct bisect_params, cpus),
	  .argh = "N",
	  .help = "guest CPUs",
	  .min = 1,
	  .max = 1024 },
	{ .type = OPT_SIZE,
	  .long_name = "memory",
	  .offset = offsetof(struct bisect_params, memory_bytes),
	  .argh = "SIZE",
	  .help = "guest memory",
	  .min = 256.0 * 1024 * 1024,
	  .max = 1024.0 * 1024 * 1024 * 1024 },
	{ .type = OPT_CHOICE,
	  .long_name = "accel",
	  .offset = offsetof(struct bisect_params, accel),
	  .argh = "ACCEL",
	  .help = "KVM when usable, else TCG",
	  .choices = accel_names },
	{ .type = OPT_DURATION,
	  .long_name = "timeout",
	  .offset = offsetof(struct bisect_params, timeout_ns),
	  .argh = "DURATION",
	  .help = "deadline of one boot",
	  .min = 1e9,
	  .max = 86400e9 },
	{ .type = OPT_STRING,
	  .long_name = "append",
	  .offset = offsetof(struct bisect_params, append),
	  .argh = "ARGS",
	  .help = "extra kernel command-line arguments" },
	{ .type = OPT_STRING,
	  .long_name = "qemu",
	  .offset = offsetof(struct bisect_params, qemu),
	  .argh = "PATH",
	  .help = "the qemu binary" },
	OPT_END_ROW,
};

static const struct opt bisect_report_opts[] = {
	{ .type = OPT_STRING,
	  .long_name = "id",
	  .offset = offsetof(struct bisect_params, id),
	  .argh = "ID",
	  .help = "the bisection (a prefix of its id; default the latest)" },
	OPT_END_ROW,
};

static const char bisect_usage[] =
	"step --good REF --bad REF [--vm IMAGE] [options] [-- WORKLOAD [ARGS...]]\n"
	"   or: wakebench bisect run --kernel IMAGE --kernel IMAGE... [options] -- WORKLOAD "
	"[ARGS...]\n"
	"   or: wakebench bisect report [--id ID] [--format text|json]";

static const char bisect_description[] =
	"Find the kernel that changed a metric. 'step' is for git bisect run: it measures\n"
	"the kernel under test (this boot, or --vm IMAGE booted with qemu) with the\n"
	"references' workload and decides, boots as units, whether it is closer to the\n"
	"good or to the bad reference. Exit 0 good, 1 bad, 125 skip (undecided, build or\n"
	"boot failed, environment differs from the references in a strong key), 128 an\n"
	"error of wakebench, 129 bad input, 128+N stopped by signal N. 'run' bisects an\n"
	"ordered list of kernel images (first good, last bad) in vm and confirms the\n"
	"result; 'report' shows a stored bisection. doc/bisect.md has the details.";

/* ------------------------------------------------------------------ step */

/* Options that do not fit a step: WORKER_USAGE after saying why, else 0. */
static int step_usage(const struct bisect_params *p, const struct opts_result *res)
{
	if (!p->good.n || !p->bad.n)
		error("bisect: step: options '--good' and '--bad' are required: the stored "
		      "references, e.g. --good v6.6 --bad v6.12");
	else if (p->kernels.n)
		error("bisect: step: option '--kernel' is for 'bisect run'; a step boots one "
		      "image: --vm IMAGE");
	else if (res->dashdash < 0 && res->npos > 1)
		error("bisect: step: unexpected argument '%s': put the workload after '--'",
		      res->pos[1]);
	else if (res->dashdash > 1)
		error("bisect: step: unexpected argument '%s' before '--'", res->pos[1]);
	else if (!p->vm && p->max_boots != bisect_defaults.max_boots)
		error("bisect: step: option '--max-boots' needs --vm: without it a step measures "
		      "this boot once");
	else
		return 0;
	return WORKER_USAGE;
}

/* The candidate's label: --label, else git's HEAD; NULL after saying why. */
static char *step_label(const struct bisect_params *p)
{
	char *head;

	if (p->label)
		return xstrdup(p->label);
	if (!(head = bisect_git_head()))
		error("bisect: step: not in a git tree (git rev-parse HEAD failed): give --label "
		      "TEXT to name the candidate");
	return head;
}

/*
 * The references, loaded and checked: the same workload and parameters,
 * and apart on the metric. 0, or the worker's status after saying why.
 */
static int step_refs(struct bisect_run_ctx *rc, const struct bisect_params *p, struct expset *good,
		     struct expset *bad, double **gm, double **bm, struct bisect_refs *refs)
{
	struct bisect_decision rd;
	size_t ng = 0, nb = 0;
	char why[512];
	int ret;

	ret = bisect_load_refs(rc, &p->good, "good", good, gm, &ng);
	if (!ret)
		ret = bisect_load_refs(rc, &p->bad, "bad", bad, bm, &nb);
	if (ret)
		return ret == EXIT_USAGE ? WORKER_USAGE : WORKER_ERROR;
	if (strcmp(good->workload, bad->workload) ||
	    !bisect_params_equal(good->params, bad->params, why, sizeof(why))) {
		error("bisect: step: the references ran different workloads or parameters (%s)",
		      strcmp(good->workload, bad->workload) ? "workload" : why);
		return WORKER_ERROR;
	}
	*refs = (struct bisect_refs){ .good = *gm, .ng = ng, .bad = *bm, .nb = nb };
	bisect_refs_check(refs, p->alpha, &rd);
	if (rd.v == BISECT_BAD)
		return 0;
	if (rd.valid)
		error("bisect: step: the references are not apart on %s: bad vs good "
		      "%+.1f%% [%+.1f%%, %+.1f%%] at %.0f%% (%zu and %zu boots): measure "
		      "more boots of each (vm --rounds N)",
		      p->metric, 100 * expm1(rd.separation), 100 * expm1(rd.sep_lo),
		      100 * expm1(rd.sep_hi), 100 * rd.level, ng, nb);
	else
		error("bisect: step: the references cannot be compared on %s: %s (%zu and "
		      "%zu boots)",
		      p->metric, rd.why, ng, nb);
	return WORKER_ERROR;
}

/* What a measured step ends with: its verdict printed, or why it has none. */
static int step_outcome(enum measure_outcome o, const struct bisect_step *s, const char *label,
			const char *metric, const char *why)
{
	char desc[512];

	switch (o) {
	case MEASURE_OK:
		break;
	case MEASURE_ENV:
		error("bisect: step: '%s': the environment differs from the references' in a "
		      "strong key: %s: skipping this candidate",
		      label, why);
		return WORKER_SKIP;
	case MEASURE_CANNOT:
		error("bisect: step: '%s': %s: skipping this candidate", label, why);
		return WORKER_SKIP;
	case MEASURE_PARAMS:
	case MEASURE_USAGE:
		error("bisect: step: '%s': %s", label, why);
		return WORKER_USAGE;
	case MEASURE_STOPPED:
		error("bisect: step: '%s': %s", label, why);
		return 128 + (bisect_stop_sig ? bisect_stop_sig : SIGINT);
	default:
		error("bisect: step: '%s': %s", label, why[0] ? why : "the measurement failed");
		return WORKER_ERROR;
	}
	bisect_describe(s, desc, sizeof(desc));
	if (!s->nc) {
		printf("%s: skip: every boot failed (%zu)\n", label, s->boots);
		return WORKER_SKIP;
	}
	printf("%s: %s on %s: %s\n", label,
	       s->d.v == BISECT_GOOD  ? "good"
	       : s->d.v == BISECT_BAD ? "bad"
				      : "skip (undecided)",
	       metric, desc);
	return s->d.v == BISECT_GOOD  ? WORKER_GOOD
	       : s->d.v == BISECT_BAD ? WORKER_BAD
				      : WORKER_SKIP;
}

static int step_worker(struct bisect_params *p, struct opts_result *res, struct ctx *ctx)
{
	struct bisect_settings set = settings_of(p, ctx);
	struct bisect_run_ctx rc = { .p = &set };
	struct expset good = { 0 }, bad = { 0 }, ids = { 0 };
	struct strlist derived = { 0 };
	struct bisect_refs refs;
	struct bisect_step s;
	struct step_record r = { .kind = "step", .role = "candidate", .index = -1 };
	double *gm = NULL, *bm = NULL;
	char why[512] = "", *label, *id = NULL;
	enum measure_outcome o;
	int ret = step_usage(p, res);

	if (ret)
		return ret;
	if (!(label = step_label(p)))
		return WORKER_USAGE;
	ret = WORKER_ERROR;
	if (p->vm && bisect_check_image(p->vm, why, sizeof(why))) {
		/* a tree that did not build: git bisect's skip */
		error("bisect: step: option '--vm': %s: skipping this candidate", why);
		ret = WORKER_SKIP;
		goto out;
	}
	rc.db = cli_db_path(ctx);
	if (store_open(rc.db, STORE_CHECK, &rc.st) ||
	    (ret = step_refs(&rc, p, &good, &bad, &gm, &bm, &refs)))
		goto out;
	ret = WORKER_ERROR;
	if (res->dashdash >= 0 && (size_t)res->dashdash < res->npos) {
		rc.wl_args = res->pos + res->dashdash;
		rc.nwl = res->npos - (size_t)res->dashdash;
	} else {
		derived = bisect_args_from_params(good.params);
		rc.wl_args = derived.v;
		rc.nwl = derived.n;
	}
	rc.ref_params = good.params;
	rc.good_exp = good.ids[0];
	rc.bad_exp = bad.ids[0];
	if (p->vm && bisect_find_qemu(&rc))
		goto out;
	id = xasprintf("step:%s..%s:%s", p->good.v[0], p->bad.v[0], p->metric);
	o = bisect_run_step(&rc, &refs, p->vm, label, p->vm ? (size_t)p->max_boots : 1, &s, &ids,
			    why, sizeof(why));
	ret = step_outcome(o, &s, label, p->metric, why);
	r.id = id;
	r.candidate = label;
	r.metric = p->metric;
	r.s = o == MEASURE_OK ? &s : NULL;
	bisect_store_step_keys(rc.st, &ids, &r);
out:
	free(gm);
	free(bm);
	expset_release(&good);
	expset_release(&bad);
	expset_release(&ids);
	bisect_strlist_free(&derived);
	free(label);
	free(id);
	if (rc.st)
		store_close(rc.st);
	return ret;
}

/* The parent of `bisect step`: every ending of the worker mapped for git bisect run. */
static int step_guard(int argc, const char **argv, struct ctx *ctx,
		      int (*worker)(int, const char **, struct ctx *))
{
	int status, code;
	pid_t pid;

	fflush(NULL);
	bisect_signals_install();
	pid = fork();
	if (pid < 0) {
		error_errno("bisect: fork");
		return BISECT_EXIT_ERROR;
	}
	if (pid == 0) {
		fflush(NULL);
		exit(worker(argc, argv, ctx));
	}
	bisect_child_pid = pid;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			error_errno("bisect: waitpid");
			return BISECT_EXIT_ERROR;
		}
	bisect_child_pid = 0;
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		if (sig != SIGINT && sig != SIGTERM && sig != SIGHUP && sig != SIGQUIT &&
		    sig != SIGPIPE)
			error("bisect: step: wakebench died of %s: aborting the bisection",
			      strsignal(sig));
		return 128 + sig;
	}
	code = WEXITSTATUS(status);
	switch (code) {
	case EXIT_OK: /* -h */
		return EXIT_OK;
	case WORKER_GOOD:
		return BISECT_EXIT_GOOD;
	case WORKER_BAD:
		return BISECT_EXIT_BAD;
	case WORKER_SKIP:
		return BISECT_EXIT_SKIP;
	case EXIT_USAGE:
	case WORKER_USAGE:
		return BISECT_EXIT_USAGE;
	default:
		if (code > 128 && code < 128 + 65)
			return code; /* stopped by a signal */
		return BISECT_EXIT_ERROR;
	}
}

/* ------------------------------------------------------------------- run */

/* Options that do not fit a run: exit 2 naming them. */
static void run_usage(const struct bisect_params *p, const struct opts_result *res)
{
	char why[512];
	size_t i;

	if (p->kernels.n < 2)
		die_usage("bisect: run: option '--kernel': give at least 2 images in order (the "
			  "first good, the last bad)");
	if (p->good.n || p->bad.n || p->vm)
		die_usage("bisect: run: options '--good', '--bad' and '--vm' are for 'bisect "
			  "step'; run measures the first and the last image as its references");
	if (res->dashdash < 0 || (size_t)res->dashdash >= res->npos)
		die_usage("bisect: run: no workload: give it after '--', e.g. -- pipe -j 1 -t 1s "
			  "-n 3");
	if (res->dashdash > 1)
		die_usage("bisect: run: unexpected argument '%s' before '--'", res->pos[1]);
	for (i = 0; i < p->kernels.n; i++)
		if (bisect_check_image(p->kernels.v[i], why, sizeof(why)))
			die_usage("bisect: run: option '--kernel': %s", why);
}

static int run_main(struct bisect_params *p, struct opts_result *res, struct ctx *ctx)
{
	struct bisect_settings set = settings_of(p, ctx);

	run_usage(p, res);
	return bisect_run(&set, cli_db_path(ctx), res->pos + res->dashdash,
			  res->npos - (size_t)res->dashdash, stdout);
}

static void print_step(json_object *s)
{
	char *cand = text_printable(rep_str(s, "candidate") ?: "?", 0), out[512];

	rep_bisect_outcome(s, out, sizeof(out));
	printf("  %-15s %s: %s\n", rep_str(s, "role") ?: "?", cand, out);
	free(cand);
}

static int report_main(struct bisect_params *p, struct ctx *ctx)
{
	struct store *st;
	json_object *jo, *steps;
	size_t i;
	int ret;

	cli_require_format("bisect", ctx, (1u << FMT_TEXT) | (1u << FMT_JSON));
	if (store_open(cli_db_path(ctx), STORE_READONLY, &st))
		return EXIT_RUNTIME;
	ret = bisect_document(st, p->id, "bisect: report: option '--id'", cli_db_path(ctx), &jo);
	store_close(st);
	if (ret != EXIT_OK)
		return ret;
	if (ctx->format == FMT_JSON) {
		printf("%s\n",
		       json_object_to_json_string_ext(jo, JSON_C_TO_STRING_PRETTY |
								  JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		char *res_txt =
			text_printable(rep_str(jo, "result") ?: rep_str(jo, "no_result"), 0);

		printf("bisection %s (%s), metric %s\n", rep_str(jo, "id"),
		       *rep_str(jo, "kind") ? rep_str(jo, "kind") : "?",
		       *rep_str(jo, "metric") ? rep_str(jo, "metric") : "?");
		json_object_object_get_ex(jo, "steps", &steps);
		for (i = 0; i < json_object_array_length(steps); i++)
			print_step(json_object_array_get_idx(steps, i));
		printf("result: %s\n", res_txt);
		free(res_txt);
	}
	json_object_put(jo);
	return EXIT_OK;
}

/* ------------------------------------------------------------------ entry */

enum bisect_sub { SUB_NONE, SUB_STEP, SUB_RUN, SUB_REPORT };

/* Every option table of bisect, with its title in -h, once. */
enum { T_STEP, T_RUN, T_DECIDE, T_VM, T_REPORT, NTABLES };

static const struct {
	const struct opt *opts;
	const char *title;
} bisect_tables[NTABLES] = {
	[T_STEP] = { bisect_step_opts, "bisect step options" },
	[T_RUN] = { bisect_run_opts, "bisect run options" },
	[T_DECIDE] = { bisect_decide_opts, "the decision (step and run)" },
	[T_VM] = { bisect_vm_opts, "the guests (step --vm and run)" },
	[T_REPORT] = { bisect_report_opts, "bisect report options" },
};

#define SUB_TABLES 3

/* Each subcommand's tables (indices into bisect_tables, then -1s). */
static const struct {
	const char *name;
	int tables[SUB_TABLES];
} bisect_subs[] = {
	[SUB_STEP] = { "step", { T_STEP, T_DECIDE, T_VM } },
	[SUB_RUN] = { "run", { T_RUN, T_DECIDE, T_VM } },
	[SUB_REPORT] = { "report", { T_REPORT, -1, -1 } },
};

static bool sub_has(enum bisect_sub sub, const struct opt *o)
{
	const struct opt *t;
	size_t i;

	for (i = 0; i < SUB_TABLES && bisect_subs[sub].tables[i] >= 0; i++)
		for (t = bisect_tables[bisect_subs[sub].tables[i]].opts; t->type != OPT_END; t++)
			if (t == o)
				return true;
	return false;
}

/* The option of some bisect table that argument arg names, or NULL. */
static const struct opt *bisect_opt_named(const char *arg)
{
	const struct opt *t;
	size_t i, n;

	for (i = 0; i < NTABLES; i++)
		for (t = bisect_tables[i].opts; t->type != OPT_END; t++) {
			if (arg[0] == '-' && arg[1] == '-') {
				n = strcspn(arg + 2, "=");
				if (strlen(t->long_name) == n && !strncmp(arg + 2, t->long_name, n))
					return t;
			} else if (arg[0] == '-' && t->short_name && arg[1] == t->short_name) {
				return t;
			}
		}
	return NULL;
}

/*
 * An option of another subcommand given to this one is bad input naming it
 * (exit 2; 129 under step, git bisect's abort), never silently ignored.
 */
static void bad_for_sub(enum bisect_sub sub, int argc, const char **argv)
{
	enum bisect_sub other;
	const struct opt *o;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (argv[i][0] != '-' || !(o = bisect_opt_named(argv[i])))
			continue;
		if (!sub_has(sub, o)) {
			for (other = SUB_STEP; other <= SUB_REPORT && !sub_has(other, o); other++)
				;
			die_usage("bisect %s: option '--%s' is one of bisect %s%s's options, not "
				  "of bisect %s",
				  bisect_subs[sub].name, o->long_name, bisect_subs[other].name,
				  other == SUB_STEP && sub_has(SUB_RUN, o) ? " and run" : "",
				  bisect_subs[sub].name);
		}
		/* its value is the next argument: not an option, whatever it looks like */
		if (o->type != OPT_FLAG && argv[i][1] == '-' && !strchr(argv[i], '=') &&
		    !(o->flags & OPT_OPTIONAL_ARG))
			i++;
		else if (o->type != OPT_FLAG && argv[i][1] != '-' && !argv[i][2])
			i++;
	}
}

static enum bisect_sub sub_of(const char *name)
{
	enum bisect_sub s;

	for (s = SUB_STEP; name && s <= SUB_REPORT; s++)
		if (!strcmp(name, bisect_subs[s].name))
			return s;
	return SUB_NONE;
}

/* Returns the number of groups set up (the last one the common options). */
static size_t parse(enum bisect_sub sub, struct bisect_params *p, struct opt_group *groups,
		    struct opts_result *res, int argc, const char **argv, struct ctx *ctx)
{
	size_t i, n = 0;
	int t;

	*p = bisect_defaults;
	if (sub != SUB_NONE)
		bad_for_sub(sub, argc, argv);
	/* -h, or a missing or unknown subcommand: every table, for the help */
	for (i = 0; i < (sub == SUB_NONE ? NTABLES : SUB_TABLES); i++) {
		t = sub == SUB_NONE ? (int)i : bisect_subs[sub].tables[i];
		if (t < 0)
			break;
		groups[n++] = (struct opt_group){ .title = bisect_tables[t].title,
						  .opts = bisect_tables[t].opts,
						  .base = p,
						  .defaults = &bisect_defaults };
	}
	groups[n++] = cli_common_group_for(ctx, COMMON_DB | COMMON_FORMAT | COMMON_VERBOSITY,
					   (1u << FMT_TEXT) | (1u << FMT_JSON));
	cli_parse("bisect", bisect_usage, bisect_description, groups, n, argc, argv, 0, res, ctx);
	return n;
}

static int step_entry(int argc, const char **argv, struct ctx *ctx)
{
	struct bisect_params p;
	struct opt_group groups[6];
	struct opts_result res;
	size_t n;
	int ret;

	n = parse(SUB_STEP, &p, groups, &res, argc, argv, ctx);
	if (ctx->format != FMT_TEXT) {
		error("bisect: step: option '--format': only text");
		ret = WORKER_USAGE;
	} else {
		ret = step_worker(&p, &res, ctx);
	}
	opts_release(groups, n);
	opts_result_release(&res);
	fflush(NULL);
	return ret;
}

int cmd_bisect(int argc, const char **argv, struct ctx *ctx)
{
	struct bisect_params p;
	struct opt_group groups[6];
	struct opts_result res;
	/* The subcommand comes first, as in git: `bisect step --good ...`. */
	enum bisect_sub sub = sub_of(argc > 0 ? argv[0] : NULL);
	size_t n;
	int ret;

	if (sub == SUB_STEP)
		return step_guard(argc, argv, ctx, step_entry);
	n = parse(sub, &p, groups, &res, argc, argv, ctx);
	if (sub == SUB_NONE) {
		/* maybe a mistyped step under git bisect run: never a status git reads as bad */
		error("bisect: %s%s%s: allowed step|run|report",
		      res.npos ? "unknown subcommand '" : "no subcommand",
		      res.npos ? res.pos[0] : "", res.npos ? "'" : "");
		ret = BISECT_EXIT_USAGE;
	} else if (sub == SUB_RUN) {
		if (ctx->format != FMT_TEXT)
			die_usage("bisect: run: option '--format': only text; 'bisect report "
				  "--format json' gives the steps as JSON");
		ret = run_main(&p, &res, ctx);
	} else {
		if (res.npos > 1)
			die_usage("bisect: report: unexpected argument '%s'", res.pos[1]);
		ret = report_main(&p, ctx);
	}
	opts_release(groups, n);
	opts_result_release(&res);
	return ret;
}
