/*
 * cmd-run.c: `wakebench run [WORKLOAD] [options]`: samples of one config: an
 * optional warm-up and -n samples, each printed as it completes (a text
 * line, stress-ng's --metrics-brief table, or nothing until the final JSON)
 * and stored at once. Ctrl-C or SIGTERM stops the run: the completed samples
 * are summarised and stored as an interrupted experiment, and the exit
 * status is 128 + the signal.
 */
#include "cli/cli.h"
#include "cli/experiment.h"
#include "engine/summary.h"
#include "stats/stats.h"
#include "render/results.h"
#include "runner/ceiling.h"
#include "core/metrics.h"
#include "runner/probes.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char run_usage[] = "[WORKLOAD] [options]";
static const char run_description[] =
	"Run samples of one config of WORKLOAD (default pipe), print each as it completes and a\n"
	"summary, and store them. 'wakebench list' shows the workloads and their profiles.";

struct run_state {
	struct ctx *ctx;
	const struct workload *wl;
	const struct run_params *rp;
	struct experiment ex;
	int64_t config_id;
	/* the loop (engine/experiment.c): its samples, warm-up included, and measured count */
	struct experiment_measure m;
	struct progress progress;
	unsigned nstored;		     /* samples committed to the store, warm-up included */
	const struct ceiling_shape *ceiling; /* --ceiling: measured after each sample */
	const char *tracer;		     /* the tracer that runs: "bpf", "perf" or NULL */
};

/*
 * The running median of a metric (the primary, or ops per CPU-second) over
 * the measured samples so far.
 */
static double running_median_of(const struct run_state *st, const char *metric)
{
	double *x = xcalloc(st->m.n + 1, sizeof(*x)), m = 0;
	size_t n = 0, i;

	for (i = 0; i < st->m.n; i++)
		if (!st->m.s[i].warmup && st->m.s[i].status == SAMPLE_OK &&
		    sample_value(&st->m.s[i], metric, &x[n]))
			n++;
	if (n)
		m = stats_median(x, n);
	free(x);
	return m;
}

/* The running median of the primary metric, for the progress line. */
static double running_median(const struct run_state *st)
{
	return running_median_of(st, metric_primary(st->wl->name)->name);
}

static void print_sample(struct run_state *st, const struct sample *s)
{
	unsigned total = (unsigned)st->rp->samples;

	progress_clear(&st->progress);
	switch (st->ctx->format) {
	case FMT_TEXT:
		report_sample_text(stdout, NULL, s, st->m.measured, total, st->wl->name);
		fflush(stdout);
		break;
	case FMT_METRICS_BRIEF:
		if (s->warmup)
			break;
		if (s->status != SAMPLE_OK) {
			warning("sample %u/%u %s: %s", st->m.measured, total,
				sample_status_name(s->status), s->reason);
			break;
		}
		report_metrics_brief(stdout, (long)getpid(), st->wl->name, s,
				     experiment_profile_has_mbps(st->ex.base_profile));
		fflush(stdout);
		break;
	default:
		break;
	}
}

/*
 * A sample measured but not stored (the store failed, e.g. the disk is
 * full; the store's own line said why): it is neither printed as a result
 * nor counted, and the run stops. Say what was lost and what is kept.
 */
static void lost_sample(struct run_state *st, bool warmup)
{
	char which[48];

	progress_clear(&st->progress);
	if (warmup)
		snprintf(which, sizeof(which), "the warm-up sample");
	else
		snprintf(which, sizeof(which), "sample %u/%llu", st->m.measured + 1,
			 (unsigned long long)st->rp->samples);
	error("run: %s was measured but could not be stored: it is lost; the %u sample%s "
	      "stored before it %s kept in '%s'",
	      which, st->nstored, st->nstored == 1 ? "" : "s", st->nstored == 1 ? "is" : "are",
	      cli_db_path(st->ctx));
}

/* The loop's hooks (engine/experiment.c): progress, the ceiling, what was lost, the output. */
static void before_sample(void *arg, unsigned next)
{
	struct run_state *st = arg;
	char unit[64];

	progress_show(&st->progress, NULL, next, running_median(st),
		      report_primary_unit(st->wl->name, unit, sizeof(unit)));
}

static void measured_sample(void *arg, struct sample *s, uint64_t duration_ns)
{
	struct run_state *st = arg;

	if (st->ceiling && !s->warmup && s->status == SAMPLE_OK)
		ceiling_sample(st->m.spec, st->ceiling, duration_ns, s);
}

static void lost_sample_hook(void *arg, bool warmup)
{
	lost_sample(arg, warmup);
}

static void stored_sample(void *arg, const struct sample *s)
{
	struct run_state *st = arg;

	if (!s->warmup)
		st->progress.done++;
	if (st->ex.store)
		st->nstored++;
	print_sample(st, s);
}

/*
 * With --trace, one untraced sample of the same config after the traced
 * ones measures what tracing costs; it is stored under its own config and
 * never enters the summary. Returns -1 on a setup error.
 */
static int calibrate(struct run_state *st, const struct run_spec *traced,
		     const struct probe_set *ps, char *line, size_t len)
{
	struct probe_set view = probes_untraced(ps);
	struct run_spec spec = *traced;
	struct sample s;
	int64_t config_id;
	double traced_median = running_median_of(st, "ops_per_s");

	if (!(traced_median > 0))
		return 0;
	spec.probes = view.probes;
	spec.nprobes = view.n;
	if (experiment_add_config(&st->ex, "untraced calibration", NULL, &config_id))
		return 0;
	sample_init(&s);
	if (runner_sample(&spec, st->rp->duration_ns, &s))
		return -1;
	if (experiment_add_sample(&st->ex, config_id, &s)) {
		/* not stored: no overhead is claimed from it */
		error("run: the untraced calibration sample was measured but could not be stored: "
		      "it is lost; the %u samples stored before it are kept in '%s'",
		      st->nstored, cli_db_path(st->ctx));
		snprintf(line, len,
			 "tracing overhead: unknown (the untraced sample was not stored)");
		return 0;
	}
	if (s.status == SAMPLE_OK)
		probes_overhead_line(traced_median, s.ops_per_s,
				     running_median_of(st, "ops_per_cpu_s"), s.ops_per_cpu_s, line,
				     len);
	else
		snprintf(line, len, "tracing overhead: unknown (the untraced sample %s: %.200s)",
			 sample_status_name(s.status), s.reason);
	return 0;
}

static void print_header(const struct run_state *st, const struct run_spec *spec)
{
	const struct run_params *rp = st->rp;
	char what[128], warm[32];

	if (st->ctx->format != FMT_TEXT || st->ctx->quiet)
		return;
	runner_sample_what(spec, what, sizeof(what));
	runner_warmup_ns(spec, rp->warmup_ns, warm, sizeof(warm));
	report_profile_text(stdout, st->wl->name, st->ex.profile);
	text_line(stdout, "%llu instance%s, %llu sample%s of %s, warm-up %s, placement %s%s%s%s%s",
		  (unsigned long long)rp->instances, rp->instances == 1 ? "" : "s",
		  (unsigned long long)rp->samples, rp->samples == 1 ? "" : "s", what, warm,
		  placement_names[rp->placement], st->tracer ? ", tracer " : "",
		  st->tracer ? st->tracer : "", st->ex.label ? ", label " : "",
		  st->ex.label ? st->ex.label : "");
	fflush(stdout);
}

static void print_json(struct run_state *st, json_object *params, const struct report_summary *rs,
		       const char *status, int sig, const char *overhead)
{
	json_object *o = json_object_new_object(), *samples = json_object_new_array(),
		    *env = json_object_new_object(), *exp = json_object_new_object();
	size_t i;

	experiment_json_provenance(&st->ex, o);
	json_object_object_add(o, "base_profile",
			       st->ex.base_profile ? json_object_new_string(st->ex.base_profile)
						   : NULL);
	json_object_object_add(o, "label",
			       st->ex.label ? json_object_new_string(st->ex.label) : NULL);
	json_object_object_add(o, "params", json_object_get(params));

	json_object_object_add(exp, "status", json_object_new_string(status));
	json_object_object_add(exp, "stored",
			       json_object_new_boolean(!st->ctx->no_store && !st->ex.store_failed));
	json_object_object_add(
		exp, "uuid", st->ex.info.uuid[0] ? json_object_new_string(st->ex.info.uuid) : NULL);
	json_object_object_add(
		exp, "db", st->ctx->no_store ? NULL : json_object_new_string(cli_db_path(st->ctx)));
	json_object_object_add(exp, "host", json_object_new_string(st->ex.host));
	json_object_object_add(exp, "kernel", json_object_new_string(st->ex.kernel));
	json_object_object_add(exp, "stopped_by",
			       sig ? json_object_new_string(cli_signal_name(sig)) : NULL);
	json_object_object_add(o, "experiment", exp);

	json_object_object_add(env, "start", report_env_json(&st->ex.env_start));
	json_object_object_add(env, "end",
			       st->ex.have_env_end ? report_env_json(&st->ex.env_end) : NULL);
	json_object_object_add(o, "environment", env);
	for (i = 0; i < st->m.n; i++)
		json_object_array_add(samples, report_sample_json(&st->m.s[i]));
	json_object_object_add(o, "samples", samples);
	json_object_object_add(o, "summary", report_summary_json(rs));
	json_object_object_add(o, "tracing_overhead",
			       overhead[0] ? json_object_new_string(overhead) : NULL);
	json_print(stdout, o);
	json_object_put(o);
}

static const struct experiment_cmd_spec run_cmd = {
	.cmd = "run",
	.usage = run_usage,
	.description = run_description,
	.runner_title = "runner options",
	.formats = (1u << FMT_TEXT) | (1u << FMT_JSON) | (1u << FMT_METRICS_BRIEF),
};

/* The warm-up, the samples, then the tracer's overhead. Returns -1 on a setup failure. */
static int run_samples(struct run_state *st, const struct run_spec *spec,
		       const struct probe_set *ps, char *overhead, size_t len)
{
	st->m.ex = &st->ex;
	st->m.config_id = st->config_id;
	st->m.spec = spec;
	st->m.arg = st;
	st->m.before = before_sample;
	st->m.measured_hook = measured_sample;
	st->m.lost = lost_sample_hook;
	st->m.stored = stored_sample;
	if (experiment_measure(&st->m))
		return -1;
	if (!runner_stop_signal() && !st->ex.store_failed && probes_tracing(ps) &&
	    calibrate(st, spec, ps, overhead, len))
		return -1;
	return 0;
}

static void print_text(const struct run_state *st, const struct report_summary *rs,
		       const char *overhead)
{
	const struct ctx *ctx = st->ctx;

	report_summary_text(stdout, NULL, rs, st->wl->name);
	if (overhead[0])
		printf("%s\n", overhead);
	if (st->ceiling) {
		const struct metric_summary *ms = report_summary_get(rs, "sched_share");
		char line[256];

		ceiling_summary_line(ms && ms->available ? &ms->sum : NULL, ms ? ms->why : NULL,
				     line, sizeof(line));
		printf("%s\n", line);
	}
	report_env_text(stdout, st->ex.have_env_end ? &st->ex.env_end : &st->ex.env_start);
	if (!ctx->no_store && !st->ex.store_failed && !ctx->quiet)
		cli_print_stored(ctx, st->ex.info.uuid);
}

/* The summary, the experiment's end, the output; returns the exit status. */
static int run_finish(struct run_state *st, json_object *params, bool setup_failed,
		      const char *overhead)
{
	struct report_summary rs;
	int sig = runner_stop_signal(), ret = EXIT_OK;
	const char *status;
	char title[96];

	if (report_summarize(st->m.s, st->m.n, metric_primary(st->wl->name)->name, &rs))
		ret = EXIT_RUNTIME;
	if (sig) {
		status = "interrupted";
		warning("run: stopped by %s after %zu of %llu samples", cli_signal_name(sig),
			rs.nsamples + rs.nfailed, (unsigned long long)st->rp->samples);
	} else if (setup_failed || st->ex.store_failed || (st->rp->samples && !rs.nsamples)) {
		status = "failed";
	} else {
		status = "complete";
	}
	if (experiment_end(&st->ex, status))
		st->ex.store_failed = true;
	if (st->ctx->format == FMT_TEXT)
		print_text(st, &rs, overhead);
	else if (st->ctx->format == FMT_JSON)
		print_json(st, params, &rs, status, sig, overhead);
	else if (report_noisy(&rs))
		warning("run: noisy: the CV of %s is %.1f%% (above %.0f%%)",
			metric_title_of(rs.primary, st->wl->name, title, sizeof(title)),
			report_summary_get(&rs, rs.primary)->sum.cv * 100.0, rs.cv_warn * 100.0);
	if (sig)
		ret = experiment_signal_status(sig);
	else if (!strcmp(status, "failed"))
		ret = EXIT_RUNTIME;
	report_summary_release(&rs);
	return ret;
}

int cmd_run(int argc, const char **argv, struct ctx *ctx)
{
	struct experiment_cmd o;
	struct experiment_where where;
	char *cmdline = NULL;
	struct probe_set ps = { 0 };
	struct ceiling_shape ceiling;
	struct run_state st;
	json_object *params = NULL;
	char err[512], overhead[512] = "";
	int ret, failed;

	experiment_cmd_parse(&o, &run_cmd, argc, argv, ctx);
	experiment_cmd_resolve(&o, "run");
	memset(&st, 0, sizeof(st));
	cmdline = cli_cmdline(ctx);
	where = experiment_where_of(ctx, cmdline);
	if (o.pp.ceiling && ceiling_shape_of(&o.spec, &ceiling, err, sizeof(err)))
		die_usage("run: %s", err);
	ret = cli_kernel_prepare(
		ctx, "run",
		CLI_NEED_DEBUGFS | (o.pp.trace && o.pp.trace != TRACE_BPF ? CLI_NEED_TRACEFS : 0));
	if (ret)
		goto out;
	if (probes_setup(&ps, &o.pp, ctx->debugfs, err, sizeof(err)))
		die_skip("run: %s", err);
	o.spec.probes = ps.probes;
	o.spec.nprobes = ps.n;
	params = experiment_cmd_params(&o, &ps);

	runner_signals_install();
	st.ctx = ctx;
	st.wl = o.wl;
	st.rp = &o.rp;
	st.ceiling = o.pp.ceiling ? &ceiling : NULL;
	st.tracer = probes_tracer(&ps);
	st.m.s = xcalloc(o.rp.samples + 1, sizeof(*st.m.s));
	if (experiment_begin(&st.ex, &where, "run", o.wl, o.profile[0] ? o.profile : NULL,
			     o.base_profile, o.eo.v.label, params) ||
	    experiment_add_config(&st.ex, "default", NULL, &st.config_id)) {
		experiment_release(&st.ex);
		ret = EXIT_RUNTIME;
		goto out;
	}
	progress_init(&st.progress, cli_progress_enabled(ctx), (unsigned)o.rp.samples);
	print_header(&st, &o.spec);
	failed = run_samples(&st, &o.spec, &ps, overhead, sizeof(overhead));
	progress_clear(&st.progress);
	ret = run_finish(&st, params, failed != 0, overhead);
	experiment_release(&st.ex);
out:
	json_object_put(params);
	free(cmdline);
	free(st.m.s);
	probes_release(&ps);
	experiment_cmd_release(&o);
	return ret;
}
