/*
 * metrics.c: the common metric table and the look-ups over it and every
 * workload's own table (metrics.h).
 *
 * The common table lists every metric wakebench records for any workload,
 * in display order: the fixed fields first (stress-ng's --metrics-brief
 * numbers, stored as columns of a sample), then the /proc counters, perf's,
 * the tracepoints', the sched/debug sampler's and the runner's derived
 * rates. A workload's own metrics follow, workload by workload in registry
 * order. Names are stored: never rename one, add a new one.
 */
#include "core/metrics.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "workloads/workload.h"
#include "util/text.h"

#define EV METRIC_EVIDENCE
/*
 * A row: name, label, unit, better, flags, aggregation, source, help. A
 * percentile's row first names its quantile and the metric counting the
 * values it is read from (struct metric_def).
 */
#define M(...)                                                                                     \
	{                                                                                          \
		__VA_ARGS__, .quantile = 0, .count = NULL                                          \
	}
#define PCT(q, c, ...)                                                                             \
	{                                                                                          \
		__VA_ARGS__, .quantile = q, .count = c                                             \
	}

static const struct metric_def common_metrics[] = {
	/* the fixed fields: stress-ng's --metrics-brief numbers */
	M("ops_per_s", "ops/s (real time)", "ops/s", BETTER_HIGHER, METRIC_PRIMARY, AGG_RATE,
	  "stress-ng", "ops per second of wall-clock time, summed over instances"),
	M("ops_per_cpu_s", "ops/s (usr+sys time)", "ops/s", BETTER_HIGHER, 0, AGG_RATE, "stress-ng",
	  "ops per second of CPU time (user + system) of every task"),
	M("ops", "bogo ops", "", BETTER_NEUTRAL, 0, AGG_SUM, "stress-ng",
	  "ops completed in the sample, summed over instances"),
	M("real_s", "real time", "s", BETTER_NEUTRAL, 0, AGG_MEAN, "stress-ng",
	  "time from the start to the end of an instance's loop, mean over instances"),
	M("usr_s", "usr time", "s", BETTER_NEUTRAL, 0, AGG_SUM, "stress-ng",
	  "user CPU time of every task, summed"),
	M("sys_s", "sys time", "s", BETTER_NEUTRAL, 0, AGG_SUM, "stress-ng",
	  "system CPU time of every task, summed"),

	/* /proc/PID/task/TID/{status,sched,schedstat}, per op */
	M("ctxsw_per_op", "ctxsw/op", "", BETTER_LOWER, EV | METRIC_PER_OP, AGG_RATIO, "/proc",
	  "context switches (voluntary + involuntary) per op"),
	M("ctxsw_vol_per_op", "ctxsw/op voluntary", "", BETTER_LOWER, EV | METRIC_PER_OP, AGG_RATIO,
	  "/proc", "voluntary context switches (the task blocked) per op"),
	M("ctxsw_invol_per_op", "ctxsw/op involuntary", "", BETTER_LOWER, EV | METRIC_PER_OP,
	  AGG_RATIO, "/proc", "involuntary context switches (the task was preempted) per op"),
	M("migrations_per_kop", "migrations/1000 ops", "", BETTER_LOWER, EV | METRIC_PER_OP,
	  AGG_RATIO, "/proc", "CPU migrations of the tasks per 1000 ops"),
	M("run_delay_ns_per_op", "run-queue wait/op", "ns", BETTER_LOWER, EV | METRIC_PER_OP,
	  AGG_RATIO, "/proc", "time runnable tasks waited on a run queue, per op"),

	/* perf software counters */
	M("perf_ctxsw_per_op", "perf ctxsw/op", "", BETTER_LOWER, EV | METRIC_PER_OP, AGG_RATIO,
	  "perf", "context switches per op, counted by perf (--perf-counters)"),
	M("perf_migrations_per_kop", "perf migrations/1000 ops", "", BETTER_LOWER,
	  EV | METRIC_PER_OP, AGG_RATIO, "perf",
	  "CPU migrations per 1000 ops, counted by perf (--perf-counters)"),

	/* sched tracepoints (--trace) */
	PCT(0.50, "wakeup_lat_count", "wakeup_lat_p50_ns", "wakeup latency p50", "ns", BETTER_LOWER,
	    EV, AGG_HIST, "trace",
	    "median time from sched_waking to sched_switch onto the CPU (--trace)"),
	PCT(0.90, "wakeup_lat_count", "wakeup_lat_p90_ns", "wakeup latency p90", "ns", BETTER_LOWER,
	    EV, AGG_HIST, "trace", "90th percentile of the traced wakeup latency (--trace)"),
	PCT(0.99, "wakeup_lat_count", "wakeup_lat_p99_ns", "wakeup latency p99", "ns", BETTER_LOWER,
	    EV, AGG_HIST, "trace", "99th percentile of the traced wakeup latency (--trace)"),
	PCT(0.999, "wakeup_lat_count", "wakeup_lat_p999_ns", "wakeup latency p99.9", "ns",
	    BETTER_LOWER, EV, AGG_HIST, "trace",
	    "99.9th percentile of the traced wakeup latency (--trace)"),
	M("wakeup_lat_max_ns", "wakeup latency max", "ns", BETTER_LOWER, EV, AGG_HIST, "trace",
	  "largest traced wakeup latency (--trace)"),
	M("preempt_share", "preempted switches share", "", BETTER_NEUTRAL, EV, AGG_RATIO, "trace",
	  "share of the tasks' switches out that were preemptions (--trace)"),
	M("wake_prev_cpu_share", "wakeups on previous CPU", "", BETTER_NEUTRAL, EV, AGG_RATIO,
	  "trace", "share of wakeups that ran on the CPU the task last ran on (--trace)"),
	M("wakeups_per_op", "wakeups/op", "", BETTER_LOWER, EV | METRIC_PER_OP, AGG_RATIO, "trace",
	  "traced wakeups of the tasks per op (--trace)"),
	M("trace_migrations_per_kop", "traced migrations/1000 ops", "", BETTER_LOWER,
	  EV | METRIC_PER_OP, AGG_RATIO, "trace", "traced migrations per 1000 ops (--trace)"),
	PCT(0.50, "runq_wait_count", "runq_wait_p50_ns", "run-queue wait p50", "ns", BETTER_LOWER,
	    EV, AGG_HIST, "trace",
	    "median time runnable before running: from a wakeup or a preemption (--trace)"),
	PCT(0.99, "runq_wait_count", "runq_wait_p99_ns", "run-queue wait p99", "ns", BETTER_LOWER,
	    EV, AGG_HIST, "trace", "99th percentile of the traced run-queue wait (--trace)"),
	M("runq_wait_max_ns", "run-queue wait max", "ns", BETTER_LOWER, EV, AGG_HIST, "trace",
	  "largest traced run-queue wait (--trace)"),
	/* the no-wakeup ceiling (--ceiling, doc/evidence.md) */
	M("ceiling_pairs_per_cpu_s", "ceiling write+read/CPU-s", "pairs/s", BETTER_HIGHER, 0,
	  AGG_RATE, "ceiling",
	  "write+read pairs per CPU-second of one task on its own pipe, no wakeup (--ceiling)"),
	M("sched_share", "scheduler and wakeup share", "", BETTER_LOWER, EV, AGG_RATIO, "ceiling",
	  "share of the CPU time per op beyond the no-wakeup data path (--ceiling)"),

	/* sched/debug sampler */
	M("delayed_mean", "delayed entities mean", "", BETTER_NEUTRAL, EV, AGG_MEAN, "sched/debug",
	  "mean number of delayed-dequeue entities over the sample's readings"),
	M("delayed_max", "delayed entities max", "", BETTER_NEUTRAL, EV, AGG_MAX, "sched/debug",
	  "largest number of delayed-dequeue entities read in the sample"),

	/* derived by the runner */
	M("ns_per_op", "time/op", "ns", BETTER_LOWER, 0, AGG_RATIO, "runner",
	  "time one op takes within one instance (perf bench's usecs/op, in ns)"),
	M("mb_per_s_geomean", "MB/s (geometric mean)", "MB/s", BETTER_HIGHER, 0, AGG_RATE, "runner",
	  "geometric mean over instances of the bytes moved per second"),

	/* raw sums over tasks: stored, shown with -v */
	M("nvcsw", "voluntary ctxsw", "", BETTER_NEUTRAL, METRIC_RAW, AGG_SUM, "/proc",
	  "voluntary context switches of every task, summed"),
	M("nivcsw", "involuntary ctxsw", "", BETTER_NEUTRAL, METRIC_RAW, AGG_SUM, "/proc",
	  "involuntary context switches of every task, summed"),
	M("migrations", "migrations", "", BETTER_NEUTRAL, METRIC_RAW, AGG_SUM, "/proc",
	  "CPU migrations of every task, summed"),
	M("run_delay_ns", "run-queue wait", "ns", BETTER_NEUTRAL, METRIC_RAW, AGG_SUM, "/proc",
	  "time every task waited on a run queue, summed"),
	M("timeslices", "timeslices", "", BETTER_NEUTRAL, METRIC_RAW, AGG_SUM, "/proc",
	  "timeslices run on a CPU by every task, summed"),
	M("wakeup_lat_count", "traced wakeups", "", BETTER_NEUTRAL, METRIC_RAW, AGG_SUM, "trace",
	  "wakeup latencies the wakeup latency percentiles were read from (--trace)"),
	M("runq_wait_count", "traced run-queue waits", "", BETTER_NEUTRAL, METRIC_RAW, AGG_SUM,
	  "trace", "run-queue waits the run-queue wait percentiles were read from (--trace)"),
	M("trace_lost_records", "lost trace records", "", BETTER_LOWER, METRIC_RAW, AGG_SUM,
	  "trace", "trace records the kernel dropped (--trace)"),
	M("trace_low_confidence", "trace low confidence", "", BETTER_LOWER, 0, AGG_FLAG, "trace",
	  "1 when more than 1% of the trace records were lost (--trace)"),
};

#undef PCT
#undef M
#undef EV

const struct metric_def *metric_def_at(size_t i)
{
	size_t w;

	if (i < ARRAY_SIZE(common_metrics))
		return &common_metrics[i];
	i -= ARRAY_SIZE(common_metrics);
	for (w = 0; workloads[w]; w++) {
		const struct metric_def *d = workloads[w]->metrics;

		for (; d && d->name; d++, i--)
			if (!i)
				return d;
	}
	return NULL;
}

size_t metric_order(const char *name)
{
	const struct metric_def *d;
	size_t i;

	for (i = 0; (d = metric_def_at(i)); i++)
		if (!strcmp(d->name, name))
			return i;
	return i;
}

const struct metric_def *metric_def(const char *name)
{
	return metric_def_at(metric_order(name));
}

const char *metric_unit(const struct metric_def *d, const char *workload, char *buf, size_t len)
{
	const struct workload *wl = workload ? workload_find(workload) : NULL;

	if (!strcmp(d->unit, "ops/s") && wl && wl->op_name && strcmp(wl->op_name, "bogo ops"))
		snprintf(buf, len, "%s/s", wl->op_name);
	else
		snprintf(buf, len, "%s", d->unit);
	return buf;
}

const char *metric_title(const struct metric_def *d, const char *workload, char *buf, size_t len)
{
	const struct workload *wl = workload ? workload_find(workload) : NULL;

	if (!strcmp(d->unit, "ops/s") && !strncmp(d->label, "ops", 3) && wl && wl->op_name)
		snprintf(buf, len, "%s%s", wl->op_name, d->label + 3);
	else
		snprintf(buf, len, "%s", d->label);
	return buf;
}

const char *metric_title_of(const char *name, const char *workload, char *buf, size_t len)
{
	const struct metric_def *d = metric_def(name);

	if (!d) {
		/* a stored name this binary does not define: stored text, printed safe */
		text_printable_buf(name, 0, buf, len);
		return buf;
	}
	return metric_title(d, workload, buf, len);
}

const char *metric_why_text(const char *why, char *buf, size_t len)
{
	size_t n = why ? strlen(why) : 0;

	if (!n)
		snprintf(buf, len, "unavailable");
	else if (!strncmp(why, "unavailable (", 13) && why[n - 1] == ')')
		snprintf(buf, len, "%s", why);
	else
		snprintf(buf, len, "unavailable (%s)", why);
	return buf;
}

unsigned long metric_values_needed(const struct metric_def *d)
{
	if (!d || !(d->quantile > 0) || d->quantile >= 1)
		return 0;
	/* 1/(1 - 0.99) is 100.000000000001 in binary: round the tiny excess away */
	return (unsigned long)ceil(1.0 / (1.0 - d->quantile) - 1e-9);
}

const struct metric_def *metric_primary(const char *workload)
{
	const struct workload *wl = workload ? workload_find(workload) : NULL;
	const struct metric_def *d = wl && wl->primary ? metric_def(wl->primary) : NULL;

	return d ? d : &common_metrics[0];
}

const char *metric_better_name(int better)
{
	return better > 0 ? "higher" : better < 0 ? "lower" : "neutral";
}
