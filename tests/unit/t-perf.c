/*
 * t-perf.c: the probes of probes.c on a forked pair of our own that plays
 * perf-bench-style ping-pong over two pipes on one CPU: the perf counters
 * see about two context switches per round trip when permitted, and report
 * "unavailable (perf_event_paranoid=N)" (never a zero) to a user without
 * privileges; the delayed-entity sampler yields readings as root, and a
 * reason when sched/debug is missing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/sample.h"
#include "sys/perf.h"
#include "runner/probes.h"
#include "util/util.h"

#define ROUND_TRIPS 2000

struct pair {
	pid_t pid[2];
	int go[2];
};

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Fork the two tasks; they wait for a byte on go before playing. */
static void pair_spawn(struct pair *p)
{
	int a[2], b[2], t;

	if (pipe(p->go) || pipe(a) || pipe(b))
		fail_msg("pipe: %s", strerror(errno));
	for (t = 0; t < 2; t++) {
		p->pid[t] = fork();
		if (p->pid[t] < 0)
			fail_msg("fork: %s", strerror(errno));
		if (p->pid[t] == 0) {
			uint32_t token = 0;
			char c;
			int i, rd = t ? a[0] : b[0], wr = t ? b[1] : a[1];

			pin_cpu0();
			if (read(p->go[0], &c, 1) != 1)
				_exit(3);
			for (i = 0; i < ROUND_TRIPS; i++) {
				if (t == 1 && write(wr, &token, 4) != 4)
					_exit(4);
				if (read(rd, &token, 4) != 4)
					_exit(5);
				if (t == 0 && write(wr, &token, 4) != 4)
					_exit(4);
			}
			_exit(0);
		}
	}
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	close(p->go[0]);
}

/* Release both, wait until both exited without reaping them (WNOWAIT). */
static void pair_play(struct pair *p)
{
	siginfo_t si;
	int t;

	if (write(p->go[1], "gg", 2) != 2)
		fail_msg("release: %s", strerror(errno));
	close(p->go[1]);
	for (t = 0; t < 2; t++)
		if (waitid(P_PID, (id_t)p->pid[t], &si, WEXITED | WNOWAIT))
			fail_msg("waitid: %s", strerror(errno));
}

static int pair_reap(struct pair *p)
{
	int t, st, bad = 0;

	for (t = 0; t < 2; t++) {
		if (waitpid(p->pid[t], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	return bad;
}

/* One "sample" of the pair with every probe of ps. */
static void run_pair(struct probe_set *ps, struct sample *s)
{
	struct pair p;
	size_t i;

	sample_init(s);
	pair_spawn(&p);
	for (i = 0; i < ps->n; i++)
		if (ps->probes[i].ops->start(ps->probes[i].state, p.pid, 2))
			fail_msg("probe %s failed to start", ps->probes[i].ops->name);
	pair_play(&p);
	s->ops = ROUND_TRIPS;
	for (i = 0; i < ps->n; i++)
		ps->probes[i].ops->stop(ps->probes[i].state, s);
	if (pair_reap(&p))
		fail_msg("a task of the pair failed");
}

static void test_perf_counts_switches(void **state)
{
	struct probe_set ps;
	struct probe_params pp = probe_defaults;
	struct sample *s = malloc(sizeof(*s));
	const struct metric *m;
	char err[256];

	(void)state;
	if (wb_no_perf_events(err, sizeof(err))) {
		free(s);
		wb_skip("%s", err);
	}
	if (!perf_privileged() && perf_paranoid() >= 2) {
		free(s);
		wb_skip("perf counters need root or perf_event_paranoid < 2 (it is %d)",
			perf_paranoid());
	}
	pp.perf_counters = true;
	assert_int_equal(probes_setup(&ps, &pp, "/sys/kernel/debug", err, sizeof(err)), 0);
	run_pair(&ps, s);
	m = sample_get(s, "perf_ctxsw_per_op");
	assert_non_null(m);
	if (!m->available)
		fail_msg("perf counters unavailable: %s", m->why);
	/* on one CPU every round trip switches to the other task and back */
	if (m->value < 1.5 || m->value > 2.5)
		fail_msg("perf_ctxsw_per_op %g not about 2", m->value);
	assert_int_equal(m->flags & METRIC_EVIDENCE, METRIC_EVIDENCE);
	assert_int_equal(m->better, BETTER_LOWER);
	m = sample_get(s, "perf_migrations_per_kop");
	assert_non_null(m);
	assert_true(m->available);
	assert_true(m->value >= 0 && m->value < 100);
	probes_release(&ps);
	free(s);
}

/* As nobody under perf_event_paranoid >= 2: unavailable with the reason. */
static void test_perf_unprivileged(void **state)
{
	pid_t pid;
	int st, paranoid = perf_paranoid();
	char want[64], why[256];

	(void)state;
	if (wb_no_perf_events(why, sizeof(why)))
		wb_skip("%s", why);
	if (geteuid() != 0 || paranoid < 2)
		wb_skip("needs root to become nobody and perf_event_paranoid >= 2 (it is %d)",
			paranoid);
	snprintf(want, sizeof(want), "unavailable (perf_event_paranoid=%d)", paranoid);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct probe_set ps;
		struct probe_params pp = probe_defaults;
		struct sample *s = malloc(sizeof(*s));
		const struct metric *m;
		char err[256];

		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(10);
		pp.perf_counters = true;
		if (probes_setup(&ps, &pp, "/sys/kernel/debug", err, sizeof(err)))
			_exit(11);
		run_pair(&ps, s);
		m = sample_get(s, "perf_ctxsw_per_op");
		if (!m || m->available || strcmp(m->why, want))
			_exit(12);
		m = sample_get(s, "perf_migrations_per_kop");
		if (!m || m->available || m->value != 0 || strcmp(m->why, want))
			_exit(13);
		/* sched/debug is root-only: a reason naming the file, not a number */
		m = sample_get(s, "delayed_mean");
		if (!m || m->available || !strstr(m->why, "sched/debug"))
			_exit(14);
		probes_release(&ps);
		free(s);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_trace_pair(void **state)
{
	struct probe_set ps;
	struct sample *s = malloc(sizeof(*s));
	const struct metric *p50, *p99, *max, *m;
	struct probe_params pp = probe_defaults;
	char err[512];

	(void)state;
	pp.trace = TRACE_ON;
	if (probes_setup(&ps, &pp, "/sys/kernel/debug", err, sizeof(err))) {
		free(s);
		wb_skip("tracing not possible here: %s", err);
	}
	assert_true(probes_tracing(&ps));
	assert_int_equal(probes_untraced(&ps).n, ps.n - 1);
	run_pair(&ps, s);
	p50 = sample_get(s, "wakeup_lat_p50_ns");
	p99 = sample_get(s, "wakeup_lat_p99_ns");
	max = sample_get(s, "wakeup_lat_max_ns");
	assert_true(p50 && p99 && max);
	if (!p50->available)
		fail_msg("p50 unavailable: %s", p50->why);
	assert_true(p50->value > 0);
	assert_true(p50->value <= p99->value);
	assert_true(p99->value <= max->value);
	m = sample_get(s, "wakeups_per_op");
	assert_true(m && m->available);
	/*
	 * on one CPU a round trip wakes one task (the other was preempted
	 * before it could block) or both
	 */
	if (m->value < 0.9 || m->value > 2.1)
		fail_msg("wakeups_per_op %g not about 2", m->value);
	m = sample_get(s, "preempt_share");
	assert_true(m && m->available && m->value >= 0 && m->value <= 1);
	m = sample_get(s, "wake_prev_cpu_share");
	/* both tasks are pinned to CPU 0: every wakeup lands on the previous CPU */
	assert_true(m && m->available);
	if (m->value < 0.99)
		fail_msg("wake_prev_cpu_share %g with both tasks pinned", m->value);
	m = sample_get(s, "trace_migrations_per_kop");
	assert_true(m && m->available);
	m = sample_get(s, "trace_low_confidence");
	assert_true(m && m->available && m->value == 0);
	print_message("# wakeup latency p50 %.0f p99 %.0f max %.0f ns, wakeups/op %.3f, "
		      "preempt share %.3f\n",
		      p50->value, p99->value, max->value, sample_get(s, "wakeups_per_op")->value,
		      sample_get(s, "preempt_share")->value);
	probes_release(&ps);
	free(s);
}

static void test_trace_unprivileged(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	if (geteuid() != 0 || perf_paranoid() < 2)
		wb_skip("needs root to become nobody and perf_event_paranoid >= 2 (it is %d)",
			perf_paranoid());
	if (mounts_missing() & MOUNTS_TRACEFS)
		wb_skip("tracefs is not mounted: %s", wb_mounts_why);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct probe_set ps;
		struct probe_params pp = probe_defaults;
		char err[512] = "";

		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(10);
		pp.trace = TRACE_ON;
		if (probes_setup(&ps, &pp, "/sys/kernel/debug", err, sizeof(err)) != -1)
			_exit(11);
		if (!strstr(err, "--trace needs root or CAP_PERFMON"))
			_exit(12);
		pp.trace = TRACE_AUTO;
		if (probes_setup(&ps, &pp, "/sys/kernel/debug", err, sizeof(err)) != 0)
			_exit(13);
		if (probes_tracing(&ps))
			_exit(14);
		probes_release(&ps);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_delayed_sampler(void **state)
{
	struct probe_set ps;
	struct sample *s = malloc(sizeof(*s));
	const struct metric *m;
	char err[256];
	size_t i;
	pid_t self = getpid();

	(void)state;
	if (access("/sys/kernel/debug/sched/debug", R_OK)) {
		free(s);
		wb_skip("cannot read /sys/kernel/debug/sched/debug%s%s", *wb_mounts_why ? ": " : "",
			wb_mounts_why);
	}
	assert_int_equal(probes_setup(&ps, &probe_defaults, "/sys/kernel/debug", err, sizeof(err)),
			 0);
	sample_init(s);
	s->ops = 1;
	for (i = 0; i < ps.n; i++)
		assert_int_equal(ps.probes[i].ops->start(ps.probes[i].state, &self, 1), 0);
	sleep_ns(330000000ULL);
	for (i = 0; i < ps.n; i++)
		ps.probes[i].ops->stop(ps.probes[i].state, s);
	m = sample_get(s, "delayed_mean");
	assert_non_null(m);
	if (!m->available)
		fail_msg("delayed_mean unavailable: %s", m->why);
	assert_true(m->value >= 0);
	m = sample_get(s, "delayed_max");
	assert_true(m && m->available && m->value >= 0);
	/* perf counters are opt-in: not asked, not there */
	assert_null(sample_get(s, "perf_ctxsw_per_op"));
	probes_release(&ps);
	free(s);
}

static void test_delayed_missing(void **state)
{
	struct probe_set ps;
	struct sample *s = malloc(sizeof(*s));
	const struct metric *m;
	char err[256];
	size_t i;
	pid_t self = getpid();

	(void)state;
	assert_int_equal(probes_setup(&ps, &probe_defaults, "/nonexistent", err, sizeof(err)), 0);
	sample_init(s);
	s->ops = 1;
	for (i = 0; i < ps.n; i++)
		assert_int_equal(ps.probes[i].ops->start(ps.probes[i].state, &self, 1), 0);
	for (i = 0; i < ps.n; i++)
		ps.probes[i].ops->stop(ps.probes[i].state, s);
	m = sample_get(s, "delayed_mean");
	assert_non_null(m);
	assert_false(m->available);
	assert_non_null(strstr(m->why, "cannot read '/nonexistent/sched/debug'"));
	probes_release(&ps);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_counts_switches),
		cmocka_unit_test(test_perf_unprivileged),
		cmocka_unit_test(test_trace_pair),
		cmocka_unit_test(test_trace_unprivileged),
		cmocka_unit_test(test_delayed_sampler),
		cmocka_unit_test(test_delayed_missing),
	};

	wb_kernel_mounts();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
