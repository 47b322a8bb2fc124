/*
 * cmd-export.c: `wakebench export`: the stored data for other tools.
 *
 * JSON (one experiment at a time so that memory stays bounded however
 * large the store is; the provenance, configs, metric definitions and
 * fingerprint built with json-c, the samples rendered by SQLite's JSON
 * functions, which is what keeps 100,000 samples fast): every experiment
 * matching the filters and every sample with every metric (an unavailable
 * one is null in "metrics" and has its reason in "unavailable"). CSV: one
 * row per sample, the fixed metrics first and then one column per named
 * metric (empty when unavailable; the reasons are in the JSON). Filters select experiments; unknown
 * values exit 2 naming the values that exist. `show --format json` reuses this with --experiment.
 */
#include "cli/cli.h"
#include "cli/export.h"
#include "engine/ab.h"
#include "render/ab.h"
#include "cli/farm.h"
#include "cli/filter.h"
#include "core/metrics.h"
#include "store/store.h"
#include "util/json.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct export_params {
	struct filter_params filter;
	const char *experiment;
	const char *origin;
};

/* kcidb, lava and lava-cases are written by cli/kcidb.c and cli/lava.c */
enum {
	EXPORT_FORMATS = (1u << FMT_JSON) | (1u << FMT_CSV) | (1u << FMT_KCIDB) | (1u << FMT_LAVA) |
			 (1u << FMT_LAVA_CASES),
};

static const struct opt export_opts[] = {
	{ .type = OPT_STRING,
	  .long_name = "experiment",
	  .offset = offsetof(struct export_params, experiment),
	  .argh = "EXP",
	  .help = "only this experiment (id or UUID prefix)" },
	{ .type = OPT_STRING,
	  .long_name = "origin",
	  .offset = offsetof(struct export_params, origin),
	  .argh = "NAME",
	  .help = "--format kcidb: your KCIDB origin, the prefix of every id" },
	OPT_END_ROW,
};

static const char export_usage[] =
	"[--format json|csv|kcidb|lava|lava-cases] [--origin NAME] [filters]";
static const char export_description[] =
	"Write the stored experiments (provenance, configs, environment, every sample and\n"
	"metric) as JSON, or one CSV row per sample with one column per metric, or as a\n"
	"KernelCI KCIDB v5.3 document (medians and verdicts) for kcidb-submit; for LAVA,\n"
	"the JSON framed for a console (lava) or the medians and verdicts as test cases\n"
	"(lava-cases: result.txt lines). See doc/farms.md.";

/* ---- JSON ---- */

static json_object *env_json(const struct env *env)
{
	json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; i < env->n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "key", json_str_or_null(env->e[i].key));
		json_object_object_add(o, "value", json_str_or_null(env->e[i].value));
		json_object_object_add(o, "impact",
				       json_str_or_null(env_impact_name(env->e[i].impact)));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* Write a json-c object without its closing brace, so that more members can follow. */
static void put_open_object(json_object *o)
{
	const char *t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								  JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = strlen(t);

	if (len < 2 || t[len - 1] != '}')
		BUG("json-c object '%s'", t);
	fwrite(t, 1, len - 1, stdout);
	if (len > 2)
		fputc(',', stdout);
}

struct sample_walk {
	size_t n;
};

static int put_sample(void *arg, const char *json)
{
	struct sample_walk *w = arg;

	if (w->n++)
		fputc(',', stdout);
	fputs(json, stdout);
	return 0;
}

/*
 * The primary metric of a workload, as the registry of this wakebench
 * defines it (an experiment stores its workload's name; a workload this
 * binary does not know has ops_per_s, which every sample has).
 */
static json_object *primary_json(const char *workload)
{
	const struct metric_def *d = metric_primary(workload);
	json_object *o = json_object_new_object();
	char unit[64];

	json_object_object_add(o, "name", json_str_or_null(d->name));
	json_object_object_add(o, "label", json_str_or_null(d->label));
	json_object_object_add(o, "unit",
			       json_str_or_null(metric_unit(d, workload, unit, sizeof(unit))));
	json_object_object_add(o, "better", json_str_or_null(metric_better_name(d->better)));
	return o;
}

/*
 * One experiment: its provenance, configs, metric definitions and
 * fingerprint built with json-c, then its samples as SQLite renders them.
 */
/*
 * An ab's result as `ab --format json` printed it (engine/ab.c, render/ab.c),
 * or {"error": WHY} when this wakebench cannot analyse it.
 */
static json_object *ab_result_json(struct store *st, const struct store_experiment *e)
{
	json_object *o = json_object_new_object();
	struct ab_stored ab;
	char why[256];

	if (ab_load(st, e, &ab, why, sizeof(why))) {
		json_object_object_add(o, "error", json_object_new_string(why));
		return o;
	}
	render_ab_json(&ab.r, o);
	ab_stored_release(&ab);
	return o;
}

static int put_experiment(struct store *st, const struct store_experiment *e,
			  const struct store_config *cfgs, size_t ncfg)
{
	json_object *o = json_object_new_object(), *params, *arr, *env;
	struct env start = { 0 }, end = { 0 };
	struct store_metric_def *defs;
	struct sample_walk walk = { 0 };
	size_t i, ndefs;

	json_object_object_add(o, "id", json_object_new_int64(e->id));
	json_object_object_add(o, "uuid", json_str_or_null(e->uuid));
	json_object_object_add(o, "kind", json_str_or_null(e->kind));
	json_object_object_add(o, "workload", json_str_or_null(e->workload));
	json_object_object_add(o, "primary", primary_json(e->workload));
	json_object_object_add(o, "profile", json_str_or_null(e->profile));
	params = e->params_json ? json_tokener_parse(e->params_json) : NULL;
	json_object_object_add(o, "params", params ? params : json_str_or_null(e->params_json));
	json_object_object_add(o, "cmdline", json_str_or_null(e->cmdline));
	json_object_object_add(o, "version", json_str_or_null(e->version));
	json_object_object_add(o, "label", json_str_or_null(e->label));
	json_object_object_add(o, "host", json_str_or_null(e->host));
	json_object_object_add(o, "kernel", json_str_or_null(e->kernel));
	json_object_object_add(o, "started", json_time_utc(e->started_ns, "Z"));
	json_object_object_add(o, "started_ns", json_object_new_uint64(e->started_ns));
	json_object_object_add(o, "ended", json_time_utc(e->ended_ns, "Z"));
	json_object_object_add(o, "ended_ns",
			       e->ended_ns ? json_object_new_uint64(e->ended_ns) : NULL);
	json_object_object_add(o, "status", json_str_or_null(e->status));

	arr = json_object_new_array();
	for (i = 0; i < ncfg; i++) {
		json_object *c;

		if (cfgs[i].exp_id != e->id)
			continue;
		c = json_object_new_object();
		json_object_object_add(c, "name", json_str_or_null(cfgs[i].name));
		json_object_object_add(c, "features", json_str_or_null(cfgs[i].features));
		json_object_array_add(arr, c);
	}
	json_object_object_add(o, "configs", arr);

	if (store_load_env(st, e->id, "start", &start) || store_load_env(st, e->id, "end", &end))
		goto fail;
	env = json_object_new_object();
	json_object_object_add(env, "start", env_json(&start));
	json_object_object_add(env, "end", env_json(&end));
	json_object_object_add(o, "env", env);
	env_release(&start);
	env_release(&end);

	if (store_list_metric_defs(st, e->id, &defs, &ndefs))
		goto fail;
	arr = json_object_new_array();
	for (i = 0; i < ndefs; i++) {
		json_object *m = json_object_new_object();

		json_object_object_add(m, "name", json_str_or_null(defs[i].name));
		json_object_object_add(m, "better",
				       json_str_or_null(metric_better_name(defs[i].better)));
		json_object_object_add(m, "evidence",
				       json_object_new_boolean(defs[i].flags & METRIC_EVIDENCE));
		json_object_array_add(arr, m);
	}
	store_metric_defs_free(defs, ndefs);
	json_object_object_add(o, "metrics", arr);
	if (e->kind && !strcmp(e->kind, "ab"))
		json_object_object_add(o, "result", ab_result_json(st, e));

	put_open_object(o);
	json_object_put(o);
	fputs("\"samples\":[", stdout);
	if (store_foreach_sample_json(st, e->id, put_sample, &walk))
		return -1;
	fputs("]}", stdout);
	return 0;
fail:
	env_release(&start);
	env_release(&end);
	json_object_put(o);
	return -1;
}

int export_json(struct store *st, const struct store_experiment *exps, size_t n,
		const struct store_config *cfgs, size_t ncfg)
{
	json_object *head = json_object_new_object();
	size_t i;

	json_c_set_serialization_double_format("%.15g", JSON_C_OPTION_GLOBAL);
	/*
	 * The document is {"format": ..., "version": 2, "schema": N,
	 * "experiments": [...]}, written one experiment at a time so that
	 * memory stays bounded: every value is rendered by json-c or SQLite.
	 */
	json_object_object_add(head, "format", json_object_new_string("wakebench-export"));
	json_object_object_add(head, "version", json_object_new_int(2));
	json_object_object_add(head, "schema", json_object_new_int(store_schema_version()));
	put_open_object(head);
	json_object_put(head);
	fputs("\"experiments\":[", stdout);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', stdout);
		if (put_experiment(st, &exps[i], cfgs, ncfg))
			return -1;
	}
	fputs("]}\n", stdout);
	return 0;
}

/* ---- CSV ---- */

struct csv_state {
	char **names;
	size_t nnames;
};

static int sample_csv(void *arg, const struct store_row *row)
{
	struct csv_state *cs = arg;
	const struct store_experiment *e = row->exp;
	const struct sample *s = row->s;
	const struct metric_def *p = metric_primary(e->workload);
	size_t i;
	double v;

	printf("%lld", (long long)e->id);
	csv_field(e->uuid, false);
	csv_field(e->kind, false);
	csv_field(e->workload, false);
	csv_field(e->profile, false);
	csv_field(e->label, false);
	csv_field(e->host, false);
	csv_field(e->kernel, false);
	csv_field(e->status, false);
	csv_field(row->cfg ? row->cfg->name : NULL, false);
	csv_field(row->cfg ? row->cfg->features : NULL, false);
	printf(",%u,%d", s->index, s->warmup ? 1 : 0);
	csv_field(sample_status_name(s->status), false);
	csv_field(s->reason[0] ? s->reason : NULL, false);
	printf(",%llu,%llu,%llu,%u,%llu", (unsigned long long)s->start_realtime_ns,
	       (unsigned long long)s->duration_ns, (unsigned long long)s->wall_ns, s->instances,
	       (unsigned long long)s->ops);
	csv_number(s->real_s);
	csv_number(s->usr_s);
	csv_number(s->sys_s);
	csv_number(s->ops_per_s);
	csv_number(s->ops_per_cpu_s);
	csv_field(p->name, false);
	csv_field(metric_better_name(p->better), false);
	if (sample_value(s, p->name, &v))
		csv_number(v);
	else
		fputc(',', stdout);
	for (i = 0; i < cs->nnames; i++) {
		const struct metric *m = sample_get(s, cs->names[i]);

		if (m && m->available)
			csv_number(m->value);
		else
			fputc(',', stdout);
	}
	fputc('\n', stdout);
	return 0;
}

static int export_csv(struct store *st, const struct store_filter *f)
{
	static const char *const fixed[] = {
		"experiment_id",
		"experiment_uuid",
		"kind",
		"workload",
		"profile",
		"label",
		"host",
		"kernel",
		"experiment_status",
		"config",
		"features",
		"sample_index",
		"warmup",
		"sample_status",
		"reason",
		"start_realtime_ns",
		"duration_ns",
		"wall_ns",
		"instances",
		"ops",
		"real_s",
		"usr_s",
		"sys_s",
		"ops_per_s",
		"ops_per_cpu_s",
		"primary",
		"primary_better",
		"primary_value",
	};
	struct csv_state cs;
	size_t i;
	int ret;

	if (store_metric_names(st, f, &cs.names, &cs.nnames))
		return -1;
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		csv_field(fixed[i], i == 0);
	for (i = 0; i < cs.nnames; i++)
		csv_field(cs.names[i], false);
	fputc('\n', stdout);
	ret = store_foreach_sample(st, f, 0, sample_csv, &cs);
	store_strings_free(cs.names, cs.nnames);
	return ret;
}

int cmd_export(int argc, const char **argv, struct ctx *ctx)
{
	struct export_params p = { 0 };
	struct opt_group groups[] = {
		filter_group(&p.filter),
		{ .title = "export options", .opts = export_opts, .base = &p },
		cli_common_group_for(ctx, COMMON_DB | COMMON_FORMAT | COMMON_VERBOSITY,
				     EXPORT_FORMATS),
	};
	struct store_filter f = { 0 };
	struct store_experiment *exps = NULL;
	struct store_config *cfgs = NULL;
	struct opts_result res;
	struct store *st;
	size_t n = 0, ncfg = 0;
	int ret = EXIT_RUNTIME;

	cli_parse("export", export_usage, export_description, groups, ARRAY_SIZE(groups), argc,
		  argv, 0, &res, ctx);
	/*
	 * export's default format is JSON: text is not a format for data, and
	 * --format accepts only json|csv here, so text means it was not given.
	 */
	if (ctx->format == FMT_TEXT)
		ctx->format = FMT_JSON;
	cli_require_format("export", ctx, EXPORT_FORMATS);
	if (ctx->format == FMT_KCIDB && !kcidb_origin_valid(p.origin))
		die_usage(
			"export: option '--origin': %s%s%s: --format kcidb needs your KCIDB origin "
			"(lower-case letters, digits and '_')",
			p.origin ? "'" : "", p.origin ? p.origin : "missing", p.origin ? "'" : "");
	if (res.npos) {
		const char *arg = res.pos[0];

		opts_result_release(&res);
		die_usage("export: unexpected argument '%s' (filters are options, see 'wakebench "
			  "export -h')",
			  arg);
	}
	opts_result_release(&res);
	filter_resolve("export", &p.filter, &f);

	json_c_set_serialization_double_format("%.15g", JSON_C_OPTION_GLOBAL);
	if (store_open(cli_db_path(ctx), STORE_READONLY, &st))
		return EXIT_RUNTIME;
	if (store_filter_check(st, &f, "export")) {
		store_close(st);
		return EXIT_USAGE;
	}
	if (p.experiment && store_find_experiment(st, p.experiment, &f.exp_id)) {
		store_close(st);
		return EXIT_USAGE;
	}
	if (ctx->format == FMT_KCIDB || ctx->format == FMT_LAVA_CASES) {
		if (!kcidb_export(st, &f, p.origin, ctx->format == FMT_LAVA_CASES))
			ret = EXIT_OK;
	} else if (ctx->format == FMT_CSV) {
		if (!export_csv(st, &f))
			ret = EXIT_OK;
	} else if (!store_list_experiments(st, &f, &exps, &n) &&
		   !store_list_configs(st, &f, &cfgs, &ncfg)) {
		/* lava: the same JSON, framed for a console by cli/lava.c */
		struct lava_capture cap;
		int r = ctx->format == FMT_LAVA ? lava_capture_begin(&cap) : 0;

		if (!r)
			r = export_json(st, exps, n, cfgs, ncfg);
		if (ctx->format == FMT_LAVA)
			r = lava_capture_end(&cap, r);
		if (!r)
			ret = EXIT_OK;
	}
	store_experiments_free(exps, n);
	store_configs_free(cfgs, ncfg);
	store_close(st);
	return ret;
}
