/*
 * probes.c: the probes of probes.h and the option group that selects them.
 *
 * Order in a probe set: perf software counters (with --perf-counters), the
 * delayed-entity sampler, then (with --trace) the tracer, last, so that
 * probes_untraced() is a prefix of the set.
 *
 * Per-task perf counters are opt-in because they are not free: the kernel
 * switches a task's perf context in and out at every context switch, and
 * on a pipe ping-pong in a VM that cost a third of the round trips per
 * CPU-second (doc/evidence.md). The /proc counters the runner always reads
 * give the same switches and migrations without that cost.
 *
 * Every probe decides in probes_setup() or start() whether it can measure;
 * what it cannot, it reports in stop() as unavailable with the reason, so a
 * sample never carries an invented zero.
 */
#include "runner/probes.h"
#include "sys/perf.h"
#include "sys/sched_debug.h"
#include "sys/trace.h"
#include "sys/trace-bpf.h"
#include "util/number.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const trace_choices[] = { "off", "on", "auto", "bpf", "perf", NULL };

const struct opt probe_opts[] = {
	{ .type = OPT_CHOICE,
	  .long_name = "trace",
	  .offset = offsetof(struct probe_params, trace),
	  .argh = "MODE",
	  .help = "sched tracepoints of the workload's tasks (root, or CAP_BPF and "
		  "CAP_PERFMON): wakeup latency and run-queue wait percentiles, preemptions, "
		  "wakeup placement, migrations; bpf aggregates in the kernel, perf streams "
		  "records; on (plain --trace) is bpf, else perf, else exit 77; auto is the "
		  "same but goes on untraced",
	  .choices = trace_choices,
	  .implied = "on",
	  .flags = OPT_OPTIONAL_ARG },
	{ .type = OPT_FLAG,
	  .long_name = "perf-counters",
	  .offset = offsetof(struct probe_params, perf_counters),
	  .help = "count context switches and migrations with per-task perf software "
		  "counters (root or CAP_PERFMON); they slow context switches, see "
		  "doc/evidence.md" },
	{ .type = OPT_FLAG,
	  .long_name = "ceiling",
	  .offset = offsetof(struct probe_params, ceiling),
	  .help = "after every sample, the same pipe data path without wakeups (one task "
		  "writes and reads its own pipe, pipe and pingpong): the scheduler and "
		  "wakeup share of the cost, see doc/evidence.md" },
	OPT_END_ROW,
};

const struct probe_params probe_defaults = {
	.trace = TRACE_OFF,
	.perf_counters = false,
	.ceiling = false,
};

#define SAMPLER_PERIOD_NS 100000000ULL /* 10 Hz */

/* ---- perf software counters ---- */

static const struct {
	uint64_t config;
	const char *what;
} perf_events[] = {
	{ PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches" },
	{ PERF_COUNT_SW_CPU_MIGRATIONS, "CPU migrations" },
};
#define NPERF ARRAY_SIZE(perf_events)

struct perf_probe {
	int *fds; /* NPERF per task */
	size_t nfds;
	char why[METRIC_WHY_MAX]; /* set when the counters cannot be had */
};

static void perf_close_all(struct perf_probe *pp)
{
	size_t i;

	for (i = 0; i < pp->nfds; i++)
		if (pp->fds[i] >= 0)
			close(pp->fds[i]);
	free(pp->fds);
	pp->fds = NULL;
	pp->nfds = 0;
}

static int perf_probe_start(void *state, const pid_t *tids, size_t ntids)
{
	struct perf_probe *pp = state;
	size_t t, e;

	perf_close_all(pp);
	pp->why[0] = '\0';
	pp->fds = xmalloc(ntids * NPERF * sizeof(*pp->fds));
	for (t = 0; t < ntids; t++) {
		for (e = 0; e < NPERF; e++) {
			int fd = perf_sw_open(perf_events[e].config, tids[t]);

			if (fd < 0) {
				char reason[96];

				perf_denied_reason(errno, reason, sizeof(reason));
				snprintf(pp->why, sizeof(pp->why), "unavailable (%s)", reason);
				debug("perf %s of task %d: %s", perf_events[e].what, (int)tids[t],
				      strerror(errno));
				perf_close_all(pp);
				return 0; /* the sample goes on without these counters */
			}
			pp->fds[pp->nfds++] = fd;
		}
	}
	return 0;
}

static void perf_probe_stop(void *state, struct sample *s)
{
	struct perf_probe *pp = state;
	uint64_t sum[NPERF] = { 0 }, v;
	size_t i;

	if (!pp->why[0] && !pp->nfds)
		snprintf(pp->why, sizeof(pp->why), "unavailable (no task was counted)");
	for (i = 0; i < pp->nfds && !pp->why[0]; i++) {
		if (perf_count_read(pp->fds[i], &v)) {
			snprintf(pp->why, sizeof(pp->why), "unavailable (reading a counter: %s)",
				 strerror(errno));
			break;
		}
		sum[i % NPERF] += v;
	}
	perf_close_all(pp);
	if (!pp->why[0] && !s->ops)
		snprintf(pp->why, sizeof(pp->why), "unavailable (no ops in the sample)");
	if (pp->why[0]) {
		sample_na(s, "perf_ctxsw_per_op", "%s", pp->why);
		sample_na(s, "perf_migrations_per_kop", "%s", pp->why);
		return;
	}
	sample_put(s, "perf_ctxsw_per_op", (double)sum[0] / (double)s->ops);
	sample_put(s, "perf_migrations_per_kop", (double)sum[1] * 1000.0 / (double)s->ops);
}

static const struct probe_ops perf_probe_ops = {
	.name = "perf",
	.start = perf_probe_start,
	.stop = perf_probe_stop,
};

/* ---- delayed entities from sched/debug ---- */

struct delayed_probe {
	char path[4096];
	char why[METRIC_WHY_MAX]; /* set at setup when the file cannot be used */
	struct sched_debug_sampler sampler;
};

static int delayed_probe_start(void *state, const pid_t *tids, size_t ntids)
{
	struct delayed_probe *dp = state;

	(void)tids;
	(void)ntids;
	if (dp->why[0])
		return 0;
	return sched_debug_sampler_start(&dp->sampler, dp->path, SAMPLER_PERIOD_NS);
}

static void delayed_probe_stop(void *state, struct sample *s)
{
	struct delayed_probe *dp = state;
	struct sched_debug_sampler *sm = &dp->sampler;
	char why[METRIC_WHY_MAX];

	if (dp->why[0]) {
		snprintf(why, sizeof(why), "%s", dp->why);
	} else {
		sched_debug_sampler_stop(sm);
		if (sm->readings) {
			sample_put(s, "delayed_mean", sm->sum / (double)sm->readings);
			sample_put(s, "delayed_max", (double)sm->max);
			return;
		}
		if (sm->why[0])
			snprintf(why, sizeof(why), "unavailable (%.100s)", sm->why);
		else
			snprintf(why, sizeof(why),
				 "unavailable (no reading: the sample was shorter than %llums)",
				 SAMPLER_PERIOD_NS / 2000000ULL);
	}
	sample_na(s, "delayed_mean", "%s", why);
	sample_na(s, "delayed_max", "%s", why);
}

static const struct probe_ops delayed_probe_ops = {
	.name = "sched_debug",
	.start = delayed_probe_start,
	.stop = delayed_probe_stop,
};

static void delayed_probe_init(struct delayed_probe *dp, const char *debugfs)
{
	struct sched_debug_delayed *d = xmalloc(sizeof(*d));
	char why[METRIC_WHY_MAX - 16];

	snprintf(dp->path, sizeof(dp->path), "%s/sched/debug", debugfs);
	if (sched_debug_read(dp->path, d, why, sizeof(why)))
		snprintf(dp->why, sizeof(dp->why), "unavailable (%s)", why);
	else
		debug("delayed entities from '%s' (%s)", dp->path,
		      sched_debug_source_name(d->source));
	free(d);
}

/* ---- sched tracepoints (--trace) ---- */

#define LOW_CONFIDENCE_LOST_SHARE 0.01

static const struct {
	const char *name;
	double p;
} trace_percentiles[] = {
	{ "wakeup_lat_p50_ns", 0.50 }, { "wakeup_lat_p90_ns", 0.90 },
	{ "wakeup_lat_p99_ns", 0.99 }, { "wakeup_lat_p999_ns", 0.999 },
	{ "wakeup_lat_max_ns", 1.0 },
};

/* The tracer of a trace probe: one of the two. */
struct trace_probe {
	struct tracer *perf;
	struct bpf_tracer *bpf;
};

static int trace_probe_start(void *state, const pid_t *tids, size_t ntids)
{
	struct trace_probe *tp = state;

	if (tp->bpf)
		return bpf_tracer_start(tp->bpf, tids, ntids);
	return tracer_start(tp->perf, tids, ntids);
}

static const struct {
	const char *name;
	double p;
} runq_percentiles[] = {
	{ "runq_wait_p50_ns", 0.50 },
	{ "runq_wait_p99_ns", 0.99 },
	{ "runq_wait_max_ns", 1.0 },
};

static void trace_unavailable(struct sample *s, const char *why)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(trace_percentiles); i++)
		sample_na(s, trace_percentiles[i].name, "%s", why);
	for (i = 0; i < ARRAY_SIZE(runq_percentiles); i++)
		sample_na(s, runq_percentiles[i].name, "%s", why);
	sample_na(s, "wakeup_lat_count", "%s", why);
	sample_na(s, "runq_wait_count", "%s", why);
	sample_na(s, "preempt_share", "%s", why);
	sample_na(s, "wake_prev_cpu_share", "%s", why);
	sample_na(s, "wakeups_per_op", "%s", why);
	sample_na(s, "trace_migrations_per_kop", "%s", why);
}

static void trace_probe_stop(void *state, struct sample *s)
{
	const struct trace_analysis *an;
	struct hist *lat = xmalloc(sizeof(*lat));
	struct trace_probe *tp = state;
	double lost_share;
	size_t i;

	if (tp->bpf)
		bpf_tracer_stop(tp->bpf, &an);
	else
		tracer_stop(tp->perf, &an);
	lost_share = an->lost ? (double)an->lost / (double)(an->lost + an->records) : 0.0;
	sample_put(s, "trace_lost_records", (double)an->lost);
	sample_put(s, "trace_low_confidence", lost_share > LOW_CONFIDENCE_LOST_SHARE);
	if (lost_share > LOW_CONFIDENCE_LOST_SHARE)
		warning("sample %u: %.1f%% of the trace records were lost (%llu): its trace "
			"evidence is low-confidence",
			s->index + 1, lost_share * 100.0, (unsigned long long)an->lost);
	if (!s->ops) {
		trace_unavailable(s, "unavailable (no ops in the sample)");
		free(lat);
		return;
	}
	/* A tracer that delivered nothing measured nothing: no zeros for counts. */
	if (!an->records && !an->lost) {
		trace_unavailable(s, "unavailable (no trace record was read)");
		free(lat);
		return;
	}
	trace_analysis_latency(an, lat);
	sample_put(s, "wakeup_lat_count", (double)lat->count);
	for (i = 0; i < ARRAY_SIZE(trace_percentiles); i++) {
		if (lat->count)
			sample_put(s, trace_percentiles[i].name,
				   (double)hist_percentile(lat, trace_percentiles[i].p));
		else
			sample_na(s, trace_percentiles[i].name,
				  "unavailable (no wakeup of the workload was traced)");
	}
	trace_analysis_runq(an, lat);
	sample_put(s, "runq_wait_count", (double)lat->count);
	for (i = 0; i < ARRAY_SIZE(runq_percentiles); i++) {
		if (lat->count)
			sample_put(s, runq_percentiles[i].name,
				   (double)hist_percentile(lat, runq_percentiles[i].p));
		else
			sample_na(s, runq_percentiles[i].name,
				  "unavailable (no run-queue wait of the workload was traced)");
	}
	if (an->switches_out)
		sample_put(s, "preempt_share", (double)an->preempted / (double)an->switches_out);
	else
		sample_na(s, "preempt_share", "unavailable (no switch of the workload was traced)");
	if (an->wakeups_run)
		sample_put(s, "wake_prev_cpu_share",
			   (double)an->wake_prev_cpu / (double)an->wakeups_run);
	else
		sample_na(s, "wake_prev_cpu_share",
			  "unavailable (no wakeup of the workload was traced)");
	sample_put(s, "wakeups_per_op", (double)an->wakings / (double)s->ops);
	sample_put(s, "trace_migrations_per_kop", (double)an->migrations * 1000.0 / (double)s->ops);
	free(lat);
}

static const struct probe_ops trace_probe_ops = {
	.name = "trace",
	.start = trace_probe_start,
	.stop = trace_probe_stop,
};

/* ---- the set ---- */

static void add_probe(struct probe_set *ps, const struct probe_ops *ops, void *state)
{
	ps->probes = xrealloc(ps->probes, (ps->n + 1) * sizeof(*ps->probes));
	ps->probes[ps->n].ops = ops;
	ps->probes[ps->n].state = state;
	ps->n++;
}

int probes_setup(struct probe_set *ps, const struct probe_params *pp, const char *debugfs,
		 char *err, size_t errlen)
{
	struct perf_probe *perf;
	struct delayed_probe *dp;

	struct trace_probe *tracer = NULL;
	struct bpf_tracer *bt = NULL;
	struct tracer *pt = NULL;
	char why[512], why_bpf[512] = "";
	int mode = pp ? pp->trace : TRACE_OFF;

	memset(ps, 0, sizeof(*ps));
	if (!debugfs)
		debugfs = "/sys/kernel/debug";
	/* the tracer: BPF where it loads, else perf (on, auto), or exactly the one asked for */
	if (mode == TRACE_BPF || mode == TRACE_ON || mode == TRACE_AUTO)
		bt = bpf_tracer_new(why_bpf, sizeof(why_bpf));
	if (!bt && mode == TRACE_BPF) {
		snprintf(err, errlen, "%s", why_bpf);
		return -1;
	}
	if (!bt && mode != TRACE_OFF) {
		pt = tracer_new(debugfs, why, sizeof(why));
		if (pt && mode != TRACE_PERF)
			info("tracing with perf records, not BPF: %s", why_bpf);
		if (!pt && mode == TRACE_AUTO)
			warning("running without tracing (--trace=auto): %s; %s", why_bpf, why);
		if (!pt && mode != TRACE_AUTO) {
			if (mode == TRACE_ON)
				snprintf(err, errlen, "%s; %s", why_bpf, why);
			else
				snprintf(err, errlen, "%s", why);
			return -1;
		}
	}
	if (bt || pt) {
		tracer = xcalloc(1, sizeof(*tracer));
		tracer->bpf = bt;
		tracer->perf = pt;
	}

	if (pp && pp->perf_counters) {
		perf = xcalloc(1, sizeof(*perf));
		add_probe(ps, &perf_probe_ops, perf);
	}

	dp = xcalloc(1, sizeof(*dp));
	delayed_probe_init(dp, debugfs);
	add_probe(ps, &delayed_probe_ops, dp);

	if (tracer)
		add_probe(ps, &trace_probe_ops, tracer); /* last: see probes_untraced() */
	return 0;
}

void probes_release(struct probe_set *ps)
{
	size_t i;

	for (i = 0; i < ps->n; i++) {
		struct probe *p = &ps->probes[i];

		if (p->ops == &perf_probe_ops) {
			perf_close_all(p->state);
		} else if (p->ops == &delayed_probe_ops) {
			struct delayed_probe *dp = p->state;

			sched_debug_sampler_stop(&dp->sampler);
		} else if (p->ops == &trace_probe_ops) {
			struct trace_probe *tp = p->state;

			if (tp->bpf)
				bpf_tracer_free(tp->bpf);
			else
				tracer_free(tp->perf);
		}
		free(p->state);
	}
	free(ps->probes);
	memset(ps, 0, sizeof(*ps));
}

bool probes_tracing(const struct probe_set *ps)
{
	return ps->n && ps->probes[ps->n - 1].ops == &trace_probe_ops;
}

const char *probes_tracer(const struct probe_set *ps)
{
	const struct trace_probe *tp;

	if (!probes_tracing(ps))
		return NULL;
	tp = ps->probes[ps->n - 1].state;
	return tp->bpf ? "bpf" : "perf";
}

struct probe_set probes_untraced(const struct probe_set *ps)
{
	struct probe_set view = *ps;

	if (probes_tracing(ps))
		view.n--;
	return view;
}

double probes_overhead_line(double traced_ops_per_s, double untraced_ops_per_s,
			    double traced_ops_per_cpu_s, double untraced_ops_per_cpu_s, char *buf,
			    size_t len)
{
	double overhead, cpu;
	char a[32], b[32];
	int n;

	if (untraced_ops_per_s <= 0) {
		snprintf(buf, len, "tracing overhead: unknown (no untraced ops/s)");
		return 0;
	}
	overhead = 1.0 - traced_ops_per_s / untraced_ops_per_s;
	fmt_num(traced_ops_per_s, a, sizeof(a));
	fmt_num(untraced_ops_per_s, b, sizeof(b));
	n = snprintf(buf, len, "tracing overhead: %.1f%% %s ops/s (traced %s, untraced %s)",
		     overhead * 100.0 * (overhead < 0 ? -1 : 1), overhead < 0 ? "more" : "fewer", a,
		     b);
	if (n > 0 && (size_t)n < len && untraced_ops_per_cpu_s > 0 && traced_ops_per_cpu_s > 0) {
		cpu = 1.0 - traced_ops_per_cpu_s / untraced_ops_per_cpu_s;
		fmt_num(traced_ops_per_cpu_s, a, sizeof(a));
		fmt_num(untraced_ops_per_cpu_s, b, sizeof(b));
		snprintf(buf + n, len - (size_t)n,
			 "; %.1f%% %s ops per CPU-second (traced %s, untraced %s)",
			 cpu * 100.0 * (cpu < 0 ? -1 : 1), cpu < 0 ? "more" : "fewer", a, b);
	}
	return overhead;
}
