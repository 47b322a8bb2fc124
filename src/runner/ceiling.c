/*
 * ceiling.c: the no-wakeup ceiling of ceiling.h.
 *
 * Each task is a forked process that waits on a start pipe (EOF releases
 * every task at once), loops write+read on its own pipe until the parent
 * raises a shared stop flag, and leaves its pair count and its own
 * usr+sys time over the loop (getrusage RUSAGE_SELF before and after) in
 * shared memory. A task dies with the parent (PR_SET_PDEATHSIG) and
 * ignores the stop signals: the parent ends the window, so Ctrl-C stops
 * the tasks within one pass of their loop.
 */
#include "runner/ceiling.h"
#include "stats/stats.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct ceiling_task {
	volatile uint64_t pairs;
	volatile double cpu_s;
	volatile int failed; /* errno of a failed call */
	char pad[64 - 2 * sizeof(uint64_t) - sizeof(int)];
};

struct ceiling_shm {
	volatile int stop;
	char pad[60];
	struct ceiling_task task[];
};

static const uint64_t token_bytes = 4;

int ceiling_shape_of(const struct run_spec *spec, struct ceiling_shape *cs, char *err,
		     size_t errlen)
{
	const struct workload *wl = spec->wl;
	const struct opt *o;

	memset(cs, 0, sizeof(*cs));
	cs->bytes = token_bytes;
	if (!strcmp(wl->name, "pingpong")) {
		cs->pairs_per_op = 2;
	} else if (!strcmp(wl->name, "pipe")) {
		cs->pairs_per_op = 1;
		cs->packet = true;
	} else {
		snprintf(err, errlen,
			 "option '--ceiling': workload '%s' has no pipe data path to measure "
			 "without wakeups, allowed for pipe and pingpong",
			 wl->name);
		return -1;
	}
	for (o = wl->opts; o && o->type != OPT_END; o++)
		if (o->type == OPT_SIZE && o->long_name && !strcmp(o->long_name, "data-size"))
			memcpy(&cs->bytes, (const char *)spec->wl_params + o->offset,
			       sizeof(cs->bytes));
	if (!cs->bytes || cs->bytes > 1 << 20)
		cs->bytes = token_bytes;
	return 0;
}

double ceiling_share(unsigned pairs_per_op, double ops_per_cpu_s, double ceiling_pairs_per_cpu_s)
{
	if (!(ops_per_cpu_s > 0) || !(ceiling_pairs_per_cpu_s > 0))
		return 0;
	return 1.0 - (double)pairs_per_op * ops_per_cpu_s / ceiling_pairs_per_cpu_s;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static NORETURN void task_main(struct ceiling_shm *shm, unsigned i, int start_fd, int cpu,
			       const struct ceiling_shape *cs)
{
	struct ceiling_task *t = &shm->task[i];
	char *buf = xcalloc(1, cs->bytes);
	uint64_t pairs = 0;
	double c0;
	int p[2], r;
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(1);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			t->failed = errno;
			_exit(1);
		}
	}
	r = cs->packet ? pipe2(p, O_DIRECT) : -1;
	if (r && pipe(p)) {
		t->failed = errno;
		_exit(1);
	}
	while (read(start_fd, &c, 1) < 0 && errno == EINTR)
		;
	c0 = cpu_seconds();
	do { /* at least one pair, however late this task got a CPU */
		if (write(p[1], buf, cs->bytes) != (ssize_t)cs->bytes ||
		    read(p[0], buf, cs->bytes) != (ssize_t)cs->bytes) {
			t->failed = errno ? errno : EIO;
			break;
		}
		pairs++;
	} while (!shm->stop);
	t->cpu_s = cpu_seconds() - c0;
	t->pairs = pairs;
	_exit(t->failed ? 1 : 0);
}

int ceiling_measure(const struct run_spec *spec, const struct ceiling_shape *cs,
		    uint64_t duration_ns, struct ceiling_result *out, char *err, size_t errlen)
{
	unsigned n = (unsigned)(spec->rp->instances ? spec->rp->instances : 1), i, started = 0;
	size_t len = sizeof(struct ceiling_shm) + n * sizeof(struct ceiling_task);
	struct ceiling_shm *shm;
	struct timespec t0, t1, nap = { 0, 10 * 1000 * 1000 };
	int cpus[CPU_SETSIZE], ncpus, start[2], ret = 0;
	pid_t *pids;
	uint64_t elapsed = 0;

	memset(out, 0, sizeof(*out));
	shm = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		snprintf(err, errlen, "cannot map the ceiling's shared memory: %s",
			 strerror(errno));
		return -1;
	}
	memset(shm, 0, len);
	if (pipe2(start, O_CLOEXEC)) {
		snprintf(err, errlen, "cannot create the ceiling's start pipe: %s",
			 strerror(errno));
		munmap(shm, len);
		return -1;
	}
	ncpus = runner_allowed_cpus(cpus, CPU_SETSIZE);
	pids = xcalloc(n, sizeof(*pids));
	for (i = 0; i < n; i++) {
		int cpu = spec->rp->placement == PLACE_ANY || ncpus <= 0
				  ? -1
				  : cpus[i % (unsigned)ncpus];

		pids[i] = fork();
		if (pids[i] < 0) {
			snprintf(err, errlen, "cannot fork a ceiling task: %s", strerror(errno));
			ret = -1;
			break;
		}
		if (!pids[i]) {
			close(start[1]);
			task_main(shm, i, start[0], cpu, cs);
		}
		started++;
	}
	close(start[0]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	close(start[1]); /* EOF: every task starts */
	while (!ret && elapsed < duration_ns) {
		if (runner_stop_signal()) {
			snprintf(err, errlen, "stopped by %s", signal_name(runner_stop_signal()));
			ret = -1;
			break;
		}
		if (duration_ns - elapsed < (uint64_t)nap.tv_nsec)
			nap.tv_nsec = (long)(duration_ns - elapsed);
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		elapsed = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ULL +
			  (uint64_t)(t1.tv_nsec - t0.tv_nsec);
	}
	shm->stop = 1;
	for (i = 0; i < started; i++) {
		int status;

		while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR)
			;
		if (!ret && (!WIFEXITED(status) || WEXITSTATUS(status))) {
			snprintf(err, errlen, "a ceiling task failed: %s",
				 shm->task[i].failed ? strerror(shm->task[i].failed) : "killed");
			ret = -1;
		}
		out->pairs += shm->task[i].pairs;
		out->cpu_s += shm->task[i].cpu_s;
	}
	out->wall_s = (double)elapsed / 1e9;
	if (!ret && (!out->pairs || !(out->cpu_s > 0))) {
		snprintf(err, errlen,
			 "the ceiling tasks measured nothing (%llu pairs in %.3f CPU-s)",
			 (unsigned long long)out->pairs, out->cpu_s);
		ret = -1;
	}
	free(pids);
	munmap(shm, len);
	return ret;
}

void ceiling_sample(const struct run_spec *spec, const struct ceiling_shape *cs,
		    uint64_t duration_ns, struct sample *s)
{
	struct ceiling_result r;
	char err[METRIC_WHY_MAX - 16];
	double rate;

	if (ceiling_measure(spec, cs, duration_ns, &r, err, sizeof(err))) {
		sample_na(s, "ceiling_pairs_per_cpu_s", "unavailable (%s)", err);
		sample_na(s, "sched_share", "unavailable (%s)", err);
		return;
	}
	rate = (double)r.pairs / r.cpu_s;
	sample_put(s, "ceiling_pairs_per_cpu_s", rate);
	if (s->ops_per_cpu_s > 0)
		sample_put(s, "sched_share",
			   ceiling_share(cs->pairs_per_op, s->ops_per_cpu_s, rate));
	else
		sample_na(s, "sched_share", "unavailable (the sample has no ops per CPU-second)");
}

void ceiling_summary_line(const struct summary *sum, const char *why, char *buf, size_t len)
{
	if (!sum || !sum->n) {
		snprintf(buf, len, "scheduler and wakeup share of the cost: %s",
			 why && why[0] ? why : "unavailable");
		return;
	}
	if (sum->ci_valid)
		snprintf(buf, len,
			 "scheduler and wakeup share of the cost: %.1f%% [%.1f%%, %.1f%%] (median "
			 "of %zu samples, %.1f%% CI)",
			 sum->median * 100.0, sum->ci_lo * 100.0, sum->ci_hi * 100.0, sum->n,
			 sum->ci_level * 100.0);
	else
		snprintf(buf, len,
			 "scheduler and wakeup share of the cost: %.1f%% [CI: n too small] (median "
			 "of %zu sample%s)",
			 sum->median * 100.0, sum->n, sum->n == 1 ? "" : "s");
}
