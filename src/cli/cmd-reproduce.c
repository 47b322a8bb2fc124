/*
 * cmd-reproduce.c: `wakebench reproduce SOURCE [options]`: what someone
 * posted, measured here. SOURCE is a stored experiment (an external one
 * imported from posted text, or another host's run) or a file `import`
 * reads (its experiments are imported first). The run's words come from
 * the source (engine/reproduce.c) followed by the user's, so every option
 * of `run` overrides them and the parameters resolve exactly as `run`
 * resolves them; the run is stored with its link to the source
 * (params.reproduces), and the verdict (engine/reproduce.c) is rendered
 * as text or JSON.
 */
#include "cli/cli.h"
#include "cli/experiment.h"
#include "core/metrics.h"
#include "engine/reproduce.h"
#include "render/reproduce.h"
#include "render/results.h"
#include "util/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char reproduce_usage[] = "SOURCE [options]";
static const char reproduce_description[] =
	"Run what someone posted, here. SOURCE is a stored experiment (an id or a UUID prefix:\n"
	"an external one imported from posted text, or a run of another host) or a file that\n"
	"'wakebench import' reads (posted stress-ng, perf bench, hackbench or schbench output, an\n"
	"export, a report.html), whose experiments are imported into the store first. The same\n"
	"workload runs with the profile and parameters that reproduce it (any option of 'run'\n"
	"overrides them), is stored with label 'reproduce of UUID8', and the posted figure is\n"
	"judged: reproduced when it lies within the 95% CI of this run's median (run's summary,\n"
	"from 5 samples) widened by the posted spread; then the environment differences that\n"
	"could explain a gap, strongest first. The options below are those of the source's "
	"workload (pipe here).";

static const struct experiment_cmd_spec reproduce_cmd = {
	.cmd = "reproduce",
	.usage = reproduce_usage,
	.description = reproduce_description,
	.runner_title = "runner options (over the source's)",
	.formats = (1u << FMT_TEXT) | (1u << FMT_JSON),
};

/* ---- the command line: SOURCE among run's options ---- */

/* Does option argument arg take the next argument as its value (in any of run's tables)? */
static bool takes_next(const struct opt *common, const char *arg)
{
	struct experiment_opts eo;
	struct opt_group eg = experiment_opts_group(&eo, NULL);
	const struct opt *tables[4] = { common, runner_opts, probe_opts, eg.opts }, *o = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tables) && !o; i++)
		o = opts_find_arg(tables[i], arg);
	for (i = 0; workloads[i] && !o; i++)
		if (workloads[i]->opts)
			o = opts_find_arg(workloads[i]->opts, arg);
	return opts_arg_takes_next(o, arg);
}

/*
 * SOURCE's index in argv (-1 when none), and the common options (--db,
 * --format, -q, ...) parsed now: the store is needed before the source's
 * workload, and so the rest of the option table, is known.
 */
static int find_source(int argc, const char **argv, struct ctx *ctx, bool *help)
{
	struct opt_group common = cli_common_group_for(ctx, COMMON_ALL, reproduce_cmd.formats);
	const char **mine = xcalloc((size_t)argc + 1, sizeof(*mine));
	struct opts_result res = { 0 };
	int a, source = -1, n = 0;

	if (cli_completing())
		cli_complete_run_options("reproduce", &common, argc, argv, ctx);
	for (a = 0; a < argc; a++) {
		const char *arg = argv[a];
		bool next;

		if (!strcmp(arg, "--")) {
			source = source < 0 && a + 1 < argc ? a + 1 : source;
			break;
		}
		if (arg[0] != '-' || !arg[1]) {
			source = source < 0 ? a : source;
			continue;
		}
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			*help = true;
			continue;
		}
		next = takes_next(common.opts, arg) && a + 1 < argc;
		if (opts_find_arg(common.opts, arg)) {
			mine[n++] = arg;
			if (next)
				mine[n++] = argv[a + 1];
		}
		a += next;
	}
	if (!*help && opts_parse("reproduce", &common, 1, n, mine, 0, &res))
		exit(EXIT_USAGE);
	opts_result_release(&res);
	free(mine);
	return source;
}

/* ---- the source ---- */

struct repro {
	struct ctx *ctx;
	const char *arg; /* SOURCE as given */
	char uuid[37];
	int64_t exp_id;
	struct reproduce_source src;
	size_t imported, added; /* SOURCE was a file: its experiments, how many new */
	bool from_file;
	const struct experiment_measure *m; /* the run's loop, for the sample lines */
};

/* SOURCE is a file: import it, and pick the one experiment in it to reproduce. */
static int resolve_file(struct repro *r, struct store *st)
{
	char(*uuids)[37] = NULL, list[1024] = "";
	size_t found, i;
	int ret = EXIT_RUNTIME;

	r->from_file = true;
	if (reproduce_import(st, r->arg, &uuids, &r->imported, &r->added))
		return EXIT_RUNTIME;
	if (!r->imported)
		die_usage("reproduce: '%s' holds no experiment", r->arg);
	for (i = 0; i < r->imported; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 uuids[i]);
	if (reproduce_pick(st, uuids, r->imported, &r->exp_id, &found))
		goto out;
	if (found > 1)
		die_usage("reproduce: '%s' holds %zu experiments that can be reproduced: name one "
			  "(imported into '%s': %s)",
			  r->arg, found, cli_db_path(r->ctx), list);
	if (!found && r->imported > 1)
		die_usage("reproduce: '%s' holds %zu experiments and none can be reproduced (%s)",
			  r->arg, r->imported, list);
	/* none: the one experiment's own reason is said by the caller */
	ret = !found && store_find_experiment(st, uuids[0], &r->exp_id) ? EXIT_RUNTIME : 0;
out:
	free(uuids);
	return ret;
}

static int resolve_source(struct repro *r, struct store *st)
{
	char why[512];
	int ret;

	if (!access(r->arg, F_OK)) {
		if ((ret = resolve_file(r, st)))
			return ret;
	} else if (store_find_experiment(st, r->arg, &r->exp_id)) {
		return EXIT_USAGE; /* the store named the unknown reference */
	}
	if (reproduce_source_load(st, r->exp_id, &r->src, why, sizeof(why))) {
		if (!why[0])
			return EXIT_RUNTIME;
		die_usage("reproduce: experiment %lld (%.8s) cannot be reproduced: %s%s%s%s",
			  (long long)r->exp_id, r->src.e ? r->src.e->uuid : "?", why,
			  r->from_file ? " (imported into '" : "",
			  r->from_file ? cli_db_path(r->ctx) : "", r->from_file ? "')" : "");
	}
	memcpy(r->uuid, r->src.e->uuid, sizeof(r->uuid));
	return 0;
}

/*
 * run's words for the source, then a label, then the user's own
 * arguments (SOURCE left out): the later option wins, so the user's
 * override the source's.
 */
static const char **run_argv(const struct repro *r, char **words, size_t nwords, int argc,
			     const char **argv, int source, char *label, size_t len, int *n)
{
	const char **v = xcalloc(nwords + (size_t)argc + 2, sizeof(*v));
	size_t i;
	int a, k = 0;

	for (i = 0; i < nwords; i++)
		v[k++] = words[i];
	snprintf(label, len, "--label=reproduce of %.8s", r->uuid);
	v[k++] = label;
	for (a = 0; a < argc; a++)
		if (a != source && !(a == source - 1 && !strcmp(argv[a], "--")))
			v[k++] = argv[a];
	*n = k;
	return v;
}

/* ---- the run ---- */

static void print_sample(void *arg, const struct sample *s)
{
	const struct repro *r = arg;

	if (r->ctx->format != FMT_TEXT)
		return;
	report_sample_text(stdout, NULL, s, r->m->measured, (unsigned)r->m->spec->rp->samples,
			   r->src.wl->name);
	fflush(stdout);
}

static void print_header(const struct repro *r, const struct experiment_cmd *o)
{
	const struct store_experiment *e = r->src.e;
	char what[128], warm[32];

	if (r->ctx->format != FMT_TEXT || r->ctx->quiet)
		return;
	if (r->from_file)
		text_line(stdout, "imported: %zu experiment%s from '%s' into '%s' (%zu new)",
			  r->imported, r->imported == 1 ? "" : "s", r->arg, cli_db_path(r->ctx),
			  r->added);
	text_line(stdout, "source: experiment %lld (%.8s) %s %s, host %s, kernel %s: %s %s%s",
		  (long long)e->id, e->uuid, e->kind, e->workload, e->host ? e->host : "?",
		  e->kernel ? e->kernel : "?", r->src.tool,
		  r->src.tool_version ? r->src.tool_version : "(version unknown)",
		  r->src.stored_profile ? " (stored with another profile)" : "");
	runner_sample_what(&o->spec, what, sizeof(what));
	runner_warmup_ns(&o->spec, o->rp.warmup_ns, warm, sizeof(warm));
	report_profile_text(stdout, o->wl->name, o->profile[0] ? o->profile : NULL);
	text_line(stdout, "%llu instance%s, %llu sample%s of %s, warm-up %s, placement %s",
		  (unsigned long long)o->rp.instances, o->rp.instances == 1 ? "" : "s",
		  (unsigned long long)o->rp.samples, o->rp.samples == 1 ? "" : "s", what, warm,
		  placement_names[o->rp.placement]);
	fflush(stdout);
}

static void print_json(const struct repro *r, const struct experiment *ex,
		       const struct reproduce_verdict *rv, const char *status)
{
	json_object *o = json_object_new_object(), *src = json_object_new_object();

	json_object_object_add(src, "id", json_object_new_int64(r->src.e->id));
	json_object_object_add(src, "uuid", json_object_new_string(r->uuid));
	json_object_object_add(src, "kind", json_object_new_string(r->src.e->kind));
	json_object_object_add(src, "tool", json_object_new_string(r->src.tool));
	json_object_object_add(src, "tool_version", json_str_or_null(r->src.tool_version));
	json_object_object_add(src, "imported_from",
			       r->from_file ? json_object_new_string(r->arg) : NULL);
	json_object_object_add(o, "source", src);
	experiment_json_provenance(ex, o);
	json_object_object_add(o, "status", json_object_new_string(status));
	json_object_object_add(o, "uuid",
			       ex->info.uuid[0] ? json_object_new_string(ex->info.uuid) : NULL);
	json_object_object_add(o, "verdict", reproduce_verdict_json(rv));
	json_print(stdout, o);
	json_object_put(o);
}

/* ---- the command ---- */

/* Measure, end the experiment, judge, render; returns the exit status. */
static int measure_and_judge(struct repro *r, struct experiment_cmd *o, struct experiment *ex,
			     int64_t config_id)
{
	struct experiment_measure m = {
		.ex = ex, .config_id = config_id, .spec = &o->spec, .stored = print_sample
	};
	struct reproduce_verdict rv;
	const char *status = "complete";
	int sig, failed;

	m.s = xcalloc(o->rp.samples + 1, sizeof(*m.s));
	m.arg = r;
	r->m = &m;
	failed = experiment_measure(&m);
	sig = runner_stop_signal();
	if (sig) {
		status = "interrupted";
		warning("reproduce: stopped by %s after %u of %llu samples", cli_signal_name(sig),
			m.measured, (unsigned long long)o->rp.samples);
	} else if (failed || ex->store_failed) {
		status = "failed";
	}
	reproduce_judge(&r->src, m.s, m.n, &ex->env_start, o->profile[0] ? o->profile : NULL, &rv);
	if (!sig && !failed && !rv.run_n)
		status = "failed";
	if (experiment_end(ex, status))
		ex->store_failed = true;
	if (r->ctx->format == FMT_JSON) {
		print_json(r, ex, &rv, status);
	} else if (!sig) {
		putchar('\n');
		reproduce_verdict_text(stdout, &rv, r->src.wl->name);
		if (!r->ctx->no_store && !ex->store_failed && !r->ctx->quiet)
			cli_print_stored(r->ctx, ex->info.uuid);
	}
	reproduce_verdict_release(&rv);
	free(m.s);
	if (sig)
		return experiment_signal_status(sig);
	return strcmp(status, "complete") ? EXIT_RUNTIME : EXIT_OK;
}

/* The run: run's words parsed and resolved, probes, the experiment. */
static int reproduce_run(struct repro *r, int argc, const char **argv, int source)
{
	struct ctx *ctx = r->ctx;
	struct experiment_cmd o;
	struct experiment_where where;
	struct probe_set ps = { 0 };
	struct experiment ex;
	json_object *params = NULL;
	size_t nwords;
	char **words = reproduce_words(&r->src, &nwords), label[64], err[512];
	char *cmdline = cli_cmdline(ctx);
	const char **v;
	int64_t config_id;
	int n, ret;

	v = run_argv(r, words, nwords, argc, argv, source, label, sizeof(label), &n);
	experiment_cmd_parse(&o, &reproduce_cmd, n, v, ctx);
	experiment_cmd_resolve(&o, "reproduce");
	where = experiment_where_of(ctx, cmdline);
	ret = cli_kernel_prepare(ctx, "reproduce", CLI_NEED_DEBUGFS);
	if (ret)
		goto out;
	if (probes_setup(&ps, &o.pp, ctx->debugfs, err, sizeof(err)))
		die_skip("reproduce: %s", err);
	o.spec.probes = ps.probes;
	o.spec.nprobes = ps.n;
	params = experiment_cmd_params(&o, &ps);
	json_object_object_add(params, "reproduces", json_object_new_string(r->uuid));
	runner_signals_install();
	if (experiment_begin(&ex, &where, "run", o.wl, o.profile[0] ? o.profile : NULL,
			     o.base_profile, o.eo.v.label, params) ||
	    experiment_add_config(&ex, "default", NULL, &config_id)) {
		ret = EXIT_RUNTIME;
		goto out;
	}
	print_header(r, &o);
	ret = measure_and_judge(r, &o, &ex, config_id);
	experiment_release(&ex);
out:
	json_object_put(params);
	probes_release(&ps);
	experiment_cmd_release(&o);
	free(v);
	reproduce_words_free(words);
	free(cmdline);
	return ret;
}

int cmd_reproduce(int argc, const char **argv, struct ctx *ctx)
{
	struct repro r = { .ctx = ctx, .exp_id = -1 };
	struct experiment_cmd o;
	struct store *st;
	bool help = false;
	int source = find_source(argc, argv, ctx, &help), ret;

	if (help) {
		/* the help of run's options, under this command's usage (exits) */
		experiment_cmd_parse(&o, &reproduce_cmd, 1, (const char *[]){ "-h" }, ctx);
	}
	if (source < 0)
		die_usage("reproduce: no SOURCE: give a stored experiment (id or UUID prefix) or "
			  "a file that 'wakebench import' reads");
	r.arg = argv[source];
	if (access(r.arg, F_OK) && access(cli_db_path(ctx), F_OK))
		die_usage("reproduce: no experiment '%s': the store '%s' does not exist", r.arg,
			  cli_db_path(ctx));
	if (!(st = cli_store(ctx)))
		return EXIT_RUNTIME;
	ret = resolve_source(&r, st);
	if (!ret)
		ret = reproduce_run(&r, argc, argv, source);
	reproduce_source_release(&r.src);
	return ret;
}
