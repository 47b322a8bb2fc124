/*
 * t-store.c: the results store on temporary files: writing and reading back
 * every field, one transaction per sample (a killed writer keeps what it
 * committed and reads as interrupted), concurrent writers starting on a new
 * store, a new store whole or not at all, upgrades from
 * every older schema version, merging with duplicates, and the refusals
 * (not SQLite, another program's database, a newer schema, read-only, no
 * directory) that must leave the file byte-identical.
 *
 * Run as `t-store --synth DB ...` it is also the test-only generator that
 * the end-to-end tests and bench/store-100k.sh use to fill a store through
 * the store API (see synth_main()), and `t-store --integrity DB` prints
 * PRAGMA integrity_check's verdict for them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store/store.h"
#include "store-legacy.h"

static char tmpdir[256];

static char *tpath(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/t-store.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	int rc;

	(void)state;
	rc = system(cmd);
	free(cmd);
	return rc ? -1 : 0;
}

static void make_sample(struct sample *s, uint32_t index, double ops_per_s)
{
	sample_init(s);
	s->index = index;
	s->start_realtime_ns = 1700000000000000000ull + index * 1000000000ull;
	s->duration_ns = 100000000;
	s->wall_ns = 100200000;
	s->instances = 4;
	s->real_s = 0.1;
	s->ops = (uint64_t)(ops_per_s * s->real_s);
	s->usr_s = 0.05;
	s->sys_s = 0.3;
	s->ops_per_s = ops_per_s;
	s->ops_per_cpu_s = (double)s->ops / 0.35;
	sample_put(s, "ctxsw_per_op", 2.0 + index / 100.0);
	sample_na(s, "migrations_per_kop", "no /proc/%d/sched", 42);
	sample_put(s, "run_delay_ns_per_op", 123.5);
}

static int64_t new_experiment(struct store *st, const char *uuid, const char *label,
			      const char *kernel, int64_t *config_id)
{
	struct experiment_info info = {
		.kind = "run",
		.workload = "pipe",
		.profile = "stress-ng-0.15",
		.params_json = "{\"instances\":4}",
		.cmdline = "wakebench run pipe -t 100ms",
		.version = "0.1.0",
		.label = label,
		.host = "testhost",
		.kernel = kernel,
	};
	int64_t exp_id = 0;

	if (uuid)
		snprintf(info.uuid, sizeof(info.uuid), "%s", uuid);
	assert_int_equal(store_begin_experiment(st, &info, &exp_id), 0);
	assert_true(exp_id > 0);
	assert_int_equal(strlen(info.uuid), 36);
	assert_int_equal(
		store_add_config(st, exp_id, "default", "DELAY_DEQUEUE PREEMPT_SHORT", config_id),
		0);
	return exp_id;
}

struct collect {
	size_t n;
	double sum_ops_per_s;
	size_t nfailed, nwarmup;
	int64_t last_sample_id, last_exp_id;
	bool metrics_ok;
};

static int collect_row(void *arg, const struct store_row *row)
{
	struct collect *c = arg;
	const struct metric *m;

	c->n++;
	c->sum_ops_per_s += row->s->ops_per_s;
	c->nfailed += row->s->status != SAMPLE_OK;
	c->nwarmup += row->s->warmup;
	/* by experiment, then in the order the samples were stored */
	if (row->exp->id != c->last_exp_id)
		c->last_sample_id = 0;
	c->last_exp_id = row->exp->id;
	assert_true(row->sample_id > c->last_sample_id);
	c->last_sample_id = row->sample_id;
	assert_non_null(row->exp);
	assert_non_null(row->cfg);
	assert_int_equal(row->cfg->exp_id, row->exp->id);
	m = sample_get(row->s, "ctxsw_per_op");
	if (row->s->nmetrics == 3 && m && m->available && m->better == BETTER_LOWER &&
	    m->flags == METRIC_EVIDENCE && !strcmp(row->s->metrics[1].name, "migrations_per_kop") &&
	    !row->s->metrics[1].available && !strcmp(row->s->metrics[1].why, "no /proc/42/sched"))
		c->metrics_ok = true;
	else
		c->metrics_ok = false;
	return 0;
}

struct json_walk {
	size_t n;
	char *first;
};

static int count_json(void *arg, const char *json)
{
	struct json_walk *w = arg;

	if (!w->n++)
		w->first = xstrdup(json);
	return 0;
}

static void test_write_and_read(void **state)
{
	char *path = tpath("a/b/c/results.db"), *dir = tpath("a/b/c"), *p;
	struct store *st;
	struct sample *s = xmalloc(sizeof(*s));
	int64_t exp_id, cfg_id, found;
	struct store_experiment *exps;
	struct store_config *cfgs;
	size_t n, ncfg;
	struct collect c = { 0 };
	char k1[] = "kernel.release", v1[] = "6.18.0", k2[] = "cpu.governor", v2[] = "performance";
	struct env_entry entries[] = { { k1, v1, IMPACT_STRONG }, { k2, v2, IMPACT_MEDIUM } };
	struct env env = { .n = 2, .alloc = 2, .e = entries }, loaded = { 0 };
	char **vals;
	struct store_filter f = { 0 };

	(void)state;
	/* Without STORE_CREATE a missing store is an error and creates nothing. */
	assert_int_equal(store_open(path, 0, &st), -1);
	/* A store is created in a directory that exists, never with its directory. */
	assert_int_equal(store_open(path, STORE_CREATE, &st), -1);
	assert_int_equal(access(dir, F_OK), -1);
	for (p = dir + strlen(tmpdir) + 1;; p++) {
		char sep = *p;

		if (sep != '/' && sep != '\0')
			continue;
		*p = '\0';
		assert_int_equal(mkdir(dir, 0700), 0);
		*p = sep;
		if (!sep)
			break;
	}
	assert_int_equal(store_open(path, STORE_CREATE, &st), 0);
	assert_int_equal(store_user_version(st), store_schema_version());
	exp_id = new_experiment(st, NULL, "before", "6.18.0", &cfg_id);
	assert_int_equal(store_add_env(st, exp_id, "start", &env), 0);
	assert_int_equal(store_add_env_entry(st, exp_id, "end", "load.avg1", "0.5", IMPACT_RUN), 0);
	assert_int_equal(store_add_env(st, exp_id, "middle", &env), -1);
	make_sample(s, 0, 1000.0);
	s->warmup = true;
	assert_int_equal(store_add_sample(st, exp_id, cfg_id, s), 0);
	make_sample(s, 1, 2000.0);
	assert_int_equal(store_add_sample(st, exp_id, cfg_id, s), 0);
	make_sample(s, 2, 3000.0);
	sample_fail(s, SAMPLE_FAILED, "instance %d died", 3);
	assert_int_equal(store_add_sample(st, exp_id, cfg_id, s), 0);
	assert_int_equal(store_end_experiment(st, exp_id, "complete"), 0);
	assert_int_equal(store_end_experiment(st, exp_id, "bogus"), -1);
	store_close(st);

	assert_int_equal(store_open(path, STORE_READONLY, &st), 0);
	assert_int_equal(store_list_experiments(st, NULL, &exps, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(exps[0].id, exp_id);
	assert_string_equal(exps[0].status, "complete");
	assert_string_equal(exps[0].label, "before");
	assert_string_equal(exps[0].kernel, "6.18.0");
	assert_string_equal(exps[0].params_json, "{\"instances\":4}");
	assert_int_equal(exps[0].nsamples, 3);
	assert_true(exps[0].ended_ns >= exps[0].started_ns);

	/* find by id and by UUID prefix */
	assert_int_equal(store_find_experiment(st, "1", &found), 0);
	assert_int_equal(found, exp_id);
	found = 0;
	{
		char prefix[9];

		memcpy(prefix, exps[0].uuid, 8);
		prefix[8] = '\0';
		assert_int_equal(store_find_experiment(st, prefix, &found), 0);
		assert_int_equal(found, exp_id);
	}
	assert_int_equal(store_find_experiment(st, "99", &found), -1);
	assert_int_equal(store_find_experiment(st, "zz'; DROP", &found), -1);
	store_experiments_free(exps, n);

	assert_int_equal(store_list_configs(st, NULL, &cfgs, &ncfg), 0);
	assert_int_equal(ncfg, 1);
	assert_string_equal(cfgs[0].features, "DELAY_DEQUEUE PREEMPT_SHORT");
	store_configs_free(cfgs, ncfg);

	assert_int_equal(store_foreach_sample(st, NULL, 0, collect_row, &c), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.nfailed, 1);
	assert_int_equal(c.nwarmup, 1);
	assert_true(c.metrics_ok);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_foreach_sample(st, NULL, STORE_ROWS_STATS, collect_row, &c), 0);
	assert_int_equal(c.n, 1);
	assert_true(c.sum_ops_per_s == 2000.0);

	/* filters */
	memset(&c, 0, sizeof(c));
	f.label = STRLIST_ONE("after");
	assert_int_equal(store_foreach_sample(st, &f, 0, collect_row, &c), 0);
	assert_int_equal(c.n, 0);
	f.label = STRLIST_ONE("before");
	f.kernel = STRLIST_ONE("6.18.0");
	assert_int_equal(store_foreach_sample(st, &f, 0, collect_row, &c), 0);
	assert_int_equal(c.n, 3);
	/* a repeated filter is a union */
	{
		const char *labels[] = { "after", "before" }, *none[] = { "after", "nope" };

		memset(&c, 0, sizeof(c));
		f.label = (struct strlist){ .v = labels, .n = 2 };
		assert_int_equal(store_foreach_sample(st, &f, 0, collect_row, &c), 0);
		assert_int_equal(c.n, 3);
		memset(&c, 0, sizeof(c));
		f.label = (struct strlist){ .v = none, .n = 2 };
		assert_int_equal(store_foreach_sample(st, &f, 0, collect_row, &c), 0);
		assert_int_equal(c.n, 0);
	}

	{
		struct json_walk w = { 0 };
		char **names;
		size_t nnames;

		assert_int_equal(store_foreach_sample_json(st, exp_id, count_json, &w), 0);
		assert_int_equal(w.n, 3);
		assert_non_null(strstr(w.first, "\"metrics\":{\"ctxsw_per_op\":2.0,"));
		assert_non_null(strstr(w.first, "\"migrations_per_kop\":null"));
		assert_non_null(strstr(
			w.first, "\"unavailable\":{\"migrations_per_kop\":\"no /proc/42/sched\"}"));
		assert_non_null(strstr(w.first, "\"warmup\":true"));
		free(w.first);
		assert_int_equal(store_metric_names(st, NULL, &names, &nnames), 0);
		assert_int_equal(nnames, 3);
		assert_string_equal(names[2], "run_delay_ns_per_op");
		store_strings_free(names, nnames);
	}

	assert_int_equal(store_load_env(st, exp_id, "start", &loaded), 0);
	assert_int_equal(loaded.n, 2);
	assert_string_equal(loaded.e[0].key, "cpu.governor");
	assert_int_equal(loaded.e[0].impact, IMPACT_MEDIUM);
	assert_string_equal(loaded.e[1].value, "6.18.0");
	env_release(&loaded);
	assert_int_equal(store_load_env(st, exp_id, "end", &loaded), 0);
	assert_int_equal(loaded.n, 1);
	assert_int_equal(loaded.e[0].impact, IMPACT_RUN);
	env_release(&loaded);

	assert_int_equal(store_distinct(st, STORE_FIELD_LABEL, &vals, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(vals[0], "before");
	store_strings_free(vals, n);

	/* a read-only handle refuses writes */
	assert_int_equal(store_end_experiment(st, exp_id, "failed"), -1);
	store_close(st);
	free(s);
	free(path);
	free(dir);
}

static void test_find_ambiguous(void **state)
{
	char *path = tpath("amb.db");
	struct store *st;
	int64_t cfg, a, b, found = 0;

	(void)state;
	assert_int_equal(store_open(path, STORE_CREATE, &st), 0);
	a = new_experiment(st, "abcd0000-0000-4000-8000-000000000001", NULL, "6.6.78", &cfg);
	b = new_experiment(st, "abcd1111-0000-4000-8000-000000000002", NULL, "6.6.78", &cfg);
	assert_int_equal(store_find_experiment(st, "abcd", &found), -1);
	assert_int_equal(store_find_experiment(st, "ABCD1", &found), 0);
	assert_int_equal(found, b);
	assert_int_equal(store_find_experiment(st, "abcd0000-0000-4000-8000-000000000001", &found),
			 0);
	assert_int_equal(found, a);
	/* a second experiment with the same UUID is refused */
	{
		struct experiment_info info = { .kind = "run", .workload = "pipe" };

		snprintf(info.uuid, sizeof(info.uuid), "%s",
			 "abcd1111-0000-4000-8000-000000000002");
		assert_int_equal(store_begin_experiment(st, &info, &found), -1);
	}
	store_close(st);
	free(path);
}

static size_t count_rows(struct store *st, unsigned flags)
{
	struct collect c = { 0 };

	assert_int_equal(store_foreach_sample(st, NULL, flags, collect_row, &c), 0);
	return c.n;
}

/* A writer killed mid-experiment keeps every committed sample and reads as interrupted. */
static void test_killed_writer(void **state)
{
	char *path = tpath("killed.db");
	struct store *st;
	struct store_experiment *exps;
	size_t n;
	pid_t pid;
	int status;
	char *check;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sample *s = xmalloc(sizeof(*s));
		int64_t exp_id, cfg;

		if (store_open(path, STORE_CREATE, &st))
			_exit(1);
		exp_id = new_experiment(st, NULL, NULL, "6.18.0", &cfg);
		make_sample(s, 0, 100.0);
		store_add_sample(st, exp_id, cfg, s);
		make_sample(s, 1, 101.0);
		store_add_sample(st, exp_id, cfg, s);
		raise(SIGKILL);
		_exit(1);
	}
	/* killed but not yet reaped (a zombie): already interrupted */
	{
		siginfo_t si;

		assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
		assert_int_equal(store_open(path, STORE_READONLY, &st), 0);
		assert_int_equal(store_list_experiments(st, NULL, &exps, &n), 0);
		assert_string_equal(exps[0].status, "interrupted");
		store_experiments_free(exps, n);
		store_close(st);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(store_open(path, 0, &st), 0);
	check = store_integrity_check(st);
	assert_string_equal(check, "ok");
	free(check);
	assert_int_equal(store_list_experiments(st, NULL, &exps, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(exps[0].status, "interrupted");
	assert_int_equal(exps[0].nsamples, 2);
	store_experiments_free(exps, n);
	assert_int_equal(count_rows(st, 0), 2);
	store_close(st);
	free(path);
}

/* A running experiment of a live owner reads as running. */
static void test_running_owner(void **state)
{
	char *path = tpath("running.db");
	struct store *st;
	struct store_experiment *exps;
	size_t n;
	int64_t cfg;

	(void)state;
	assert_int_equal(store_open(path, STORE_CREATE, &st), 0);
	new_experiment(st, NULL, NULL, "6.18.0", &cfg);
	assert_int_equal(store_list_experiments(st, NULL, &exps, &n), 0);
	assert_string_equal(exps[0].status, "running");
	store_experiments_free(exps, n);
	store_close(st);
	free(path);
}

#define WRITERS		   3
#define SAMPLES_PER_WRITER 40

static void test_concurrent_writers(void **state)
{
	char *path = tpath("concurrent.db");
	struct store *st;
	pid_t pids[WRITERS];
	int i, status;

	(void)state;
	/* all of them start on a store that does not exist yet */
	for (i = 0; i < WRITERS; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			struct sample *s = xmalloc(sizeof(*s));
			int64_t exp_id, cfg;
			uint32_t k;

			if (store_open(path, STORE_CREATE, &st))
				_exit(1);
			exp_id = new_experiment(st, NULL, NULL, "6.18.0", &cfg);
			for (k = 0; k < SAMPLES_PER_WRITER; k++) {
				make_sample(s, k, 100.0 + k);
				if (store_add_sample(st, exp_id, cfg, s))
					_exit(2);
			}
			if (store_end_experiment(st, exp_id, "complete"))
				_exit(3);
			store_close(st);
			free(s);
			_exit(0);
		}
	}
	for (i = 0; i < WRITERS; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(store_open(path, STORE_READONLY, &st), 0);
	assert_int_equal(count_rows(st, 0), WRITERS * SAMPLES_PER_WRITER);
	store_close(st);
	free(path);
}

static char *slurp(const char *path, size_t *len)
{
	char *buf = NULL;

	if (read_file(path, &buf, len))
		return NULL;
	return buf;
}

static bool exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

/* Names in tmpdir that begin with prefix (a store's side files, its temporaries). */
static size_t count_names(const char *prefix)
{
	char *cmd = xasprintf("ls -A '%s' | grep -c '^%s'", tmpdir, prefix), line[32] = "";
	FILE *p = popen(cmd, "r");

	free(cmd);
	assert_non_null(p);
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	pclose(p);
	return (size_t)strtoul(line, NULL, 10);
}

/*
 * A new store is there whole from the moment it has its name (its schema
 * at this version, WAL mode, 0600) and its temporary is gone; closed by
 * its creator with nothing stored in it, it is removed, unless another
 * writer has it open or has stored in it.
 */
static void test_create_whole(void **state)
{
	char *path = tpath("new.db");
	struct store *a, *b;
	struct stat sb;
	int64_t cfg;

	(void)state;
	umask(0);
	assert_int_equal(store_open(path, STORE_CREATE, &a), 0);
	umask(022);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_int_equal(store_user_version(a), store_schema_version());
	assert_int_equal(count_names("new.db.tmp-"), 0);
	store_close(a);
	assert_int_equal(count_names("new.db"), 0);

	/* something stored: kept */
	assert_int_equal(store_open(path, STORE_CREATE, &a), 0);
	new_experiment(a, NULL, NULL, "6.18.0", &cfg);
	store_close(a);
	assert_true(exists(path));
	unlink(path);

	/* nothing stored by its creator, but another writer has it open: kept */
	assert_int_equal(store_open(path, STORE_CREATE, &a), 0);
	assert_int_equal(store_open(path, STORE_CREATE, &b), 0);
	store_close(a);
	assert_true(exists(path));
	new_experiment(b, NULL, NULL, "6.18.0", &cfg);
	store_close(b);
	assert_true(exists(path));
	unlink(path);

	/* another writer stored in it and is gone: kept */
	assert_int_equal(store_open(path, STORE_CREATE, &a), 0);
	assert_int_equal(store_open(path, 0, &b), 0);
	new_experiment(b, NULL, NULL, "6.18.0", &cfg);
	store_close(b);
	store_close(a);
	assert_int_equal(store_open(path, STORE_READONLY, &a), 0);
	assert_int_equal(count_rows(a, 0), 0);
	store_close(a);
	assert_true(exists(path));
	unlink(path);
	free(path);
}

static void test_upgrade_every_version(void **state)
{
	int v;

	(void)state;
	for (v = 1; v <= store_schema_version(); v++) {
		char name[64];
		char *path, *before, *after;
		size_t len_before, len_after, n;
		struct store *st;
		struct store_experiment *exps;

		snprintf(name, sizeof(name), "legacy-v%d.db", v);
		path = tpath(name);
		assert_int_equal(store_create_legacy(path, v), 0);
		before = slurp(path, &len_before);
		assert_non_null(before);

		/* read-only: upgraded in memory, the file stays as it was */
		assert_int_equal(store_open(path, STORE_READONLY, &st), 0);
		assert_int_equal(store_user_version(st), store_schema_version());
		assert_int_equal(count_rows(st, 0), 2);
		assert_int_equal(count_rows(st, STORE_ROWS_STATS), 1);
		store_close(st);
		after = slurp(path, &len_after);
		assert_int_equal(len_before, len_after);
		assert_memory_equal(before, after, len_before);
		free(after);

		/* read-write: upgraded in place, data kept, writable afterwards */
		assert_int_equal(store_open(path, 0, &st), 0);
		assert_int_equal(store_user_version(st), store_schema_version());
		assert_int_equal(store_list_experiments(st, NULL, &exps, &n), 0);
		assert_int_equal(n, 1);
		assert_string_equal(exps[0].status, "complete");
		assert_string_equal(exps[0].kernel, "6.6.78");
		assert_string_equal(exps[0].label, "legacy");
		assert_int_equal(exps[0].nsamples, 2);
		store_experiments_free(exps, n);
		/* version 4 lists each experiment's metrics: backfilled from the samples */
		{
			struct store_metric_def *defs;
			size_t ndefs;

			assert_int_equal(store_list_metric_defs(st, 1, &defs, &ndefs), 0);
			assert_int_equal(ndefs, 2);
			assert_string_equal(defs[0].name, "ctxsw_per_op");
			assert_int_equal(defs[0].better, BETTER_LOWER);
			assert_int_equal(defs[0].flags, METRIC_EVIDENCE);
			assert_string_equal(defs[1].name, "migrations_per_kop");
			store_metric_defs_free(defs, ndefs);
		}
		{
			int64_t cfg;

			new_experiment(st, NULL, "new", "6.18.0", &cfg);
		}
		store_close(st);
		assert_int_equal(store_open(path, STORE_READONLY, &st), 0);
		assert_int_equal(store_list_experiments(st, NULL, &exps, &n), 0);
		assert_int_equal(n, 2);
		store_experiments_free(exps, n);
		store_close(st);
		free(before);
		free(path);
	}
}

static int64_t add_full_experiment(struct store *st, const char *uuid, const char *label,
				   uint32_t nsamples)
{
	struct sample *s = xmalloc(sizeof(*s));
	int64_t exp_id, cfg;
	uint32_t k;
	char k1[] = "kernel.release", v1[] = "6.18.0";
	struct env_entry entries[] = { { k1, v1, IMPACT_STRONG } };
	struct env env = { .n = 1, .alloc = 1, .e = entries };

	exp_id = new_experiment(st, uuid, label, "6.18.0", &cfg);
	assert_int_equal(store_add_env(st, exp_id, "start", &env), 0);
	for (k = 0; k < nsamples; k++) {
		make_sample(s, k, 1000.0 + k);
		assert_int_equal(store_add_sample(st, exp_id, cfg, s), 0);
	}
	assert_int_equal(store_end_experiment(st, exp_id, "complete"), 0);
	free(s);
	return exp_id;
}

static void test_import(void **state)
{
	char *a = tpath("import-a.db"), *b = tpath("import-b.db"), *old = tpath("import-v1.db");
	struct store *st;
	int64_t *ids;
	size_t added, skipped, n, len_before, len_after;
	struct store_experiment *exps;
	char *before, *after;

	(void)state;
	assert_int_equal(store_open(a, STORE_CREATE, &st), 0);
	add_full_experiment(st, "11111111-0000-4000-8000-000000000001", "one", 3);
	add_full_experiment(st, "22222222-0000-4000-8000-000000000002", "two", 4);
	store_close(st);
	assert_int_equal(store_open(b, STORE_CREATE, &st), 0);
	add_full_experiment(st, "33333333-0000-4000-8000-000000000003", "three", 2);
	add_full_experiment(st, "11111111-0000-4000-8000-000000000001", "one", 3);
	before = slurp(a, &len_before);

	assert_int_equal(store_import(st, a, &ids, &added, &skipped), 0);
	assert_int_equal(added, 1);
	assert_int_equal(skipped, 1);
	assert_int_equal(ids[0], 4); /* A's second experiment, after B's two */
	free(ids);
	assert_int_equal(count_rows(st, 0), 2 + 3 + 4);
	assert_int_equal(store_list_experiments(st, NULL, &exps, &n), 0);
	assert_int_equal(n, 3);
	/* by start time: A's second began before both of B's */
	assert_string_equal(exps[0].uuid, "22222222-0000-4000-8000-000000000002");
	assert_int_equal(exps[0].id, 4);
	assert_int_equal(exps[0].nsamples, 4);
	store_experiments_free(exps, n);
	{
		struct env env = { 0 };

		assert_int_equal(store_load_env(st, 4, "start", &env), 0);
		assert_int_equal(env.n, 1);
		env_release(&env);
	}
	{
		struct collect c = { 0 };

		assert_int_equal(store_foreach_sample(st, NULL, 0, collect_row, &c), 0);
		assert_true(c.metrics_ok);
	}

	/* again: nothing new */
	assert_int_equal(store_import(st, a, NULL, &added, &skipped), 0);
	assert_int_equal(added, 0);
	assert_int_equal(skipped, 2);
	assert_int_equal(count_rows(st, 0), 9);

	/* an older store merges after an in-memory upgrade, and stays untouched */
	assert_int_equal(store_create_legacy(old, 1), 0);
	free(before);
	before = slurp(old, &len_before);
	assert_int_equal(store_import(st, old, NULL, &added, &skipped), 0);
	assert_int_equal(added, 1);
	assert_int_equal(count_rows(st, 0), 11);
	after = slurp(old, &len_after);
	assert_int_equal(len_before, len_after);
	assert_memory_equal(before, after, len_before);
	free(after);

	/* a bad source changes nothing */
	assert_int_equal(store_import(st, "/nonexistent/x.db", NULL, &added, &skipped), -1);
	assert_int_equal(count_rows(st, 0), 11);
	store_close(st);
	free(before);
	free(a);
	free(b);
	free(old);
}

/* store_close(st) with stderr captured; returns what it printed (malloc'd). */
static char *close_capturing_stderr(struct store *st)
{
	char *path = tpath("stderr.txt"), *out;
	size_t len;
	int saved = dup(STDERR_FILENO), fd;

	fflush(stderr);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, STDERR_FILENO);
	close(fd);
	store_close(st);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	out = slurp(path, &len);
	unlink(path);
	free(path);
	return out;
}

/*
 * A reader that found no side files reads the store as immutable, creating
 * nothing; when a writer changes the file meanwhile (its checkpoint at its
 * close), the reader says so as it closes.
 */
/* Does PATH hold these bytes? */
static bool same_bytes(const char *path, const char *bytes, size_t len)
{
	size_t n;
	char *now = slurp(path, &n);
	bool same = now && n == len && !memcmp(now, bytes, len);

	free(now);
	return same;
}

/*
 * A reader of an idle store reads the file itself, so a writer that starts
 * meanwhile keeps its pages in the WAL (the checkpoint guard): neither its
 * commits past SQLite's checkpoint size nor its close touch the file until
 * the reader is gone. Another program's writer is not guarded: the reader
 * says, as it closes, that the file changed.
 */
static void test_immutable_reader(void **state)
{
	char *path = tpath("immutable.db"), *shm = xasprintf("%s-shm", path),
	     *wal = xasprintf("%s-wal", path), *err, *before, uuid[40];
	struct store *r, *w;
	struct stat sb;
	sqlite3 *raw;
	size_t len;
	int i;

	(void)state;
	assert_int_equal(store_open(path, STORE_CREATE, &w), 0);
	add_full_experiment(w, "44444444-0000-4000-8000-000000000004", "four", 2);
	store_close(w);
	assert_false(exists(shm));
	assert_false(exists(wal));

	assert_int_equal(store_open(path, STORE_READONLY, &r), 0);
	assert_false(exists(shm));
	err = close_capturing_stderr(r);
	assert_null(strstr(err, "changed by a writer"));
	free(err);

	/* a writer starts while the file is read: thousands of WAL pages, then its close */
	before = slurp(path, &len);
	assert_int_equal(store_open(path, STORE_READONLY, &r), 0);
	assert_int_equal(count_rows(r, 0), 2);
	assert_int_equal(store_open(path, 0, &w), 0);
	for (i = 0; i < 20; i++) {
		snprintf(uuid, sizeof(uuid), "55555555-0000-4000-8000-%012d", i);
		add_full_experiment(w, uuid, "five", 50);
	}
	assert_int_equal(stat(wal, &sb), 0);
	assert_true(sb.st_size > 1000 * 4096); /* past SQLite's automatic checkpoint */
	assert_true(same_bytes(path, before, len));
	store_close(w);
	assert_true(same_bytes(path, before, len));
	assert_true(exists(wal));	       /* left for the next writer */
	assert_int_equal(count_rows(r, 0), 2); /* the store as it was when the read began */
	err = close_capturing_stderr(r);
	assert_null(strstr(err, "changed by a writer"));
	free(err);

	/* with no reader left, the next writer's close moves it all into the file */
	assert_int_equal(store_open(path, 0, &w), 0);
	store_close(w);
	assert_false(same_bytes(path, before, len));
	assert_false(exists(wal));
	assert_false(exists(shm));
	assert_int_equal(store_open(path, STORE_READONLY, &r), 0);
	assert_int_equal(count_rows(r, 0), 2 + 20 * 50);
	store_close(r);

	/* a writer that is not wakebench's checkpoints as SQLite does: the reader says so */
	assert_int_equal(store_open(path, STORE_READONLY, &r), 0);
	assert_int_equal(sqlite3_open(path, &raw), SQLITE_OK);
	assert_int_equal(
		sqlite3_exec(raw, "UPDATE experiments SET label = 'six'", NULL, NULL, NULL),
		SQLITE_OK);
	assert_int_equal(sqlite3_close(raw), SQLITE_OK);
	err = close_capturing_stderr(r);
	assert_non_null(strstr(err, "was changed by a writer while being read"));
	free(err);
	free(before);
	free(wal);
	free(shm);
	free(path);
}

static void write_bytes(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write_full(fd, buf, len), (ssize_t)len);
	close(fd);
}

/* Open must fail, and the file must be byte-identical with no side files. */
static void refused(const char *path, unsigned flags)
{
	char *before, *after, side[300];
	size_t lb, la;
	struct store *st = NULL;

	before = slurp(path, &lb);
	assert_non_null(before);
	assert_int_equal(store_open(path, flags, &st), -1);
	assert_null(st);
	after = slurp(path, &la);
	assert_non_null(after);
	assert_int_equal(lb, la);
	assert_memory_equal(before, after, lb);
	snprintf(side, sizeof(side), "%s-wal", path);
	assert_false(exists(side));
	snprintf(side, sizeof(side), "%s-shm", path);
	assert_false(exists(side));
	free(before);
	free(after);
}

static void patch_be32(const char *path, off_t off, uint32_t v)
{
	unsigned char b[4] = { v >> 24, v >> 16, v >> 8, v };
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, b, 4, off), 4);
	close(fd);
}

static void test_refusals(void **state)
{
	char *text = tpath("notes.txt"), *newer = tpath("newer.db"), *other = tpath("other.db");
	char *ro = tpath("ro.db"), *under = tpath("notes.txt/sub/results.db");
	char *trunc = tpath("short.db");
	struct store *st;
	int64_t cfg;

	(void)state;
	write_bytes(text, "this is not a database\n", 23);
	refused(text, STORE_CREATE);
	refused(text, STORE_READONLY);
	write_bytes(trunc, "SQLite format 3", 16);
	refused(trunc, 0);

	assert_int_equal(store_open(newer, STORE_CREATE, &st), 0);
	new_experiment(st, NULL, NULL, "6.18.0", &cfg);
	store_close(st);
	patch_be32(newer, 60, (uint32_t)store_schema_version() + 1);
	refused(newer, STORE_CREATE);
	refused(newer, STORE_READONLY);

	assert_int_equal(store_create_legacy(other, 1), 0);
	patch_be32(other, 68, 0x12345678);
	refused(other, 0);
	refused(other, STORE_READONLY);

	/* read-only by its mode (refused for writing even as root), readable */
	assert_int_equal(store_open(ro, STORE_CREATE, &st), 0);
	new_experiment(st, NULL, NULL, "6.18.0", &cfg);
	store_close(st);
	assert_int_equal(chmod(ro, 0444), 0);
	refused(ro, STORE_CREATE);
	assert_int_equal(store_open(ro, STORE_READONLY, &st), 0);
	store_close(st);

	/* a directory that cannot be created */
	assert_int_equal(store_open(under, STORE_CREATE, &st), -1);
	assert_false(exists(under));
	/* reading never creates */
	free(under);
	under = tpath("absent/results.db");
	assert_int_equal(store_open(under, STORE_READONLY, &st), -1);
	assert_false(exists(under));
	free(under);
	under = tpath("absent");
	assert_false(exists(under));

	free(text);
	free(newer);
	free(other);
	free(ro);
	free(under);
	free(trunc);
}

static void test_since(void **state)
{
	uint64_t ns = 0, now = realtime_ns();

	(void)state;
	assert_int_equal(store_parse_since("2026-04-01", &ns), 0);
	assert_true(ns > 1774000000ull * 1000000000ull && ns < 1776000000ull * 1000000000ull);
	assert_int_equal(store_parse_since("2026-04-01T12:30", &ns), 0);
	assert_int_equal(store_parse_since("2h", &ns), 0);
	assert_true(ns <= now - 7200ull * 1000000000ull + 60ull * 1000000000ull);
	assert_int_equal(store_parse_since("yesterday", &ns), -1);
	assert_int_equal(store_parse_since("2026-13-01", &ns), -1);
	/* days that do not exist, which mktime() would move into the next month */
	assert_int_equal(store_parse_since("2026-02-30", &ns), -1);
	assert_int_equal(store_parse_since("2026-02-29", &ns), -1);
	assert_int_equal(store_parse_since("2026-04-31T12:00", &ns), -1);
	assert_int_equal(store_parse_since("2026-02-28T23:59:60", &ns), -1);
	assert_int_equal(store_parse_since("2028-02-29", &ns), 0);
	assert_int_equal(store_parse_since("2000-02-29", &ns), 0);
	assert_int_equal(store_parse_since("2100-02-29", &ns), -1);
	assert_int_equal(store_parse_since("2026-12-31 23:59:59", &ns), 0);
}

/*
 * --synth DB EXPERIMENTS SAMPLES KERNEL LABEL HOST OPS_PER_S [KEY=VALUE[:IMPACT] ...]
 * Fills DB through the store API with reproducible pseudo-random samples
 * around OPS_PER_S (+-1%), evidence metrics and a start fingerprint. Extra
 * KEY=VALUE pairs are added to the fingerprint (impact 0 strong by default),
 * except "ab=FEATURE": then each experiment is an `ab` with two arms,
 * FEATURE=on and FEATURE=off (10% more ops/s, half the context switches),
 * whose samples alternate.
 */
static int synth_main(int argc, char **argv)
{
	struct store *st;
	struct sample *s;
	uint64_t nexp, nsamples, seed = 0x9e3779b97f4a7c15ull;
	double ops;
	uint64_t e, k;
	int i;

	if (argc < 9 || parse_u64(argv[3], &nexp) || parse_u64(argv[4], &nsamples) ||
	    parse_double(argv[8], &ops)) {
		fprintf(stderr, "usage: t-store --synth DB EXPERIMENTS SAMPLES KERNEL LABEL HOST "
				"OPS_PER_S [KEY=VALUE[:IMPACT] ...]\n");
		return 2;
	}
	if (store_open(argv[2], STORE_CREATE, &st))
		return 1;
	s = xmalloc(sizeof(*s));
	for (i = 0; argv[5][i]; i++)
		seed = seed * 31 + (unsigned char)argv[5][i];
	for (i = 0; argv[6][i]; i++)
		seed = seed * 31 + (unsigned char)argv[6][i];
	const char *ab = NULL;
	char feat_on[128] = "", feat_off[128] = "", arm_on[96] = "", arm_off[96] = "";

	for (i = 9; i < argc; i++)
		if (!strncmp(argv[i], "ab=", 3))
			ab = argv[i] + 3;
	if (ab) {
		snprintf(feat_on, sizeof(feat_on), "%s PREEMPT_SHORT", ab);
		snprintf(feat_off, sizeof(feat_off), "NO_%s PREEMPT_SHORT", ab);
		snprintf(arm_on, sizeof(arm_on), "%s=on", ab);
		snprintf(arm_off, sizeof(arm_off), "%s=off", ab);
	}
	for (e = 0; e < nexp; e++) {
		struct experiment_info info = {
			.kind = ab ? "ab" : "run",
			.workload = "pipe",
			.profile = "stress-ng-0.15",
			.params_json = "{\"instances\":4,\"duration\":\"100ms\"}",
			.cmdline = "t-store --synth",
			.label = *argv[6] ? argv[6] : NULL,
			.host = argv[7],
			.kernel = argv[5],
		};
		struct env env = { 0 };
		int64_t exp_id, cfg, cfg_off = 0;

		if (store_begin_experiment(st, &info, &exp_id) ||
		    store_add_config(st, exp_id, ab ? arm_on : "default",
				     ab ? feat_on : "DELAY_DEQUEUE PREEMPT_SHORT", &cfg) ||
		    (ab && store_add_config(st, exp_id, arm_off, feat_off, &cfg_off)) ||
		    store_add_env_entry(st, exp_id, "start", "kernel.release", argv[5],
					IMPACT_STRONG) ||
		    store_add_env_entry(st, exp_id, "start", "host.name", argv[7], IMPACT_IDENTITY))
			return 1;
		for (i = 9; i < argc; i++) {
			char *kv, *eq, *colon;
			int impact = IMPACT_STRONG;

			if (!strncmp(argv[i], "ab=", 3))
				continue;
			kv = xstrdup(argv[i]);
			eq = strchr(kv, '=');
			if (!eq)
				return 2;
			*eq = '\0';
			colon = strrchr(eq + 1, ':');
			if (colon) {
				*colon = '\0';
				impact = atoi(colon + 1);
			}
			if (store_add_env_entry(st, exp_id, "start", kv, eq + 1,
						(enum impact)impact))
				return 1;
			free(kv);
		}
		free(env.e);
		for (k = 0; k < nsamples; k++) {
			bool off = ab && (k % 2);
			double noise;

			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			noise = ((double)(seed >> 11) / 9007199254740992.0 - 0.5) * 0.02;
			sample_init(s);
			s->index = (uint32_t)k;
			s->start_realtime_ns = realtime_ns();
			s->duration_ns = 100000000;
			s->wall_ns = 100000000;
			s->instances = 4;
			s->real_s = 0.1;
			s->ops_per_s = ops * (1.0 + noise) * (off ? 1.1 : 1.0);
			s->ops = (uint64_t)(s->ops_per_s * s->real_s);
			s->usr_s = 0.04;
			s->sys_s = 0.3;
			s->ops_per_cpu_s = (double)s->ops / 0.34;
			sample_put(s, "ctxsw_per_op", 2.0 * (1.0 - noise) * (off ? 0.5 : 1.0));
			sample_put(s, "migrations_per_kop", 0.5);
			sample_put(s, "run_delay_ns_per_op", 150.0 * (1.0 + noise));
			sample_na(s, "perf_ctxsw_per_op", "perf_event_paranoid=2");
			sample_put(s, "ns_per_op", 1e9 / s->ops_per_s);
			if (store_add_sample(st, exp_id, off ? cfg_off : cfg, s))
				return 1;
		}
		if (store_end_experiment(st, exp_id, "complete"))
			return 1;
	}
	free(s);
	store_close(st);
	return 0;
}

static void test_kernel_order(void **state)
{
	static const char *const ordered[] = {
		"5.15.0-rc7", "5.15.0",	   "6.1.0-18-amd64",  "6.6.78",
		"6.6.78-v8+", "6.12.75",   "6.12.75-v8-16k+", "6.18-rc1",
		"6.18-rc2",   "6.18",	   "6.18.0",	      "6.18.1",
		"7.0",	      "7.0.1-rc1", "custom",
	};
	size_t i, j;

	char *path = tpath("kernels.db");
	struct store *st;
	char **vals;
	size_t n;
	int64_t cfg;

	(void)state;
	/* stored out of order, listed in version order */
	assert_int_equal(store_open(path, STORE_CREATE, &st), 0);
	new_experiment(st, NULL, NULL, "7.0", &cfg);
	new_experiment(st, NULL, NULL, "6.12.75", &cfg);
	new_experiment(st, NULL, NULL, "6.18-rc1", &cfg);
	new_experiment(st, NULL, NULL, "6.6.78", &cfg);
	assert_int_equal(store_distinct(st, STORE_FIELD_KERNEL, &vals, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(vals[0], "6.6.78");
	assert_string_equal(vals[1], "6.12.75");
	assert_string_equal(vals[2], "6.18-rc1");
	assert_string_equal(vals[3], "7.0");
	store_strings_free(vals, n);
	store_close(st);
	free(path);

	for (i = 0; i < ARRAY_SIZE(ordered); i++)
		for (j = 0; j < ARRAY_SIZE(ordered); j++) {
			int c = store_kernel_cmp(ordered[i], ordered[j]);

			if ((i < j && c >= 0) || (i > j && c <= 0) || (i == j && c))
				fail_msg("'%s' vs '%s' gave %d", ordered[i], ordered[j], c);
		}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_and_read),
		cmocka_unit_test(test_find_ambiguous),
		cmocka_unit_test(test_killed_writer),
		cmocka_unit_test(test_running_owner),
		cmocka_unit_test(test_concurrent_writers),
		cmocka_unit_test(test_create_whole),
		cmocka_unit_test(test_upgrade_every_version),
		cmocka_unit_test(test_import),
		cmocka_unit_test(test_immutable_reader),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_since),
		cmocka_unit_test(test_kernel_order),
	};

	if (argc > 1 && !strcmp(argv[1], "--synth"))
		return synth_main(argc, argv);
	if (argc == 3 && !strcmp(argv[1], "--integrity")) {
		/* --integrity DB: print PRAGMA integrity_check's verdict (for e2e tests) */
		struct store *st;
		char *res;

		if (store_open(argv[2], STORE_READONLY, &st))
			return 1;
		res = store_integrity_check(st);
		puts(res);
		free(res);
		store_close(st);
		return 0;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
