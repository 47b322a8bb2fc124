/*
 * cmd-bisect.c: `wakebench bisect`: find the kernel that changed a metric
 * (doc/bisect.md).
 *
 *   bisect step    one verdict for `git bisect run`: is the kernel under test
 *                  (this boot, or an image booted in `vm`) closer to the good
 *                  or to the bad reference? Exit 0 good, 1 bad, 125 skip,
 *                  >= 128 abort.
 *   bisect run     bisection over an ordered list of kernel images, each
 *                  booted in `vm`, then the confirmation of the result.
 *   bisect report  the steps of a stored bisection and its result.
 *
 * The decisions are stats/bisect.c's (boots as units, sequential looks);
 * the measurements are this very binary's `run`, or `vm ... -- run`, as
 * child processes writing into the same store, so that a boot is exactly
 * what `vm` and `compare` call a boot. Each step's experiments carry its
 * verdict as bisect.* keys of their environment (phase "end", impact run),
 * which is what `bisect report` reads back: no table of its own.
 *
 * `git bisect run` reads every status from 1 to 127 except 125 as "bad",
 * and wakebench's own statuses (1 runtime error, 2 usage, 77 cannot run)
 * would all be taken for a verdict. So `bisect step` runs in a child
 * process and its parent maps whatever that child ends with: its verdicts
 * to 0, 1 and 125, a usage error to 129, every other failure (die() deep
 * down, a crash) to 128, a stop signal N to 128 + N, as git itself does.
 */
#include "cli/bisect.h"
#include "cli/cli.h"
#include "render/render.h"
#include "runner/vm.h"
#include "stats/bisect.h"
#include "stats/stats.h"
#include "store/store.h"
#include "sys/vmhost.h"
#include "util/text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>
#include <uuid/uuid.h>

/* What `bisect step` exits with (git bisect run's contract). */
enum {
	BISECT_EXIT_GOOD = 0,
	BISECT_EXIT_BAD = 1,
	BISECT_EXIT_SKIP = 125,
	BISECT_EXIT_ERROR = 128, /* wakebench could not do its job: abort the bisection */
	BISECT_EXIT_USAGE = 129, /* bad input: abort too (git's usage status) */
};

/* How the step's child tells its parent the outcome (never seen outside). */
enum {
	WORKER_GOOD = 90,
	WORKER_BAD,
	WORKER_SKIP,
	WORKER_ERROR,
	WORKER_USAGE,
};

static const char *const accel_names[] = { "auto", "kvm", "tcg", NULL };

struct bisect_params {
	struct strlist good, bad, kernels;
	const char *metric;
	const char *label;
	const char *vm;
	double alpha;
	uint64_t max_boots, max_ref_boots;
	uint64_t cpus;
	uint64_t memory_bytes;
	int accel;
	uint64_t timeout_ns;
	const char *append;
	const char *qemu;
	const char *id;
};

static const struct bisect_params bisect_defaults = {
	.metric = "ops_per_s",
	.alpha = BISECT_ALPHA_DEFAULT,
	.max_boots = BISECT_MAX_BOOTS_DEFAULT,
	.max_ref_boots = BISECT_MAX_REF_BOOTS_DEFAULT,
	.cpus = 2,
	.memory_bytes = 1ull << 30,
	.timeout_ns = 600ull * 1000000000ull,
};

/*
 * One option table per subcommand, as git's parse-options subcommands have:
 * an option of another subcommand is refused by name (bad_for_sub()), never
 * accepted and ignored. step and run share the decision's and the guests'.
 */
static const struct opt bisect_step_opts[] = {
	{ .type = OPT_STRLIST,
	  .long_name = "good",
	  .offset = offsetof(struct bisect_params, good),
	  .argh = "REF",
	  .help = "the good reference: a stored label, an experiment id or UUID prefix "
		  "(repeatable)" },
	{ .type = OPT_STRLIST,
	  .long_name = "bad",
	  .offset = offsetof(struct bisect_params, bad),
	  .argh = "REF",
	  .help = "the bad reference, as --good" },
	{ .type = OPT_STRING,
	  .long_name = "vm",
	  .offset = offsetof(struct bisect_params, vm),
	  .argh = "IMAGE",
	  .help = "boot this kernel image in vm to measure it (default: measure this boot)" },
	{ .type = OPT_STRING,
	  .long_name = "label",
	  .offset = offsetof(struct bisect_params, label),
	  .argh = "TEXT",
	  .help = "label of the candidate's experiments (default: git rev-parse HEAD)" },
	OPT_END_ROW,
};

static const struct opt bisect_run_opts[] = {
	{ .type = OPT_STRLIST,
	  .long_name = "kernel",
	  .short_name = 'k',
	  .offset = offsetof(struct bisect_params, kernels),
	  .argh = "IMAGE",
	  .help = "the kernel images in order, first good, last bad (repeat)" },
	{ .type = OPT_UINT,
	  .long_name = "max-ref-boots",
	  .offset = offsetof(struct bisect_params, max_ref_boots),
	  .argh = "N",
	  .help = "boots of each reference (the first and the last image)",
	  .min = 2,
	  .max = BISECT_MAX_BOOTS },
	OPT_END_ROW,
};

static const struct opt bisect_decide_opts[] = {
	{ .type = OPT_STRING,
	  .long_name = "metric",
	  .short_name = 'm',
	  .offset = offsetof(struct bisect_params, metric),
	  .argh = "NAME",
	  .help = "the metric decided on: ops_per_s, ops_per_cpu_s or a stored metric such as "
		  "ctxsw_per_op" },
	{ .type = OPT_DOUBLE,
	  .long_name = "alpha",
	  .offset = offsetof(struct bisect_params, alpha),
	  .argh = "P",
	  .help = "chance that a step calls a candidate on the wrong side of the midpoint",
	  .min = 0.0001,
	  .max = 0.5 },
	{ .type = OPT_UINT,
	  .long_name = "max-boots",
	  .offset = offsetof(struct bisect_params, max_boots),
	  .argh = "N",
	  .help = "boots of a candidate in one step (vm); a step without --vm measures once",
	  .min = 1,
	  .max = BISECT_MAX_BOOTS },
	OPT_END_ROW,
};

static const struct opt bisect_vm_opts[] = {
	{ .type = OPT_UINT,
	  .long_name = "cpus",
	  .offset = offsetof(struct bisect_params, cpus),
	  .argh = "N",
	  .help = "guest CPUs",
	  .min = 1,
	  .max = 1024 },
	{ .type = OPT_SIZE,
	  .long_name = "memory",
	  .offset = offsetof(struct bisect_params, memory_bytes),
	  .argh = "SIZE",
	  .help = "guest memory",
	  .min = 256.0 * 1024 * 1024,
	  .max = 1024.0 * 1024 * 1024 * 1024 },
	{ .type = OPT_CHOICE,
	  .long_name = "accel",
	  .offset = offsetof(struct bisect_params, accel),
	  .argh = "ACCEL",
	  .help = "KVM when usable, else TCG",
	  .choices = accel_names },
	{ .type = OPT_DURATION,
	  .long_name = "timeout",
	  .offset = offsetof(struct bisect_params, timeout_ns),
	  .argh = "DURATION",
	  .help = "deadline of one boot",
	  .min = 1e9,
	  .max = 86400e9 },
	{ .type = OPT_STRING,
	  .long_name = "append",
	  .offset = offsetof(struct bisect_params, append),
	  .argh = "ARGS",
	  .help = "extra kernel command-line arguments" },
	{ .type = OPT_STRING,
	  .long_name = "qemu",
	  .offset = offsetof(struct bisect_params, qemu),
	  .argh = "PATH",
	  .help = "the qemu binary" },
	OPT_END_ROW,
};

static const struct opt bisect_report_opts[] = {
	{ .type = OPT_STRING,
	  .long_name = "id",
	  .offset = offsetof(struct bisect_params, id),
	  .argh = "ID",
	  .help = "the bisection (a prefix of its id; default the latest)" },
	OPT_END_ROW,
};

static const char bisect_usage[] =
	"step --good REF --bad REF [--vm IMAGE] [options] [-- WORKLOAD [ARGS...]]\n"
	"   or: wakebench bisect run --kernel IMAGE --kernel IMAGE... [options] -- WORKLOAD "
	"[ARGS...]\n"
	"   or: wakebench bisect report [--id ID] [--format text|json]";

static const char bisect_description[] =
	"Find the kernel that changed a metric. 'step' is for git bisect run: it measures\n"
	"the kernel under test (this boot, or --vm IMAGE booted with qemu) with the\n"
	"references' workload and decides, boots as units, whether it is closer to the\n"
	"good or to the bad reference. Exit 0 good, 1 bad, 125 skip (undecided, build or\n"
	"boot failed, environment differs from the references in a strong key), 128 an\n"
	"error of wakebench, 129 bad input, 128+N stopped by signal N. 'run' bisects an\n"
	"ordered list of kernel images (first good, last bad) in vm and confirms the\n"
	"result; 'report' shows a stored bisection. doc/bisect.md has the details.";

/* ------------------------------------------------------------ child processes */

static volatile sig_atomic_t stop_sig;
static volatile pid_t child_pid;

static void on_stop_signal(int sig)
{
	if (!stop_sig)
		stop_sig = sig;
	if (child_pid > 0)
		kill(child_pid, sig);
}

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void signals_install(void)
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
	child_pid = pid;
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
			child_pid = 0;
			return error_errno("bisect: waitpid");
		}
	child_pid = 0;
	return status;
}

/* ------------------------------------------------------------------ the data */

/* A set of experiments: a reference or one candidate's boots. */
struct expset {
	int64_t *ids;
	size_t n;
	char *params; /* the first experiment's params JSON */
	char *workload;
};

static void expset_add(struct expset *s, int64_t id)
{
	s->ids = xrealloc(s->ids, (s->n + 1) * sizeof(*s->ids));
	s->ids[s->n++] = id;
}

static void expset_release(struct expset *s)
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
	struct store_filter f = { .label = ref };
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
		f.label = NULL;
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
	struct store_filter f = { .label = label };
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
	struct store_filter f = { .label = label };
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
static bool params_equal(const char *a, const char *b, char *why, size_t len)
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
static struct strlist args_from_params(const char *params)
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

static void strlist_free_all(struct strlist *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free((void *)(uintptr_t)a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* ------------------------------------------------------------ measuring */

struct bisect_run_ctx {
	struct bisect_params *p;
	struct ctx *ctx;
	struct store *st;
	const char *db;
	const char *const *wl_args; /* the workload and its options */
	size_t nwl;
	char qemu[PATH_MAX];
	/* filled from the references */
	const char *ref_params;
	int64_t good_exp, bad_exp; /* for the environment check (0: none) */
	bool env_checked;
};

enum measure_outcome {
	MEASURE_OK = 0,
	MEASURE_BOOT_FAILED, /* the round failed: a panic, an oops, a hang (vm exit 1) */
	MEASURE_USAGE,	     /* the child refused its arguments */
	MEASURE_CANNOT,	     /* 77: the workload cannot run on that kernel */
	MEASURE_ERROR,
	MEASURE_STOPPED, /* a stop signal */
	MEASURE_ENV,	 /* the environment differs from the references */
	MEASURE_PARAMS,	 /* other workload parameters than the references */
};

/*
 * One boot of a candidate: `vm --kernel IMAGE ... -- run ARGS --label L`
 * (or `run ARGS --label L` here) into the store, then its level. *level is
 * NAN for a failed boot. new_ids receives the experiments it stored.
 */
static enum measure_outcome measure_once(struct bisect_run_ctx *rc, const char *image,
					 const char *label, double *level, struct expset *new_ids,
					 char *why, size_t whylen)
{
	const char **argv = xcalloc(64 + rc->nwl, sizeof(*argv));
	char cpus[24], mem[32], timeout[32];
	int64_t before;
	size_t n = 0, i;
	int status, code;
	struct expset got = { 0 };
	double *med = NULL;
	ssize_t k;
	enum measure_outcome o = MEASURE_ERROR;

	*level = NAN;
	why[0] = '\0';
	if (stop_sig) {
		snprintf(why, whylen, "stopped by %s", strsignal(stop_sig));
		free(argv);
		return MEASURE_STOPPED;
	}
	if (max_experiment_id(rc->st, label, &before)) {
		free(argv);
		return MEASURE_ERROR;
	}
	argv[n++] = "wakebench";
	if (image) {
		snprintf(cpus, sizeof(cpus), "%llu", (unsigned long long)rc->p->cpus);
		format_size(rc->p->memory_bytes, mem, sizeof(mem));
		snprintf(timeout, sizeof(timeout), "%llums",
			 (unsigned long long)(rc->p->timeout_ns / 1000000ull));
		argv[n++] = "vm";
		argv[n++] = "--kernel";
		argv[n++] = image;
		argv[n++] = "--db";
		argv[n++] = rc->db;
		argv[n++] = "--cpus";
		argv[n++] = cpus;
		argv[n++] = "--memory";
		argv[n++] = mem;
		argv[n++] = "--timeout";
		argv[n++] = timeout;
		argv[n++] = "--accel";
		argv[n++] = accel_names[rc->p->accel];
		if (rc->p->append) {
			argv[n++] = "--append";
			argv[n++] = rc->p->append;
		}
		if (rc->p->qemu) {
			argv[n++] = "--qemu";
			argv[n++] = rc->p->qemu;
		}
		if (rc->ctx->quiet)
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
	status = spawn_wait(self_exe(), argv, !rc->ctx->verbose, NULL, 0);
	free(argv);
	if (status < 0)
		return MEASURE_ERROR;
	if (WIFSIGNALED(status) || stop_sig) {
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
		break;
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
	if (new_experiments(rc->st, label, before, &got))
		goto out;
	if (!got.n) {
		snprintf(why, whylen, "the measurement stored no experiment");
		goto out;
	}
	for (i = 0; i < got.n; i++)
		expset_add(new_ids, got.ids[i]);
	if (rc->ref_params && !params_equal(rc->ref_params, got.params, why, whylen)) {
		char tmp[384];

		snprintf(tmp, sizeof(tmp), "%s", why);
		snprintf(why, whylen, "other workload parameters than the references (%s)", tmp);
		o = MEASURE_PARAMS;
		goto out;
	}
	if (rc->good_exp && rc->bad_exp) {
		int nm = env_mismatch(rc->st, rc->good_exp, rc->bad_exp, got.ids[0], why, whylen);

		if (nm < 0)
			goto out;
		if (nm > 0) {
			o = MEASURE_ENV;
			goto out;
		}
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

/* The bisect.* keys of a step, on each of its experiments. */
struct step_record {
	const char *id, *kind, *role, *candidate, *metric;
	long step;  /* 0: none */
	long index; /* -1: none */
	const struct bisect_step *s;
	const char *result; /* NULL: none */
};

static void store_step_keys(struct store *st, const struct expset *e, const struct step_record *r)
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
static void describe(const struct bisect_step *s, char *buf, size_t len)
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
static enum measure_outcome run_step(struct bisect_run_ctx *rc, const struct bisect_refs *refs,
				     const char *image, const char *label, size_t max_boots,
				     struct bisect_step *s, struct expset *ids, char *why,
				     size_t whylen)
{
	bisect_step_init(s, refs, rc->p->alpha, max_boots);
	while (bisect_step_wants_boot(s)) {
		double level;
		enum measure_outcome o = measure_once(rc, image, label, &level, ids, why, whylen);

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
static char *git_head(void)
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

/* The references' boot levels and the check that they are apart. */
static int load_refs(struct bisect_run_ctx *rc, const struct strlist *refs, const char *opt,
		     struct expset *s, double **med, size_t *k)
{
	size_t i;
	ssize_t n;

	for (i = 0; i < refs->n; i++)
		if (resolve_ref(rc->st, refs->v[i], s)) {
			error("bisect: option '--%s': no stored label or experiment '%s'", opt,
			      refs->v[i]);
			return WORKER_USAGE;
		}
	n = boot_levels(rc->st, s, rc->p->metric, opt, med);
	if (n == -2)
		return WORKER_USAGE; /* a metric the references do not have */
	if (n < 0)
		return WORKER_ERROR;
	*k = (size_t)n;
	return 0;
}

static int check_image(const char *image, char *why, size_t len)
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

static int find_qemu(struct bisect_run_ctx *rc)
{
	const struct vmhost_arch *arch = vmhost_arch();
	const char *q = rc->p->qemu ? rc->p->qemu : arch ? arch->qemu : NULL;

	if (!q)
		return error("bisect: qemu guests are not supported on this architecture");
	if (vm_find_program(q, rc->qemu, sizeof(rc->qemu)))
		return error("bisect: qemu not found: '%s'%s", q,
			     rc->p->qemu ? " is not an executable" : " is not in PATH");
	return 0;
}

/* ------------------------------------------------------------------ step */

static int step_worker(struct bisect_params *p, struct opts_result *res, struct ctx *ctx)
{
	struct bisect_run_ctx rc = { .p = p, .ctx = ctx };
	struct expset good = { 0 }, bad = { 0 }, ids = { 0 };
	struct strlist derived = { 0 };
	struct bisect_refs refs;
	struct bisect_decision rd;
	struct bisect_step s;
	double *gm = NULL, *bm = NULL;
	size_t ng = 0, nb = 0, max_boots;
	char why[512], desc[512], *label = NULL, *head = NULL, *id = NULL;
	enum measure_outcome o;
	int ret = WORKER_ERROR;

	if (!p->good.n || !p->bad.n) {
		error("bisect: step: options '--good' and '--bad' are required: the stored "
		      "references, e.g. --good v6.6 --bad v6.12");
		return WORKER_USAGE;
	}
	if (p->kernels.n) {
		error("bisect: step: option '--kernel' is for 'bisect run'; a step boots one "
		      "image: --vm IMAGE");
		return WORKER_USAGE;
	}
	if (res->dashdash < 0 && res->npos > 1) {
		error("bisect: step: unexpected argument '%s': put the workload after '--'",
		      res->pos[1]);
		return WORKER_USAGE;
	}
	if (res->dashdash > 1) {
		error("bisect: step: unexpected argument '%s' before '--'", res->pos[1]);
		return WORKER_USAGE;
	}
	max_boots = p->vm ? (size_t)p->max_boots : 1;
	if (!p->vm && p->max_boots != bisect_defaults.max_boots) {
		error("bisect: step: option '--max-boots' needs --vm: without it a step measures "
		      "this boot once");
		return WORKER_USAGE;
	}
	if (p->label)
		label = xstrdup(p->label);
	else if (!(head = git_head())) {
		error("bisect: step: not in a git tree (git rev-parse HEAD failed): give --label "
		      "TEXT to name the candidate");
		return WORKER_USAGE;
	} else {
		label = xstrdup(head);
	}
	if (p->vm && check_image(p->vm, why, sizeof(why))) {
		/* a tree that did not build: git bisect's skip */
		error("bisect: step: option '--vm': %s: skipping this candidate", why);
		ret = WORKER_SKIP;
		goto out;
	}
	rc.db = cli_db_path(ctx);
	if (store_open(rc.db, STORE_CHECK, &rc.st))
		goto out;
	ret = load_refs(&rc, &p->good, "good", &good, &gm, &ng);
	if (!ret)
		ret = load_refs(&rc, &p->bad, "bad", &bad, &bm, &nb);
	if (ret)
		goto out;
	ret = WORKER_ERROR;
	if (strcmp(good.workload, bad.workload) ||
	    !params_equal(good.params, bad.params, why, sizeof(why))) {
		error("bisect: step: the references ran different workloads or parameters (%s)",
		      strcmp(good.workload, bad.workload) ? "workload" : why);
		goto out;
	}
	refs = (struct bisect_refs){ .good = gm, .ng = ng, .bad = bm, .nb = nb };
	bisect_refs_check(&refs, p->alpha, &rd);
	if (rd.v != BISECT_BAD) {
		if (rd.valid)
			error("bisect: step: the references are not apart on %s: bad vs good "
			      "%+.1f%% [%+.1f%%, %+.1f%%] at %.0f%% (%zu and %zu boots): measure "
			      "more boots of each (vm --rounds N)",
			      p->metric, 100 * expm1(rd.separation), 100 * expm1(rd.sep_lo),
			      100 * expm1(rd.sep_hi), 100 * rd.level, ng, nb);
		else
			error("bisect: step: the references cannot be compared on %s: %s (%zu and "
			      "%zu boots)",
			      p->metric, rd.why, ng, nb);
		goto out;
	}
	if (res->dashdash >= 0 && (size_t)res->dashdash < res->npos) {
		rc.wl_args = res->pos + res->dashdash;
		rc.nwl = res->npos - (size_t)res->dashdash;
	} else {
		derived = args_from_params(good.params);
		rc.wl_args = derived.v;
		rc.nwl = derived.n;
	}
	rc.ref_params = good.params;
	rc.good_exp = good.ids[0];
	rc.bad_exp = bad.ids[0];
	if (p->vm && find_qemu(&rc))
		goto out;
	id = xasprintf("step:%s..%s:%s", p->good.v[0], p->bad.v[0], p->metric);

	o = run_step(&rc, &refs, p->vm, label, max_boots, &s, &ids, why, sizeof(why));
	switch (o) {
	case MEASURE_OK:
		break;
	case MEASURE_ENV:
		error("bisect: step: '%s': the environment differs from the references' in a "
		      "strong key: %s: skipping this candidate",
		      label, why);
		ret = WORKER_SKIP;
		goto record;
	case MEASURE_CANNOT:
		error("bisect: step: '%s': %s: skipping this candidate", label, why);
		ret = WORKER_SKIP;
		goto record;
	case MEASURE_PARAMS:
	case MEASURE_USAGE:
		error("bisect: step: '%s': %s", label, why);
		ret = WORKER_USAGE;
		goto record;
	case MEASURE_STOPPED:
		error("bisect: step: '%s': %s", label, why);
		ret = 128 + (stop_sig ? stop_sig : SIGINT);
		goto record;
	default:
		error("bisect: step: '%s': %s", label, why[0] ? why : "the measurement failed");
		ret = WORKER_ERROR;
		goto record;
	}
	describe(&s, desc, sizeof(desc));
	if (!s.nc) {
		printf("%s: skip: every boot failed (%zu)\n", label, s.boots);
		ret = WORKER_SKIP;
	} else {
		printf("%s: %s on %s: %s\n", label,
		       s.d.v == BISECT_GOOD  ? "good"
		       : s.d.v == BISECT_BAD ? "bad"
					     : "skip (undecided)",
		       p->metric, desc);
		ret = s.d.v == BISECT_GOOD  ? WORKER_GOOD
		      : s.d.v == BISECT_BAD ? WORKER_BAD
					    : WORKER_SKIP;
	}
record : {
	struct step_record r = { .id = id,
				 .kind = "step",
				 .role = "candidate",
				 .candidate = label,
				 .metric = p->metric,
				 .index = -1,
				 .s = o == MEASURE_OK ? &s : NULL };

	store_step_keys(rc.st, &ids, &r);
}
out:
	free(gm);
	free(bm);
	expset_release(&good);
	expset_release(&bad);
	expset_release(&ids);
	strlist_free_all(&derived);
	free(label);
	free(head);
	free(id);
	if (rc.st)
		store_close(rc.st);
	return ret;
}

/* The parent of `bisect step`: every ending of the worker mapped for git bisect run. */
static int step_guard(int argc, const char **argv, struct ctx *ctx,
		      int (*worker)(int, const char **, struct ctx *))
{
	int status, code;
	pid_t pid;

	fflush(NULL);
	signals_install();
	pid = fork();
	if (pid < 0) {
		error_errno("bisect: fork");
		return BISECT_EXIT_ERROR;
	}
	if (pid == 0) {
		fflush(NULL);
		exit(worker(argc, argv, ctx));
	}
	child_pid = pid;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			error_errno("bisect: waitpid");
			return BISECT_EXIT_ERROR;
		}
	child_pid = 0;
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		if (sig != SIGINT && sig != SIGTERM && sig != SIGHUP && sig != SIGQUIT &&
		    sig != SIGPIPE)
			error("bisect: step: wakebench died of %s: aborting the bisection",
			      strsignal(sig));
		return 128 + sig;
	}
	code = WEXITSTATUS(status);
	switch (code) {
	case EXIT_OK: /* -h */
		return EXIT_OK;
	case WORKER_GOOD:
		return BISECT_EXIT_GOOD;
	case WORKER_BAD:
		return BISECT_EXIT_BAD;
	case WORKER_SKIP:
		return BISECT_EXIT_SKIP;
	case EXIT_USAGE:
	case WORKER_USAGE:
		return BISECT_EXIT_USAGE;
	default:
		if (code > 128 && code < 128 + 65)
			return code; /* stopped by a signal */
		return BISECT_EXIT_ERROR;
	}
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
				 .candidate = rc->p->kernels.v[i],
				 .metric = rc->p->metric,
				 .step = ++rs->nstep,
				 .index = (long)i };

	o = run_step(rc, refs, rc->p->kernels.v[i], rs->labels[i], (size_t)rc->p->max_boots, &s,
		     &ids, why, sizeof(why));
	if (o == MEASURE_ENV || o == MEASURE_CANNOT) {
		printf("step %ld (%s): image %zu/%zu %s: skip: %s\n", rs->nstep, role, i + 1,
		       rc->p->kernels.n, rs->labels[i], why);
		*v = BISECT_UNDECIDED;
		store_step_keys(rc->st, &ids, &r);
		expset_release(&ids);
		return 0;
	}
	if (o != MEASURE_OK) {
		error("bisect: run: image %zu '%s': %s", i + 1, rc->p->kernels.v[i], why);
		store_step_keys(rc->st, &ids, &r);
		expset_release(&ids);
		return -1;
	}
	r.s = &s;
	store_step_keys(rc->st, &ids, &r);
	expset_release(&ids);
	describe(&s, desc, sizeof(desc));
	*v = s.d.v;
	printf("step %ld (%s): image %zu/%zu %s: %s: %s\n", rs->nstep, role, i + 1,
	       rc->p->kernels.n, rs->labels[i],
	       s.nc ? (s.d.v == BISECT_UNDECIDED ? "skip (undecided)" : bisect_verdict_key(s.d.v))
		    : "skip (every boot failed)",
	       desc);
	fflush(stdout);
	return 0;
}

static int run_refs(struct run_state *rs, struct bisect_refs_seq *seq)
{
	struct bisect_run_ctx *rc = &rs->rc;
	size_t last = rc->p->kernels.n - 1, k;
	struct expset gids = { 0 }, bids = { 0 };
	char why[512];
	int ret = 0;

	bisect_refs_seq_init(seq, rc->p->alpha, (size_t)rc->p->max_ref_boots);
	while (bisect_refs_seq_wants_pair(seq) && !ret) {
		double lv[2];
		size_t which;

		for (which = 0; which < 2; which++) {
			size_t i = which ? last : 0;
			enum measure_outcome o =
				measure_once(rc, rc->p->kernels.v[i], rs->labels[i], &lv[which],
					     which ? &bids : &gids, why, sizeof(why));

			if (o == MEASURE_BOOT_FAILED) {
				warning("bisect: run: reference '%s': a boot failed",
					rs->labels[i]);
			} else if (o == MEASURE_OK) {
				info("bisect: reference %s: boot %zu: %s %.4g (median)",
				     rs->labels[i], seq->pairs + 1, rc->p->metric, exp(lv[which]));
			} else {
				error("bisect: run: reference image %zu '%s': %s", i + 1,
				      rc->p->kernels.v[i], why);
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
					 .candidate = rc->p->kernels.v[k ? last : 0],
					 .metric = rc->p->metric,
					 .index = (long)(k ? last : 0) };

		store_step_keys(rc->st, k ? &bids : &gids, &r);
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

static int run_main(struct bisect_params *p, struct opts_result *res, struct ctx *ctx)
{
	struct run_state rs = { .rc = { .p = p, .ctx = ctx } };
	struct bisect_run_ctx *rc = &rs.rc;
	struct bisect_refs_seq seq;
	struct bisect_refs refs;
	struct bisect_search srch = { 0 };
	char why[512], result[1024];
	enum bisect_verdict v_bad = BISECT_UNDECIDED, v_good = BISECT_UNDECIDED;
	size_t i, n = p->kernels.n, fb;
	ssize_t next;
	uuid_t u;
	int ret = EXIT_RUNTIME;

	if (n < 2)
		die_usage("bisect: run: option '--kernel': give at least 2 images in order (the "
			  "first good, the last bad)");
	if (p->good.n || p->bad.n || p->vm)
		die_usage("bisect: run: options '--good', '--bad' and '--vm' are for 'bisect "
			  "step'; run measures the first and the last image as its references");
	if (res->dashdash < 0 || (size_t)res->dashdash >= res->npos)
		die_usage("bisect: run: no workload: give it after '--', e.g. -- pipe -j 1 -t 1s "
			  "-n 3");
	if (res->dashdash > 1)
		die_usage("bisect: run: unexpected argument '%s' before '--'", res->pos[1]);
	for (i = 0; i < n; i++)
		if (check_image(p->kernels.v[i], why, sizeof(why)))
			die_usage("bisect: run: option '--kernel': %s", why);
	rc->wl_args = res->pos + res->dashdash;
	rc->nwl = res->npos - (size_t)res->dashdash;
	if (find_qemu(rc))
		return EXIT_RUNTIME;
	rc->db = cli_db_path(ctx);
	if (store_open(rc->db, STORE_CREATE | STORE_CHECK, &rc->st))
		return EXIT_RUNTIME;
	signals_install();
	uuid_generate_random(u);
	uuid_unparse_lower(u, rs.id);
	rs.labels = xcalloc(n, sizeof(*rs.labels));
	for (i = 0; i < n; i++)
		rs.labels[i] = image_label(&p->kernels, i);
	printf("bisection %s: %zu images, metric %s, alpha %g per step\n", rs.id, n, p->metric,
	       p->alpha);
	fflush(stdout);

	if (run_refs(&rs, &seq))
		goto out;
	bisect_refs_seq_refs(&seq, &refs);
	if (seq.d.valid)
		printf("references: %s (%zu boots) and %s (%zu boots): bad vs good %+.1f%% "
		       "[%+.1f%%, %+.1f%%] at %.2f%%, between-boot sd %.1f%%\n",
		       rs.labels[0], seq.ng, rs.labels[n - 1], seq.nb,
		       100 * expm1(seq.d.separation), 100 * expm1(seq.d.sep_lo),
		       100 * expm1(seq.d.sep_hi), 100 * seq.d.level, 100 * expm1(seq.d.sd));
	if (seq.d.v != BISECT_BAD) {
		snprintf(result, sizeof(result),
			 "no result: the first and the last image are not apart on %s (%s)",
			 p->metric, seq.d.why ? seq.d.why : "undecided");
		printf("%s\n", result);
		store_result(&rs, result);
		goto out;
	}
	/* Don't let the references' own params be the candidates' check: they ran the same args. */
	bisect_search_init(&srch, n);
	while ((next = bisect_search_next(&srch)) >= 0) {
		enum bisect_verdict v;

		if (run_one_step(&rs, &refs, (size_t)next, "step", &v))
			goto out;
		bisect_search_record(&srch, (size_t)next, v);
	}
	if (!bisect_search_found(&srch)) {
		snprintf(result, sizeof(result),
			 "no result: the first bad image is one of images %zu..%zu (%s .. %s): "
			 "every candidate between was undecided",
			 srch.last_good + 2, srch.first_bad + 1, rs.labels[srch.last_good + 1],
			 rs.labels[srch.first_bad]);
		printf("%s\n", result);
		store_result(&rs, result);
		goto out;
	}
	fb = srch.first_bad;
	printf("first bad image: %zu/%zu %s; confirming it and its predecessor\n", fb + 1, n,
	       rs.labels[fb]);
	fflush(stdout);
	if (run_one_step(&rs, &refs, fb, "confirm", &v_bad) ||
	    run_one_step(&rs, &refs, fb - 1, "confirm", &v_good))
		goto out;
	if (v_bad == BISECT_BAD && v_good == BISECT_GOOD) {
		snprintf(result, sizeof(result),
			 "first bad image: %zu/%zu %s (%s), after %s; confirmed", fb + 1, n,
			 rs.labels[fb], p->kernels.v[fb], rs.labels[fb - 1]);
		ret = EXIT_OK;
	} else {
		snprintf(result, sizeof(result),
			 "no result: image %zu/%zu %s was found first bad but the confirmation "
			 "said %s for it and %s for its predecessor %s",
			 fb + 1, n, rs.labels[fb], bisect_verdict_key(v_bad),
			 bisect_verdict_key(v_good), rs.labels[fb - 1]);
	}
	printf("%s\n", result);
	store_result(&rs, result);
out:
	if (stop_sig) {
		error("bisect: run: interrupted by %s; the boots measured so far are stored",
		      strsignal(stop_sig));
		ret = 128 + stop_sig;
	}
	bisect_search_release(&srch);
	for (i = 0; i < n; i++)
		free(rs.labels[i]);
	free(rs.labels);
	store_close(rc->st);
	return ret;
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

int bisect_document(struct store *st, const char *id_prefix, const char *opt, const char *db,
		    json_object **out)
{
	struct store_experiment *v;
	struct report_row *rows = NULL;
	size_t n, i, nrows = 0;
	const char *id = NULL, *result = NULL, *kind = NULL;
	json_object *jo = NULL, *jsteps;
	int ret = EXIT_RUNTIME;

	*out = NULL;
	if (store_list_experiments(st, NULL, &v, &n))
		return EXIT_RUNTIME;
	for (i = 0; i < n; i++) {
		struct report_row r = { .exp_id = v[i].id };

		if (store_load_env(st, v[i].id, "end", &r.env))
			goto out;
		if (!env_get(&r.env, "bisect.id")) {
			env_release(&r.env);
			continue;
		}
		rows = xrealloc(rows, (nrows + 1) * sizeof(*rows));
		rows[nrows++] = r;
	}
	/* The bisection: the id's (a prefix), else the latest. */
	for (i = nrows; i-- > 0;) {
		const char *rid = row_get(&rows[i], "id");

		if (!id_prefix || !strncmp(rid, id_prefix, strlen(id_prefix))) {
			if (id && strcmp(id, rid) && id_prefix) {
				error("%s: '%s' is ambiguous ('%s', '%s')", opt, id_prefix, id,
				      rid);
				ret = EXIT_USAGE;
				goto out;
			}
			if (!id)
				id = rid;
			if (!id_prefix)
				break;
		}
	}
	if (!id) {
		if (id_prefix) {
			error("%s: no bisection '%s' in '%s'", opt, id_prefix, db);
			ret = EXIT_USAGE;
		} else {
			error("%.*s: no bisection in '%s' (bisect step and bisect run store "
			      "theirs)",
			      (int)(strstr(opt, ": option") ? strstr(opt, ": option") - opt
							    : (ptrdiff_t)strlen(opt)),
			      opt, db);
		}
		goto out;
	}
	jo = json_object_new_object();
	jsteps = json_object_new_array();
	add_str(jo, "id", id);
	for (i = 0; i < nrows; i++)
		if (!strcmp(row_get(&rows[i], "id"), id) && row_get(&rows[i], "result"))
			result = row_get(&rows[i], "result");
	/*
	 * Steps: the experiments of one (role, step, candidate), in the order
	 * of their first experiment (the references' boots alternate).
	 */
	for (i = 0; i < nrows; i++) {
		const struct report_row *r = &rows[i], *nx;
		size_t j, nexp = 1;

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
			kind = row_get(r, "kind");
			add_str(jo, "kind", kind);
			add_str(jo, "metric", row_get(r, "metric"));
		}
		json_object_array_add(jsteps, step_object(r, nexp));
	}
	json_object_object_add(jo, "steps", jsteps);
	json_object_object_add(jo, "result", result ? json_object_new_string(result) : NULL);
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
	store_experiments_free(v, n);
	return ret;
}

static void print_step(json_object *s)
{
	char *cand = text_printable(rep_str(s, "candidate") ?: "?", 0), out[512];

	rep_bisect_outcome(s, out, sizeof(out));
	printf("  %-15s %s: %s\n", rep_str(s, "role") ?: "?", cand, out);
	free(cand);
}

static int report_main(struct bisect_params *p, struct ctx *ctx)
{
	struct store *st;
	json_object *jo, *steps;
	size_t i;
	int ret;

	cli_require_format("bisect", ctx, (1u << FMT_TEXT) | (1u << FMT_JSON));
	if (store_open(cli_db_path(ctx), STORE_READONLY, &st))
		return EXIT_RUNTIME;
	ret = bisect_document(st, p->id, "bisect: report: option '--id'", cli_db_path(ctx), &jo);
	store_close(st);
	if (ret != EXIT_OK)
		return ret;
	if (ctx->format == FMT_JSON) {
		printf("%s\n",
		       json_object_to_json_string_ext(jo, JSON_C_TO_STRING_PRETTY |
								  JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		char *res_txt =
			text_printable(rep_str(jo, "result") ?: rep_str(jo, "no_result"), 0);

		printf("bisection %s (%s), metric %s\n", rep_str(jo, "id"),
		       *rep_str(jo, "kind") ? rep_str(jo, "kind") : "?",
		       *rep_str(jo, "metric") ? rep_str(jo, "metric") : "?");
		json_object_object_get_ex(jo, "steps", &steps);
		for (i = 0; i < json_object_array_length(steps); i++)
			print_step(json_object_array_get_idx(steps, i));
		printf("result: %s\n", res_txt);
		free(res_txt);
	}
	json_object_put(jo);
	return EXIT_OK;
}

/* ------------------------------------------------------------------ entry */

enum bisect_sub { SUB_NONE, SUB_STEP, SUB_RUN, SUB_REPORT };

/* Every option table of bisect, with its title in -h, once. */
enum { T_STEP, T_RUN, T_DECIDE, T_VM, T_REPORT, NTABLES };

static const struct {
	const struct opt *opts;
	const char *title;
} bisect_tables[NTABLES] = {
	[T_STEP] = { bisect_step_opts, "bisect step options" },
	[T_RUN] = { bisect_run_opts, "bisect run options" },
	[T_DECIDE] = { bisect_decide_opts, "the decision (step and run)" },
	[T_VM] = { bisect_vm_opts, "the guests (step --vm and run)" },
	[T_REPORT] = { bisect_report_opts, "bisect report options" },
};

#define SUB_TABLES 3

/* Each subcommand's tables (indices into bisect_tables, then -1s). */
static const struct {
	const char *name;
	int tables[SUB_TABLES];
} bisect_subs[] = {
	[SUB_STEP] = { "step", { T_STEP, T_DECIDE, T_VM } },
	[SUB_RUN] = { "run", { T_RUN, T_DECIDE, T_VM } },
	[SUB_REPORT] = { "report", { T_REPORT, -1, -1 } },
};

static bool sub_has(enum bisect_sub sub, const struct opt *o)
{
	const struct opt *t;
	size_t i;

	for (i = 0; i < SUB_TABLES && bisect_subs[sub].tables[i] >= 0; i++)
		for (t = bisect_tables[bisect_subs[sub].tables[i]].opts; t->type != OPT_END; t++)
			if (t == o)
				return true;
	return false;
}

/* The option of some bisect table that argument arg names, or NULL. */
static const struct opt *bisect_opt_named(const char *arg)
{
	const struct opt *t;
	size_t i, n;

	for (i = 0; i < NTABLES; i++)
		for (t = bisect_tables[i].opts; t->type != OPT_END; t++) {
			if (arg[0] == '-' && arg[1] == '-') {
				n = strcspn(arg + 2, "=");
				if (strlen(t->long_name) == n && !strncmp(arg + 2, t->long_name, n))
					return t;
			} else if (arg[0] == '-' && t->short_name && arg[1] == t->short_name) {
				return t;
			}
		}
	return NULL;
}

/*
 * An option of another subcommand given to this one is bad input naming it
 * (exit 2; 129 under step, git bisect's abort), never silently ignored.
 */
static void bad_for_sub(enum bisect_sub sub, int argc, const char **argv)
{
	enum bisect_sub other;
	const struct opt *o;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (argv[i][0] != '-' || !(o = bisect_opt_named(argv[i])))
			continue;
		if (!sub_has(sub, o)) {
			for (other = SUB_STEP; other <= SUB_REPORT && !sub_has(other, o); other++)
				;
			die_usage("bisect %s: option '--%s' is one of bisect %s%s's options, not "
				  "of bisect %s",
				  bisect_subs[sub].name, o->long_name, bisect_subs[other].name,
				  other == SUB_STEP && sub_has(SUB_RUN, o) ? " and run" : "",
				  bisect_subs[sub].name);
		}
		/* its value is the next argument: not an option, whatever it looks like */
		if (o->type != OPT_FLAG && argv[i][1] == '-' && !strchr(argv[i], '=') &&
		    !(o->flags & OPT_OPTIONAL_ARG))
			i++;
		else if (o->type != OPT_FLAG && argv[i][1] != '-' && !argv[i][2])
			i++;
	}
}

static enum bisect_sub sub_of(const char *name)
{
	enum bisect_sub s;

	for (s = SUB_STEP; name && s <= SUB_REPORT; s++)
		if (!strcmp(name, bisect_subs[s].name))
			return s;
	return SUB_NONE;
}

/* Returns the number of groups set up (the last one the common options). */
static size_t parse(enum bisect_sub sub, struct bisect_params *p, struct opt_group *groups,
		    struct opts_result *res, int argc, const char **argv, struct ctx *ctx)
{
	size_t i, n = 0;
	int t;

	*p = bisect_defaults;
	if (sub != SUB_NONE)
		bad_for_sub(sub, argc, argv);
	/* -h, or a missing or unknown subcommand: every table, for the help */
	for (i = 0; i < (sub == SUB_NONE ? NTABLES : SUB_TABLES); i++) {
		t = sub == SUB_NONE ? (int)i : bisect_subs[sub].tables[i];
		if (t < 0)
			break;
		groups[n++] = (struct opt_group){ .title = bisect_tables[t].title,
						  .opts = bisect_tables[t].opts,
						  .base = p,
						  .defaults = &bisect_defaults };
	}
	groups[n++] = cli_common_group_for(ctx, COMMON_DB | COMMON_FORMAT | COMMON_VERBOSITY,
					   (1u << FMT_TEXT) | (1u << FMT_JSON));
	cli_parse("bisect", bisect_usage, bisect_description, groups, n, argc, argv, 0, res, ctx);
	return n;
}

static int step_entry(int argc, const char **argv, struct ctx *ctx)
{
	struct bisect_params p;
	struct opt_group groups[6];
	struct opts_result res;
	size_t n;
	int ret;

	n = parse(SUB_STEP, &p, groups, &res, argc, argv, ctx);
	if (ctx->format != FMT_TEXT) {
		error("bisect: step: option '--format': only text");
		ret = WORKER_USAGE;
	} else {
		ret = step_worker(&p, &res, ctx);
	}
	opts_release(groups, n);
	opts_result_release(&res);
	fflush(NULL);
	return ret;
}

int cmd_bisect(int argc, const char **argv, struct ctx *ctx)
{
	struct bisect_params p;
	struct opt_group groups[6];
	struct opts_result res;
	/* The subcommand comes first, as in git: `bisect step --good ...`. */
	enum bisect_sub sub = sub_of(argc > 0 ? argv[0] : NULL);
	size_t n;
	int ret;

	if (sub == SUB_STEP)
		return step_guard(argc, argv, ctx, step_entry);
	n = parse(sub, &p, groups, &res, argc, argv, ctx);
	if (sub == SUB_NONE) {
		/* maybe a mistyped step under git bisect run: never a status git reads as bad */
		error("bisect: %s%s%s: allowed step|run|report",
		      res.npos ? "unknown subcommand '" : "no subcommand",
		      res.npos ? res.pos[0] : "", res.npos ? "'" : "");
		ret = BISECT_EXIT_USAGE;
	} else if (sub == SUB_RUN) {
		if (ctx->format != FMT_TEXT)
			die_usage("bisect: run: option '--format': only text; 'bisect report "
				  "--format json' gives the steps as JSON");
		ret = run_main(&p, &res, ctx);
	} else {
		if (res.npos > 1)
			die_usage("bisect: report: unexpected argument '%s'", res.pos[1]);
		ret = report_main(&p, ctx);
	}
	opts_release(groups, n);
	opts_result_release(&res);
	return ret;
}
