/*
 * bisect.c: bisect's engine (bisect.h). The decisions are stats/bisect.c's
 * (boots as units, sequential looks); the measurements are this very
 * binary's `run`, or `vm ... -- run`, as child processes writing into the
 * same store, so that a boot is exactly what `vm` and `compare` call a
 * boot. Each step's experiments carry its verdict as bisect.* keys of
 * their environment (phase "end", impact run), which is what
 * bisect_document() reads back: no table of its own.
 */
#include "engine/bisect.h"
#include "runner/vm.h"
#include "stats/stats.h"
#include "sys/vmhost.h"
#include "util/text.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uuid/uuid.h>

/* ------------------------------------------------------------ child processes */

volatile sig_atomic_t bisect_stop_sig;
volatile pid_t bisect_child_pid;

static void on_stop_signal(int sig)
{
	if (!bisect_stop_sig)
		bisect_stop_sig = sig;
	if (bisect_child_pid > 0)
		kill(bisect_child_pid, sig);
}

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

void bisect_signals_install(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };
	size_t i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &sa, NULL);
}

static const char *self_exe(void)
{
	static char self[PATH_MAX];
	ssize_t n;

	if (self[0])
		return self;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return NULL;
	self[n] = '\0';
	return self;
}

/*
 * Run argv (argv[0] a name, path the program) and wait. The child's stdout
 * is captured into capture (its stderr dropped), or with hide_stdout goes
 * to /dev/null (the measurements' tables: stdout is bisect's verdicts; -v
 * shows them on stderr), else to our stderr. Returns the wait status, or -1.
 */
static int spawn_wait(const char *path, const char **argv, bool hide_stdout, char *capture,
		      size_t caplen)
{
	int status, pfd[2] = { -1, -1 };
	pid_t pid;

	if (capture && pipe(pfd))
		return error_errno("bisect: pipe");
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		if (capture) {
			close(pfd[0]);
			close(pfd[1]);
		}
		return error_errno("bisect: fork");
	}
	if (pid == 0) {
		size_t i;

		for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
			signal(stop_signals[i], SIG_DFL);
		if (capture) {
			dup2(pfd[1], STDOUT_FILENO);
			close(pfd[0]);
			close(pfd[1]);
			if (freopen("/dev/null", "w", stderr) == NULL)
				_exit(127);
		} else if (hide_stdout) {
			int fd = open("/dev/null", O_WRONLY);

			if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
				_exit(127);
		} else {
			dup2(STDERR_FILENO, STDOUT_FILENO);
		}
		{
			char *const *av;

			memcpy(&av, &argv, sizeof(av)); /* execvp's historical prototype */
			execvp(path, av);
		}
		_exit(127);
	}
	bisect_child_pid = pid;
	if (capture) {
		size_t used = 0;
		ssize_t n;

		close(pfd[1]);
		while ((n = read(pfd[0], capture + used, caplen - 1 - used)) != 0) {
			if (n < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			used += (size_t)n;
			if (used >= caplen - 1)
				break;
		}
		capture[used] = '\0';
		close(pfd[0]);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			bisect_child_pid = 0;
			return error_errno("bisect: waitpid");
		}
	bisect_child_pid = 0;
	return status;
}

/* ------------------------------------------------------------------ the data */

static void expset_add(struct expset *s, int64_t id)
{
	s->ids = xrealloc(s->ids, (s->n + 1) * sizeof(*s->ids));
	s->ids[s->n++] = id;
}

void expset_release(struct expset *s)
{
	free(s->ids);
	free(s->params);
	free(s->workload);
	memset(s, 0, sizeof(*s));
}

/* The values of one metric, tagged by boot. */
struct metric_values {
	const char *metric;
	double *x;
	size_t *boot;
	size_t n, cap;
	char **tags; /* distinct boot tags, index = boot */
	size_t ntags;
	size_t unavailable;
	char why[METRIC_WHY_MAX];
	bool nonpositive;
};

static size_t tag_index(struct metric_values *mv, const char *tag)
{
	size_t i;

	for (i = 0; i < mv->ntags; i++)
		if (!strcmp(mv->tags[i], tag))
			return i;
	mv->tags = xrealloc(mv->tags, (mv->ntags + 1) * sizeof(*mv->tags));
	mv->tags[mv->ntags] = xstrdup(tag);
	return mv->ntags++;
}

static bool metric_value(const struct sample *s, const char *name, double *v, const char **why)
{
	const struct metric *m;

	if (!strcmp(name, "ops_per_s")) {
		*v = s->ops_per_s;
		return true;
	}
	if (!strcmp(name, "ops_per_cpu_s")) {
		*v = s->ops_per_cpu_s;
		return true;
	}
	m = sample_get(s, name);
	if (!m) {
		*why = "not stored";
		return false;
	}
	if (!m->available) {
		*why = m->why;
		return false;
	}
	*v = m->value;
	return true;
}

static int collect_row(void *arg, const struct store_row *row)
{
	struct metric_values *mv = arg;
	const char *why = NULL;
	char *tag;
	double v;

	if (!metric_value(row->s, mv->metric, &v, &why)) {
		mv->unavailable++;
		if (!mv->why[0])
			snprintf(mv->why, sizeof(mv->why), "%s", why);
		return 0;
	}
	if (!(v > 0) || !isfinite(v)) {
		mv->nonpositive = true;
		return 0;
	}
	if (mv->n == mv->cap) {
		mv->cap = mv->cap ? 2 * mv->cap : 64;
		mv->x = xrealloc(mv->x, mv->cap * sizeof(*mv->x));
		mv->boot = xrealloc(mv->boot, mv->cap * sizeof(*mv->boot));
	}
	tag = row->exp->boot_id && *row->exp->boot_id ? xstrdup(row->exp->boot_id)
						      : xasprintf("exp:%s", row->exp->uuid);
	mv->x[mv->n] = v;
	mv->boot[mv->n] = tag_index(mv, tag);
	mv->n++;
	free(tag);
	return 0;
}

static void metric_values_release(struct metric_values *mv)
{
	size_t i;

	for (i = 0; i < mv->ntags; i++)
		free(mv->tags[i]);
	free(mv->tags);
	free(mv->x);
	free(mv->boot);
}

/*
 * The log median of each boot of the experiments in s. Returns the number
 * of boots (into *med, malloc'd), or after saying why -2 when the metric
 * is not there to be had (not stored, unavailable, not positive), -1 on
 * any other failure.
 */
static ssize_t boot_levels(struct store *st, const struct expset *s, const char *metric,
			   const char *what, double **med)
{
	struct metric_values mv = { .metric = metric };
	ssize_t k;
	size_t i;

	*med = NULL;
	for (i = 0; i < s->n; i++) {
		struct store_filter f = { .exp_id = s->ids[i] };

		if (store_foreach_sample(st, &f, STORE_ROWS_STATS, collect_row, &mv)) {
			metric_values_release(&mv);
			return -1;
		}
	}
	if (!mv.n) {
		k = -1;
		if (mv.unavailable) {
			error("bisect: %s: metric '%s' was not measured: %s (option '--metric')",
			      what, metric, mv.why);
			k = -2;
		} else if (mv.nonpositive) {
			error("bisect: %s: metric '%s' is not positive in any sample (levels are "
			      "compared as ratios; option '--metric')",
			      what, metric);
			k = -2;
		} else {
			error("bisect: %s: no completed sample", what);
		}
		metric_values_release(&mv);
		return k;
	}
	*med = xmalloc(mv.n * sizeof(**med));
	k = stats_boot_log_medians(mv.x, mv.boot, mv.n, *med, NULL);
	metric_values_release(&mv);
	return k;
}

/* Experiments of a label, or the one experiment a reference names. */
static int resolve_ref(struct store *st, const char *ref, struct expset *s)
{
	struct store_filter f = { .label = STRLIST_ONE(ref) };
	struct store_experiment *v;
	size_t n, i;
	int64_t id;

	if (store_list_experiments(st, &f, &v, &n))
		return -1;
	if (!n) {
		store_experiments_free(v, n);
		/* not a label: an experiment id or UUID prefix (that says what is wrong) */
		if (store_find_experiment(st, ref, &id))
			return -1;
		f.label.n = 0;
		f.exp_id = id;
		if (store_list_experiments(st, &f, &v, &n))
			return -1;
	}
	for (i = 0; i < n; i++) {
		/* an ab's samples are two arms: not one kernel's level */
		if (strcmp(v[i].kind, "run"))
			continue;
		if (!s->params) {
			s->params = xstrdup(v[i].params_json ? v[i].params_json : "{}");
			s->workload = xstrdup(v[i].workload);
		}
		expset_add(s, v[i].id);
	}
	store_experiments_free(v, n);
	return s->n ? 0
		    : error("bisect: '%s' has no 'run' experiment (an 'ab' is two arms, "
			    "not one kernel's level)",
			    ref);
}

/* The experiments with this label whose id is above min_id. */
static int new_experiments(struct store *st, const char *label, int64_t min_id, struct expset *s)
{
	struct store_filter f = { .label = STRLIST_ONE(label) };
	struct store_experiment *v;
	size_t n, i;

	if (store_list_experiments(st, &f, &v, &n))
		return -1;
	for (i = 0; i < n; i++)
		if (v[i].id > min_id) {
			if (!s->params) {
				s->params = xstrdup(v[i].params_json ? v[i].params_json : "{}");
				s->workload = xstrdup(v[i].workload);
			}
			expset_add(s, v[i].id);
		}
	store_experiments_free(v, n);
	return 0;
}

static int max_experiment_id(struct store *st, const char *label, int64_t *max)
{
	struct store_filter f = { .label = STRLIST_ONE(label) };
	struct store_experiment *v;
	size_t n, i;

	*max = 0;
	if (store_list_experiments(st, &f, &v, &n))
		return -1;
	for (i = 0; i < n; i++)
		if (v[i].id > *max)
			*max = v[i].id;
	store_experiments_free(v, n);
	return 0;
}

/*
 * Keys a kernel commit changes by itself: they are expected to differ
 * between the references and the candidate, whatever their impact.
 */
static bool kernel_own_key(const char *key)
{
	static const char *const own[] = { "kernel.release", "kernel.version", "kernel.build",
					   "sched.features", "sched.features_debug" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(own); i++)
		if (!strcmp(key, own[i]))
			return true;
	return false;
}

/*
 * A strong key on which both references agree and the candidate does not:
 * its environment is not the references' (another accelerator, CPU count,
 * governor, preemption model). Returns the number of such keys, listed
 * into why.
 */
static int env_mismatch(struct store *st, int64_t good, int64_t bad, int64_t cand, char *why,
			size_t len)
{
	struct env g = { 0 }, b = { 0 }, c = { 0 };
	size_t i, used = 0;
	int n = 0;

	why[0] = '\0';
	if (store_load_env(st, good, "start", &g) || store_load_env(st, bad, "start", &b) ||
	    store_load_env(st, cand, "start", &c)) {
		env_release(&g);
		env_release(&b);
		env_release(&c);
		return -1;
	}
	for (i = 0; i < g.n; i++) {
		const struct env_entry *e = &g.e[i];
		const char *bv, *cv;

		if (e->impact != IMPACT_STRONG || kernel_own_key(e->key))
			continue;
		bv = env_get(&b, e->key);
		if (!bv || strcmp(bv, e->value))
			continue;
		cv = env_get(&c, e->key);
		if (cv && !strcmp(cv, e->value))
			continue;
		n++;
		if (used < len)
			used += (size_t)snprintf(why + used, len - used,
						 "%s%s '%s' (references '%s')", n > 1 ? ", " : "",
						 e->key, cv ? cv : "absent", e->value);
	}
	/*
	 * A strong virtualisation key only the candidate has: booted in vm, the
	 * references not (other keys may be missing from older references).
	 */
	for (i = 0; i < c.n; i++) {
		const struct env_entry *e = &c.e[i];

		if (e->impact != IMPACT_STRONG || strncmp(e->key, "vm.", 3) ||
		    env_get(&g, e->key) || env_get(&b, e->key))
			continue;
		n++;
		if (used < len)
			used += (size_t)snprintf(why + used, len - used,
						 "%s%s '%s' (references: absent)",
						 n > 1 ? ", " : "", e->key, e->value);
	}
	env_release(&g);
	env_release(&b);
	env_release(&c);
	return n;
}

/* Do two params JSON objects agree? The first key that differs goes into why. */
bool bisect_params_equal(const char *a, const char *b, char *why, size_t len)
{
	json_object *ja = json_tokener_parse(a), *jb = json_tokener_parse(b);
	bool eq = true;

	why[0] = '\0';
	if (!ja || !jb) {
		eq = !strcmp(a, b);
		if (!eq)
			snprintf(why, len, "unreadable parameters");
	} else {
		json_object_object_foreach(ja, key, va)
		{
			json_object *vb = NULL;

			if (!json_object_object_get_ex(jb, key, &vb) ||
			    !json_object_equal(va, vb)) {
				snprintf(why, len, "%s: %s vs %s", key,
					 json_object_to_json_string(va),
					 vb ? json_object_to_json_string(vb) : "absent");
				eq = false;
				break;
			}
		}
		if (eq) {
			json_object_object_foreach(jb, key2, vb2)
			{
				(void)vb2;
				if (!json_object_object_get_ex(ja, key2, NULL)) {
					snprintf(why, len, "%s: absent vs %s", key2,
						 json_object_to_json_string(vb2));
					eq = false;
					break;
				}
			}
		}
	}
	json_object_put(ja);
	json_object_put(jb);
	return eq;
}

/*
 * The workload's command-line arguments that reproduce a stored params
 * object (experiment_params_json()'s keys: long option names with '_' for
 * '-', durations in ns with "_ns", sizes in bytes with "_bytes").
 */
struct strlist bisect_args_from_params(const char *params)
{
	struct strlist a = { 0 };
	json_object *j = json_tokener_parse(params), *w;

#define PUSH(s) (a.v = xrealloc(a.v, (a.n + 1) * sizeof(*a.v)), a.v[a.n++] = (s))
	if (!j)
		return a;
	if (json_object_object_get_ex(j, "workload", &w))
		PUSH(xstrdup(json_object_get_string(w)));
	json_object_object_foreach(j, key, val)
	{
		char name[96], *p;
		size_t kl = strlen(key);
		const char *unit = "";

		if (!strcmp(key, "workload"))
			continue;
		if (!strcmp(key, "profile")) {
			const char *pv = json_object_get_string(val);
			const char *base = strstr(pv, "based on ");

			PUSH(xstrdup("--profile"));
			if (base) {
				base += strlen("based on ");
				PUSH(xasprintf("%.*s", (int)strcspn(base, ")"), base));
			} else {
				PUSH(xstrdup(pv));
			}
			continue;
		}
		snprintf(name, sizeof(name), "--%s", key);
		if (kl > 3 && !strcmp(key + kl - 3, "_ns")) {
			name[2 + kl - 3] = '\0';
			unit = "ns";
		} else if (kl > 6 && !strcmp(key + kl - 6, "_bytes")) {
			name[2 + kl - 6] = '\0';
		}
		for (p = name + 2; *p; p++)
			if (*p == '_')
				*p = '-';
		switch (json_object_get_type(val)) {
		case json_type_boolean:
			if (json_object_get_boolean(val))
				PUSH(xstrdup(name));
			break;
		/* --name=VALUE: also right for options whose value is optional (--trace) */
		case json_type_int:
			PUSH(xasprintf("%s=%lld%s", name, (long long)json_object_get_int64(val),
				       unit));
			break;
		case json_type_double:
			PUSH(xasprintf("%s=%.17g%s", name, json_object_get_double(val), unit));
			break;
		case json_type_string:
			PUSH(xasprintf("%s=%s", name, json_object_get_string(val)));
			break;
		default:
			break;
		}
	}
#undef PUSH
	json_object_put(j);
	return a;
}

void bisect_strlist_free(struct strlist *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free((void *)(uintptr_t)a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* ------------------------------------------------------------ measuring */

/*
 * One boot of a candidate: `vm --kernel IMAGE ... -- run ARGS --label L`
 * (or `run ARGS --label L` here) into the store, then its level. *level is
 * NAN for a failed boot. new_ids receives the experiments it stored.
 */
/* The child's command line: `vm --kernel IMAGE ... -- run ARGS --label L`, or `run ARGS ...`. */
static const char **measure_argv(const struct bisect_run_ctx *rc, const char *image,
				 const char *label, char (*buf)[32])
{
	const char **argv = xcalloc(64 + rc->nwl, sizeof(*argv));
	size_t n = 0, i;

	argv[n++] = "wakebench";
	if (image) {
		snprintf(buf[0], sizeof(buf[0]), "%llu", (unsigned long long)rc->p->cpus);
		format_size(rc->p->memory_bytes, buf[1], sizeof(buf[1]));
		snprintf(buf[2], sizeof(buf[2]), "%llums",
			 (unsigned long long)(rc->p->timeout_ns / 1000000ull));
		argv[n++] = "vm";
		argv[n++] = "--kernel";
		argv[n++] = image;
		argv[n++] = "--db";
		argv[n++] = rc->db;
		argv[n++] = "--cpus";
		argv[n++] = buf[0];
		argv[n++] = "--memory";
		argv[n++] = buf[1];
		argv[n++] = "--timeout";
		argv[n++] = buf[2];
		argv[n++] = "--accel";
		argv[n++] = rc->p->accel;
		if (rc->p->append) {
			argv[n++] = "--append";
			argv[n++] = rc->p->append;
		}
		if (rc->p->qemu) {
			argv[n++] = "--qemu";
			argv[n++] = rc->p->qemu;
		}
		if (rc->p->quiet)
			argv[n++] = "-q";
		argv[n++] = "--";
		argv[n++] = "run";
	} else {
		argv[n++] = "run";
		argv[n++] = "--db";
		argv[n++] = rc->db;
	}
	for (i = 0; i < rc->nwl; i++)
		argv[n++] = rc->wl_args[i];
	argv[n++] = "--label";
	argv[n++] = label;
	argv[n] = NULL;
	return argv;
}

/* What the child's wait status says, MEASURE_OK when it measured. */
static enum measure_outcome measure_status(int status, bool image, char *why, size_t whylen)
{
	int code;

	if (status < 0)
		return MEASURE_ERROR;
	if (WIFSIGNALED(status) || bisect_stop_sig) {
		snprintf(why, whylen, "stopped");
		return MEASURE_STOPPED;
	}
	code = WEXITSTATUS(status);
	if (code >= 128) {
		snprintf(why, whylen, "stopped (exit %d)", code);
		return MEASURE_STOPPED;
	}
	switch (code) {
	case EXIT_OK:
		return MEASURE_OK;
	case EXIT_USAGE:
		snprintf(why, whylen, "the measurement refused its arguments (exit 2)");
		return MEASURE_USAGE;
	case EXIT_SKIP:
		snprintf(why, whylen, "the workload cannot run on this kernel (exit 77)");
		return MEASURE_CANNOT;
	case EXIT_RUNTIME:
		if (image) {
			snprintf(why, whylen, "the boot failed (vm exit 1)");
			return MEASURE_BOOT_FAILED;
		}
		/* fall through */
	default:
		snprintf(why, whylen, "the measurement failed (exit %d)", code);
		return MEASURE_ERROR;
	}
}

/* The experiments the child stored, checked against the references, and their level. */
static enum measure_outcome measure_level(struct bisect_run_ctx *rc, const char *label,
					  int64_t before, double *level, struct expset *new_ids,
					  char *why, size_t whylen)
{
	struct expset got = { 0 };
	enum measure_outcome o = MEASURE_ERROR;
	double *med = NULL;
	ssize_t k;
	size_t i;
	int nm;

	if (new_experiments(rc->st, label, before, &got))
		goto out;
	if (!got.n) {
		snprintf(why, whylen, "the measurement stored no experiment");
		goto out;
	}
	for (i = 0; i < got.n; i++)
		expset_add(new_ids, got.ids[i]);
	if (rc->ref_params && !bisect_params_equal(rc->ref_params, got.params, why, whylen)) {
		char tmp[384];

		snprintf(tmp, sizeof(tmp), "%s", why);
		snprintf(why, whylen, "other workload parameters than the references (%s)", tmp);
		o = MEASURE_PARAMS;
		goto out;
	}
	if (rc->good_exp && rc->bad_exp &&
	    (nm = env_mismatch(rc->st, rc->good_exp, rc->bad_exp, got.ids[0], why, whylen))) {
		o = nm > 0 ? MEASURE_ENV : MEASURE_ERROR;
		goto out;
	}
	k = boot_levels(rc->st, &got, rc->p->metric, label, &med);
	if (k <= 0)
		goto out;
	/* one boot: one level (the experiments of one round share it) */
	*level = stats_mean(med, (size_t)k);
	o = MEASURE_OK;
out:
	free(med);
	expset_release(&got);
	return o;
}

enum measure_outcome bisect_measure_once(struct bisect_run_ctx *rc, const char *image,
					 const char *label, double *level, struct expset *new_ids,
					 char *why, size_t whylen)
{
	char buf[3][32];
	const char **argv;
	enum measure_outcome o;
	int64_t before;
	int status;

	*level = NAN;
	why[0] = '\0';
	if (bisect_stop_sig) {
		snprintf(why, whylen, "stopped by %s", strsignal(bisect_stop_sig));
		return MEASURE_STOPPED;
	}
	if (max_experiment_id(rc->st, label, &before))
		return MEASURE_ERROR;
	argv = measure_argv(rc, image, label, buf);
	status = spawn_wait(self_exe(), argv, !rc->p->verbose, NULL, 0);
	free(argv);
	o = measure_status(status, image != NULL, why, whylen);
	if (o != MEASURE_OK)
		return o;
	return measure_level(rc, label, before, level, new_ids, why, whylen);
}

void bisect_store_step_keys(struct store *st, const struct expset *e, const struct step_record *r)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		int64_t x = e->ids[i];

#define KEY(k, ...)                                                                                \
	do {                                                                                       \
		char *v_ = xasprintf(__VA_ARGS__);                                                 \
		if (store_add_env_entry(st, x, "end", "bisect." k, v_, IMPACT_RUN))                \
			warning("bisect: cannot store bisect." k " for experiment %lld",           \
				(long long)x);                                                     \
		free(v_);                                                                          \
	} while (0)
		KEY("id", "%s", r->id);
		KEY("kind", "%s", r->kind);
		KEY("role", "%s", r->role);
		KEY("candidate", "%s", r->candidate);
		KEY("metric", "%s", r->metric);
		if (r->step)
			KEY("step", "%ld", r->step);
		if (r->index >= 0)
			KEY("index", "%ld", r->index);
		if (r->s) {
			const struct bisect_decision *d = &r->s->d;

			KEY("verdict", "%s", bisect_verdict_key(d->v));
			KEY("boots", "%zu", r->s->boots);
			KEY("boots_analysed", "%zu", r->s->nc);
			if (d->valid) {
				KEY("position", "%.6g", d->position);
				KEY("position_lo", "%.6g", d->pos_lo);
				KEY("position_hi", "%.6g", d->pos_hi);
				KEY("level", "%.6g", d->level);
				KEY("between_boot_sd", "%.6g", expm1(d->sd));
				KEY("vs_good", "%.6g", d->vs_good);
				KEY("vs_bad", "%.6g", d->vs_bad);
			} else if (d->why) {
				KEY("why", "%s", d->why);
			}
		}
		if (r->result)
			KEY("result", "%s", r->result);
#undef KEY
	}
}

/* "position 0.97 [0.61, 1.33] at 99.8%, 4 boots, between-boot sd 9.1%" */
void bisect_describe(const struct bisect_step *s, char *buf, size_t len)
{
	const struct bisect_decision *d = &s->d;

	if (!d->valid) {
		snprintf(buf, len, "%zu boot%s (%zu failed): %s", s->boots,
			 s->boots == 1 ? "" : "s", s->boots - s->nc,
			 d->why ? d->why : "not decided");
		return;
	}
	snprintf(
		buf, len,
		"position %.2f [%.2f, %.2f] (0 good, 1 bad) at %.2f%%, %+.1f%% vs good, %+.1f%% vs "
		"bad; %zu boot%s%s vs %zu good and %zu bad, between-boot sd %.1f%%",
		d->position, d->pos_lo, d->pos_hi, 100 * d->level, 100 * d->vs_good,
		100 * d->vs_bad, s->nc, s->nc == 1 ? "" : "s",
		s->boots > s->nc ? " (and failed ones)" : "", d->ng, d->nb, 100 * expm1(d->sd));
}

/*
 * One sequential step on a candidate: boots until decided or max_boots.
 * Returns the outcome that ended it (MEASURE_OK when the step ran to its
 * end); the experiments go into ids.
 */
enum measure_outcome bisect_run_step(struct bisect_run_ctx *rc, const struct bisect_refs *refs,
				     const char *image, const char *label, size_t max_boots,
				     struct bisect_step *s, struct expset *ids, char *why,
				     size_t whylen)
{
	bisect_step_init(s, refs, rc->p->alpha, max_boots);
	while (bisect_step_wants_boot(s)) {
		double level;
		enum measure_outcome o =
			bisect_measure_once(rc, image, label, &level, ids, why, whylen);

		if (o == MEASURE_BOOT_FAILED) {
			warning("bisect: '%s': boot %zu failed; counted against --max-boots %zu",
				label, s->boots + 1, s->max_boots);
			bisect_step_add_boot(s, NAN);
			continue;
		}
		if (o != MEASURE_OK)
			return o;
		bisect_step_add_boot(s, level);
		info("bisect: '%s': boot %zu: %s %.4g (median)%s", label, s->boots, rc->p->metric,
		     exp(level), s->done ? "" : "; not decided yet");
	}
	return MEASURE_OK;
}

/* git rev-parse HEAD in the current directory, or NULL when not in a tree. */
char *bisect_git_head(void)
{
	static const char *argv[] = { "git", "rev-parse", "HEAD", NULL };
	char out[128];
	int status = spawn_wait("git", argv, false, out, sizeof(out));

	if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return NULL;
	out[strcspn(out, "\r\n")] = '\0';
	if (strlen(out) < 7 || strspn(out, "0123456789abcdef") != strlen(out))
		return NULL;
	return xstrdup(out);
}

/*
 * The references' boot levels: 0, EXIT_USAGE for a reference or metric the
 * store does not have, EXIT_RUNTIME when it cannot be read.
 */
int bisect_load_refs(struct bisect_run_ctx *rc, const struct strlist *refs, const char *opt,
		     struct expset *s, double **med, size_t *k)
{
	size_t i;
	ssize_t n;

	for (i = 0; i < refs->n; i++)
		if (resolve_ref(rc->st, refs->v[i], s)) {
			error("bisect: option '--%s': no stored label or experiment '%s'", opt,
			      refs->v[i]);
			return EXIT_USAGE;
		}
	n = boot_levels(rc->st, s, rc->p->metric, opt, med);
	if (n == -2)
		return EXIT_USAGE; /* a metric the references do not have */
	if (n < 0)
		return EXIT_RUNTIME;
	*k = (size_t)n;
	return 0;
}

int bisect_check_image(const char *image, char *why, size_t len)
{
	struct stat sb;

	if (stat(image, &sb)) {
		snprintf(why, len, "'%s': %s", image, strerror(errno));
		return -1;
	}
	if (vmhost_check_kernel_for(vmhost_arch(), image, why, len))
		return -1;
	return 0;
}

int bisect_find_qemu(struct bisect_run_ctx *rc)
{
	const struct vmhost_arch *arch = vmhost_arch();
	const char *q = rc->p->qemu ? rc->p->qemu : arch ? arch->qemu : NULL;

	if (!q)
		return error("bisect: qemu guests are not supported on this architecture");
	if (find_program(q, rc->qemu, sizeof(rc->qemu)))
		return error("bisect: qemu not found: '%s'%s", q,
			     rc->p->qemu ? " is not an executable" : " is not in PATH");
	return 0;
}

/* ---------------------------------------------------------------- report */

struct report_row {
	int64_t exp_id;
	struct env env;
	bool done; /* shown as part of a step */
};

static const char *row_get(const struct report_row *r, const char *k)
{
	char key[64];

	snprintf(key, sizeof(key), "bisect.%s", k);
	return env_get(&r->env, key);
}

static double row_num(const struct report_row *r, const char *k)
{
	const char *v = row_get(r, k);

	return v ? strtod(v, NULL) : NAN;
}

static json_object *json_num_or_null(double x)
{
	return isfinite(x) ? json_object_new_double(x) : NULL;
}

static void add_str(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v ? v : ""));
}

/* One step of a bisection: the experiments of one (role, step, candidate). */
static json_object *step_object(const struct report_row *r, size_t nexp)
{
	json_object *s = json_object_new_object();
	const char *verdict = row_get(r, "verdict");

	add_str(s, "role", row_get(r, "role"));
	add_str(s, "candidate", row_get(r, "candidate"));
	if (row_get(r, "step"))
		json_object_object_add(s, "step",
				       json_object_new_int64((int64_t)row_num(r, "step")));
	if (row_get(r, "index"))
		json_object_object_add(s, "index",
				       json_object_new_int64((int64_t)row_num(r, "index") + 1));
	json_object_object_add(s, "experiments", json_object_new_int64((int64_t)nexp));
	if (verdict) {
		static const char *const nums[] = { "position", "position_lo", "position_hi",
						    "level",	"vs_good",     "vs_bad" };
		size_t k;

		add_str(s, "verdict", verdict);
		json_object_object_add(s, "boots",
				       json_object_new_int64((int64_t)row_num(r, "boots")));
		for (k = 0; k < ARRAY_SIZE(nums); k++)
			json_object_object_add(s, nums[k], json_num_or_null(row_num(r, nums[k])));
		if (row_get(r, "why"))
			add_str(s, "why", row_get(r, "why"));
	}
	return s;
}

/* Every experiment that carries bisect.* keys, with its end environment. */
static int load_rows(struct store *st, struct report_row **out, size_t *nout)
{
	struct store_experiment *v;
	struct report_row *rows = NULL;
	size_t n, i, nrows = 0;
	int ret = 0;

	if (store_list_experiments(st, NULL, &v, &n))
		return -1;
	for (i = 0; i < n && !ret; i++) {
		struct report_row r = { .exp_id = v[i].id };

		if (store_load_env(st, v[i].id, "end", &r.env)) {
			ret = -1;
		} else if (!env_get(&r.env, "bisect.id")) {
			env_release(&r.env);
		} else {
			rows = xrealloc(rows, (nrows + 1) * sizeof(*rows));
			rows[nrows++] = r;
		}
	}
	store_experiments_free(v, n);
	*out = rows;
	*nout = nrows;
	return ret;
}

/* The bisection's id: the one id_prefix names, else the latest; NULL with *ret set. */
static const char *pick_bisection(const struct report_row *rows, size_t nrows,
				  const char *id_prefix, const char *opt, const char *db, int *ret)
{
	const char *id = NULL;
	size_t i;

	for (i = nrows; i-- > 0;) {
		const char *rid = row_get(&rows[i], "id");

		if (id_prefix && strncmp(rid, id_prefix, strlen(id_prefix)))
			continue;
		if (id && strcmp(id, rid) && id_prefix) {
			error("%s: '%s' is ambiguous ('%s', '%s')", opt, id_prefix, id, rid);
			*ret = EXIT_USAGE;
			return NULL;
		}
		if (!id)
			id = rid;
		if (!id_prefix)
			break;
	}
	if (id)
		return id;
	if (id_prefix) {
		error("%s: no bisection '%s' in '%s'", opt, id_prefix, db);
		*ret = EXIT_USAGE;
	} else {
		error("%.*s: no bisection in '%s' (bisect step and bisect run store theirs)",
		      (int)(strstr(opt, ": option") ? strstr(opt, ": option") - opt
						    : (ptrdiff_t)strlen(opt)),
		      opt, db);
		*ret = EXIT_RUNTIME;
	}
	return NULL;
}

/*
 * Steps: the experiments of one (role, step, candidate), in the order of
 * their first experiment (the references' boots alternate).
 */
static void add_steps(struct report_row *rows, size_t nrows, const char *id, json_object *jo)
{
	json_object *jsteps = json_object_new_array();
	size_t i, j;

	for (i = 0; i < nrows; i++) {
		const struct report_row *r = &rows[i], *nx;
		size_t nexp = 1;

		if (rows[i].done || strcmp(row_get(r, "id"), id))
			continue;
		for (j = i + 1; j < nrows; j++) {
			nx = &rows[j];
			if (nx->done || strcmp(row_get(nx, "id"), id) ||
			    strcmp(row_get(nx, "role") ?: "", row_get(r, "role") ?: "") ||
			    strcmp(row_get(nx, "candidate") ?: "", row_get(r, "candidate") ?: "") ||
			    strcmp(row_get(nx, "step") ?: "", row_get(r, "step") ?: ""))
				continue;
			rows[j].done = true;
			nexp++;
		}
		if (!json_object_array_length(jsteps)) {
			add_str(jo, "kind", row_get(r, "kind"));
			add_str(jo, "metric", row_get(r, "metric"));
		}
		json_object_array_add(jsteps, step_object(r, nexp));
	}
	json_object_object_add(jo, "steps", jsteps);
}

int bisect_document(struct store *st, const char *id_prefix, const char *opt, const char *db,
		    json_object **out)
{
	struct report_row *rows = NULL;
	size_t i, nrows = 0;
	const char *id, *result = NULL, *kind;
	json_object *jo, *k;
	int ret = EXIT_RUNTIME;

	*out = NULL;
	if (load_rows(st, &rows, &nrows) ||
	    !(id = pick_bisection(rows, nrows, id_prefix, opt, db, &ret)))
		goto out;
	jo = json_object_new_object();
	add_str(jo, "id", id);
	for (i = 0; i < nrows; i++)
		if (!strcmp(row_get(&rows[i], "id"), id) && row_get(&rows[i], "result"))
			result = row_get(&rows[i], "result");
	add_steps(rows, nrows, id, jo);
	json_object_object_add(jo, "result", result ? json_object_new_string(result) : NULL);
	kind = json_object_object_get_ex(jo, "kind", &k) ? json_object_get_string(k) : NULL;
	if (!result)
		add_str(jo, "no_result",
			kind && !strcmp(kind, "run")
				? "none stored (interrupted, or still running)"
				: "none stored (a git bisection: see git bisect log)");
	*out = jo;
	ret = EXIT_OK;
out:
	for (i = 0; i < nrows; i++)
		env_release(&rows[i].env);
	free(rows);
	return ret;
}

/* ------------------------------------------------------------------- run */

static char *image_label(const struct strlist *k, size_t i)
{
	const char *base = strrchr(k->v[i], '/');
	size_t j;

	base = base ? base + 1 : k->v[i];
	for (j = 0; j < k->n; j++) {
		const char *b = strrchr(k->v[j], '/');

		b = b ? b + 1 : k->v[j];
		if (j != i && !strcmp(b, base))
			return xasprintf("%zu:%s", i + 1, base);
	}
	return xstrdup(base);
}

struct run_state {
	const struct bisect_settings *set;
	FILE *out; /* the steps and the result */
	struct bisect_run_ctx rc;
	char **labels;
	char id[37];
	long nstep;
};

/* A step on image i; prints its line; returns its verdict or -1 to stop. */
static int run_one_step(struct run_state *rs, const struct bisect_refs *refs, size_t i,
			const char *role, enum bisect_verdict *v)
{
	struct bisect_run_ctx *rc = &rs->rc;
	struct bisect_step s;
	struct expset ids = { 0 };
	char why[512], desc[512];
	enum measure_outcome o;
	struct step_record r = { .id = rs->id,
				 .kind = "run",
				 .role = role,
				 .candidate = rs->set->kernels->v[i],
				 .metric = rc->p->metric,
				 .step = ++rs->nstep,
				 .index = (long)i };

	o = bisect_run_step(rc, refs, rs->set->kernels->v[i], rs->labels[i],
			    (size_t)rs->set->max_boots, &s, &ids, why, sizeof(why));
	if (o == MEASURE_ENV || o == MEASURE_CANNOT) {
		text_line(rs->out, "step %ld (%s): image %zu/%zu %s: skip: %s", rs->nstep, role,
			  i + 1, rs->set->kernels->n, rs->labels[i], why);
		*v = BISECT_UNDECIDED;
		bisect_store_step_keys(rc->st, &ids, &r);
		expset_release(&ids);
		return 0;
	}
	if (o != MEASURE_OK) {
		error("bisect: run: image %zu '%s': %s", i + 1, rs->set->kernels->v[i], why);
		bisect_store_step_keys(rc->st, &ids, &r);
		expset_release(&ids);
		return -1;
	}
	r.s = &s;
	bisect_store_step_keys(rc->st, &ids, &r);
	expset_release(&ids);
	bisect_describe(&s, desc, sizeof(desc));
	*v = s.d.v;
	/* an image's name is a path as given: one line whatever it holds */
	text_line(
		rs->out, "step %ld (%s): image %zu/%zu %s: %s: %s", rs->nstep, role, i + 1,
		rs->set->kernels->n, rs->labels[i],
		s.nc ? (s.d.v == BISECT_UNDECIDED ? "skip (undecided)" : bisect_verdict_key(s.d.v))
		     : "skip (every boot failed)",
		desc);
	fflush(rs->out);
	return 0;
}

static int run_refs(struct run_state *rs, struct bisect_refs_seq *seq)
{
	struct bisect_run_ctx *rc = &rs->rc;
	size_t last = rs->set->kernels->n - 1, k;
	struct expset gids = { 0 }, bids = { 0 };
	char why[512];
	int ret = 0;

	bisect_refs_seq_init(seq, rc->p->alpha, (size_t)rs->set->max_ref_boots);
	while (bisect_refs_seq_wants_pair(seq) && !ret) {
		double lv[2];
		size_t which;

		for (which = 0; which < 2; which++) {
			size_t i = which ? last : 0;
			enum measure_outcome o = bisect_measure_once(
				rc, rs->set->kernels->v[i], rs->labels[i], &lv[which],
				which ? &bids : &gids, why, sizeof(why));

			if (o == MEASURE_BOOT_FAILED) {
				warning("bisect: run: reference '%s': a boot failed",
					rs->labels[i]);
			} else if (o == MEASURE_OK) {
				info("bisect: reference %s: boot %zu: %s %.4g (median)",
				     rs->labels[i], seq->pairs + 1, rc->p->metric, exp(lv[which]));
			} else {
				error("bisect: run: reference image %zu '%s': %s", i + 1,
				      rs->set->kernels->v[i], why);
				ret = -1;
				break;
			}
		}
		if (!ret)
			bisect_refs_seq_add_pair(seq, lv[0], lv[1]);
	}
	for (k = 0; k < 2; k++) {
		struct step_record r = { .id = rs->id,
					 .kind = "run",
					 .role = k ? "bad-reference" : "good-reference",
					 .candidate = rs->set->kernels->v[k ? last : 0],
					 .metric = rc->p->metric,
					 .index = (long)(k ? last : 0) };

		bisect_store_step_keys(rc->st, k ? &bids : &gids, &r);
	}
	if (gids.n)
		rc->good_exp = gids.ids[0];
	if (bids.n)
		rc->bad_exp = bids.ids[0];
	expset_release(&gids);
	expset_release(&bids);
	return ret;
}

/* The result line, stored on a marker: the experiments of the confirmation. */
static void store_result(struct run_state *rs, const char *result)
{
	struct bisect_run_ctx *rc = &rs->rc;
	struct store_filter f = { 0 };
	struct store_experiment *v;
	size_t n, i;
	char *key;

	/* on the bisection's last experiment */
	if (store_list_experiments(rc->st, &f, &v, &n))
		return;
	for (i = n; i-- > 0;) {
		struct env e = { 0 };
		const char *bid;

		if (store_load_env(rc->st, v[i].id, "end", &e))
			break;
		bid = env_get(&e, "bisect.id");
		if (bid && !strcmp(bid, rs->id)) {
			key = xstrdup(result);
			if (store_add_env_entry(rc->st, v[i].id, "end", "bisect.result", key,
						IMPACT_RUN))
				warning("bisect: cannot store the result");
			free(key);
			env_release(&e);
			break;
		}
		env_release(&e);
	}
	store_experiments_free(v, n);
}

/*
 * The search between the references, then the confirmation of the first
 * bad image and its predecessor. Fills result; returns EXIT_OK for a
 * confirmed result, EXIT_RUNTIME otherwise, -1 when stopped (nothing to add).
 */
static int run_search(struct run_state *rs, const struct bisect_refs *refs, char *result,
		      size_t len)
{
	const struct strlist *k = rs->set->kernels;
	struct bisect_search srch = { 0 };
	enum bisect_verdict v_bad = BISECT_UNDECIDED, v_good = BISECT_UNDECIDED;
	ssize_t next;
	size_t fb, n = k->n;
	int ret = -1;

	bisect_search_init(&srch, n);
	while ((next = bisect_search_next(&srch)) >= 0) {
		enum bisect_verdict v;

		if (run_one_step(rs, refs, (size_t)next, "step", &v))
			goto out;
		bisect_search_record(&srch, (size_t)next, v);
	}
	ret = EXIT_RUNTIME;
	if (!bisect_search_found(&srch)) {
		snprintf(result, len,
			 "no result: the first bad image is one of images %zu..%zu (%s .. %s): "
			 "every candidate between was undecided",
			 srch.last_good + 2, srch.first_bad + 1, rs->labels[srch.last_good + 1],
			 rs->labels[srch.first_bad]);
		goto out;
	}
	fb = srch.first_bad;
	text_line(rs->out, "first bad image: %zu/%zu %s; confirming it and its predecessor", fb + 1,
		  n, rs->labels[fb]);
	fflush(rs->out);
	if (run_one_step(rs, refs, fb, "confirm", &v_bad) ||
	    run_one_step(rs, refs, fb - 1, "confirm", &v_good)) {
		ret = -1;
		goto out;
	}
	if (v_bad == BISECT_BAD && v_good == BISECT_GOOD) {
		snprintf(result, len, "first bad image: %zu/%zu %s (%s), after %s; confirmed",
			 fb + 1, n, rs->labels[fb], k->v[fb], rs->labels[fb - 1]);
		ret = EXIT_OK;
	} else {
		snprintf(result, len,
			 "no result: image %zu/%zu %s was found first bad but the confirmation "
			 "said %s for it and %s for its predecessor %s",
			 fb + 1, n, rs->labels[fb], bisect_verdict_key(v_bad),
			 bisect_verdict_key(v_good), rs->labels[fb - 1]);
	}
out:
	bisect_search_release(&srch);
	return ret;
}

int bisect_run(const struct bisect_settings *set, const char *db, const char *const *wl_args,
	       size_t nwl, FILE *out)
{
	struct run_state rs = { .set = set, .out = out };
	struct bisect_run_ctx *rc = &rs.rc;
	struct bisect_refs_seq seq;
	struct bisect_refs refs;
	char result[1024];
	size_t i, n = set->kernels->n;
	uuid_t u;
	int ret = EXIT_RUNTIME;

	rc->p = set;
	rc->wl_args = wl_args;
	rc->nwl = nwl;
	if (bisect_find_qemu(rc))
		return EXIT_RUNTIME;
	rc->db = db;
	if (store_open(rc->db, STORE_CREATE | STORE_CHECK, &rc->st))
		return EXIT_RUNTIME;
	bisect_signals_install();
	uuid_generate_random(u);
	uuid_unparse_lower(u, rs.id);
	rs.labels = xcalloc(n, sizeof(*rs.labels));
	for (i = 0; i < n; i++)
		rs.labels[i] = image_label(set->kernels, i);
	fprintf(out, "bisection %s: %zu images, metric %s, alpha %g per step\n", rs.id, n,
		set->metric, set->alpha);
	fflush(out);

	if (run_refs(&rs, &seq))
		goto out;
	bisect_refs_seq_refs(&seq, &refs);
	if (seq.d.valid)
		text_line(out,
			  "references: %s (%zu boots) and %s (%zu boots): bad vs good %+.1f%% "
			  "[%+.1f%%, %+.1f%%] at %.2f%%, between-boot sd %.1f%%",
			  rs.labels[0], seq.ng, rs.labels[n - 1], seq.nb,
			  100 * expm1(seq.d.separation), 100 * expm1(seq.d.sep_lo),
			  100 * expm1(seq.d.sep_hi), 100 * seq.d.level, 100 * expm1(seq.d.sd));
	if (seq.d.v != BISECT_BAD)
		snprintf(result, sizeof(result),
			 "no result: the first and the last image are not apart on %s (%s)",
			 set->metric, seq.d.why ? seq.d.why : "undecided");
	else if ((ret = run_search(&rs, &refs, result, sizeof(result))) < 0) {
		ret = EXIT_RUNTIME;
		goto out;
	}
	text_line(out, "%s", result);
	store_result(&rs, result);
out:
	if (bisect_stop_sig) {
		error("bisect: run: interrupted by %s; the boots measured so far are stored",
		      strsignal(bisect_stop_sig));
		ret = 128 + bisect_stop_sig;
	}
	for (i = 0; i < n; i++)
		free(rs.labels[i]);
	free(rs.labels);
	store_close(rc->st);
	return ret;
}
