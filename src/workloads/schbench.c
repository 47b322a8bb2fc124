/*
 * schbench.c: Chris Mason's schbench, reproduced (github.com/masoncl/schbench,
 * schbench.c at commit 24e32b8, 2025-12-23; doc/workloads.md).
 *
 * One instance is one schbench process, all threads: M message threads,
 * each with W worker threads. A worker's request loop: put itself on its
 * message thread's wake list, post the message thread and block on its own
 * futex; the message thread takes the whole list, reads the clock once for
 * the batch, stores that time in each worker and posts it. The woken worker
 * reads the clock as soon as its futex wait returns: the difference is the
 * wakeup latency (schbench's "Wakeup Latencies"), the scheduler's delay
 * from being woken to running, plus the syscall exits on both sides. Then
 * it does one request: sleep (100 us: "simulated networking, and a fresh
 * timeslice"), take its CPU's lock (a trylock spin: workers on one CPU
 * serialise their work, and a preempted lock holder stalls the others) and
 * multiply matrices of the cache footprint `operations` times; the request
 * latency is the time from before the sleep to the end of the work.
 *
 * Both latencies go into per-worker histograms (stats/hist.h, nanoseconds)
 * in the instance's shared area; metrics() merges the histograms of every
 * worker of every instance and reads p50, p90, p99 and p99.9 by the
 * nearest-rank rule at the bucket midpoint, as schbench's calc_percentiles
 * does. Only what happens inside the window is recorded: a wakeup or a
 * request that ends after the stop is not.
 *
 * Task t of an instance is in group t / (W + 1), the group's message
 * thread when t % (W + 1) == 0, else its worker t % (W + 1) - 1. Task 0,
 * the instance process's own thread, is group 0's message thread and
 * creates the other threads. Stopping: the runner clears the shared
 * running flag and interrupts every blocked futex wait or sleep (EINTR);
 * each message thread then posts its workers, and task 0 joins them all.
 */
#include <errno.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "core/instance.h"
#include "core/metrics.h"
#include "core/hist.h"
#include "util/util.h"
#include "workloads/workload.h"

struct schbench_params {
	uint64_t message_threads; /* -m */
	uint64_t workers;	  /* -t, per message thread; 0: online CPUs / -m, rounded up */
	uint64_t cache_footprint; /* -F, bytes (whole KiB) of matrices per worker */
	uint64_t operations;	  /* -n, matrix multiplications per request */
	uint64_t sleep_ns;	  /* -s, the sleep at the start of a request */
	uint64_t split;		  /* --split, percent of the footprint private per worker */
	bool no_locking;	  /* -L */
};

/* schbench 24e32b8 with no options (its -r 30 is wakebench's -t). */
static const struct schbench_params schbench_defaults = {
	.message_threads = 1,
	.workers = 0,
	.cache_footprint = 256 * 1024,
	.operations = 5,
	.sleep_ns = 100 * 1000,
	.split = 100,
	.no_locking = false,
};

#define SB_MAX_MESSAGE_THREADS 1024
#define SB_MAX_WORKERS	       1024
/* Each worker's two histograms take 70 KB of shared memory. */
#define SB_MAX_TASKS	  2048
#define SB_MAX_FOOTPRINT  (64ULL << 20)
#define SB_MAX_OPERATIONS 100000

static const struct opt schbench_opts[] = {
	{ .type = OPT_UINT,
	  .long_name = "message-threads",
	  .offset = offsetof(struct schbench_params, message_threads),
	  .argh = "N",
	  .help = "message threads per instance, each waking its own workers (schbench -m)",
	  .min = 1,
	  .max = SB_MAX_MESSAGE_THREADS },
	{ .type = OPT_UINT,
	  .long_name = "workers",
	  .offset = offsetof(struct schbench_params, workers),
	  .argh = "N",
	  .help = "worker threads per message thread; 0: online CPUs divided by "
		  "--message-threads, rounded up (schbench -t)",
	  .min = 0,
	  .max = SB_MAX_WORKERS },
	{ .type = OPT_SIZE,
	  .long_name = "cache-footprint",
	  .offset = offsetof(struct schbench_params, cache_footprint),
	  .argh = "SIZE",
	  .help = "matrices each worker multiplies, in whole KiB (schbench -F)",
	  .min = 0,
	  .max = (double)SB_MAX_FOOTPRINT },
	{ .type = OPT_UINT,
	  .long_name = "operations",
	  .offset = offsetof(struct schbench_params, operations),
	  .argh = "N",
	  .help = "matrix multiplications per request (schbench -n)",
	  .min = 0,
	  .max = SB_MAX_OPERATIONS },
	{ .type = OPT_DURATION,
	  .long_name = "sleep",
	  .offset = offsetof(struct schbench_params, sleep_ns),
	  .argh = "DURATION",
	  .help = "sleep at the start of every request, inside its latency (schbench -s)",
	  .min = 0,
	  .max = 1e9 },
	{ .type = OPT_UINT,
	  .long_name = "split",
	  .offset = offsetof(struct schbench_params, split),
	  .argh = "PERCENT",
	  .help = "percent of the cache footprint and operations private to each worker; "
		  "the rest is one set of matrices shared by the instance (schbench --split)",
	  .min = 0,
	  .max = 100 },
	{ .type = OPT_FLAG,
	  .long_name = "no-locking",
	  .offset = offsetof(struct schbench_params, no_locking),
	  .help = "no per-CPU lock around a request's work (schbench -L)" },
	OPT_END_ROW,
};

static const struct profile schbench_profiles[] = {
	{ .name = "schbench-24e32b8",
	  .summary = "schbench at commit 24e32b8 (2025-12-23) with its defaults: 1 message "
		     "thread, a worker per CPU, 256 KiB footprint, 5 operations, 100 us sleep, "
		     "per-CPU locking",
	  .params = &schbench_defaults,
	  .tool = "schbench" },
	{ .name = NULL },
};

#define SB_METRIC(n, l, u, b, a, h)                                                                \
	{                                                                                          \
		.name = n, .label = l, .unit = u, .better = b,                                     \
		.flags = METRIC_EVIDENCE | METRIC_PRIMARY, .agg = a, .source = "schbench",         \
		.help = h                                                                          \
	}
/* A percentile of the histogram whose values count_name counts. */
#define SB_PCT(n, l, q, count_name, h)                                                             \
	{                                                                                          \
		.name = n, .label = l, .unit = "ns", .better = BETTER_LOWER,                       \
		.flags = METRIC_EVIDENCE | METRIC_PRIMARY, .agg = AGG_HIST, .source = "schbench",  \
		.help = h, .quantile = q, .count = count_name                                      \
	}
/* How many values a histogram holds: what its percentiles rest on. */
#define SB_COUNT(n, l, h)                                                                          \
	{                                                                                          \
		.name = n, .label = l, .unit = "", .better = BETTER_NEUTRAL, .flags = METRIC_RAW,  \
		.agg = AGG_SUM, .source = "schbench", .help = h                                    \
	}

/* Indexes into schbench_metrics[]. */
enum { SB_WAKEUP = 0, SB_REQUEST = 4, SB_RPS = 8, SB_WAKEUP_COUNT = 9, SB_REQUEST_COUNT = 10 };

static const struct metric_def schbench_metrics[] = {
	SB_PCT("schbench_wakeup_p50_ns", "worker wakeup p50", 0.50, "schbench_wakeup_count",
	       "median time from a worker's wakeup by its message thread to its running "
	       "(schbench)"),
	SB_PCT("schbench_wakeup_p90_ns", "worker wakeup p90", 0.90, "schbench_wakeup_count",
	       "90th percentile of the worker wakeup latency (schbench)"),
	SB_PCT("schbench_wakeup_p99_ns", "worker wakeup p99", 0.99, "schbench_wakeup_count",
	       "99th percentile of the worker wakeup latency (schbench's starred figure)"),
	SB_PCT("schbench_wakeup_p999_ns", "worker wakeup p99.9", 0.999, "schbench_wakeup_count",
	       "99.9th percentile of the worker wakeup latency (schbench)"),
	SB_PCT("schbench_request_p50_ns", "request latency p50", 0.50, "schbench_request_count",
	       "median time of one request: its sleep plus its work (schbench)"),
	SB_PCT("schbench_request_p90_ns", "request latency p90", 0.90, "schbench_request_count",
	       "90th percentile of the request latency (schbench)"),
	SB_PCT("schbench_request_p99_ns", "request latency p99", 0.99, "schbench_request_count",
	       "99th percentile of the request latency (schbench)"),
	SB_PCT("schbench_request_p999_ns", "request latency p99.9", 0.999, "schbench_request_count",
	       "99.9th percentile of the request latency (schbench)"),
	SB_METRIC("requests_per_s", "requests/s", "requests/s", BETTER_HIGHER, AGG_RATE,
		  "requests completed by all workers per second (schbench's average rps)"),
	SB_COUNT("schbench_wakeup_count", "worker wakeups measured",
		 "worker wakeups the wakeup percentiles were read from, all workers (schbench)"),
	SB_COUNT("schbench_request_count", "requests measured",
		 "requests the request latency percentiles were read from, all workers "
		 "(schbench)"),
	{ .name = NULL },
};

/* One worker's results, in the instance's shared area. */
struct sb_stats {
	struct hist wakeup;
	struct hist request;
};

static unsigned sb_workers(const struct schbench_params *p)
{
	unsigned long cpus;

	if (p->workers)
		return (unsigned)p->workers;
	cpus = (unsigned long)get_nprocs();
	if (cpus < 1)
		cpus = 1;
	return (unsigned)((cpus + p->message_threads - 1) / p->message_threads);
}

static unsigned schbench_tasks(const void *params)
{
	const struct schbench_params *p = params;

	return (unsigned)(p->message_threads * (1 + sb_workers(p)));
}

static const char *const schbench_roles[] = { "message", "worker", NULL };

static void schbench_layout(const void *params, unsigned task, unsigned *group, unsigned *role)
{
	unsigned per_group = 1 + sb_workers(params);

	*group = task / per_group;
	*role = task % per_group ? 1 : 0;
}

static size_t schbench_shared_size(const void *params)
{
	const struct schbench_params *p = params;

	return (size_t)p->message_threads * sb_workers(p) * sizeof(struct sb_stats);
}

static int schbench_check(const void *params, const struct run_params *rp, char *err, size_t errlen)
{
	const struct schbench_params *p = params;
	unsigned w = sb_workers(p);
	uint64_t tasks = p->message_threads * (1 + (uint64_t)w);

	(void)rp;
	if (p->cache_footprint % 1024) {
		char val[32];

		format_size(p->cache_footprint, val, sizeof(val));
		snprintf(err, errlen,
			 "option '--cache-footprint': '%s' is not a whole number of KiB, "
			 "allowed 0..64M in steps of 1k",
			 val);
		return -1;
	}
	if (w > SB_MAX_WORKERS) {
		snprintf(err, errlen,
			 "option '--workers': 0 means %u workers per message thread here, "
			 "allowed at most %d: give --workers or more --message-threads",
			 w, SB_MAX_WORKERS);
		return -1;
	}
	if (tasks > SB_MAX_TASKS) {
		snprintf(err, errlen,
			 "options '--message-threads' and '--workers': %llu x (1 + %u) = %llu "
			 "threads per instance, allowed at most %d",
			 (unsigned long long)p->message_threads, w, (unsigned long long)tasks,
			 SB_MAX_TASKS);
		return -1;
	}
	return 0;
}

/* ---- the instance ---- */

enum { SB_WAITING = 0, SB_POSTED = 1 }; /* a futex word */

struct sb_instance;

/* A per-CPU lock, one cache line each. */
struct sb_lock {
	int held;
} __attribute__((aligned(64)));

struct sb_worker {
	/* Written by the message thread, read by the worker: one cache line. */
	int futex;
	uint64_t wake_ns;
	struct sb_worker *next; /* on the message thread's wake list */

	struct sb_group *group;
	struct sb_stats *stats;
	uint64_t *data; /* its private matrices */
} __attribute__((aligned(64)));

struct sb_group {
	int futex;		     /* the message thread's */
	struct sb_worker *wake_list; /* workers waiting for a wakeup, pushed by CAS */
	struct sb_worker *workers;
	struct sb_instance *in;
} __attribute__((aligned(64)));

struct sb_task {
	struct sb_instance *in;
	unsigned task;
	pthread_t th;
	bool started;
};

struct sb_instance {
	const struct schbench_params *p;
	struct instance_ctx *ic;
	unsigned ngroups, nworkers; /* workers per group */
	unsigned ntasks;
	/* the work of one request, from --cache-footprint, --operations, --split */
	uint64_t ops_private, ops_shared;
	size_t private_n, shared_n; /* matrix side lengths */
	uint64_t *shared_data;
	struct sb_lock *locks;
	unsigned nlocks;
	struct sb_group *groups;
	struct sb_worker *workers;
	struct sb_task *tasks;
	int abort; /* a task failed: everyone leaves */
};

static long sb_futex(int *word, int op, int val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

static bool sb_running(struct sb_instance *in)
{
	return !__atomic_load_n(&in->abort, __ATOMIC_RELAXED) && instance_running(in->ic);
}

/* Wake the task waiting on word if it has not been posted yet. */
static void sb_post(int *word)
{
	int expect = SB_WAITING;

	if (__atomic_compare_exchange_n(word, &expect, SB_POSTED, false, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST))
		sb_futex(word, FUTEX_WAKE_PRIVATE, 1);
}

/*
 * Wait until word is posted (0), or return 1 at the stop. The caller set
 * it to SB_WAITING before it let anyone know it would wait.
 */
static int sb_wait(struct sb_instance *in, int *word)
{
	for (;;) {
		int expect = SB_POSTED;

		if (__atomic_compare_exchange_n(word, &expect, SB_WAITING, false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return 0;
		if (!sb_running(in))
			return 1;
		/* EINTR is the stop (checked above), EAGAIN a post just now */
		sb_futex(word, FUTEX_WAIT_PRIVATE, SB_WAITING);
	}
}

/* A task failed: stop every loop of the instance. */
static void sb_abort(struct sb_instance *in)
{
	unsigned i;

	__atomic_store_n(&in->abort, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < in->ngroups; i++)
		sb_post(&in->groups[i].futex);
	for (i = 0; i < in->ngroups * in->nworkers; i++)
		sb_post(&in->workers[i].futex);
}

static void sb_push(struct sb_group *g, struct sb_worker *w)
{
	struct sb_worker *head = __atomic_load_n(&g->wake_list, __ATOMIC_RELAXED);

	do
		w->next = head;
	while (!__atomic_compare_exchange_n(&g->wake_list, &head, w, true, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
}

/*
 * Post every worker on g's list, all stamped with one clock reading taken
 * before the first post (schbench: a waker preempted by the first worker it
 * wakes shows up in the others' latency).
 */
static void sb_wake_all(struct sb_group *g)
{
	struct sb_worker *w = __atomic_exchange_n(&g->wake_list, NULL, __ATOMIC_ACQUIRE);
	uint64_t t = now_ns();

	while (w) {
		/* once posted, w may put itself on the list again */
		struct sb_worker *next = w->next;

		__atomic_store_n(&w->wake_ns, t, __ATOMIC_RELAXED);
		sb_post(&w->futex);
		w = next;
	}
}

static void sb_message_loop(struct sb_group *g)
{
	unsigned i;

	for (;;) {
		__atomic_store_n(&g->futex, SB_WAITING, __ATOMIC_SEQ_CST);
		sb_wake_all(g);
		if (!sb_running(g->in))
			break;
		sb_wait(g->in, &g->futex);
	}
	sb_wake_all(g);
	for (i = 0; i < g->in->nworkers; i++)
		sb_post(&g->workers[i].futex);
}

static inline void sb_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/*
 * Spin until the lock of the CPU we run on is ours, and we still run there.
 * NULL at the stop: with many workers per CPU the queue behind a lock is
 * long, and the stop must not wait for all of their work.
 */
static struct sb_lock *sb_lock_cpu(struct sb_instance *in)
{
	for (;;) {
		int cpu = sched_getcpu();
		struct sb_lock *l = &in->locks[cpu >= 0 ? (unsigned)cpu % in->nlocks : 0];
		int expect = 0;

		while (!__atomic_compare_exchange_n(&l->held, &expect, 1, false, __ATOMIC_ACQUIRE,
						    __ATOMIC_RELAXED)) {
			if (!sb_running(in))
				return NULL;
			expect = 0;
			sb_cpu_relax();
		}
		if (sched_getcpu() == cpu)
			return l;
		__atomic_store_n(&l->held, 0, __ATOMIC_RELEASE); /* migrated meanwhile */
	}
}

/*
 * Where the inner loop of sb_matmul() sits relative to a 32-byte boundary
 * of the code. On Intel cores the loop (24 bytes with gcc -O2, at a 16-byte
 * boundary) runs about 10% slower when it straddles a 32-byte boundary than
 * when it fits in one 32-byte window; measured here: 513 against 464 us per
 * multiplication (doc/workloads.md). schbench 24e32b8 built by gcc 12 -O2
 * has its do_some_math() at 0x3850 and the loop at 0x38b0, straddling; ours
 * fell wherever the link put it (it fitted: wakebench did 15% more
 * requests/s). Starting the function on a 64-byte boundary and putting 16
 * bytes of nops (run once per call) ahead of the loop puts it where
 * schbench's is, whatever the rest of wakebench looks like.
 */
#if defined(__x86_64__) || defined(__i386__)
#define SB_LOOP_PAD() __asm__ __volatile__(".skip %c0, 0x90" ::"i"(16))
#else
#define SB_LOOP_PAD() ((void)0)
#endif

/*
 * c = a * b for n x n matrices laid out a, b, c in data, naively, summing
 * into c in memory (schbench's cache footprint and cost per operation).
 */
__attribute__((noinline, aligned(64))) static void sb_matmul(uint64_t *data, size_t n)
{
	const uint64_t *a = data, *b = data + n * n;
	uint64_t *c = data + 2 * n * n;
	size_t i, j, k;

	SB_LOOP_PAD();
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			c[i * n + j] = 0;
			for (k = 0; k < n; k++)
				c[i * n + j] += a[i * n + k] * b[k * n + j];
		}
}

/* One request's work; false when the stop cut it short. */
static bool sb_work(struct sb_worker *w)
{
	struct sb_instance *in = w->group->in;
	struct sb_lock *l = NULL;
	uint64_t i;

	if (!in->p->no_locking && !(l = sb_lock_cpu(in)))
		return false;
	if (in->shared_n)
		for (i = 0; i < in->ops_shared && sb_running(in); i++)
			sb_matmul(in->shared_data, in->shared_n);
	if (in->private_n)
		for (i = 0; i < in->ops_private && sb_running(in); i++)
			sb_matmul(w->data, in->private_n);
	if (l)
		__atomic_store_n(&l->held, 0, __ATOMIC_RELEASE);
	return sb_running(in);
}

/* The request's sleep; false when the stop cut it short. */
static bool sb_sleep(struct sb_instance *in, uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		if (!sb_running(in))
			return false;
	return true;
}

static void sb_worker_loop(struct sb_worker *w, uint64_t *ops)
{
	struct sb_group *g = w->group;
	struct sb_instance *in = g->in;

	while (sb_running(in)) {
		uint64_t woke, t, start, end;

		__atomic_store_n(&w->futex, SB_WAITING, __ATOMIC_SEQ_CST);
		sb_push(g, w);
		sb_post(&g->futex);
		if (sb_wait(in, &w->futex))
			break;
		woke = now_ns();
		if (!sb_running(in))
			break;
		t = __atomic_load_n(&w->wake_ns, __ATOMIC_RELAXED);
		hist_record(&w->stats->wakeup, woke > t ? woke - t : 0);

		start = now_ns();
		if (in->p->sleep_ns && !sb_sleep(in, in->p->sleep_ns))
			break;
		if (!sb_work(w))
			break;
		end = now_ns();
		hist_record(&w->stats->request, end - start);
		(*ops)++;
	}
}

static void *sb_thread(void *arg)
{
	struct sb_task *t = arg;
	struct sb_instance *in = t->in;
	unsigned per_group = 1 + in->nworkers;
	struct sb_group *g = &in->groups[t->task / per_group];
	unsigned k = t->task % per_group;
	bool failed;

	prctl(PR_SET_NAME, k ? "schbench-worker" : "schbench-msg");
	/* ready even after a failed register: the others must not wait for us */
	failed = instance_thread_register(in->ic, t->task) != 0;
	if (instance_ready(in->ic) || failed) {
		sb_abort(in);
		return (void *)(intptr_t)-1;
	}
	if (k)
		sb_worker_loop(&g->workers[k - 1], instance_task_ops(in->ic));
	else
		sb_message_loop(g);
	instance_thread_collect(in->ic);
	return NULL;
}

static size_t sb_matrices_size(size_t n)
{
	return 3 * n * n * sizeof(uint64_t);
}

/*
 * A 3 x n x n matrix set, as schbench gets it from malloc at its default
 * size (an anonymous mapping, never initialised): the two factors read the
 * zero page, and the product's pages fault in on the first request.
 */
static uint64_t *sb_matrices(size_t n)
{
	void *m;

	if (!n)
		return NULL;
	m = mmap(NULL, sb_matrices_size(n), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		 0);
	return m == MAP_FAILED ? NULL : m;
}

static void sb_matrices_free(uint64_t *m, size_t n)
{
	if (m)
		munmap(m, sb_matrices_size(n));
}

/* n zeroed elements of size bytes, cache-line aligned (the structs above ask for it). */
static void *sb_zalloc(size_t n, size_t size)
{
	void *p;

	if (posix_memalign(&p, 64, n * size))
		return NULL;
	return memset(p, 0, n * size);
}

static size_t sb_side(uint64_t kib)
{
	return (size_t)sqrt((double)(kib * 1024 / 3 / sizeof(uint64_t)));
}

static int sb_setup(struct sb_instance *in)
{
	const struct schbench_params *p = in->p;
	uint64_t kib = p->cache_footprint / 1024;
	struct sb_stats *stats = instance_shared(in->ic);
	unsigned i, nw;
	long ncpu;

	in->ngroups = (unsigned)p->message_threads;
	in->nworkers = sb_workers(p);
	in->ntasks = in->ngroups * (1 + in->nworkers);
	nw = in->ngroups * in->nworkers;
	/* schbench's split, in whole KiB as there; 100 is its default (all private) */
	in->ops_private = p->operations * p->split / 100;
	in->ops_shared = p->operations - in->ops_private;
	in->private_n = sb_side(kib * p->split / 100);
	in->shared_n = sb_side(kib * (100 - p->split) / 100);
	ncpu = sysconf(_SC_NPROCESSORS_CONF);
	in->nlocks = ncpu > 0 ? (unsigned)ncpu : 1;

	in->locks = sb_zalloc(in->nlocks, sizeof(*in->locks));
	in->groups = sb_zalloc(in->ngroups, sizeof(*in->groups));
	in->workers = sb_zalloc(nw ? nw : 1, sizeof(*in->workers));
	in->tasks = sb_zalloc(in->ntasks, sizeof(*in->tasks));
	in->shared_data = sb_matrices(in->shared_n);
	if (!in->locks || !in->groups || !in->workers || !in->tasks ||
	    (in->shared_n && !in->shared_data)) {
		instance_failed(in->ic, "cannot allocate the instance's threads: %s",
				strerror(ENOMEM));
		return -1;
	}
	for (i = 0; i < in->ngroups; i++) {
		in->groups[i].in = in;
		in->groups[i].workers = &in->workers[i * in->nworkers];
	}
	for (i = 0; i < nw; i++) {
		struct sb_worker *w = &in->workers[i];

		w->group = &in->groups[i / in->nworkers];
		w->stats = &stats[i];
		hist_init(&w->stats->wakeup);
		hist_init(&w->stats->request);
		if (in->private_n && !(w->data = sb_matrices(in->private_n))) {
			instance_failed(in->ic,
					"cannot allocate %llu KiB of matrices for worker %u",
					(unsigned long long)kib, i);
			return -1;
		}
	}
	for (i = 0; i < in->ntasks; i++) {
		in->tasks[i].in = in;
		in->tasks[i].task = i;
	}
	return 0;
}

static void sb_release(struct sb_instance *in)
{
	unsigned i;

	if (in->workers)
		for (i = 0; i < in->ngroups * in->nworkers; i++)
			sb_matrices_free(in->workers[i].data, in->private_n);
	free(in->workers);
	free(in->groups);
	free(in->tasks);
	free(in->locks);
	sb_matrices_free(in->shared_data, in->shared_n);
}

static int schbench_instance(const void *params, struct instance_ctx *ic)
{
	struct sb_instance in = { .p = params, .ic = ic };
	int rc = 0, err;
	unsigned i;

	if (sb_setup(&in)) {
		sb_release(&in);
		return -1;
	}
	for (i = 1; i < in.ntasks; i++) {
		err = pthread_create(&in.tasks[i].th, NULL, sb_thread, &in.tasks[i]);
		if (err) {
			/* the threads made so far end with the instance process */
			instance_failed(ic, "cannot create thread %u of %u: %s", i, in.ntasks,
					strerror(err));
			return -1;
		}
		in.tasks[i].started = true;
	}
	if (instance_ready(ic)) {
		sb_abort(&in);
		rc = -1;
	} else {
		sb_message_loop(&in.groups[0]);
	}
	for (i = 1; i < in.ntasks; i++) {
		void *ret;

		if (in.tasks[i].started && !pthread_join(in.tasks[i].th, &ret) && ret)
			rc = -1;
	}
	sb_release(&in);
	return rc;
}

/* ---- the parent: percentiles of the merged histograms ---- */

static void sb_put_percentiles(struct sample *s, const struct hist *h, unsigned first,
			       unsigned count, const char *what)
{
	unsigned i;

	sample_put(s, schbench_metrics[count].name, (double)h->count);
	for (i = 0; i < 4; i++) {
		const struct metric_def *d = &schbench_metrics[first + i];

		if (h->count)
			sample_put(s, d->name, (double)hist_percentile(h, d->quantile));
		else
			sample_na(s, d->name, "no %s was measured in the window", what);
	}
}

static void schbench_put_metrics(const void *params, const void *const *shared, size_t n,
				 struct sample *s)
{
	const struct schbench_params *p = params;
	size_t nw = (size_t)p->message_threads * sb_workers(p), i, k;
	struct hist *wakeup = xmalloc(sizeof(*wakeup));
	struct hist *request = xmalloc(sizeof(*request));

	hist_init(wakeup);
	hist_init(request);
	for (i = 0; i < n; i++) {
		const struct sb_stats *st = shared[i];

		for (k = 0; k < nw; k++) {
			hist_merge(wakeup, &st[k].wakeup);
			hist_merge(request, &st[k].request);
		}
	}
	sb_put_percentiles(s, wakeup, SB_WAKEUP, SB_WAKEUP_COUNT, "wakeup");
	sb_put_percentiles(s, request, SB_REQUEST, SB_REQUEST_COUNT, "request");
	if (s->real_s > 0)
		sample_put(s, schbench_metrics[SB_RPS].name, (double)request->count / s->real_s);
	else
		sample_na(s, schbench_metrics[SB_RPS].name, "the window has no length");
	free(wakeup);
	free(request);
}

const struct workload workload_schbench = {
	.name = "schbench",
	.summary = "Chris Mason's schbench: message threads wake workers that sleep, then multiply "
		   "matrices; "
		   "wakeup and request latency percentiles",
	.op_name = "requests",
	/*
	 * The wakeup latency's tail is what schbench stars in its output and
	 * what the EEVDF and DELAY_DEQUEUE threads quote; the request latency
	 * mixes in the work itself and the lock, so a scheduler change shows
	 * first and most directly in the wakeup p99.
	 */
	.primary = "schbench_wakeup_p99_ns",
	.metrics = schbench_metrics,
	.params_size = sizeof(struct schbench_params),
	.defaults = &schbench_defaults,
	.opts = schbench_opts,
	.profiles = schbench_profiles,
	.default_profile = "schbench-24e32b8",
	.default_instances = 1,
	.fixed_work = false,
	.tasks = schbench_tasks,
	.tasks_help = "1 message thread and one worker per online CPU",
	.layout = schbench_layout,
	.roles = schbench_roles,
	.shared_size = schbench_shared_size,
	.check = schbench_check,
	.instance = schbench_instance,
	.put_metrics = schbench_put_metrics,
};
