/*
 * cmd-ab.c: `wakebench ab --feature [NO_]NAME [--feature [NO_]NAME2] [WORKLOAD]`:
 * scheduler features on and off within one boot, interleaved so that drift
 * cancels, with a paired verdict, and the kernel always put back the way it
 * was found.
 *
 * It parses and checks the options and the --feature tokens, runs the
 * engine (engine/abrun.c: arms, counterbalanced order, toggles with their
 * warm-up, the units while the sequential engine of stats/sequential.c
 * wants them, the restore), prints through its hooks and renders the one
 * result (engine/ab.c, render/ab.c).
 *
 * Safety: the features journal (sys/features.h) is in place before the
 * first write and removed after the restore; every catchable terminating
 * signal (SIGINT, SIGQUIT, SIGPIPE of `ab | head`, ...) only sets a flag
 * (runner_signals_install), so every exit path restores.
 */
#include "cli/cli.h"
#include "cli/experiment.h"
#include "engine/summary.h"
#include "render/results.h"
#include "engine/ab.h"
#include "engine/abrun.h"
#include "render/ab.h"
#include "render/json.h"
#include "core/metrics.h"
#include "stats/stats.h"
#include "sys/env.h"
#include "sys/features.h"
#include "runner/ceiling.h"
#include "runner/probes.h"

#include <json-c/json.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char ab_usage[] = "--feature [NO_]NAME [--feature [NO_]NAME2] [WORKLOAD] [options]";
static const char ab_description[] =
	"Interleave samples of WORKLOAD (default pipe) with scheduler features applied and not,\n"
	"in counterbalanced order with a warm-up after every toggle, restore the features as\n"
	"found, and give a paired verdict on the effect of applying each --feature token.\n"
	"By default pairs are added until the verdict is decided (at most --max-samples,\n"
	"within --max-time); -n N runs exactly N pairs (blocks of four with two features).\n"
	"A paired verdict needs at least 6 pairs (9 blocks): smaller sizes are refused.\n"
	"The output ends with one line per --feature: the effect, its CI and the verdict.";

static const struct ab_params ab_defaults = {
	.order = ORDER_ABBA,
	.seed = 0,
	.margin = 0.02,
	.max_samples = 64,
	.max_time_ns = 0,
};

static const struct opt ab_opts[] = {
	{ .type = OPT_STRLIST,
	  .long_name = "feature",
	  .offset = offsetof(struct ab_params, features),
	  .argh = "[NO_]NAME",
	  .help = "the token whose effect is measured (B applies it, A the opposite); "
		  "twice for the 2x2 factorial" },
	{ .type = OPT_CHOICE,
	  .long_name = "order",
	  .offset = offsetof(struct ab_params, order),
	  .argh = "ORDER",
	  .help = "abba (A B B A ...) or random (seeded, counterbalanced in every two units)",
	  .choices = ab_order_names },
	{ .type = OPT_UINT,
	  .long_name = "seed",
	  .offset = offsetof(struct ab_params, seed),
	  .argh = "N",
	  .help = "seed of --order random (0: chosen at start and printed)" },
	{ .type = OPT_PERCENT,
	  .long_name = "margin",
	  .offset = offsetof(struct ab_params, margin),
	  .argh = "PERCENT",
	  .help = "practical margin of the verdict",
	  .min = 0.001,
	  .max = 0.5 },
	{ .type = OPT_FLAG,
	  .long_name = "until-decided",
	  .offset = offsetof(struct ab_params, until_decided),
	  .help = "add units until the verdict is decided (the default unless -n is given)" },
	{ .type = OPT_UINT,
	  .long_name = "max-samples",
	  .offset = offsetof(struct ab_params, max_samples),
	  .argh = "N",
	  .help = "until decided: at most N pairs (blocks), the last look; at least 6 (9 blocks)",
	  .min = 1,
	  .max = STATS_SEQ_MAX_UNITS },
	{ .type = OPT_DURATION,
	  .long_name = "max-time",
	  .offset = offsetof(struct ab_params, max_time_ns),
	  .argh = "DURATION",
	  .help = "until decided: the time budget, no unit starts after it (0: no limit)",
	  .min = 0,
	  .max = 7 * 86400e9 },
	{ .type = OPT_FLAG,
	  .long_name = "fail-on-regression",
	  .offset = offsetof(struct ab_params, fail_on_regression),
	  .help = "exit 3 when the verdict is a regression" },
	OPT_END_ROW,
};

/* ---- what the command prints while ab runs (engine/abrun.c's hooks) ---- */

struct ab_cli {
	const struct ctx *ctx;
	struct progress progress;
	unsigned total; /* units planned */
};

/* A sample with -v, or one that failed. */
static void print_sample(void *arg, const struct ab_state *st, unsigned m, const struct sample *s)
{
	struct ab_cli *c = arg;

	if (c->ctx->format != FMT_TEXT || !(c->ctx->verbose || s->status != SAMPLE_OK))
		return;
	progress_clear(&c->progress);
	report_sample_text(stdout, st->arms[m].name, s, (unsigned)st->nunits, c->total,
			   st->wl->name);
}

static void show_next(void *arg, const struct ab_state *st, size_t u, unsigned m)
{
	struct ab_cli *c = arg;

	progress_show(&c->progress, st->arms[m].name, (unsigned)u + 1, 0, st->punit);
}

static void print_unit(void *arg, const struct ab_state *st, size_t u)
{
	struct ab_cli *c = arg;
	struct ab_unit_line l;

	c->progress.done++;
	if (c->ctx->format != FMT_TEXT || c->ctx->quiet)
		return;
	progress_clear(&c->progress);
	ab_unit_line(st, u, c->total, &l);
	render_ab_unit(stdout, &l);
}

/* ---- setup ---- */

/* Was the option of this long name given (its bit in the group's `seen`)? */
static bool given(const struct opt_group *g, const char *long_name)
{
	const struct opt *o = opts_find(g->opts, long_name);

	return o && (g->seen & (1ull << (o - g->opts)));
}

/* Features that cannot be toggled here: why, and what works instead (root, a VM). */
static int unusable(const struct ab_state *st, const struct ctx *ctx, const struct strlist *fl,
		    enum features_fail fail, const char *why)
{
	char vm[256];

	ab_vm_command(st, fl, vm, sizeof(vm));
	return cli_features_unusable(ctx, "ab", "write", fail, why, vm);
}

/* The --feature tokens against the live features: bad input is exit 2. */
static int check_tokens(struct ab_state *st, const struct ctx *ctx, const struct strlist *fl)
{
	enum features_fail fail;
	char why[4096], btf[4096];
	int rc;

	cli_btf_path(ctx, btf, sizeof(btf));
	rc = ab_check_tokens(st, ctx->debugfs, btf[0] ? btf : NULL, fl, &fail, why, sizeof(why));
	if (rc == EXIT_USAGE)
		die_usage("ab: %s", why);
	return rc ? unusable(st, ctx, fl, fail, why) : 0;
}

static void print_json(const struct ab_state *st, const struct ab_run_view *v, const char *status,
		       int sig, bool restored)
{
	json_object *o = json_object_new_object();

	experiment_json_provenance(&st->ex, o);
	json_object_object_add(o, "status", json_object_new_string(status));
	json_object_object_add(o, "stopped_by",
			       sig ? json_object_new_string(cli_signal_name(sig)) : NULL);
	json_object_object_add(o, "uuid",
			       json_str_or_null(st->ex.info.uuid[0] ? st->ex.info.uuid : NULL));
	json_object_object_add(o, "features_restored", json_object_new_boolean(restored));
	json_object_object_add(o, "order", json_object_new_string(ab_order_names[st->ap->order]));
	json_object_object_add(o, "seed", json_object_new_int64((int64_t)st->ap->seed));
	json_object_object_add(o, "margin", json_double(st->ap->margin));
	json_object_object_add(o, "toggles", json_object_new_int64(st->ntoggles));
	render_ab_run_json(v, o);
	json_print(stdout, o);
	json_object_put(o);
}

/* ab's runner defaults: until decided (no -n), short samples, a warm-up after every toggle. */
static void ab_runner_defaults(struct run_params *rp)
{
	rp->samples = 0; /* -n: pairs of a fixed length; 0: until decided */
	rp->duration_ns = AB_DEFAULT_DURATION_NS;
	rp->warmup_ns = AB_DEFAULT_WARMUP_NS;
}

static const struct opt_group ab_group = {
	.title = "ab options", .opts = ab_opts, .base = NULL, .defaults = &ab_defaults
};

static const struct experiment_cmd_spec ab_cmd = {
	.cmd = "ab",
	.usage = ab_usage,
	.description = ab_description,
	.own = &ab_group,
	.runner_title = "runner options",
	.formats = (1u << FMT_TEXT) | (1u << FMT_JSON),
	.defaults = ab_runner_defaults,
};

/* ab's own checks of the options, then the workload resolved. */
static void ab_parse(struct experiment_cmd *o, struct ab_params *ap, int argc, const char **argv,
		     struct ctx *ctx)
{
	struct opt_group own = ab_group;
	struct experiment_cmd_spec cs = ab_cmd;
	const struct opt_group *g;
	char why[256];

	*ap = ab_defaults;
	own.base = ap;
	cs.own = &own;
	cs.runner_opts = ab_runner_opts();
	experiment_cmd_parse(o, &cs, argc, argv, ctx);
	g = o->groups;
	if (given(&g[o->own], "seed") && ap->order != ORDER_RANDOM)
		die_usage("ab: option '--seed' needs '--order random'");
	if (o->rp.samples && ap->until_decided)
		die_usage(
			"ab: options '-n' (a fixed number of pairs) and '--until-decided' exclude "
			"each other");
	if (o->rp.samples && (given(&g[o->own], "max-samples") || given(&g[o->own], "max-time")))
		die_usage("ab: options '--max-samples' and '--max-time' bound a run until decided; "
			  "'-n' asks for a fixed length instead");
	ap->until_decided = !o->rp.samples;
	if (ab_check_sizes(ap, &o->rp, why, sizeof(why)))
		die_usage("ab: %s", why);
	/* a time budget alone: the clock, not a count, bounds the run (the engine plans it) */
	if (given(&g[o->own], "max-time") && ap->max_time_ns && !given(&g[o->own], "max-samples"))
		ap->max_samples = STATS_SEQ_MAX_UNITS;
	experiment_cmd_resolve(o, "ab");
	if (ap->order == ORDER_RANDOM && !ap->seed)
		ap->seed = (realtime_ns() ^ (uint64_t)getpid() << 32) % 1000000000ull + 1;
}

/* After the restore: the result, the experiment's end, the output, the exit status. */
static int ab_finish(const struct ctx *ctx, struct ab_state *st, json_object *params, int ret,
		     bool restored)
{
	struct report_summary rs[AB_MAX_ARMS];
	struct ab_run_view v;
	struct ab_result r;
	int sig = runner_stop_signal();
	const char *status;
	unsigned m;
	size_t i;

	for (m = 0; m < st->narms; m++)
		if (ab_arm_summary(st, m, &rs[m]))
			ret = EXIT_RUNTIME;
	status = ab_run_end(st, params, ret, sig, &r);
	if (sig)
		warning("ab: stopped by %s after %zu complete %s", cli_signal_name(sig),
			r.ncomplete, ab_unit_word(&st->design, r.ncomplete));
	ab_run_view(st, &r, rs, sig != 0, &v);
	if (ctx->format == FMT_JSON) {
		print_json(st, &v, status, sig, restored);
	} else {
		render_ab_run_text(stdout, &v, ctx->verbose);
		report_env_text(stdout, st->ex.have_env_end ? &st->ex.env_end : &st->ex.env_start);
		if (!ctx->no_store && !st->ex.store_failed && !ctx->quiet)
			cli_print_stored(ctx, st->ex.info.uuid);
		render_ab_text(stdout, &r, v.ptitle, v.interrupted);
	}
	ab_run_view_release(&v);
	for (m = 0; m < st->narms; m++)
		report_summary_release(&rs[m]);
	if (sig)
		ret = experiment_signal_status(sig);
	else if (!ret && !strcmp(status, "failed"))
		ret = EXIT_RUNTIME;
	else if (!ret && st->ap->fail_on_regression)
		for (i = 0; i < st->nfeat; i++)
			if (r.eff[i].s.v == VERDICT_REGRESSION)
				ret = EXIT_REGRESSION;
	ab_result_release(&r);
	return ret;
}

int cmd_ab(int argc, const char **argv, struct ctx *ctx)
{
	struct experiment_cmd o;
	struct ab_params ap;
	struct experiment_where where;
	struct ab_cli cli = { .ctx = ctx };
	const struct ab_hooks hooks = {
		.arg = &cli, .sample = print_sample, .next = show_next, .unit = print_unit
	};
	char *cmdline = NULL;
	struct probe_set ps = { 0 };
	struct ceiling_shape ceiling;
	struct ab_state st;
	json_object *params = NULL;
	char err[512], why[2048];
	int ret = EXIT_OK, rc;
	unsigned m;

	ab_parse(&o, &ap, argc, argv, ctx);
	cmdline = cli_cmdline(ctx);
	where = experiment_where_of(ctx, cmdline);
	ab_state_init(&st, &where, o.wl, &o.rp, &o.spec, &ap, &hooks);
	if (o.pp.ceiling && ceiling_shape_of(&o.spec, &ceiling, err, sizeof(err)))
		die_usage("ab: %s", err);
	st.ceiling = o.pp.ceiling ? &ceiling : NULL;
	rc = cli_kernel_prepare(
		ctx, "ab",
		CLI_NEED_DEBUGFS | CLI_CHANGES_FEATURES |
			(o.pp.trace && o.pp.trace != TRACE_BPF ? CLI_NEED_TRACEFS : 0));
	if (!rc)
		rc = check_tokens(&st, ctx, &ap.features);
	if (rc) {
		ret = rc;
		goto out_parse;
	}
	if (probes_setup(&ps, &o.pp, ctx->debugfs, err, sizeof(err))) {
		error("ab: %s", err);
		ret = EXIT_SKIP;
		goto out_parse;
	}
	o.spec.probes = ps.probes;
	o.spec.nprobes = ps.n;

	runner_signals_install();
	/* The journal goes in place before anything is written. */
	if (features_session_begin(&st.fs, ctx->debugfs, ctx->state_dir, why, sizeof(why))) {
		ret = unusable(&st, ctx, &ap.features, st.fs.fail, why);
		goto out_probes;
	}
	ab_build_arms(&st);
	ab_engine_init(&st);
	params = experiment_cmd_params(&o, &ps);
	if (experiment_begin(&st.ex, &where, "ab", o.wl, o.profile[0] ? o.profile : NULL,
			     o.base_profile, o.eo.v.label, params)) {
		ab_restore(&st);
		ret = EXIT_RUNTIME;
		goto out_probes;
	}
	for (m = 0; m < st.narms && !ret; m++)
		if (experiment_add_config(&st.ex, st.arms[m].name, st.arms[m].vector,
					  &st.arms[m].config_id))
			ret = EXIT_RUNTIME;
	if (!ret) {
		cli.total = (unsigned)(ap.until_decided ? ap.max_samples : o.rp.samples);
		if (ctx->format == FMT_TEXT && !ctx->quiet) {
			struct ab_plan plan;

			ab_run_plan(&st, st.ex.profile, &plan);
			render_ab_plan(stdout, &plan);
		}
		progress_init(&cli.progress, cli_progress_enabled(ctx), cli.total);
		ab_loop(&st);
		progress_clear(&cli.progress);
	}
	rc = ab_restore(&st);
	if (rc && !ret)
		ret = EXIT_RUNTIME;
	ret = ab_finish(ctx, &st, params, ret, !rc);
	experiment_release(&st.ex);
out_probes:
	for (m = 0; m < AB_MAX_ARMS; m++)
		if (st.arms[m].have_env)
			env_release(&st.arms[m].env);
	probes_release(&ps);
out_parse:
	stats_seq_release(&st.engine);
	json_object_put(params);
	free(cmdline);
	free(st.obs);
	free(st.sample_arm);
	free(st.samples);
	free(st.unit);
	experiment_cmd_release(&o);
	return ret;
}
