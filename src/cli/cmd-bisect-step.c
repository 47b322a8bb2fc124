/*
 * cmd-bisect-step.c: `wakebench bisect step`: one verdict for `git bisect
 * run`: is the kernel under test (this boot, or an image booted in `vm`)
 * closer to the good or to the bad reference? Exit 0 good, 1 bad, 125 skip,
 * >= 128 abort.
 *
 * `git bisect run` reads every status from 1 to 127 except 125 as "bad",
 * and wakebench's own statuses (1 runtime error, 2 usage, 77 cannot run)
 * would all be taken for a verdict. So the step runs in a child process
 * and its parent maps whatever that child ends with: its verdicts to 0, 1
 * and 125, a usage error to 129, every other failure (die() deep down, a
 * crash) to 128, a stop signal N to 128 + N, as git itself does.
 */
#include "cli/bisect.h"
#include "engine/vm.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct bisect_settings bisect_settings_of(const struct bisect_params *p, const struct ctx *ctx)
{
	return (struct bisect_settings){ .metric = p->metric,
					 .alpha = p->alpha,
					 .cpus = p->cpus,
					 .memory_bytes = p->memory_bytes,
					 .timeout_ns = p->timeout_ns,
					 .accel = vm_accel_names[p->accel],
					 .append = p->append,
					 .qemu = p->qemu,
					 .quiet = ctx->quiet,
					 .verbose = ctx->verbose,
					 .kernels = &p->kernels,
					 .max_boots = p->max_boots,
					 .max_ref_boots = p->max_ref_boots };
}

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
		text_line(stdout, "%s: skip: every boot failed (%zu)", label, s->boots);
		return WORKER_SKIP;
	}
	text_line(stdout, "%s: %s on %s: %s", label,
		  s->d.v == BISECT_GOOD	 ? "good"
		  : s->d.v == BISECT_BAD ? "bad"
					 : "skip (undecided)",
		  metric, desc);
	return s->d.v == BISECT_GOOD  ? WORKER_GOOD
	       : s->d.v == BISECT_BAD ? WORKER_BAD
				      : WORKER_SKIP;
}

static int step_worker(struct bisect_params *p, struct opts_result *res, struct ctx *ctx)
{
	struct bisect_settings set = bisect_settings_of(p, ctx);
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
	rc.db = cli_db_for_open(ctx, false);
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

static int step_entry(int argc, const char **argv, struct ctx *ctx)
{
	struct bisect_params p;
	struct opt_group groups[6];
	struct opts_result res;
	size_t n;
	int ret;

	n = bisect_parse(SUB_STEP, &p, groups, &res, argc, argv, ctx);
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

int bisect_step(int argc, const char **argv, struct ctx *ctx)
{
	return step_guard(argc, argv, ctx, step_entry);
}
