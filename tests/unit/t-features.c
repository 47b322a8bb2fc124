/*
 * t-features.c: the scheduler features parser on every fixture, token
 * validation, the failure classes, the restore journal (round trip, the
 * lock, owner liveness, recovery of a journal from another boot), the state
 * directory's checks (symlink, owner, mode; never chmod'ed), and the
 * read-only fallback: the sched/debug bitmask decoded with this machine's
 * BTF names (skipped where /sys/kernel/btf/vmlinux is missing).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "harness.h"

#include "sys/features.h"
#include "util/util.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *src_dir(void)
{
	const char *s = getenv("WAKEBENCH_SRC");

	return s && *s ? s : ".";
}

static char *slurp(const char *path)
{
	char *text = NULL;

	if (read_file(path, &text, NULL))
		return NULL;
	return text;
}

static void test_every_fixture_parses_and_round_trips(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX + 256], why[512], line[FEATURES_LINE_MAX];
	struct dirent *de;
	size_t seen = 0;
	DIR *d;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/sched-features", src_dir());
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		struct features f;
		char *text;

		if (!strstr(de->d_name, ".txt"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		text = slurp(path);
		assert_non_null(text);
		why[0] = '\0';
		if (features_parse(text, &f, why, sizeof(why)))
			fail_msg("%s: %s", de->d_name, why);
		assert_true(f.n >= 20 && f.n <= 32);
		/* byte-exact: every token followed by a space, then a newline */
		features_format(&f, line, sizeof(line));
		assert_string_equal(line, text);
		assert_int_equal(features_find(&f, "PLACE_LAG"), 0);
		if (!strcmp(de->d_name, "v6.6.txt")) {
			assert_int_equal(f.n, 25);
			assert_int_equal(features_find(&f, "DELAY_DEQUEUE"), -1);
		} else {
			int k = features_find(&f, "DELAY_DEQUEUE");

			assert_true(k > 0);
			assert_true(f.on[k]);
		}
		if (!strcmp(de->d_name, "v7.0.txt"))
			assert_int_equal(f.n, 27);
		free(text);
		seen++;
	}
	closedir(d);
	assert_true(seen >= 4);
}

static void test_malformed_lines_are_rejected(void **state)
{
	static const char *const bad[] = {
		"",
		"   \n",
		"A B A \n",	/* duplicate */
		"A NO_A \n",	/* duplicate through NO_ */
		"A B-C \n",	/* bad character */
		"A B \nC D \n", /* two lines */
	};
	struct features f;
	char why[256];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		why[0] = '\0';
		assert_int_equal(features_parse(bad[i], &f, why, sizeof(why)), -1);
		assert_int_equal(f.fail, FEATURES_INVALID);
		assert_true(why[0] != '\0');
	}
	/* no trailing space or newline is still one line */
	assert_int_equal(features_parse("A NO_B C", &f, why, sizeof(why)), 0);
	assert_int_equal(f.n, 3);
	assert_false(f.on[1]);
	assert_string_equal(f.name[1], "B");
}

static void test_tokens_are_validated_against_the_live_list(void **state)
{
	struct features f;
	char why[2048];
	size_t idx;
	bool on;

	(void)state;
	assert_int_equal(features_parse("PLACE_LAG NO_NEXT_BUDDY DELAY_DEQUEUE NONTASK_CAPACITY \n",
					&f, why, sizeof(why)),
			 0);
	assert_int_equal(features_token(&f, "DELAY_DEQUEUE", &idx, &on, why, sizeof(why)), 0);
	assert_int_equal(idx, 2);
	assert_true(on);
	assert_int_equal(features_token(&f, "NO_DELAY_DEQUEUE", &idx, &on, why, sizeof(why)), 0);
	assert_int_equal(idx, 2);
	assert_false(on);
	assert_int_equal(features_token(&f, "NEXT_BUDDY", &idx, &on, why, sizeof(why)), 0);
	assert_int_equal(idx, 1);
	/* "NONTASK_CAPACITY" starts with NO but not NO_: a name, not a negation */
	assert_int_equal(features_token(&f, "NONTASK_CAPACITY", &idx, &on, why, sizeof(why)), 0);
	assert_int_equal(idx, 3);
	assert_true(on);
	assert_int_equal(features_token(&f, "NO_NONTASK_CAPACITY", &idx, &on, why, sizeof(why)), 0);
	assert_false(on);

	why[0] = '\0';
	assert_int_equal(features_token(&f, "DELAY_DEQUEU", &idx, &on, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "'DELAY_DEQUEU'"));
	assert_non_null(strstr(why, "PLACE_LAG, NEXT_BUDDY, DELAY_DEQUEUE, NONTASK_CAPACITY"));
	assert_int_equal(features_token(&f, "NO_", &idx, &on, why, sizeof(why)), -1);
	assert_int_equal(features_token(&f, "", &idx, &on, why, sizeof(why)), -1);
	assert_int_equal(features_token(&f, "delay_dequeue", &idx, &on, why, sizeof(why)), -1);
	assert_int_equal(
		features_token(&f, "DELAY_DEQUEUE NO_PLACE_LAG", &idx, &on, why, sizeof(why)), -1);
}

static void test_failures_are_classified(void **state)
{
	struct features f;
	char why[1024];

	(void)state;
	assert_int_equal(features_read("/nonexistent-wakebench-debugfs", &f, why, sizeof(why)), -1);
	assert_int_equal(f.fail, FEATURES_NO_DEBUGFS);
	assert_non_null(strstr(why, "mount -t debugfs none /nonexistent-wakebench-debugfs"));
	assert_int_equal(features_fail_exit(f.fail), EXIT_SKIP);

	/* /proc is a mount point without sched/features: the file is absent */
	assert_int_equal(features_read("/proc", &f, why, sizeof(why)), -1);
	assert_int_equal(f.fail, FEATURES_ABSENT);
	assert_non_null(strstr(why, "CONFIG_SCHED_DEBUG"));

	assert_int_equal(features_fail_exit(FEATURES_LOCKDOWN), EXIT_SKIP);
	assert_int_equal(features_fail_exit(FEATURES_NOT_ROOT), EXIT_SKIP);
	assert_int_equal(features_fail_exit(FEATURES_BUSY), EXIT_RUNTIME);
}

static char tmpdir[512];

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/wakebench-t-features.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void fill_journal(struct features_journal *j, pid_t pid, const char *original)
{
	char *boot = NULL;

	memset(j, 0, sizeof(*j));
	j->pid = pid;
	j->started_realtime_ns = realtime_ns();
	assert_int_equal(read_file("/proc/sys/kernel/random/boot_id", &boot, NULL), 0);
	snprintf(j->boot_id, sizeof(j->boot_id), "%s", rtrim(boot));
	free(boot);
	snprintf(j->debugfs, sizeof(j->debugfs), "%s/debugfs", tmpdir);
	snprintf(j->original, sizeof(j->original), "%s", original);
}

static uint64_t self_start_ticks(void)
{
	char *text = NULL, *p;
	uint64_t v;
	int i;

	assert_int_equal(read_file("/proc/self/stat", &text, NULL), 0);
	p = strrchr(text, ')') + 1;
	for (i = 3; i < 22; i++)
		p = strchr(p + 1, ' ');
	v = strtoull(p + 1, NULL, 10);
	free(text);
	return v;
}

static void test_journal_round_trip_and_lock(void **state)
{
	struct features_journal j, back;
	char path[PATH_MAX], why[512];
	struct stat st;

	(void)state;
	features_journal_path(tmpdir, path, sizeof(path));
	fill_journal(&j, getpid(), "PLACE_LAG NO_NEXT_BUDDY DELAY_DEQUEUE \n");
	j.start_ticks = self_start_ticks();
	assert_int_equal(features_journal_read(path, &back, why, sizeof(why)), 1);
	assert_int_equal(features_journal_write(path, &j, why, sizeof(why)), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(features_journal_read(path, &back, why, sizeof(why)), 0);
	assert_int_equal(back.pid, j.pid);
	assert_int_equal(back.start_ticks, j.start_ticks);
	assert_int_equal(back.started_realtime_ns, j.started_realtime_ns);
	assert_string_equal(back.boot_id, j.boot_id);
	assert_string_equal(back.debugfs, j.debugfs);
	assert_string_equal(back.original, j.original);
	assert_true(features_journal_owner_alive(&back));

	/* the journal is the lock: a second one cannot be created over it */
	why[0] = '\0';
	assert_int_equal(features_journal_write(path, &j, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "File exists"));
	/* no temporary file is left behind */
	{
		char tmp[PATH_MAX + 32];

		snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
		assert_int_not_equal(access(tmp, F_OK), 0);
	}
	assert_int_equal(unlink(path), 0);
}

static void test_journal_owner_liveness(void **state)
{
	struct features_journal j;
	pid_t child;
	int status;

	(void)state;
	child = fork();
	assert_true(child >= 0);
	if (!child)
		_exit(0);
	assert_int_equal(waitpid(child, &status, 0), child);
	fill_journal(&j, child, "A \n");
	j.start_ticks = 1;
	assert_false(features_journal_owner_alive(&j)); /* reaped: gone */

	fill_journal(&j, getpid(), "A \n");
	j.start_ticks = self_start_ticks() + 1; /* same pid, another process */
	assert_false(features_journal_owner_alive(&j));

	fill_journal(&j, getpid(), "A \n");
	j.start_ticks = self_start_ticks();
	snprintf(j.boot_id, sizeof(j.boot_id), "00000000-0000-0000-0000-000000000000");
	assert_false(features_journal_owner_alive(&j)); /* another boot */

	/* a zombie (dead, not reaped yet by its parent) restores nothing: dead */
	child = fork();
	assert_true(child >= 0);
	if (!child)
		_exit(0);
	{
		siginfo_t si;
		char stat_path[64], *text = NULL, *p;
		int i;

		memset(&si, 0, sizeof(si));
		assert_int_equal(waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT), 0);
		snprintf(stat_path, sizeof(stat_path), "/proc/%d/stat", (int)child);
		assert_int_equal(read_file(stat_path, &text, NULL), 0);
		p = strrchr(text, ')') + 1;
		for (i = 3; i < 22; i++)
			p = strchr(p + 1, ' ');
		fill_journal(&j, child, "A \n");
		j.start_ticks = strtoull(p + 1, NULL, 10);
		free(text);
	}
	assert_false(features_journal_owner_alive(&j));
	assert_int_equal(waitpid(child, &status, 0), child);
}

static void test_recover_live_and_other_boot(void **state)
{
	struct features_journal j;
	enum features_fail fail;
	char path[PATH_MAX], why[1024];
	pid_t owner = 0;
	struct stat st;

	(void)state;
	features_journal_path(tmpdir, path, sizeof(path));
	/* nothing to do */
	assert_int_equal(features_recover(tmpdir, &owner, &fail, why, sizeof(why)), 0);
	assert_int_equal(stat(tmpdir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);

	/* a live owner (the parent of this test) keeps its journal */
	fill_journal(&j, getppid(), "A \n");
	{
		char stat_path[64], *text = NULL, *p;
		int i;

		snprintf(stat_path, sizeof(stat_path), "/proc/%d/stat", (int)getppid());
		assert_int_equal(read_file(stat_path, &text, NULL), 0);
		p = strrchr(text, ')') + 1;
		for (i = 3; i < 22; i++)
			p = strchr(p + 1, ' ');
		j.start_ticks = strtoull(p + 1, NULL, 10);
		free(text);
	}
	assert_int_equal(features_journal_write(path, &j, why, sizeof(why)), 0);
	assert_int_equal(features_recover(tmpdir, &owner, &fail, why, sizeof(why)), 1);
	assert_int_equal(owner, getppid());
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(unlink(path), 0);

	/* from an earlier boot: removed without touching any debugfs */
	fill_journal(&j, 1, "A \n");
	snprintf(j.boot_id, sizeof(j.boot_id), "00000000-0000-0000-0000-000000000000");
	assert_int_equal(features_journal_write(path, &j, why, sizeof(why)), 0);
	assert_int_equal(features_recover(tmpdir, &owner, &fail, why, sizeof(why)), 0);
	assert_int_not_equal(access(path, F_OK), 0);

	/* a dead owner whose debugfs is gone: the journal is kept, the failure said */
	fill_journal(&j, 1, "A \n");
	j.start_ticks = 999999999999ull; /* pid 1 started at another tick: not the owner */
	assert_int_equal(features_journal_write(path, &j, why, sizeof(why)), 0);
	why[0] = '\0';
	assert_int_equal(features_recover(tmpdir, &owner, &fail, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "cannot restore"));
	assert_int_equal(fail, FEATURES_NO_DEBUGFS);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(unlink(path), 0);
}

/*
 * A dead owner whose pid is now ours (pid namespaces reuse low pids: a
 * container's wakebench often gets the same pid every time) is still dead:
 * its start time differs from ours, so its journal is recovered, not taken
 * for a live owner that refuses every later command.
 */
static void test_recover_journal_of_a_reused_pid(void **state)
{
	struct features_journal j;
	enum features_fail fail;
	char path[PATH_MAX], dir[PATH_MAX + 16], file[PATH_MAX + 32], why[1024];
	pid_t owner = 0;
	FILE *f;

	(void)state;
	features_journal_path(tmpdir, path, sizeof(path));
	snprintf(dir, sizeof(dir), "%s/debugfs", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/debugfs/sched", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/features", dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs("A NO_B \n", f); /* already as saved: recovery writes nothing */
	fclose(f);

	fill_journal(&j, getpid(), "A NO_B \n");
	j.start_ticks = self_start_ticks() + 1; /* an earlier process with our pid */
	assert_int_equal(features_journal_write(path, &j, why, sizeof(why)), 0);
	owner = 0;
	why[0] = '\0';
	assert_int_equal(features_recover(tmpdir, &owner, &fail, why, sizeof(why)), 0);
	assert_int_not_equal(access(path, F_OK), 0);

	/* our own journal (same pid and start time) is still ours: busy */
	j.start_ticks = self_start_ticks();
	assert_int_equal(features_journal_write(path, &j, why, sizeof(why)), 0);
	assert_int_equal(features_recover(tmpdir, &owner, &fail, why, sizeof(why)), 1);
	assert_int_equal(owner, getpid());
	assert_int_equal(unlink(path), 0);
}

/*
 * The journal is read by a later command, likely from another directory:
 * a relative --debugfs must be saved as an absolute path, or the recovery
 * of a crashed run writes to the wrong place (or fails).
 */
static void test_journal_saves_an_absolute_debugfs(void **state)
{
	struct features_session s;
	struct features_journal j;
	char cwd[PATH_MAX], dir[PATH_MAX + 32], file[PATH_MAX + 48], sdir[PATH_MAX + 16];
	char want[PATH_MAX + 16], why[1024];
	FILE *f;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(dir, sizeof(dir), "%s/dbg", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/dbg/sched", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/features", dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs("A NO_B \n", f);
	fclose(f);
	snprintf(sdir, sizeof(sdir), "%s/state", tmpdir);
	assert_int_equal(chdir(tmpdir), 0);
	why[0] = '\0';
	assert_int_equal(features_session_begin(&s, "dbg", sdir, why, sizeof(why)), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(features_journal_read(s.journal, &j, why, sizeof(why)), 0);
	assert_true(realpath(tmpdir, want) != NULL);
	strncat(want, "/dbg", sizeof(want) - strlen(want) - 1);
	assert_string_equal(j.debugfs, want);
	assert_int_equal(features_session_restore(&s, why, sizeof(why)), 0);
	assert_int_not_equal(access(s.journal, F_OK), 0);
}

/* A debugfs stand-in (plain files) in tmpdir/dbg with "A NO_B". */
static void make_plain_debugfs(char *dbg, size_t len)
{
	char dir[PATH_MAX + 32], file[PATH_MAX + 48];
	FILE *f;

	snprintf(dbg, len, "%s/dbg", tmpdir);
	assert_int_equal(mkdir(dbg, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/sched", dbg);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/features", dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs("A NO_B \n", f);
	assert_int_equal(fclose(f), 0);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

/* A session must fail in sdir with why naming it and the reason; nothing is created. */
static void assert_refused(const char *dbg, const char *sdir, const char *reason)
{
	struct features_session s;
	char why[1024], lock[PATH_MAX + 32];

	why[0] = '\0';
	assert_int_equal(features_session_begin(&s, dbg, sdir, why, sizeof(why)), -1);
	if (!strstr(why, sdir) || !strstr(why, reason))
		fail_msg("'%s' does not name '%s' and '%s'", why, sdir, reason);
	assert_int_equal(s.fail, FEATURES_IO);
	snprintf(lock, sizeof(lock), "%s/features.lock", sdir);
	assert_int_not_equal(access(lock, F_OK), 0);
	snprintf(lock, sizeof(lock), "%s/features.journal", sdir);
	assert_int_not_equal(access(lock, F_OK), 0);
}

/*
 * The state directory is created 0700 when absent, and an existing one is
 * refused, never chmod'ed, when it is a symbolic link (its target keeps its
 * mode and gets no files), not a directory, writable by others (a 1777
 * directory stays 1777) or by its group, or owned by another user.
 */
static void test_state_dir_is_ours_or_refused(void **state)
{
	struct features_session s;
	char dbg[PATH_MAX], sdir[PATH_MAX + 16], target[PATH_MAX + 16], why[1024];

	(void)state;
	make_plain_debugfs(dbg, sizeof(dbg));

	/* absent: created private, with its missing parents */
	snprintf(sdir, sizeof(sdir), "%s/run/wb", tmpdir);
	assert_int_equal(features_session_begin(&s, dbg, sdir, why, sizeof(why)), 0);
	assert_int_equal(mode_of(sdir), 0700);
	assert_int_equal(features_session_restore(&s, why, sizeof(why)), 0);

	/* a symbolic link to a directory: refused, the target untouched */
	snprintf(target, sizeof(target), "%s/target", tmpdir);
	assert_int_equal(mkdir(target, 0755), 0);
	assert_int_equal(chmod(target, 0755), 0);
	snprintf(sdir, sizeof(sdir), "%s/link", tmpdir);
	assert_int_equal(symlink(target, sdir), 0);
	assert_refused(dbg, sdir, "symbolic link");
	assert_int_equal(mode_of(target), 0755);
	{
		char lock[PATH_MAX + 32];

		snprintf(lock, sizeof(lock), "%s/features.lock", target);
		assert_int_not_equal(access(lock, F_OK), 0);
	}
	/* a dangling one too (mkdir must not create its target) */
	snprintf(sdir, sizeof(sdir), "%s/dangling", tmpdir);
	snprintf(target, sizeof(target), "%s/nowhere", tmpdir);
	assert_int_equal(symlink(target, sdir), 0);
	assert_refused(dbg, sdir, "symbolic link");
	assert_int_not_equal(access(target, F_OK), 0);

	/* not a directory */
	snprintf(sdir, sizeof(sdir), "%s/file", tmpdir);
	fclose(fopen(sdir, "w"));
	assert_refused(dbg, sdir, "not a directory");

	/* writable by others (a shared /tmp-like directory): refused, mode kept */
	snprintf(sdir, sizeof(sdir), "%s/shared", tmpdir);
	assert_int_equal(mkdir(sdir, 0700), 0);
	assert_int_equal(chmod(sdir, 01777), 0);
	assert_refused(dbg, sdir, "writable by others");
	assert_int_equal(mode_of(sdir), 01777);

	/* writable by its group */
	snprintf(sdir, sizeof(sdir), "%s/group", tmpdir);
	assert_int_equal(mkdir(sdir, 0700), 0);
	assert_int_equal(chmod(sdir, 0770), 0);
	assert_refused(dbg, sdir, "writable by its group");
	assert_int_equal(mode_of(sdir), 0770);

	/* a readable 0755 directory of ours is fine, and stays 0755 */
	snprintf(sdir, sizeof(sdir), "%s/open", tmpdir);
	assert_int_equal(mkdir(sdir, 0700), 0);
	assert_int_equal(chmod(sdir, 0755), 0);
	assert_int_equal(features_session_begin(&s, dbg, sdir, why, sizeof(why)), 0);
	assert_int_equal(features_session_restore(&s, why, sizeof(why)), 0);
	assert_int_equal(mode_of(sdir), 0755);

	/* another user's (root can make one) */
	if (geteuid() == 0) {
		snprintf(sdir, sizeof(sdir), "%s/theirs", tmpdir);
		assert_int_equal(mkdir(sdir, 0700), 0);
		assert_int_equal(chown(sdir, 65534, 65534), 0);
		assert_refused(dbg, sdir, "belongs to uid 65534");
	}
}

/* A journal or lock that is a symbolic link is not followed. */
static void test_state_files_are_not_followed(void **state)
{
	struct features_session s;
	enum features_fail fail;
	char dbg[PATH_MAX], sdir[PATH_MAX + 16], path[PATH_MAX + 48], other[PATH_MAX + 16];
	char why[1024];
	pid_t owner = 0;
	FILE *f;

	(void)state;
	make_plain_debugfs(dbg, sizeof(dbg));
	snprintf(sdir, sizeof(sdir), "%s/state", tmpdir);
	assert_int_equal(mkdir(sdir, 0700), 0);
	snprintf(other, sizeof(other), "%s/elsewhere", tmpdir);
	f = fopen(other, "w");
	assert_non_null(f);
	fputs("wakebench-features-journal 1\n", f);
	assert_int_equal(fclose(f), 0);

	/* the journal: recovery refuses to read through the link */
	features_journal_path(sdir, path, sizeof(path));
	assert_int_equal(symlink(other, path), 0);
	why[0] = '\0';
	assert_int_equal(features_recover(sdir, &owner, &fail, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "symbolic link"));
	assert_int_equal(unlink(path), 0);

	/* the lock: not opened (nor created) through the link */
	snprintf(path, sizeof(path), "%s/features.lock", sdir);
	snprintf(other, sizeof(other), "%s/lock-target", tmpdir);
	unlink(path); /* the recovery above created it */
	assert_int_equal(symlink(other, path), 0);
	why[0] = '\0';
	assert_int_equal(features_session_begin(&s, dbg, sdir, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "features.lock"));
	assert_int_not_equal(access(other, F_OK), 0);
}

static void write_debug(const char *dir, unsigned long long mask)
{
	char path[PATH_MAX + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sched", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/sched/debug", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f,
		"Sched Debug Version: v0.11, test\n\nsysctl_sched\n"
		"  .sysctl_sched_base_slice                 : 0.750000\n"
		"  .sysctl_sched_features                   : %llu\n"
		"  .sysctl_sched_tunable_scaling            : 1 (logarithmic)\n",
		mask);
	assert_int_equal(fclose(f), 0);
}

static void test_btf_decodes_the_debug_bitmask(void **state)
{
	unsigned long long mask, back = 0;
	struct features f;
	char why[1024];
	size_t i;

	(void)state;
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		wb_skip("this kernel has no BTF (/sys/kernel/btf/vmlinux)");
		return;
	}
	write_debug(tmpdir, 0);
	if (features_read_debug(tmpdir, NULL, &f, why, sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(f.source, FEATURES_SRC_DEBUG_BTF);
	assert_true(f.n >= 20 && f.n <= 32);
	assert_int_equal(features_find(&f, "PLACE_LAG"), 0); /* bit 0 since 6.6 */
	for (i = 0; i < f.n; i++)
		assert_false(f.on[i]);

	/* an alternating pattern comes back bit for bit, in bit order */
	mask = 0x2aaaaaaaull & ((1ull << f.n) - 1);
	write_debug(tmpdir, mask);
	assert_int_equal(features_read_debug(tmpdir, NULL, &f, why, sizeof(why)), 0);
	for (i = 0; i < f.n; i++)
		if (f.on[i])
			back |= 1ull << i;
	assert_int_equal(back, mask);

	/* bits beyond the names the BTF knows are refused, not dropped */
	write_debug(tmpdir, 1ull << f.n);
	why[0] = '\0';
	assert_int_equal(features_read_debug(tmpdir, NULL, &f, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "beyond"));

	/* a dump without the line */
	{
		char path[PATH_MAX + 32];
		FILE *fp;

		snprintf(path, sizeof(path), "%s/sched/debug", tmpdir);
		fp = fopen(path, "w");
		fputs("Sched Debug Version: v0.11\n", fp);
		fclose(fp);
	}
	assert_int_equal(features_read_debug(tmpdir, NULL, &f, why, sizeof(why)), -1);
	assert_int_equal(f.fail, FEATURES_INVALID);
}

/* This machine's own state, read-only (works under lockdown). */
static void test_btf_decodes_this_machine(void **state)
{
	struct features f;
	char why[1024];

	(void)state;
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		wb_skip("this kernel has no BTF (/sys/kernel/btf/vmlinux)");
		return;
	}
	if (access("/sys/kernel/debug/sched/debug", R_OK)) {
		wb_skip("cannot read /sys/kernel/debug/sched/debug%s%s", *wb_mounts_why ? ": " : "",
			wb_mounts_why);
		return;
	}
	if (features_read_debug("/sys/kernel/debug", NULL, &f, why, sizeof(why)))
		fail_msg("%s", why);
	assert_true(f.n >= 20);
	/* when the file itself is readable, both views must agree */
	{
		struct features file;

		if (!features_read("/sys/kernel/debug", &file, why, sizeof(why))) {
			size_t i;

			assert_int_equal(file.n, f.n);
			for (i = 0; i < f.n; i++) {
				assert_string_equal(file.name[i], f.name[i]);
				assert_int_equal(file.on[i], f.on[i]);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_fixture_parses_and_round_trips),
		cmocka_unit_test(test_malformed_lines_are_rejected),
		cmocka_unit_test(test_tokens_are_validated_against_the_live_list),
		cmocka_unit_test(test_failures_are_classified),
		cmocka_unit_test_setup_teardown(test_journal_round_trip_and_lock, make_tmpdir,
						remove_tmpdir),
		cmocka_unit_test(test_journal_owner_liveness),
		cmocka_unit_test_setup_teardown(test_recover_live_and_other_boot, make_tmpdir,
						remove_tmpdir),
		cmocka_unit_test_setup_teardown(test_recover_journal_of_a_reused_pid, make_tmpdir,
						remove_tmpdir),
		cmocka_unit_test_setup_teardown(test_journal_saves_an_absolute_debugfs, make_tmpdir,
						remove_tmpdir),
		cmocka_unit_test_setup_teardown(test_state_dir_is_ours_or_refused, make_tmpdir,
						remove_tmpdir),
		cmocka_unit_test_setup_teardown(test_state_files_are_not_followed, make_tmpdir,
						remove_tmpdir),
		cmocka_unit_test_setup_teardown(test_btf_decodes_the_debug_bitmask, make_tmpdir,
						remove_tmpdir),
		cmocka_unit_test(test_btf_decodes_this_machine),
	};

	wb_kernel_mounts();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
