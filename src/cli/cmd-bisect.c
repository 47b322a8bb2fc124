/*
 * cmd-bisect.c: `wakebench bisect`: find the kernel that changed a metric
 * (doc/bisect.md): `bisect step` (cmd-bisect-step.c) for `git bisect run`,
 * `bisect run` over an ordered list of kernel images booted in `vm`, then
 * the confirmation of the result, and `bisect report`, the steps of a
 * stored bisection. The measuring, the decisions and the stored steps are
 * the engine's (engine/bisect.c); here are the options of each subcommand,
 * their checks, and the printing of a report.
 */
#include "cli/bisect.h"
#include "engine/vm.h"
#include "render/render.h"
#include "util/json.h"
#include "util/suggest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

const struct bisect_params bisect_defaults = {
	.metric = "ops_per_s",
	.alpha = BISECT_ALPHA_DEFAULT,
	.max_boots = BISECT_MAX_BOOTS_DEFAULT,
	.max_ref_boots = BISECT_MAX_REF_BOOTS_DEFAULT,
	.cpus = 2,
	.memory_bytes = 1ull << 30,
	.timeout_ns = 600ull * 1000000000ull,
};

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
	  .choices = vm_accel_names },
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
	struct bisect_settings set = bisect_settings_of(p, ctx);

	run_usage(p, res);
	return bisect_run(&set, cli_db_for_open(ctx, true), res->pos + res->dashdash,
			  res->npos - (size_t)res->dashdash, stdout);
}

static int report_main(struct bisect_params *p, struct ctx *ctx)
{
	struct store *st;
	json_object *jo;
	int ret;

	cli_require_format("bisect", ctx, (1u << FMT_TEXT) | (1u << FMT_JSON));
	if (!(st = cli_store(ctx)))
		return EXIT_RUNTIME;
	ret = bisect_document(st, p->id, "bisect: report: option '--id'", cli_db_path(ctx), &jo);
	if (ret != EXIT_OK)
		return ret;
	if (ctx->format == FMT_JSON)
		json_print(stdout, jo);
	else
		rep_bisect_text(stdout, jo);
	json_object_put(jo);
	return EXIT_OK;
}

/* ------------------------------------------------------------------ entry */

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
size_t bisect_parse(enum bisect_sub sub, struct bisect_params *p, struct opt_group *groups,
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
		return bisect_step(argc, argv, ctx);
	n = bisect_parse(sub, &p, groups, &res, argc, argv, ctx);
	if (sub == SUB_NONE) {
		/* maybe a mistyped step under git bisect run: never a status git reads as bad */
		char hint[SUGGEST_HINT_MAX] = "";

		if (res.npos)
			suggest_hint_alternatives(res.pos[0], "step|run|report", "", hint,
						  sizeof(hint));
		error("bisect: %s%s%s: allowed step|run|report%s",
		      res.npos ? "unknown subcommand '" : "no subcommand",
		      res.npos ? res.pos[0] : "", res.npos ? "'" : "", hint);
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
