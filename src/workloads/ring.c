/*
 * ring.c: lmbench's lat_ctx token ring, over a chosen wakeup primitive.
 *
 * N tasks (processes, or threads with --threads) and N channels
 * (workloads/channel.h) form a ring: task t waits for the token on channel
 * t-1 (task 0 on channel N-1), sums its working set, and passes the token
 * on channel t. Task 0 puts the first token in. One op is one hop, one
 * pass of the token; every task counts its own. The working set is
 * lat_ctx's per-process array: --size bytes of 4-byte words, zeroed by
 * the task that owns it (so its pages are its own), summed word by word
 * on every hop, so each switch finds the caches polluted by the tasks
 * before it.
 *
 * Metrics, as lat_ctx reports them and more:
 *   ns_per_hop       the time of one hop, everything included: task 0's
 *                    timed loop (the release to the stop) over the ring's
 *                    hops, as lat_ctx times its loop (the primary, lower
 *                    is better); with -j, the rings' loops over all hops
 *   hop_overhead_ns  lat_ctx's overhead: one send, one wait and one sum of
 *                    the working set in a single task, no switch, caches
 *                    hot; measured in task 0 before the other tasks exist,
 *                    over every channel in turn (lat_ctx's
 *                    benchmark_overhead), the median of 11 timed batches
 *   ctxsw_ns         lat_ctx's figure: ns_per_hop - hop_overhead_ns, the
 *                    switch including the cost of refilling the caches;
 *                    unavailable when not positive (lat_ctx then prints
 *                    nothing)
 * The hop rate is ops_per_s (shown as hops/s).
 *
 * lat_ctx's defaults: -s 0 (no working set), pipes, processes; the lmbench
 * summary's columns (2p/0K ... 16p/64K) are the profiles. Differences:
 * lat_ctx sums in 2 KiB blocks and so reads up to 2 KiB past a size that
 * is not a multiple of it, here exactly --size bytes are summed; and
 * lat_ctx's sum is one unrolled 128-term expression (about 2.7 thousand
 * instructions of instruction-cache footprint), here a loop of eight
 * running sums (vectorised by the compiler where it can): the same words
 * are read, the instruction footprint is smaller.
 *
 * Stopping: the runner's stop (instance_running() false, then SIGALRM to
 * every task until the instance returns) interrupts whichever wait blocks;
 * every task then leaves its loop. A task that dies stalls the ring until
 * the stop, and the runner fails the sample naming the task.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/instance.h"
#include "core/metrics.h"
#include "core/sample.h"
#include "util/util.h"
#include "workloads/channel.h"
#include "workloads/workload.h"

struct ring_params {
	uint64_t tasks; /* tasks in the ring (lat_ctx's #procs) */
	uint64_t size;	/* bytes of each task's working set (lat_ctx -s, in bytes) */
	int channel;	/* enum channel_kind */
	bool threads;	/* tasks 1.. as threads of the instance process */
};

#define RING_MIN_TASKS 2
#define RING_MAX_TASKS 4096
#define RING_MAX_SIZE  (64ULL << 20)

/* lat_ctx -s 0 2: two processes, no working set, pipes. */
static const struct ring_params ring_defaults = {
	.tasks = 2,
	.size = 0,
	.channel = CHANNEL_PIPE,
	.threads = false,
};

static const struct opt ring_opts[] = {
	{ .type = OPT_UINT,
	  .long_name = "tasks",
	  .short_name = 'N',
	  .offset = offsetof(struct ring_params, tasks),
	  .argh = "N",
	  .help = "tasks in the ring (lat_ctx's #procs)",
	  .min = RING_MIN_TASKS,
	  .max = RING_MAX_TASKS },
	{ .type = OPT_SIZE,
	  .long_name = "size",
	  .offset = offsetof(struct ring_params, size),
	  .argh = "SIZE",
	  .help = "working set of each task, summed before every pass of the token "
		  "(lat_ctx -s; 0: none)",
	  .min = 0,
	  .max = (double)RING_MAX_SIZE },
	{ .type = OPT_CHOICE,
	  .long_name = "channel",
	  .offset = offsetof(struct ring_params, channel),
	  .argh = "KIND",
	  .help = "how the token is passed and the next task woken",
	  .choices = channel_names },
	{ .type = OPT_FLAG,
	  .long_name = "threads",
	  .offset = offsetof(struct ring_params, threads),
	  .help = "the tasks of a ring are threads of one process" },
	OPT_END_ROW,
};

#define LAT_CTX(n, kb)                                                                             \
	static const struct ring_params ring_##n##p_##kb##k = {                                    \
		.tasks = n,                                                                        \
		.size = (kb) << 10,                                                                \
		.channel = CHANNEL_PIPE,                                                           \
	}
LAT_CTX(2, 16);
LAT_CTX(2, 64);
LAT_CTX(8, 16);
LAT_CTX(8, 64);
LAT_CTX(16, 16);
LAT_CTX(16, 64);
#undef LAT_CTX

static const struct profile ring_profiles[] = {
	{ .name = "lat_ctx-2p-0k",
	  .summary = "lmbench lat_ctx -s 0 2: two processes, no working set, a ring of pipes",
	  .params = &ring_defaults },
	{ .name = "lat_ctx-2p-16k", .summary = "lmbench lat_ctx -s 16 2", .params = &ring_2p_16k },
	{ .name = "lat_ctx-2p-64k", .summary = "lmbench lat_ctx -s 64 2", .params = &ring_2p_64k },
	{ .name = "lat_ctx-8p-16k", .summary = "lmbench lat_ctx -s 16 8", .params = &ring_8p_16k },
	{ .name = "lat_ctx-8p-64k", .summary = "lmbench lat_ctx -s 64 8", .params = &ring_8p_64k },
	{ .name = "lat_ctx-16p-16k",
	  .summary = "lmbench lat_ctx -s 16 16",
	  .params = &ring_16p_16k },
	{ .name = "lat_ctx-16p-64k",
	  .summary = "lmbench lat_ctx -s 64 16",
	  .params = &ring_16p_64k },
	{ .name = NULL },
};

static const struct metric_def ring_metrics[] = {
	{ .name = "ns_per_hop",
	  .label = "time/hop",
	  .unit = "ns",
	  .better = BETTER_LOWER,
	  .flags = METRIC_PRIMARY,
	  .agg = AGG_RATIO,
	  .source = "ring",
	  .help = "time of one pass of the token, channel and working-set sum included: "
		  "the timed loop over hops, per ring" },
	{ .name = "ctxsw_ns",
	  .label = "ctxsw time (lat_ctx)",
	  .unit = "ns",
	  .better = BETTER_LOWER,
	  .flags = METRIC_EVIDENCE,
	  .agg = AGG_RATIO,
	  .source = "ring",
	  .help = "lmbench lat_ctx's context switch time: time/hop less the overhead of one hop "
		  "without a switch" },
	{ .name = "hop_overhead_ns",
	  .label = "hop overhead",
	  .unit = "ns",
	  .better = BETTER_NEUTRAL,
	  .flags = 0,
	  .agg = AGG_MEAN,
	  .source = "ring",
	  .help = "one send, one wait and one working-set sum in a single task, caches hot "
		  "(lat_ctx's overhead), mean over instances" },
	{ .name = NULL },
};

/* What an instance leaves for ring_put_metrics(). */
struct ring_shared {
	double overhead_ns; /* per hop; 0 when it could not be measured */
	uint64_t loop_ns;   /* task 0 from the release to leaving its loop at the stop */
};

static unsigned ring_tasks(const void *params)
{
	const struct ring_params *rp = params;

	return (unsigned)rp->tasks;
}

/* One ring is one group; every task has the same role. */
static void ring_layout(const void *params, unsigned task, unsigned *group, unsigned *role)
{
	(void)params;
	(void)task;
	*group = 0;
	*role = 0;
}

static const char *const ring_roles[] = { "hop", NULL };

/* The instance process holds every channel of its ring (its children inherit them). */
static unsigned ring_fds(const void *params)
{
	const struct ring_params *rp = params;

	return (unsigned)(rp->tasks * channel_fds(rp->channel));
}

static size_t ring_shared_size(const void *params)
{
	(void)params;
	return sizeof(struct ring_shared);
}

static int ring_check(const void *params, const struct run_params *rp, char *err, size_t errlen)
{
	const struct ring_params *pp = params;
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	double total, avail;
	char val[32], lim[32];

	(void)rp;
	if (pp->size % sizeof(uint32_t)) {
		format_size(pp->size, val, sizeof(val));
		snprintf(err, errlen,
			 "option '--size': '%s' is not a whole number of 4-byte words, allowed "
			 "0..64M in multiples of 4",
			 val);
		return -1;
	}
	/* every task has its own working set: one ring's must fit with room to spare */
	total = (double)pp->size * (double)pp->tasks;
	avail = pages > 0 && page > 0 ? (double)pages * (double)page / 2 : 0;
	if (avail > 0 && total > avail) {
		format_size(pp->size, val, sizeof(val));
		format_size((uint64_t)avail, lim, sizeof(lim));
		snprintf(err, errlen,
			 "option '--size': '%s' for each of %llu tasks is more than half of "
			 "the memory (%s)",
			 val, (unsigned long long)pp->tasks, lim);
		return -1;
	}
	return 0;
}

/* ---- the instance ---- */

/* A task's working set: lat_ctx's per-process array. */
struct working_set {
	uint32_t *words;
	size_t n;
};

static int ws_alloc(struct working_set *ws, uint64_t size)
{
	ws->n = size / sizeof(uint32_t);
	ws->words = NULL;
	if (!ws->n)
		return 0;
	ws->words = malloc(ws->n * sizeof(uint32_t));
	if (!ws->words)
		return -1;
	/* written by its owner, so that the pages are faulted in by the task that uses them */
	memset(ws->words, 0, ws->n * sizeof(uint32_t));
	return 0;
}

/*
 * Sum every word, eight running sums at a time: lat_ctx sums 128 words in
 * one unrolled expression, so its loads do not wait on one chain of adds;
 * this keeps that pace. The compiler cannot know what is in the words (the
 * pointer passes through an empty asm), so it cannot drop the loop; the
 * result goes to a volatile sink in the caller.
 */
static __attribute__((noinline)) uint32_t ws_sum(const struct working_set *ws)
{
	const uint32_t *w = ws->words;
	uint32_t s[8] = { 0 };
	size_t i, j;

	__asm__ volatile("" : "+r"(w));
	for (i = 0; i + 8 <= ws->n; i += 8)
		for (j = 0; j < 8; j++)
			s[j] += w[i + j];
	for (; i < ws->n; i++)
		s[0] += w[i];
	return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}

struct ring {
	const struct ring_params *pp;
	struct instance_ctx *ic;
	struct ring_shared *sh;
	struct channel_set cs;
};

struct ring_task {
	struct ring *r;
	unsigned t;
	struct working_set ws;
	pthread_t th;
	int rc;
};

static int hop_failed(struct ring_task *rt, const char *what)
{
	instance_failed(rt->r->ic, "task %u (hop): %s on channel %s: %s", rt->t, what,
			channel_names[rt->r->pp->channel], strerror(errno));
	return -1;
}

/*
 * One task's loop: wait for the token, sum the working set, pass the
 * token on. Task 0 passes the first token. 0 at the stop, or -1 after
 * instance_failed().
 */
static int hop_loop(struct ring_task *rt)
{
	struct ring *r = rt->r;
	unsigned n = (unsigned)r->pp->tasks;
	const struct channel *in = &r->cs.ch[(rt->t + n - 1) % n];
	const struct channel *out = &r->cs.ch[rt->t];
	uint64_t *hops = instance_task_ops(r->ic);
	volatile uint32_t sink = 0;
	uint64_t start_ns;

	if (instance_ready(r->ic))
		return -1;
	start_ns = now_ns();
	if (rt->t == 0) {
		if (channel_send(out))
			return hop_failed(rt, "send");
		(*hops)++;
	}
	while (instance_running(r->ic)) {
		if (channel_wait(in)) {
			if (errno == EINTR)
				continue;
			return hop_failed(rt, "wait");
		}
		sink += ws_sum(&rt->ws);
		/* a send with the token in hand does not block: EINTR is retried */
		while (channel_send(out))
			if (errno != EINTR)
				return hop_failed(rt, "send");
		(*hops)++;
	}
	(void)sink;
	if (rt->t == 0)
		r->sh->loop_ns = now_ns() - start_ns;
	return 0;
}

/*
 * lat_ctx's overhead, in task 0 before any other task exists: send and
 * wait on each channel in turn and sum the working set, with no switch.
 * A batch is calibrated to take at least 1 ms; the median of 11 batches
 * per hop. 0 when a channel call fails (the metric is then unavailable).
 */
#define OVERHEAD_BATCHES 11
#define OVERHEAD_MIN_NS	 1000000ULL

static uint64_t overhead_batch(struct ring_task *rt, uint64_t iters, int *failed)
{
	struct ring *r = rt->r;
	volatile uint32_t sink = 0;
	uint64_t i, t0 = now_ns();
	size_t c = 0;

	for (i = 0; i < iters; i++) {
		const struct channel *ch = &r->cs.ch[c];

		if (channel_send(ch) || channel_wait(ch)) {
			*failed = 1;
			return 0;
		}
		sink += ws_sum(&rt->ws);
		if (++c == r->cs.n)
			c = 0;
	}
	(void)sink;
	return now_ns() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double measure_overhead(struct ring_task *rt)
{
	double per_hop[OVERHEAD_BATCHES];
	uint64_t iters = 1;
	int failed = 0, i;

	while (overhead_batch(rt, iters, &failed) < OVERHEAD_MIN_NS && !failed &&
	       iters < (1u << 30))
		iters *= 2;
	for (i = 0; i < OVERHEAD_BATCHES && !failed; i++)
		per_hop[i] = (double)overhead_batch(rt, iters, &failed) / (double)iters;
	if (failed)
		return 0;
	qsort(per_hop, OVERHEAD_BATCHES, sizeof(per_hop[0]), cmp_double);
	return per_hop[OVERHEAD_BATCHES / 2];
}

static void *hop_thread(void *arg)
{
	struct ring_task *rt = arg;
	struct instance_ctx *ic = rt->r->ic;

	if (instance_thread_register(ic, rt->t)) {
		rt->rc = -1;
		return NULL;
	}
	if (ws_alloc(&rt->ws, rt->r->pp->size)) {
		instance_failed(ic, "task %u (hop): cannot allocate its working set: %s", rt->t,
				strerror(errno));
		rt->rc = -1;
	} else {
		rt->rc = hop_loop(rt);
	}
	free(rt->ws.words);
	instance_thread_collect(ic);
	return NULL;
}

/*
 * 0, -1 after a failure, or RING_STRANDED when a thread could not be
 * created: the threads already made wait at the barrier, which is never
 * released now, so they cannot be joined; the instance process returns at
 * once and its exit ends them (nothing they use may be freed before).
 */
#define RING_STRANDED (-2)

static int run_threads(struct ring *r, struct ring_task *tasks)
{
	unsigned n = (unsigned)r->pp->tasks, t;
	pthread_attr_t attr;
	int rc = 0, err;

	pthread_attr_init(&attr);
	/* hundreds of threads: a small stack each (the loop needs little) */
	pthread_attr_setstacksize(&attr, 256 << 10);
	for (t = 1; t < n; t++) {
		err = pthread_create(&tasks[t].th, &attr, hop_thread, &tasks[t]);
		if (err) {
			instance_failed(r->ic, "cannot create task %u's thread: %s", t,
					strerror(err));
			pthread_attr_destroy(&attr);
			return RING_STRANDED;
		}
	}
	pthread_attr_destroy(&attr);
	rc = hop_loop(&tasks[0]);
	for (t = 1; t < n; t++) {
		pthread_join(tasks[t].th, NULL);
		if (tasks[t].rc)
			rc = -1;
	}
	return rc;
}

static void NORETURN hop_process(struct ring_task *rt)
{
	if (ws_alloc(&rt->ws, rt->r->pp->size)) {
		instance_failed(rt->r->ic, "task %u (hop): cannot allocate its working set: %s",
				rt->t, strerror(errno));
		_exit(1);
	}
	_exit(hop_loop(rt) ? 1 : 0);
}

static int run_processes(struct ring *r, struct ring_task *tasks)
{
	unsigned n = (unsigned)r->pp->tasks, t, created;
	pid_t *pids = xcalloc(n, sizeof(*pids));
	int rc = 0;

	for (created = 1; created < n; created++) {
		pid_t pid = instance_fork(r->ic);

		if (pid < 0) {
			rc = -1;
			break;
		}
		if (pid == 0)
			hop_process(&tasks[created]);
		pids[created] = pid;
	}
	if (!rc)
		rc = hop_loop(&tasks[0]);
	for (t = 1; t < created; t++) {
		int status;

		/* after a failure in task 0 the others would wait for the stop */
		if (rc)
			kill(pids[t], SIGKILL);
		status = instance_reap_child(r->ic, pids[t]);
		if (rc)
			continue;
		if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			/*
			 * The runner names a task that died of a fault or exited
			 * badly; ring never kills its own tasks while they run,
			 * so a SIGKILL came from outside and is named here.
			 */
			if (status >= 0 && WIFSIGNALED(status))
				instance_failed(r->ic, "task %u (hop) killed by %s", t,
						signal_name(WTERMSIG(status)));
			else
				instance_failed(r->ic, "task %u (hop) ended with status 0x%x", t,
						status);
			rc = -1;
		}
	}
	free(pids);
	return rc;
}

static void on_sigpipe(int sig)
{
	(void)sig;
}

static int ring_instance(const void *params, struct instance_ctx *ic)
{
	const struct ring_params *pp = params;
	struct ring_shared *sh = instance_shared(ic);
	struct ring r = { .pp = pp, .ic = ic, .sh = sh };
	unsigned n = (unsigned)pp->tasks, t;
	struct ring_task *tasks;
	struct sigaction sa;
	char err[256];
	int rc;

	/* a closed end must give EPIPE (a reason), not kill the task */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigpipe;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);

	if (channel_set_open(&r.cs, pp->channel, n, !pp->threads, err, sizeof(err))) {
		instance_failed(ic, "%s", err);
		return -1;
	}
	tasks = xcalloc(n, sizeof(*tasks));
	for (t = 0; t < n; t++) {
		tasks[t].r = &r;
		tasks[t].t = t;
	}
	if (ws_alloc(&tasks[0].ws, pp->size)) {
		instance_failed(ic, "task 0 (hop): cannot allocate its working set: %s",
				strerror(errno));
		rc = -1;
	} else {
		sh->overhead_ns = measure_overhead(&tasks[0]);
		rc = pp->threads ? run_threads(&r, tasks) : run_processes(&r, tasks);
		if (rc == RING_STRANDED)
			return -1;
	}
	free(tasks[0].ws.words);
	free(tasks);
	channel_set_close(&r.cs);
	return rc;
}

/* ---- the metrics ---- */

static void ring_put_metrics(const void *params, const void *const *shared, size_t n,
			     struct sample *s)
{
	double ns_per_hop, overhead = 0, loop_ns = 0;
	size_t i, measured = 0;

	(void)params;
	for (i = 0; i < n; i++) {
		const struct ring_shared *sh = shared[i];

		loop_ns += sh ? (double)sh->loop_ns : 0;
		if (sh && sh->overhead_ns > 0) {
			overhead += sh->overhead_ns;
			measured++;
		}
	}
	if (!s->ops || !n || loop_ns <= 0) {
		sample_na(s, "ns_per_hop", "no hop completed");
		sample_na(s, "ctxsw_ns", "no hop completed");
		sample_na(s, "hop_overhead_ns", "no hop completed");
		return;
	}
	/* per ring: the rings' timed loops over their hops (the same as mean loop / mean hops) */
	ns_per_hop = loop_ns / (double)s->ops;
	sample_put(s, "ns_per_hop", ns_per_hop);
	if (measured < n) {
		sample_na(s, "hop_overhead_ns", "a channel call failed while it was measured");
		sample_na(s, "ctxsw_ns", "the overhead was not measured");
		return;
	}
	overhead /= (double)n;
	sample_put(s, "hop_overhead_ns", overhead);
	if (ns_per_hop > overhead)
		sample_put(s, "ctxsw_ns", ns_per_hop - overhead);
	else
		sample_na(s, "ctxsw_ns",
			  "the overhead (%.0f ns) is not below the hop time (%.0f ns)", overhead,
			  ns_per_hop);
}

const struct workload workload_ring = {
	.name = "ring",
	.summary = "lmbench lat_ctx: a token passed round a ring of N tasks over a pipe, "
		   "eventfd, futex or unix socket",
	.op_name = "hops",
	.primary = "ns_per_hop",
	.metrics = ring_metrics,
	.params_size = sizeof(struct ring_params),
	.defaults = &ring_defaults,
	.opts = ring_opts,
	.profiles = ring_profiles,
	.default_profile = "lat_ctx-2p-0k",
	.default_instances = 1,
	.tasks = ring_tasks,
	.layout = ring_layout,
	.roles = ring_roles,
	.fds = ring_fds,
	.shared_size = ring_shared_size,
	.check = ring_check,
	.instance = ring_instance,
	.put_metrics = ring_put_metrics,
};
