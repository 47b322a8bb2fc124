/*
 * export.c: the stored data for other tools (export.h).
 *
 * JSON (one experiment at a time so that memory stays bounded however
 * large the store is; the provenance, configs, metric definitions and
 * fingerprint built with json-c, the samples rendered by SQLite's JSON
 * functions, which is what keeps 100,000 samples fast): every experiment
 * matching the filters and every sample with every metric (an unavailable
 * one is null in "metrics" and has its reason in "unavailable"); an ab's
 * result as ab printed it. CSV: one row per sample, the fixed metrics
 * first and then one column per named metric (empty when unavailable; the
 * reasons are in the JSON).
 */
#include "engine/export.h"
#include "core/metrics.h"
#include "engine/ab.h"
#include "render/ab.h"
#include "util/json.h"
#include "util/text.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static void put_open_object(FILE *out, json_object *o)
{
	const char *t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								  JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = strlen(t);

	if (len < 2 || t[len - 1] != '}')
		BUG("json-c object '%s'", t);
	fwrite(t, 1, len - 1, out);
	if (len > 2)
		fputc(',', out);
}

struct sample_walk {
	FILE *out;
	size_t n;
};

static int put_sample(void *arg, const char *json)
{
	struct sample_walk *w = arg;

	if (w->n++)
		fputc(',', w->out);
	fputs(json, w->out);
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

static int put_experiment(FILE *out, struct store *st, const struct store_experiment *e,
			  const struct store_config *cfgs, size_t ncfg)
{
	json_object *o = json_object_new_object(), *params, *arr, *env;
	struct env start = { 0 }, end = { 0 };
	struct store_metric_def *defs;
	struct sample_walk walk = { .out = out };
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

	put_open_object(out, o);
	json_object_put(o);
	fputs("\"samples\":[", out);
	if (store_foreach_sample_json(st, e->id, put_sample, &walk))
		return -1;
	fputs("]}", out);
	return 0;
fail:
	env_release(&start);
	env_release(&end);
	json_object_put(o);
	return -1;
}

int export_json(FILE *out, struct store *st, const struct store_experiment *exps, size_t n,
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
	put_open_object(out, head);
	json_object_put(head);
	fputs("\"experiments\":[", out);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', out);
		if (put_experiment(out, st, &exps[i], cfgs, ncfg))
			return -1;
	}
	fputs("]}\n", out);
	return 0;
}

/* ---- CSV ---- */

struct csv_state {
	FILE *out;
	char **names;
	size_t nnames;
};

static int sample_csv(void *arg, const struct store_row *row)
{
	struct csv_state *cs = arg;
	FILE *out = cs->out;
	const struct store_experiment *e = row->exp;
	const struct sample *s = row->s;
	const struct metric_def *p = metric_primary(e->workload);
	size_t i;
	double v;

	fprintf(out, "%lld", (long long)e->id);
	csv_field(out, e->uuid, false);
	csv_field(out, e->kind, false);
	csv_field(out, e->workload, false);
	csv_field(out, e->profile, false);
	csv_field(out, e->label, false);
	csv_field(out, e->host, false);
	csv_field(out, e->kernel, false);
	csv_field(out, e->status, false);
	csv_field(out, row->cfg ? row->cfg->name : NULL, false);
	csv_field(out, row->cfg ? row->cfg->features : NULL, false);
	fprintf(out, ",%u,%d", s->index, s->warmup ? 1 : 0);
	csv_field(out, sample_status_name(s->status), false);
	csv_field(out, s->reason[0] ? s->reason : NULL, false);
	fprintf(out, ",%llu,%llu,%llu,%u,%llu", (unsigned long long)s->start_realtime_ns,
		(unsigned long long)s->duration_ns, (unsigned long long)s->wall_ns, s->instances,
		(unsigned long long)s->ops);
	csv_number(out, s->real_s);
	csv_number(out, s->usr_s);
	csv_number(out, s->sys_s);
	csv_number(out, s->ops_per_s);
	csv_number(out, s->ops_per_cpu_s);
	csv_field(out, p->name, false);
	csv_field(out, metric_better_name(p->better), false);
	if (sample_value(s, p->name, &v))
		csv_number(out, v);
	else
		fputc(',', out);
	for (i = 0; i < cs->nnames; i++) {
		const struct metric *m = sample_get(s, cs->names[i]);

		if (m && m->available)
			csv_number(out, m->value);
		else
			fputc(',', out);
	}
	fputc('\n', out);
	return 0;
}

int export_csv(FILE *out, struct store *st, const struct store_filter *f)
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
	struct csv_state cs = { .out = out };
	size_t i;
	int ret;

	if (store_metric_names(st, f, &cs.names, &cs.nnames))
		return -1;
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		csv_field(out, fixed[i], i == 0);
	for (i = 0; i < cs.nnames; i++)
		csv_field(out, cs.names[i], false);
	fputc('\n', out);
	ret = store_foreach_sample(st, f, 0, sample_csv, &cs);
	store_strings_free(cs.names, cs.nnames);
	return ret;
}
