/*
 * kcidb.c: `wakebench export --format kcidb`: the stored experiments as one
 * KernelCI KCIDB v5.3 document (reference/lava-kcidb.md), which the user
 * submits with kcidb-submit and their own credentials.
 *
 * Mapping. A kernel (its "Linux version" line, else its release, and its
 * architecture) is one checkout and one build: wakebench does not know the
 * sources it was built from, only the build it ran on, so both carry the
 * release and the build line. Each config of each experiment is one test
 * with status DONE ("produced a performance measurement") whose number is
 * the median of the workload's primary metric, with the n, CI, spread and
 * the experiment's provenance in misc. Each verdict of an `ab` experiment
 * is one more test: FAIL for a regression, PASS for an improvement, no
 * change or an inconclusive result (no regression was shown), SKIP when
 * there were too few pairs to say anything; the effect, its CI, p and the
 * margin are in misc. The verdicts are the experiment's result as the ab
 * engine computes it from the stored samples and design (engine/ab.c):
 * the numbers and words `ab` printed.
 * environment.misc holds the experiment's whole fingerprint at its start
 * (lava.* keys included when it came from a LAVA job).
 *
 * Ids: ORIGIN:wakebench-kernel-<sha256 prefix> for checkouts and builds,
 * ORIGIN:<experiment uuid>.<config or token> for tests, so that
 * re-exporting the same store gives the same ids (KCIDB merges them).
 */
#include "engine/farm.h"
#include "core/metrics.h"
#include "engine/ab.h"
#include "util/digest.h"
#include "util/json.h"
#include "stats/stats.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KCIDB_MAX_ARMS 4
#define KCIDB_CONF     0.95 /* the median CIs, as run and compare give them */

bool kcidb_origin_valid(const char *origin)
{
	size_t i;

	if (!origin || !origin[0] || strlen(origin) > 64)
		return false;
	for (i = 0; origin[i]; i++)
		if (!((origin[i] >= 'a' && origin[i] <= 'z') ||
		      (origin[i] >= '0' && origin[i] <= '9') || origin[i] == '_'))
			return false;
	return true;
}

/* Optional fields of KCIDB objects are left out rather than null. */
static void add_str(json_object *o, const char *key, const char *s)
{
	if (s)
		json_object_object_add(o, key, json_object_new_string(s));
}

/*
 * A test path component, as KCIDB's schema allows one (one or more of
 * [a-zA-Z0-9_-]: the path's pattern is ^([a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*)?$):
 * every other byte becomes '_', so that a stored name cannot add a level
 * to the path or a line to the LAVA cases; an empty one is "_".
 */
static void path_part(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in && in[i] && i + 1 < len; i++) {
		char c = in[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
					 (c >= '0' && c <= '9') || c == '_' || c == '-'
				 ? c
				 : '_';
	}
	if (!i && len > 1)
		out[i++] = '_';
	out[i] = '\0';
}

/* A build's architecture as KCIDB allows it (^[a-z0-9_]*$): lower case, the rest '_'. */
static void arch_name(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < len; i++) {
		char c = in[i];

		out[i] = (c >= 'A' && c <= 'Z')				    ? (char)(c - 'A' + 'a')
			 : (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c
									    : '_';
	}
	out[i] = '\0';
}

/* ---- checkouts and builds: one per kernel ---- */

struct kernel_key {
	char id[128];
};

struct kcidb_doc {
	const char *origin;
	json_object *checkouts, *builds, *tests;
	struct kernel_key *kernels;
	size_t nkernels;
};

static void kernel_build_id(struct kcidb_doc *d, const struct store_experiment *e,
			    const struct env *env, char *id, size_t idlen)
{
	const char *build = env_get(env, "kernel.build");
	const char *arch = env_get(env, "kernel.arch");
	char *ident, hex[65], arch_id[64];
	json_object *co, *b, *misc;
	size_t i;

	if (!build)
		build = e->kernel ? e->kernel : "unknown";
	if (!arch)
		arch = "unknown";
	if (asprintf(&ident, "%s\n%s", build, arch) < 0)
		die("out of memory");
	sha256_hex(ident, strlen(ident), hex);
	free(ident);
	hex[16] = '\0';
	snprintf(id, idlen, "%s:wakebench-kernel-%s", d->origin, hex);
	for (i = 0; i < d->nkernels; i++)
		if (!strcmp(d->kernels[i].id, id))
			return;
	d->kernels = xrealloc(d->kernels, (d->nkernels + 1) * sizeof(*d->kernels));
	snprintf(d->kernels[d->nkernels++].id, sizeof(d->kernels[0].id), "%s", id);

	co = json_object_new_object();
	json_object_object_add(co, "id", json_str_or_null(id));
	json_object_object_add(co, "origin", json_str_or_null(d->origin));
	add_str(co, "comment", e->kernel);
	misc = json_object_new_object();
	json_object_object_add(misc, "kernel_release", json_str_or_null(e->kernel));
	json_object_object_add(misc, "kernel_build", json_str_or_null(build));
	json_object_object_add(co, "misc", misc);
	json_object_array_add(d->checkouts, co);

	b = json_object_new_object();
	json_object_object_add(b, "id", json_str_or_null(id));
	json_object_object_add(b, "checkout_id", json_str_or_null(id));
	json_object_object_add(b, "origin", json_str_or_null(d->origin));
	arch_name(arch, arch_id, sizeof(arch_id));
	add_str(b, "architecture", arch_id);
	add_str(b, "comment", build);
	misc = json_object_new_object();
	json_object_object_add(misc, "kernel_release", json_str_or_null(e->kernel));
	if (strcmp(arch, arch_id))
		json_object_object_add(misc, "kernel_arch", json_str_or_null(arch));
	json_object_object_add(b, "misc", misc);
	json_object_array_add(d->builds, b);
}

/* ---- the samples of one experiment ---- */

struct kcidb_sample {
	int arm; /* index of its config in the experiment, by config id; -1 unknown */
	bool ok; /* status ok */
	double value;
};

struct exp_samples {
	struct store_config cfgs[KCIDB_MAX_ARMS]; /* this experiment's configs, by id (shallow) */
	size_t ncfg;
	struct kcidb_sample *s; /* measured samples (no warm-ups), in run order */
	size_t n;
};

static int collect_sample(void *arg, const struct store_row *row)
{
	struct exp_samples *es = arg;
	struct kcidb_sample *k;
	size_t i;

	if (row->s->warmup)
		return 0;
	es->s = xrealloc(es->s, (es->n + 1) * sizeof(*es->s));
	k = &es->s[es->n++];
	k->arm = -1;
	for (i = 0; row->cfg && i < es->ncfg; i++)
		if (es->cfgs[i].id == row->cfg->id)
			k->arm = (int)i;
	/* the primary metric of the workload (ops_per_s for pipe, pingpong) */
	k->ok = row->s->status == SAMPLE_OK &&
		sample_value(row->s, metric_primary(row->exp->workload)->name, &k->value);
	return 0;
}

static json_object *env_misc(const struct env *env)
{
	json_object *o = json_object_new_object();
	size_t i;

	for (i = 0; i < env->n; i++)
		json_object_object_add(o, env->e[i].key, json_str_or_null(env->e[i].value));
	return o;
}

/* What every test of an experiment shares. */
static json_object *test_new(const struct kcidb_doc *d, const struct store_experiment *e,
			     const char *build_id, const char *host, const char *part,
			     const char *path, const struct env *env)
{
	json_object *t = json_object_new_object(), *environment = json_object_new_object();
	json_object *start = json_time_utc(e->started_ns, "+00:00");
	char id[256];

	snprintf(id, sizeof(id), "%s:%s.%s", d->origin, e->uuid, part);
	json_object_object_add(t, "id", json_str_or_null(id));
	json_object_object_add(t, "build_id", json_str_or_null(build_id));
	json_object_object_add(t, "origin", json_str_or_null(d->origin));
	json_object_object_add(t, "path", json_str_or_null(path));
	if (start)
		json_object_object_add(t, "start_time", start);
	if (e->started_ns && e->ended_ns > e->started_ns)
		json_object_object_add(
			t, "duration",
			json_object_new_double((double)(e->ended_ns - e->started_ns) / 1e9));
	add_str(environment, "comment", host);
	json_object_object_add(environment, "misc", env_misc(env));
	json_object_object_add(t, "environment", environment);
	return t;
}

static json_object *provenance(const struct store_experiment *e)
{
	json_object *m = json_object_new_object();

	json_object_object_add(m, "experiment_uuid", json_str_or_null(e->uuid));
	json_object_object_add(m, "experiment_status", json_str_or_null(e->status));
	json_object_object_add(m, "kind", json_str_or_null(e->kind));
	json_object_object_add(m, "workload", json_str_or_null(e->workload));
	json_object_object_add(m, "profile", json_str_or_null(e->profile));
	json_object_object_add(m, "label", json_str_or_null(e->label));
	json_object_object_add(m, "host", json_str_or_null(e->host));
	json_object_object_add(m, "kernel", json_str_or_null(e->kernel));
	json_object_object_add(m, "cmdline", json_str_or_null(e->cmdline));
	json_object_object_add(m, "version", json_str_or_null(e->version));
	return m;
}

/* The DONE test of one config: the median of the primary metric. */
static void config_test(struct kcidb_doc *d, const struct store_experiment *e, const char *build_id,
			const struct env *env, const struct exp_samples *es, size_t arm)
{
	const struct store_config *c = &es->cfgs[arm];
	const struct metric_def *pm = metric_primary(e->workload);
	double *x = xcalloc(es->n + 1, sizeof(double));
	char part[160], path[512], unit[64], wl[160], kind[160];
	json_object *t, *misc;
	struct summary sum;
	size_t i, n = 0;

	for (i = 0; i < es->n; i++)
		if (es->s[i].arm == (int)arm && es->s[i].ok && es->s[i].value > 0)
			x[n++] = es->s[i].value;
	path_part(c->name, part, sizeof(part));
	path_part(e->workload, wl, sizeof(wl));
	path_part(e->kind, kind, sizeof(kind));
	snprintf(path, sizeof(path), "wakebench.%s.%s.%s", wl, kind, part);
	t = test_new(d, e, build_id, e->host, part, path, env);
	misc = provenance(e);
	json_object_object_add(misc, "config", json_str_or_null(c->name));
	json_object_object_add(misc, "features", json_str_or_null(c->features));
	json_object_object_add(misc, "metric", json_str_or_null(pm->name));
	json_object_object_add(misc, "better", json_str_or_null(metric_better_name(pm->better)));
	json_object_object_add(misc, "samples", json_object_new_int64((int64_t)n));
	if (n && !stats_summarize(x, n, KCIDB_CONF, &sum, NULL)) {
		json_object *num = json_object_new_object();

		json_object_object_add(t, "status", json_str_or_null("DONE"));
		json_object_object_add(
			t, "comment",
			json_str_or_null("median of the primary metric over the measured samples"));
		json_object_object_add(num, "value", json_object_new_double(sum.median));
		json_object_object_add(
			num, "unit",
			json_str_or_null(metric_unit(pm, e->workload, unit, sizeof(unit))));
		json_object_object_add(num, "prefix", json_str_or_null("metric"));
		json_object_object_add(t, "number", num);
		json_object_object_add(misc, "median", json_double(sum.median));
		json_object_object_add(misc, "median_ci_lo",
				       sum.ci_valid ? json_double(sum.ci_lo) : NULL);
		json_object_object_add(misc, "median_ci_hi",
				       sum.ci_valid ? json_double(sum.ci_hi) : NULL);
		json_object_object_add(misc, "median_ci_level",
				       sum.ci_valid ? json_double(sum.ci_level) : NULL);
		json_object_object_add(misc, "mean", json_double(sum.mean));
		json_object_object_add(misc, "cv", json_double(sum.cv));
		json_object_object_add(misc, "min", json_double(sum.min));
		json_object_object_add(misc, "max", json_double(sum.max));
	} else {
		json_object_object_add(t, "status", json_str_or_null("ERROR"));
		json_object_object_add(t, "comment",
				       json_str_or_null("no usable sample was measured"));
	}
	json_object_object_add(t, "misc", misc);
	json_object_array_add(d->tests, t);
	free(x);
}

static void verdict_test(struct kcidb_doc *d, const struct store_experiment *e,
			 const char *build_id, const struct env *env, const struct ab_result *r,
			 const struct ab_line *x)
{
	const struct effect *eff = &x->s.e;
	char part[160], path[512], wl[160];
	json_object *t, *misc;

	path_part(x->what, part, sizeof(part));
	path_part(e->workload, wl, sizeof(wl));
	snprintf(path, sizeof(path), "wakebench.%s.ab.verdict.%s", wl, part);
	snprintf(part + strlen(part), sizeof(part) - strlen(part), ".verdict");
	t = test_new(d, e, build_id, e->host, part, path, env);
	json_object_object_add(t, "status",
			       json_str_or_null(x->s.v == VERDICT_REGRESSION	 ? "FAIL"
						: x->s.v == VERDICT_INSUFFICIENT ? "SKIP"
										 : "PASS"));
	add_str(t, "comment", x->verdict);
	misc = provenance(e);
	json_object_object_add(misc, "effect_of", json_str_or_null(x->what));
	json_object_object_add(misc, "metric", json_str_or_null(x->metric));
	json_object_object_add(misc, "verdict", json_str_or_null(stats_verdict_key(x->s.v)));
	json_object_object_add(misc, "margin", json_double(r->d.margin));
	json_object_object_add(misc, "units", json_object_new_int64((int64_t)eff->n_a));
	json_object_object_add(misc, "method", json_str_or_null(eff->method));
	json_object_object_add(misc, "effect", eff->valid ? json_double(eff->est) : NULL);
	json_object_object_add(misc, "ci_lo", eff->valid ? json_double(eff->lo) : NULL);
	json_object_object_add(misc, "ci_hi", eff->valid ? json_double(eff->hi) : NULL);
	json_object_object_add(misc, "confidence", json_double(eff->conf));
	json_object_object_add(misc, "p", eff->valid ? json_double(eff->p) : NULL);
	json_object_object_add(misc, "why", json_str_or_null(eff->valid ? NULL : eff->why));
	json_object_object_add(t, "misc", misc);
	json_object_array_add(d->tests, t);
}

/* The verdicts of an ab experiment: its result from engine/ab.c, as ab printed it. */
static void ab_verdicts(struct kcidb_doc *d, struct store *st, const struct store_experiment *e,
			const char *build_id, const struct env *env)
{
	struct ab_stored ab;
	char why[256];
	size_t k;

	if (ab_load(st, e, &ab, why, sizeof(why))) {
		warning("export: experiment %s: %s; its verdicts are left out", e->uuid, why);
		return;
	}
	for (k = 0; k < ab.r.neff; k++)
		verdict_test(d, e, build_id, env, &ab.r, &ab.r.eff[k]);
	ab_stored_release(&ab);
}

static int experiment_tests(struct kcidb_doc *d, struct store *st, const struct store_experiment *e,
			    const struct store_config *cfgs, size_t ncfg)
{
	struct store_filter one = { .exp_id = e->id };
	struct exp_samples es = { 0 };
	struct env env = { 0 };
	char build_id[128];
	size_t i, nmine = 0;
	int ret = -1;

	for (i = 0; i < ncfg; i++) {
		if (cfgs[i].exp_id != e->id)
			continue;
		if (es.ncfg < KCIDB_MAX_ARMS)
			es.cfgs[es.ncfg++] = cfgs[i];
		nmine++;
	}
	if (nmine > es.ncfg)
		warning("export: experiment %s has %zu configs; only the first %zu are written",
			e->uuid, nmine, es.ncfg);
	if (store_load_env(st, e->id, "start", &env))
		goto out;
	if (store_foreach_sample(st, &one, STORE_ROWS_NO_METRICS, collect_sample, &es))
		goto out;
	kernel_build_id(d, e, &env, build_id, sizeof(build_id));
	for (i = 0; i < es.ncfg; i++)
		config_test(d, e, build_id, &env, &es, i);
	if (e->kind && !strcmp(e->kind, "ab"))
		ab_verdicts(d, st, e, build_id, &env);
	ret = 0;
out:
	free(es.s);
	env_release(&env);
	return ret;
}

/*
 * Each byte of s that is not in allowed (nor a letter or digit) becomes '_':
 * a LAVA case line is split at spaces and ends at a newline, so a name or a
 * unit must hold neither.
 */
static void case_word(char *s, const char *allowed)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr(allowed, *s)))
			*s = '_';
}

/*
 * The same tests as LAVA test cases, one line each in the result.txt
 * convention of Linaro's test-definitions: NAME pass|fail|skip [VALUE UNITS].
 * NAME is the test path without "wakebench." (letters, digits, "-_." only,
 * as LAVA allows: path_part() already mapped the rest to '_'); a unit is
 * printable ASCII without spaces. One test, one line, whatever was stored.
 */
static void print_cases(json_object *tests)
{
	size_t i, n = json_object_array_length(tests);

	for (i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(tests, i), *v;
		const char *path = "", *status = "", *result;
		char name[512], unit[64] = "";

		if (json_object_object_get_ex(t, "path", &v))
			path = json_object_get_string(v);
		if (json_object_object_get_ex(t, "status", &v))
			status = json_object_get_string(v);
		if (!strncmp(path, "wakebench.", 10))
			path += 10;
		snprintf(name, sizeof(name), "%s", path);
		case_word(name, "-_.");
		result = !strcmp(status, "DONE") || !strcmp(status, "PASS") ? "pass"
			 : !strcmp(status, "SKIP")			    ? "skip"
									    : "fail";
		printf("%s %s", name, result);
		if (json_object_object_get_ex(t, "number", &v)) {
			json_object *val = NULL, *u = NULL;

			json_object_object_get_ex(v, "value", &val);
			json_object_object_get_ex(v, "unit", &u);
			snprintf(unit, sizeof(unit), "%s", u ? json_object_get_string(u) : "");
			case_word(unit, "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");
			printf(" %.9g %s", json_object_get_double(val), unit);
		}
		putchar('\n');
	}
}

int kcidb_export(struct store *st, const struct store_filter *f, const char *origin, bool cases)
{
	struct kcidb_doc d = { .origin = origin ? origin : "wakebench" };
	struct store_experiment *exps = NULL;
	struct store_config *cfgs = NULL;
	json_object *doc, *version;
	size_t i, n = 0, ncfg = 0;
	int ret = -1;

	if (store_read_begin(st))
		return -1;
	if (store_list_experiments(st, f, &exps, &n) || store_list_configs(st, f, &cfgs, &ncfg))
		goto out;
	doc = json_object_new_object();
	version = json_object_new_object();
	json_object_object_add(version, "major", json_object_new_int(5));
	json_object_object_add(version, "minor", json_object_new_int(3));
	json_object_object_add(doc, "version", version);
	d.checkouts = json_object_new_array();
	d.builds = json_object_new_array();
	d.tests = json_object_new_array();
	json_object_object_add(doc, "checkouts", d.checkouts);
	json_object_object_add(doc, "builds", d.builds);
	json_object_object_add(doc, "tests", d.tests);
	for (i = 0; i < n; i++)
		if (experiment_tests(&d, st, &exps[i], cfgs, ncfg))
			break;
	if (i == n) {
		if (cases)
			print_cases(d.tests);
		else
			json_print(stdout, doc);
		ret = 0;
	}
	json_object_put(doc);
out:
	store_read_end(st);
	free(d.kernels);
	store_experiments_free(exps, n);
	store_configs_free(cfgs, ncfg);
	return ret;
}
