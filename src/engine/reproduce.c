/*
 * reproduce.c: `wakebench reproduce` without argv or stdout (reproduce.h).
 *
 * A posted figure is reproduced when it lies within this run's interval
 * widened by the posted spread: the run's median has its own uncertainty
 * (its distribution-free CI, the one run's summary shows, from 5 samples
 * on), and a posted mean of several runs has
 * another that the poster's machine added; a single posted run has no
 * spread, so only the run's interval counts. The verdict says nothing
 * about why a figure differs; the environment differences it lists, from
 * the same engine as `env --diff` and in its order (impact, strongest
 * first), are the candidates. A key the posted side does not record is
 * unknown there, not a difference: posted text says little about the
 * machine.
 */
#include "engine/reproduce.h"
#include "engine/summary.h"
#include "core/metrics.h"
#include "engine/import.h"
#include "runner/runner.h"
#include "stats/stats.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a posted file ---- */

static int uuids_of(struct store *st, char (**uuids)[37], size_t *n)
{
	struct store_experiment *v = NULL;
	size_t nv = 0, i;

	if (store_list_experiments(st, NULL, &v, &nv))
		return -1;
	*uuids = xcalloc(nv + 1, sizeof(**uuids));
	for (i = 0; i < nv; i++)
		memcpy((*uuids)[i], v[i].uuid, sizeof(v[i].uuid));
	*n = nv;
	store_experiments_free(v, nv);
	return 0;
}

int reproduce_import(struct store *st, const char *path, char (**uuids)[37], size_t *n,
		     size_t *added)
{
	struct import_result r = { 0 };
	struct store *scratch;
	int ret;

	*uuids = NULL;
	*n = *added = 0;
	/*
	 * Which experiments the file holds, whether or not st has them
	 * already (import adds only new ones): import it into an empty
	 * scratch store first, which also checks all of it before st changes.
	 */
	if (store_open_scratch(&scratch))
		return -1;
	ret = import_file(scratch, path, &r);
	free(r.ids);
	if (ret >= 0)
		ret = uuids_of(scratch, uuids, n);
	store_close(scratch);
	if (ret < 0)
		return -1;
	memset(&r, 0, sizeof(r));
	if (import_file(st, path, &r) < 0) {
		free(*uuids);
		*uuids = NULL;
		return -1;
	}
	*added = r.added;
	free(r.ids);
	return 0;
}

/* ---- the experiment to reproduce ---- */

struct collect {
	const char *metric;
	double *v;
	size_t n, cap;
};

static int collect_value(void *arg, const struct store_row *row)
{
	struct collect *c = arg;
	double x;

	if (!sample_value(row->s, c->metric, &x) || !isfinite(x))
		return 0;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
	}
	c->v[c->n++] = x;
	return 0;
}

/* "stress-ng-0.15" of "custom (based on stress-ng-0.15)"; the name itself otherwise. */
static void base_profile(const char *stored, char *buf, size_t len)
{
	static const char custom[] = "custom (based on ";
	size_t n;

	if (!strncmp(stored, custom, sizeof(custom) - 1)) {
		stored += sizeof(custom) - 1;
		n = strcspn(stored, ")");
		snprintf(buf, len, "%.*s", (int)n, stored);
		return;
	}
	snprintf(buf, len, "%s", stored);
}

/* The profile that reproduces src: 0, or -1 with why. */
static int pick_profile(struct reproduce_source *src, char *why, size_t len)
{
	const struct store_experiment *e = src->e;
	const char *mapped = NULL;
	char base[160] = "", range[128];

	if (!src->wl->profiles || !src->wl->profiles[0].name)
		return 0;
	if (e->profile)
		base_profile(e->profile, base, sizeof(base));
	if (strcmp(src->tool, "wakebench")) {
		/* today's mapping of the posted release, whatever was stored then */
		src->profile = workload_profile_for(src->wl, src->tool, src->tool_version);
		if (src->profile && base[0] && strcmp(base, src->profile->name))
			src->stored_profile = e->profile;
		if (!src->profile && base[0])
			src->profile = workload_profile_resolve(src->wl, base, &mapped);
		if (src->profile)
			return 0;
		workload_tool_range(src->wl, src->tool, range, sizeof(range));
		snprintf(why, len, "no profile of %s reproduces %s %s%s%s%s%s", src->wl->name,
			 src->tool, src->tool_version ? src->tool_version : "(version unknown)",
			 range[0] ? " (its profiles cover " : "", range[0] ? src->tool : "",
			 range[0] ? " " : "", range[0] ? range : "");
		if (range[0])
			snprintf(why + strlen(why), len - strlen(why), ")");
		return -1;
	}
	if (base[0])
		src->profile = workload_profile_resolve(src->wl, base, &mapped);
	if (src->profile)
		return 0;
	snprintf(why, len, "its profile '%s' is not one of %s's in this wakebench",
		 e->profile ? e->profile : "none", src->wl->name);
	return -1;
}

static int load_checks(struct reproduce_source *src, char *why, size_t len)
{
	const struct store_experiment *e = src->e;

	if (!strcmp(e->kind, "ab")) {
		snprintf(why, len,
			 "it is an ab experiment (a scheduler feature on and off): repeat it with "
			 "'wakebench ab', not reproduce");
		return -1;
	}
	if (strcmp(e->kind, "run") && strcmp(e->kind, "external")) {
		snprintf(why, len, "it is of kind '%s': only run and external experiments are",
			 e->kind);
		return -1;
	}
	src->wl = e->workload ? workload_find(e->workload) : NULL;
	if (!src->wl) {
		snprintf(why, len, "its workload '%s' is not one of this wakebench's",
			 e->workload ? e->workload : "(none)");
		return -1;
	}
	src->metric = metric_primary(src->wl->name)->name;
	if (!e->params_json) {
		snprintf(why, len, "it has no stored parameters");
		return -1;
	}
	return 0;
}

int reproduce_source_load(struct store *st, int64_t exp_id, struct reproduce_source *src, char *why,
			  size_t len)
{
	struct store_filter f = { .exp_id = exp_id };
	struct collect c = { 0 };
	size_t n = 0;

	memset(src, 0, sizeof(*src));
	why[0] = '\0';
	if (store_list_experiments(st, &f, &src->e, &n))
		return -1;
	if (n != 1) {
		store_experiments_free(src->e, n);
		src->e = NULL;
		snprintf(why, len, "it vanished from the store");
		return -1;
	}
	if (store_load_env(st, exp_id, "start", &src->env))
		return -1;
	if (load_checks(src, why, len))
		return -1;
	src->tool = env_get(&src->env, "external.tool");
	src->tool_version = env_get(&src->env, "external.version");
	if (!src->tool || !strcmp(src->e->kind, "run")) {
		src->tool = "wakebench";
		src->tool_version = src->e->version;
	}
	if (pick_profile(src, why, len))
		return -1;
	c.metric = src->metric;
	if (store_foreach_sample(st, &f, STORE_ROWS_STATS, collect_value, &c)) {
		free(c.v);
		return -1;
	}
	src->values = c.v;
	src->nvalues = c.n;
	if (!c.n) {
		snprintf(why, len, "it has no usable value of %s to compare with", src->metric);
		return -1;
	}
	return 0;
}

void reproduce_source_release(struct reproduce_source *src)
{
	if (src->e)
		store_experiments_free(src->e, 1);
	env_release(&src->env);
	free(src->values);
	memset(src, 0, sizeof(*src));
}

int reproduce_pick(struct store *st, char (*uuids)[37], size_t n, int64_t *exp_id, size_t *found)
{
	struct reproduce_source src;
	char why[512];
	size_t i;

	*exp_id = -1;
	*found = 0;
	for (i = 0; i < n; i++) {
		int64_t id;
		int bad;

		if (store_find_experiment(st, uuids[i], &id))
			return -1;
		bad = reproduce_source_load(st, id, &src, why, sizeof(why));
		reproduce_source_release(&src);
		if (bad && !why[0])
			return -1;
		if (!bad && !(*found)++)
			*exp_id = id;
	}
	return 0;
}

/* ---- the run's words ---- */

struct words {
	char **w;
	size_t n, cap;
};

static void words_add(struct words *ws, char *w)
{
	if (ws->n + 1 >= ws->cap) {
		ws->cap = ws->cap ? 2 * ws->cap : 32;
		ws->w = xrealloc(ws->w, ws->cap * sizeof(*ws->w));
	}
	ws->w[ws->n++] = w;
	ws->w[ws->n] = NULL;
}

/* The key experiment_params_json() stores an option under: "duration_ns", "data_size_bytes". */
static void param_key(const struct opt *o, char *buf, size_t len)
{
	const char *suffix = o->type == OPT_DURATION ? "_ns" : o->type == OPT_SIZE ? "_bytes" : "";
	char *p;

	snprintf(buf, len, "%s%s", o->long_name, suffix);
	for (p = buf; *p; p++)
		if (*p == '-')
			*p = '_';
}

/* "--NAME=VALUE" as the option parses it back, or NULL when v says nothing to set. */
static char *opt_word(const struct opt *o, json_object *v)
{
	enum json_type t = json_object_get_type(v);

	switch (o->type) {
	case OPT_FLAG:
		return t == json_type_boolean && json_object_get_boolean(v)
			       ? xasprintf("--%s", o->long_name)
			       : NULL;
	case OPT_UINT:
	case OPT_SIZE:
		return t == json_type_int ? xasprintf("--%s=%llu", o->long_name,
						      (unsigned long long)json_object_get_uint64(v))
					  : NULL;
	case OPT_DURATION:
		return t == json_type_int ? xasprintf("--%s=%lluns", o->long_name,
						      (unsigned long long)json_object_get_uint64(v))
					  : NULL;
	case OPT_DOUBLE:
		return t == json_type_double || t == json_type_int
			       ? xasprintf("--%s=%.17g", o->long_name, json_object_get_double(v))
			       : NULL;
	case OPT_PERCENT:
		return t == json_type_double || t == json_type_int
			       ? xasprintf("--%s=%.17g%%", o->long_name,
					   100.0 * json_object_get_double(v))
			       : NULL;
	case OPT_CHOICE:
	case OPT_STRING:
		return t == json_type_string
			       ? xasprintf("--%s=%s", o->long_name, json_object_get_string(v))
			       : NULL;
	case OPT_STRLIST:
	case OPT_END:
		break;
	}
	return NULL;
}

static void table_words(const struct opt *opts, json_object *params, struct words *ws)
{
	const struct opt *o;
	char key[128];
	json_object *v;
	size_t i;

	for (o = opts; o->type != OPT_END; o++) {
		if (!o->long_name || (o->flags & OPT_HIDDEN))
			continue;
		/* a reproduction takes enough samples for an interval, whatever was posted */
		if (opts == runner_opts &&
		    (!strcmp(o->long_name, "samples") || !strcmp(o->long_name, "warmup")))
			continue;
		param_key(o, key, sizeof(key));
		if (!json_object_object_get_ex(params, key, &v) || !v)
			continue;
		if (o->type == OPT_STRLIST) {
			if (json_object_get_type(v) != json_type_array)
				continue;
			for (i = 0; i < json_object_array_length(v); i++) {
				json_object *e = json_object_array_get_idx(v, i);

				if (json_object_get_type(e) == json_type_string)
					words_add(ws, xasprintf("--%s=%s", o->long_name,
								json_object_get_string(e)));
			}
			continue;
		}
		char *w = opt_word(o, v);

		if (w)
			words_add(ws, w);
	}
}

char **reproduce_words(const struct reproduce_source *src, size_t *n)
{
	struct words ws = { 0 };
	json_object *params = json_tokener_parse(src->e->params_json);

	words_add(&ws, xstrdup(src->wl->name));
	if (src->profile)
		words_add(&ws, xasprintf("--profile=%s", src->profile->name));
	if (params && json_object_get_type(params) == json_type_object) {
		table_words(runner_opts, params, &ws);
		table_words(src->wl->opts, params, &ws);
	}
	json_object_put(params);
	*n = ws.n;
	return ws.w;
}

void reproduce_words_free(char **w)
{
	char **p;

	for (p = w; p && *p; p++)
		free(*p);
	free(w);
}

/* ---- the verdict ---- */

/*
 * Keys that are no fact about the machine: the posted tool (said on its
 * own line), the command line, the host's name (different by definition)
 * and per-run load.
 */
static bool not_a_difference(const char *key)
{
	return !strncmp(key, "external.", 9) || !strncmp(key, "run.", 4) ||
	       !strcmp(key, "wakebench.cmdline") || !strcmp(key, "host.name");
}

static void env_copy(struct env *dst, const struct env *src)
{
	size_t i;

	memset(dst, 0, sizeof(*dst));
	for (i = 0; i < src->n; i++)
		env_set(dst, src->e[i].key, src->e[i].impact, "%s", src->e[i].value);
}

static void split_diff(const struct reproduce_source *src, struct reproduce_verdict *rv)
{
	struct env_delta *d = NULL;
	size_t n = env_diff(&src->env, &rv->here_env, &d), i;

	rv->diff = xcalloc(n + 1, sizeof(*rv->diff));
	rv->unknown = xcalloc(n + 1, sizeof(*rv->unknown));
	for (i = 0; i < n; i++) {
		struct reproduce_delta *to;

		if (not_a_difference(d[i].key))
			continue;
		/* the posted workload and profile are the experiment's own, said apart */
		if (!d[i].a && !strncmp(d[i].key, "workload.", 9))
			continue;
		to = d[i].a ? &rv->diff[rv->ndiff++] : &rv->unknown[rv->nunknown++];
		to->key = d[i].key;
		to->posted = d[i].a;
		to->here = d[i].b;
		to->impact = d[i].impact;
		memcpy(to->change, d[i].change, sizeof(to->change));
	}
	free(d);
}

/* This run: run's own summary of the samples (engine/summary.c), its median and CI. */
static void run_interval(const struct sample *s, size_t n, const char *metric,
			 struct reproduce_verdict *rv)
{
	struct report_summary rs;
	size_t i;

	rv->level = REPORT_CONF;
	rv->run_median = rv->ci_lo = rv->ci_hi = NAN;
	if (report_summarize(s, n, metric, &rs))
		return;
	rv->run_failed = rs.nfailed + rs.ninterrupted;
	for (i = 0; i < rs.nmetrics; i++) {
		const struct metric_summary *ms = &rs.m[i];

		if (strcmp(ms->name, metric))
			continue;
		rv->run_n = ms->available ? ms->sum.n : 0;
		rv->run_median = ms->available ? ms->sum.median : NAN;
		if (ms->available && ms->sum.ci_valid) {
			rv->ci_lo = ms->sum.ci_lo;
			rv->ci_hi = ms->sum.ci_hi;
			rv->level = ms->sum.ci_level;
		}
	}
	/* usable samples that lack the metric count as failed for it */
	rv->run_failed += rs.nsamples - rv->run_n;
	report_summary_release(&rs);
}

int reproduce_judge(const struct reproduce_source *src, const struct sample *s, size_t n,
		    const struct env *here, const char *here_profile, struct reproduce_verdict *rv)
{
	double widen;

	memset(rv, 0, sizeof(*rv));
	rv->metric = src->metric;
	rv->better = metric_primary(src->wl->name)->better;
	rv->posted_n = src->nvalues;
	rv->posted_mean = stats_mean(src->values, src->nvalues);
	rv->posted_spread = src->nvalues >= 2 ? stats_stddev(src->values, src->nvalues) : NAN;
	run_interval(s, n, src->metric, rv);
	rv->rel = rv->run_n && rv->posted_mean != 0 ? rv->run_median / rv->posted_mean - 1 : NAN;
	widen = isfinite(rv->posted_spread) ? rv->posted_spread : 0;
	rv->accept_lo = rv->ci_lo - widen;
	rv->accept_hi = rv->ci_hi + widen;
	if (!isfinite(rv->ci_lo)) {
		rv->outcome = REPRODUCE_UNDECIDED;
		snprintf(rv->why, sizeof(rv->why),
			 "%zu usable sample%s here: an interval of the median needs %d at least",
			 rv->run_n, rv->run_n == 1 ? "" : "s", STATS_MEDIAN_CI_MIN_N);
	} else if (rv->posted_mean >= rv->accept_lo && rv->posted_mean <= rv->accept_hi) {
		rv->outcome = REPRODUCE_REPRODUCED;
	} else {
		rv->outcome = REPRODUCE_NOT_REPRODUCED;
	}
	snprintf(rv->posted_by, sizeof(rv->posted_by), "%s %s, profile %s", src->tool,
		 src->tool_version ? src->tool_version : "(version unknown)",
		 src->e->profile ? src->e->profile : "none");
	snprintf(rv->here_by, sizeof(rv->here_by), "wakebench %s, profile %s", WAKEBENCH_VERSION,
		 here_profile ? here_profile : "none");
	env_copy(&rv->here_env, here);
	split_diff(src, rv);
	return 0;
}

void reproduce_verdict_release(struct reproduce_verdict *rv)
{
	free(rv->diff);
	free(rv->unknown);
	env_release(&rv->here_env);
	memset(rv, 0, sizeof(*rv));
}
