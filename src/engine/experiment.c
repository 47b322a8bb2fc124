/*
 * experiment.c: an experiment's lifecycle (experiment.h).
 */
#include "engine/experiment.h"
#include "sys/env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* What wakebench adds to the fingerprint: it decides what was measured. */
static void env_add_provenance(struct experiment *ex, struct env *env)
{
	if (!env_get(env, "wakebench.version"))
		env_set(env, "wakebench.version", IMPACT_MEDIUM, "%s", WAKEBENCH_VERSION);
	if (!env_get(env, "workload.name"))
		env_set(env, "workload.name", IMPACT_STRONG, "%s", ex->wl->name);
	if (!env_get(env, "workload.profile"))
		env_set(env, "workload.profile", IMPACT_STRONG, "%s",
			ex->profile ? ex->profile : "none");
	if (!env_get(env, "wakebench.cmdline"))
		env_set(env, "wakebench.cmdline", IMPACT_RUN, "%s", ex->cmdline);
}

/*
 * Other work on the CPUs at the start (load average above the online CPUs,
 * and as many other tasks runnable):
 * said now, and stored as run.overloaded for compare, report and log to mark.
 */
static void flag_overload(struct experiment *ex)
{
	double load;
	unsigned cpus;
	const char *now = env_get(&ex->env_start, "run.runnable");

	if (!env_overloaded(&ex->env_start, &load, &cpus))
		return;
	warning("%s: the load average is %.2f on %u online CPUs%s%s: other work competes with "
		"the samples (stored as %s; compare, report and log mark this experiment)",
		ex->kind, load, cpus, now ? ", " : "", now ? now : "", ENV_OVERLOADED);
	/* last: adding a key may move the entries `now` points into */
	env_set(&ex->env_start, ENV_OVERLOADED, IMPACT_RUN, "load average %.2f on %u online CPUs",
		load, cpus);
}

static int collect_env(struct experiment *ex, struct env *env)
{
	struct env_opts eo = { .root = ex->root, .debugfs = ex->debugfs };

	memset(env, 0, sizeof(*env));
	if (env_collect(env, &eo))
		return error("%s: cannot collect the environment fingerprint", ex->kind);
	env_add_provenance(ex, env);
	return 0;
}

int experiment_begin(struct experiment *ex, const struct experiment_where *w, const char *kind,
		     const struct workload *wl, const char *profile, const char *base_profile,
		     const char *label, json_object *params)
{
	struct utsname u;

	memset(ex, 0, sizeof(*ex));
	ex->root = w->root;
	ex->debugfs = w->debugfs;
	ex->kind = kind;
	ex->wl = wl;
	ex->profile = profile;
	ex->base_profile = base_profile;
	ex->label = label;
	ex->exp_id = -1;
	json_object_object_add(params, "workload", json_object_new_string(wl->name));
	json_object_object_add(params, "profile", profile ? json_object_new_string(profile) : NULL);
	ex->params_json = xstrdup(json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN));
	ex->cmdline = xstrdup(w->cmdline ? w->cmdline : "");
	if (gethostname(ex->host, sizeof(ex->host)))
		snprintf(ex->host, sizeof(ex->host), "unknown");
	ex->host[sizeof(ex->host) - 1] = '\0';
	if (uname(&u))
		snprintf(ex->kernel, sizeof(ex->kernel), "unknown");
	else
		snprintf(ex->kernel, sizeof(ex->kernel), "%s", u.release);

	if (collect_env(ex, &ex->env_start))
		goto fail;
	/* a tree of files standing in for this machine's (tests) names its own kernel */
	if (ex->root && strcmp(ex->root, "/")) {
		const char *rel = env_get(&ex->env_start, "kernel.release");

		if (rel && strncmp(rel, "absent", 6))
			snprintf(ex->kernel, sizeof(ex->kernel), "%s", rel);
	}
	flag_overload(ex);
	if (!w->db)
		return 0;
	/* a damaged store is refused now, before anything is measured */
	if (store_open(w->db, STORE_CREATE | STORE_CHECK, &ex->store))
		goto fail;
	ex->info.kind = kind;
	ex->info.workload = wl->name;
	ex->info.profile = profile;
	ex->info.params_json = ex->params_json;
	ex->info.cmdline = ex->cmdline;
	ex->info.version = WAKEBENCH_VERSION;
	ex->info.label = label;
	ex->info.host = ex->host;
	ex->info.kernel = ex->kernel;
	ex->info.started_ns = realtime_ns();
	if (store_begin_experiment(ex->store, &ex->info, &ex->exp_id) ||
	    store_add_env(ex->store, ex->exp_id, "start", &ex->env_start))
		goto fail;
	return 0;
fail:
	/* an experiment already recorded is ended as failed by the release */
	experiment_release(ex);
	return -1;
}

int experiment_add_config(struct experiment *ex, const char *name, const char *features,
			  int64_t *config_id)
{
	*config_id = -1;
	if (!ex->store)
		return 0;
	if (store_add_config(ex->store, ex->exp_id, name, features, config_id)) {
		ex->store_failed = true;
		return -1;
	}
	return 0;
}

int experiment_add_sample(struct experiment *ex, int64_t config_id, struct sample *s)
{
	s->index = ex->next_index++;
	if (!ex->store || ex->store_failed)
		return ex->store_failed ? -1 : 0;
	if (store_add_sample(ex->store, ex->exp_id, config_id, s)) {
		ex->store_failed = true;
		return -1;
	}
	return 0;
}

int experiment_set_params(struct experiment *ex, json_object *params)
{
	free(ex->params_json);
	ex->params_json = xstrdup(json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN));
	ex->info.params_json = ex->params_json;
	if (!ex->store)
		return 0;
	return store_set_params(ex->store, ex->exp_id, ex->params_json);
}

int experiment_end(struct experiment *ex, const char *status)
{
	int ret = 0;

	if (!collect_env(ex, &ex->env_end))
		ex->have_env_end = true;
	else
		ret = -1;
	if (!ex->store)
		return ret;
	if (ex->have_env_end && store_add_env(ex->store, ex->exp_id, "end", &ex->env_end))
		ret = -1;
	if (store_end_experiment(ex->store, ex->exp_id, status))
		ret = -1;
	store_close(ex->store);
	ex->store = NULL;
	return ret;
}

void experiment_release(struct experiment *ex)
{
	if (ex->store) {
		/* begun but never ended (a setup error): say so rather than "interrupted" */
		if (ex->exp_id >= 0)
			store_end_experiment(ex->store, ex->exp_id, "failed");
		store_close(ex->store);
		ex->store = NULL;
	}
	env_release(&ex->env_start);
	if (ex->have_env_end)
		env_release(&ex->env_end);
	free(ex->params_json);
	free(ex->cmdline);
	ex->params_json = NULL;
	ex->cmdline = NULL;
}

/* ---- the samples of one config ---- */

static int measure_one(struct experiment_measure *m, bool warmup)
{
	const struct run_params *rp = m->spec->rp;
	struct sample *s = &m->s[m->n];
	uint64_t duration_ns =
		warmup ? runner_warmup_ns(m->spec, rp->warmup_ns, NULL, 0) : rp->duration_ns;

	if (!warmup && m->before)
		m->before(m->arg, m->measured + 1);
	sample_init(s);
	if (runner_sample(m->spec, duration_ns, s))
		return -1;
	s->warmup = warmup;
	if (m->measured_hook)
		m->measured_hook(m->arg, s, duration_ns);
	if (experiment_add_sample(m->ex, m->config_id, s)) {
		/* ex->store_failed stops the loop */
		if (m->lost)
			m->lost(m->arg, warmup);
		return 0;
	}
	m->n++;
	if (!warmup)
		m->measured++;
	if (m->stored)
		m->stored(m->arg, s);
	return 0;
}

int experiment_measure(struct experiment_measure *m)
{
	const struct run_params *rp = m->spec->rp;
	uint64_t i;

	m->n = 0;
	m->measured = 0;
	if (rp->warmup_ns && measure_one(m, true))
		return -1;
	for (i = 0; i < rp->samples; i++) {
		if (runner_stop_signal() || m->ex->store_failed)
			break;
		if (measure_one(m, false))
			return -1;
		if (m->n && m->s[m->n - 1].status == SAMPLE_INTERRUPTED)
			break;
	}
	return 0;
}
