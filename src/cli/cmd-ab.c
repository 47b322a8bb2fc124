/*
 * cmd-ab.c: `wakebench ab --feature [NO_]NAME [--feature [NO_]NAME2] [WORKLOAD]`:
 * scheduler features on and off within one boot, interleaved so that drift
 * cancels, with a paired verdict, and the kernel always put back the way it
 * was found.
 *
 * Arms. Each --feature token names the treatment: `--feature NO_DELAY_DEQUEUE`
 * compares A = DELAY_DEQUEUE with B = NO_DELAY_DEQUEUE, and the effect is
 * B versus A, i.e. what applying the token does. Two tokens give the 2x2
 * factorial: arms 00 (neither applied), 10, 01, 11.
 *
 * Order. A unit is one sample of every arm: a pair (one feature) or a block
 * of four (two features). Units are counterbalanced: A B | B A | A B ...
 * (and Gray-code blocks 00 10 11 01 | 01 11 10 00 for two features, so each
 * step toggles one feature); `--order random --seed N` draws, for every two
 * units, which of the two mirrored orders comes first (and for two features
 * the rotation of the Gray cycle). After every toggle one discarded warm-up
 * sample runs in the new arm (its length: --warmup when given, else -t),
 * because a toggle does not dequeue entities that are already delayed.
 *
 * Statistics: the sequential engine (stats/sequential.c) owns them. This
 * file runs a unit while the engine wants one and hands it the unit's
 * primary values; the engine keeps the units in time order, looks at its
 * schedule with its calibrated per-look levels, stops when every main
 * effect is decided or the budget (--max-samples, --max-time) is spent,
 * and computes the factorial effects. Without -n, ab runs until decided.
 * Evidence counters per op get the same paired effect at 95%, Holm-
 * adjusted over all of them.
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
	"within --max-time); -n N runs exactly N pairs (blocks of four with two features).";

static const char *const order_names[] = { "abba", "random", NULL };

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
	  .choices = order_names },
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
	  .help = "until decided: at most N pairs (blocks), the last look",
	  .min = 2,
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
	unsigned m;

	c->progress.done++;
	if (c->ctx->format != FMT_TEXT || c->ctx->quiet)
		return;
	progress_clear(&c->progress);
	printf("%s %zu/%u:", st->nfeat == 1 ? "pair" : "block", u + 1, c->total);
	for (m = 0; m < st->narms; m++) {
		long i = st->unit[u][st->seq[m]];
		const struct sample *s = i >= 0 ? &st->samples[i] : NULL;
		double v;

		if (s && s->status == SAMPLE_OK && sample_value(s, st->primary->name, &v))
			printf(" %s %.2f", ab_arm_code(st, (unsigned)st->seq[m]), v);
		else
			printf(" %s %s", ab_arm_code(st, (unsigned)st->seq[m]),
			       s ? sample_status_name(s->status) : "not run");
	}
	printf(" %s", st->punit);
	if (st->nfeat == 1 && isfinite(ab_unit_ratio(st, u)))
		printf(", B/A %+.2f%%", (ab_unit_ratio(st, u) - 1.0) * 100.0);
	printf("\n");
	fflush(stdout);
}

/* ---- output ---- */

static void print_text(struct ab_state *st, const struct ab_result *r,
		       const struct report_summary *rs, bool interrupted)
{
	char buf[256];
	unsigned m;
	size_t i;

	printf("\n");
	for (m = 0; m < st->narms; m++) {
		char title[300];

		snprintf(title, sizeof(title), "%s: %s", ab_arm_code(st, m), st->arms[m].name);
		report_summary_text(stdout, title, &rs[m]);
		if (st->ceiling) {
			const struct metric_summary *ms = report_summary_get(&rs[m], "sched_share");

			ceiling_summary_line(ms && ms->available ? &ms->sum : NULL,
					     ms ? ms->why : NULL, buf, sizeof(buf));
			printf("  %s\n", buf);
		}
	}
	render_ab_text(stdout, r, st->ptitle, interrupted);
	for (m = 1; m < st->narms; m++) {
		struct env_delta *d;
		size_t n = ab_env_extra(st, m, &d);

		if (!st->arms[m].have_env)
			continue;
		if (!n)
			printf("environment: arm %s differs from arm %s only in sched.features\n",
			       ab_arm_code(st, m), ab_arm_code(st, 0));
		for (i = 0; i < n; i++)
			printf("environment: WARNING: %s differs between arms %s and %s "
			       "(%s: '%s' vs '%s')\n",
			       d[i].key, ab_arm_code(st, 0), ab_arm_code(st, m),
			       env_impact_name(d[i].impact), d[i].a ? d[i].a : "absent",
			       d[i].b ? d[i].b : "absent");
		free(d);
	}
	printf("toggles: %u, each followed by a discarded warm-up%s\n", st->ntoggles,
	       st->warmup_ns ? "" : " (none: --warmup 0)");
}

static json_object *env_differences_json(const struct ab_state *st)
{
	json_object *envd = json_object_new_array();
	unsigned m;
	size_t i;

	for (m = 1; m < st->narms; m++) {
		struct env_delta *d;
		size_t n = ab_env_extra(st, m, &d);

		for (i = 0; i < n; i++) {
			json_object *x = json_object_new_object();

			json_object_object_add(x, "arms",
					       json_object_new_string(ab_arm_code(st, m)));
			json_object_object_add(x, "key", json_object_new_string(d[i].key));
			json_object_object_add(x, "a", json_str_or_null(d[i].a));
			json_object_object_add(x, "b", json_str_or_null(d[i].b));
			json_object_array_add(envd, x);
		}
		free(d);
	}
	return envd;
}

static void print_json(struct ab_state *st, const struct ab_result *r,
		       const struct report_summary *rs, const char *status, int sig, bool restored)
{
	json_object *o = json_object_new_object(), *arms = json_object_new_array(),
		    *units = json_object_new_array();
	size_t u;
	unsigned m;

	experiment_json_provenance(&st->ex, o);
	json_object_object_add(o, "status", json_object_new_string(status));
	json_object_object_add(o, "stopped_by",
			       sig ? json_object_new_string(cli_signal_name(sig)) : NULL);
	json_object_object_add(
		o, "uuid", st->ex.info.uuid[0] ? json_object_new_string(st->ex.info.uuid) : NULL);
	json_object_object_add(o, "features_restored", json_object_new_boolean(restored));
	json_object_object_add(o, "order", json_object_new_string(order_names[st->ap->order]));
	json_object_object_add(o, "seed", json_object_new_int64((int64_t)st->ap->seed));
	json_object_object_add(o, "margin", json_double(st->ap->margin));
	json_object_object_add(o, "toggles", json_object_new_int64(st->ntoggles));
	for (m = 0; m < st->narms; m++) {
		json_object *a = json_object_new_object();

		json_object_object_add(a, "label", json_object_new_string(ab_arm_code(st, m)));
		json_object_object_add(a, "name", json_object_new_string(st->arms[m].name));
		json_object_object_add(a, "features", json_object_new_string(st->arms[m].vector));
		json_object_object_add(a, "summary", report_summary_json(&rs[m]));
		json_object_array_add(arms, a);
	}
	json_object_object_add(o, "arms", arms);
	for (u = 0; u < r->nunits; u++) {
		json_object *row = json_object_new_object();

		for (m = 0; m < st->narms; m++) {
			long i = r->unit[u][m];

			json_object_object_add(row, ab_arm_code(st, m),
					       i >= 0 ? report_sample_json(&st->samples[i]) : NULL);
		}
		json_object_array_add(units, row);
	}
	json_object_object_add(o, "units", units);
	render_ab_json(r, o);
	json_object_object_add(o, "environment_differences", env_differences_json(st));
	json_print(stdout, o);
	json_object_put(o);
}

/* ---- setup ---- */

/*
 * Validate the --feature tokens against the live list (or, when the file
 * cannot be read, the read-only view, so a misspelling is still exit 2),
 * then insist that the file itself is usable (exit 77 otherwise).
 */
static int check_features(struct ab_state *st, const struct ctx *ctx, const struct strlist *fl)
{
	struct features live;
	char why[4096], btf[4096];
	bool seen[FEATURES_MAX] = { false };
	size_t i;
	int rc;

	if (!fl->n)
		die_usage("ab: option '--feature' is required, e.g. --feature NO_DELAY_DEQUEUE "
			  "(see 'wakebench features')");
	if (fl->n > AB_MAX_FEATURES)
		die_usage("ab: option '--feature' given %zu times, allowed at most %d (the 2x2 "
			  "factorial)",
			  fl->n, AB_MAX_FEATURES);
	cli_btf_path(ctx, btf, sizeof(btf));
	rc = features_read_any(ctx->debugfs, btf[0] ? btf : NULL, &live, why, sizeof(why));
	if (rc) {
		error("ab: %s", why);
		return features_fail_exit(live.fail);
	}
	for (i = 0; i < fl->n; i++) {
		size_t idx;
		bool on;

		if (features_token(&live, fl->v[i], &idx, &on, why, sizeof(why)))
			die_usage("ab: option '--feature': %s", why);
		if (seen[idx])
			die_usage("ab: option '--feature': '%s' is given twice (as '%s'); each "
				  "feature may appear once, as NAME or NO_NAME",
				  live.name[idx], fl->v[i]);
		seen[idx] = true;
		snprintf(st->token[i], sizeof(st->token[i]), "%s%s", on ? "" : "NO_",
			 live.name[idx]);
	}
	st->nfeat = (unsigned)fl->n;
	if (live.source != FEATURES_SRC_FILE) {
		error("ab: %s; no feature can be toggled here", why);
		return features_fail_exit(live.fail);
	}
	return 0;
}

/* Was the option of this long name given (its bit in the group's `seen`)? */
static bool given(const struct opt_group *g, const char *long_name)
{
	const struct opt *o = opts_find(g->opts, long_name);

	return o && (g->seen & (1ull << (o - g->opts)));
}

static void print_header(const struct ctx *ctx, const struct ab_state *st)
{
	const struct run_params *rp = st->rp;
	char dur[32], warm[32];
	unsigned m;

	if (ctx->format != FMT_TEXT || ctx->quiet)
		return;
	format_duration(rp->duration_ns, dur, sizeof(dur));
	format_duration(st->warmup_ns, warm, sizeof(warm));
	report_profile_text(stdout, st->wl->name, st->ex.profile);
	for (m = 0; m < st->narms; m++)
		printf("arm %s: %s\n", ab_arm_code(st, m), st->arms[m].name);
	if (st->ap->until_decided) {
		printf("until decided: up to %llu %s, ", (unsigned long long)st->ap->max_samples,
		       st->nfeat == 1 ? "pairs" : "blocks");
		if (st->ap->max_time_ns) {
			char budget[32];

			format_duration(st->ap->max_time_ns, budget, sizeof(budget));
			printf("within %s, ", budget);
		}
	} else
		printf("%llu %s, ", (unsigned long long)rp->samples,
		       st->nfeat == 1 ? "pairs" : "blocks");
	printf("%s each, order %s", dur, order_names[st->ap->order]);
	if (st->ap->order == ORDER_RANDOM)
		printf(" (seed %llu)", (unsigned long long)st->ap->seed);
	printf(", warm-up %s after every toggle, %llu instance%s, placement %s, margin %g%%\n",
	       st->warmup_ns ? warm : "none", (unsigned long long)rp->instances,
	       rp->instances == 1 ? "" : "s", placement_names[rp->placement],
	       st->ap->margin * 100.0);
	fflush(stdout);
}

/* ab's runner defaults: pairs, short samples, a warm-up after every toggle. */
static void ab_runner_defaults(struct run_params *rp)
{
	rp->samples = 10; /* pairs, when -n asks for a fixed length */
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
	.runner_title = "runner options (-n N: exactly N pairs instead of until decided; "
			"--warmup runs after every toggle)",
	.formats = (1u << FMT_TEXT) | (1u << FMT_JSON),
	.defaults = ab_runner_defaults,
};

/* ab's own checks of the options, then the workload resolved. */
static void ab_parse(struct experiment_cmd *o, struct ab_params *ap, int argc, const char **argv,
		     struct ctx *ctx)
{
	struct opt_group own = ab_group;
	const struct opt_group *g;

	*ap = ab_defaults;
	own.base = ap;
	{
		struct experiment_cmd_spec cs = ab_cmd;

		cs.own = &own;
		experiment_cmd_parse(o, &cs, argc, argv, ctx);
	}
	g = o->groups;
	if (given(&g[o->own], "seed") && ap->order != ORDER_RANDOM)
		die_usage("ab: option '--seed' needs '--order random'");
	if (given(&g[o->runner], "samples") && ap->until_decided)
		die_usage(
			"ab: options '-n' (a fixed number of pairs) and '--until-decided' exclude "
			"each other");
	if (given(&g[o->runner], "samples") &&
	    (given(&g[o->own], "max-samples") || given(&g[o->own], "max-time")))
		die_usage("ab: options '--max-samples' and '--max-time' bound a run until decided; "
			  "'-n' asks for a fixed length instead");
	ap->until_decided = !given(&g[o->runner], "samples");
	/* a time budget alone: the clock, not a count, bounds the run (the engine plans it) */
	if (given(&g[o->own], "max-time") && ap->max_time_ns && !given(&g[o->own], "max-samples"))
		ap->max_samples = STATS_SEQ_MAX_UNITS;
	experiment_cmd_resolve(o, "ab");
	if (ap->order == ORDER_RANDOM && !ap->seed)
		ap->seed = (realtime_ns() ^ (uint64_t)getpid() << 32) % 1000000000ull + 1;
}

/*
 * After the restore: the result (the engine's, with the design kept in the
 * stored parameters), the experiment's end, the output, the exit status.
 */
static int ab_finish(const struct ctx *ctx, struct ab_state *st, json_object *params, int ret,
		     bool restored)
{
	struct report_summary rs[AB_MAX_ARMS];
	struct ab_result r;
	int sig = runner_stop_signal();
	const char *status;
	unsigned m;
	size_t i;

	for (m = 0; m < st->narms; m++)
		if (ab_arm_summary(st, m, &rs[m]))
			ret = EXIT_RUNTIME;
	ab_run_analyse(st, &r);
	json_object_object_add(params, "design", ab_design_json(&st->design));
	if (experiment_set_params(&st->ex, params))
		st->ex.store_failed = true;
	if (sig) {
		status = "interrupted";
		warning("ab: stopped by %s after %zu complete %s", cli_signal_name(sig),
			r.ncomplete, ab_unit_word(&st->design, r.ncomplete));
	} else if (ret || st->setup_failed || st->ex.store_failed || !r.ncomplete) {
		status = "failed";
	} else {
		status = "complete";
	}
	if (experiment_end(&st->ex, status))
		st->ex.store_failed = true;
	if (ctx->format == FMT_JSON) {
		print_json(st, &r, rs, status, sig, restored);
	} else {
		print_text(st, &r, rs, sig != 0);
		report_env_text(stdout, st->ex.have_env_end ? &st->ex.env_end : &st->ex.env_start);
		if (!ctx->no_store && !st->ex.store_failed && !ctx->quiet)
			printf("stored: experiment %s in %s\n", st->ex.info.uuid, cli_db_path(ctx));
	}
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

/* The run's state from the command line, before the kernel is touched. */
static void ab_state_init(struct ab_state *st, const struct ctx *ctx, struct experiment_cmd *o,
			  const struct ab_params *ap, const struct ab_hooks *hooks)
{
	memset(st, 0, sizeof(*st));
	st->hooks = hooks;
	st->db = cli_db_path(ctx);
	st->root = ctx->root;
	st->debugfs = ctx->debugfs;
	st->current = -1;
	st->warmup_ns = o->rp.warmup_ns; /* --warmup: the discarded sample after every toggle */
	st->rng = ap->seed;
	st->wl = o->wl;
	st->primary = metric_primary(o->wl->name);
	metric_unit(st->primary, o->wl->name, st->punit, sizeof(st->punit));
	metric_title(st->primary, o->wl->name, st->ptitle, sizeof(st->ptitle));
	st->rp = &o->rp;
	st->ap = ap;
	st->spec = &o->spec;
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
	ab_state_init(&st, ctx, &o, &ap, &hooks);
	if (o.pp.ceiling && ceiling_shape_of(&o.spec, &ceiling, err, sizeof(err)))
		die_usage("ab: %s", err);
	st.ceiling = o.pp.ceiling ? &ceiling : NULL;
	rc = cli_kernel_prepare(
		ctx, "ab",
		CLI_NEED_DEBUGFS | CLI_CHANGES_FEATURES |
			(o.pp.trace && o.pp.trace != TRACE_BPF ? CLI_NEED_TRACEFS : 0));
	if (!rc)
		rc = check_features(&st, ctx, &ap.features);
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
		error("ab: %s", why);
		ret = features_fail_exit(st.fs.fail);
		goto out_probes;
	}
	ab_build_arms(&st);
	ab_engine_init(&st);
	params = experiment_cmd_params(&o, &ps);
	cmdline = cli_cmdline(ctx);
	where = experiment_where_of(ctx, cmdline);
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
		print_header(ctx, &st);
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
