#!/bin/sh
# --trace: wakeup latency percentiles in order, wakeups per op, the share of
# preemptions and of wakeups on the previous CPU, lost records, the tracing
# overhead line; nothing left behind (no tracefs change, no process).
. "$(dirname "$0")/lib.sh"
with_kernel_mounts

wb run -h >/dev/null 2>&1 || skip_all "run is not built"
command -v jq >/dev/null || skip_all "jq is not installed"
[ "$(id -u)" = 0 ] || skip_all "--trace needs root here"
[ -r /sys/kernel/tracing/events/sched/sched_switch/id ] ||
	[ -r /sys/kernel/debug/tracing/events/sched/sched_switch/id ] || skip_all "no tracefs"

tracing_on=$(cat /sys/kernel/tracing/tracing_on 2>/dev/null)
events_enabled=$(cat /sys/kernel/tracing/events/sched/enable 2>/dev/null)

run_cmd wb run pingpong --trace=perf --placement same-cpu -t 300ms -n 1 --warmup 0 -j 1 --no-store --format json
is "$RC" 0 "run pingpong --trace exits 0"
printf '%s\n' "$OUT" >"$TMP/run.json"
m() { jq -r ".samples[0].metrics.$1.$2" "$TMP/run.json"; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }

p50=$(m wakeup_lat_p50_ns value); p90=$(m wakeup_lat_p90_ns value)
p99=$(m wakeup_lat_p99_ns value); p999=$(m wakeup_lat_p999_ns value)
max=$(m wakeup_lat_max_ns value)
if le 1 "$p50" && le "$p50" "$p90" && le "$p90" "$p99" && le "$p99" "$p999" && le "$p999" "$max"; then
	ok 0 "0 < p50 <= p90 <= p99 <= p99.9 <= max ($p50 $p90 $p99 $p999 $max ns)"
else
	ok 1 "0 < p50 <= p90 <= p99 <= p99.9 <= max"; diag "$p50 $p90 $p99 $p999 $max"
fi
v=$(m wakeups_per_op value)
if le 0.5 "$v" && le "$v" 2.5; then ok 0 "wakeups per op positive, at most two ($v)"; else
	ok 1 "wakeups per op positive, at most two"; diag "wakeups_per_op: $v"; fi
v=$(m preempt_share value)
if le 0 "$v" && le "$v" 1; then ok 0 "preempt share is a share ($v)"; else
	ok 1 "preempt share is a share"; diag "$v"; fi
# both tasks on one CPU: every wakeup runs where the task last ran
v=$(m wake_prev_cpu_share value)
if le 0.99 "$v"; then ok 0 "pinned: wakeups on the previous CPU ($v)"; else
	ok 1 "pinned: wakeups on the previous CPU"; diag "$v"; fi
is "$(m trace_lost_records available)" true "lost records are counted"
is "$(m trace_low_confidence available)" true "the confidence flag is stored"
is "$(m wakeup_lat_p99_ns better)" lower "lower latency is better"
is "$(jq -r '.samples[0].metrics.wakeup_lat_p50_ns | has("value")' "$TMP/run.json")" true \
	"latency is a sample metric"

# across two CPUs every wakeup is recorded on the waker's CPU and ends on the
# other: the merge of the CPUs' buffers must put them in order
if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then
	run_cmd wb run pingpong --trace=perf --placement cross-cpu -t 300ms -n 1 --warmup 0 -j 1 --no-store --format json
	is "$RC" 0 "run pingpong --trace=perf --placement cross-cpu exits 0"
	printf '%s\n' "$OUT" >"$TMP/run.json"
	p50=$(m wakeup_lat_p50_ns value); max=$(m wakeup_lat_max_ns value)
	if le 1 "$p50" && le "$p50" "$max"; then ok 0 "cross-cpu: 0 < p50 <= max ($p50 $max ns)"; else
		ok 1 "cross-cpu: 0 < p50 <= max"; diag "$p50 $max"; fi
	v=$(m wake_prev_cpu_share value)
	if le 0.99 "$v"; then ok 0 "cross-cpu: each task stays on its CPU ($v)"; else
		ok 1 "cross-cpu: each task stays on its CPU"; diag "$v"; fi
	v=$(m wakeups_per_op value)
	if le 1.5 "$v" && le "$v" 2.5; then ok 0 "cross-cpu: two wakeups per round trip ($v)"; else
		ok 1 "cross-cpu: two wakeups per round trip"; diag "$v"; fi
else
	skip "cross-cpu needs two CPUs"; skip "cross-cpu needs two CPUs"
	skip "cross-cpu needs two CPUs"; skip "cross-cpu needs two CPUs"
fi

run_cmd wb run pingpong --trace -t 200ms -n 1 --warmup 0 -j 1 --no-store
is "$RC" 0 "text output with --trace exits 0"
like "$OUT" "^tracing overhead: [0-9.]+% (fewer|more) ops/s \(traced $NUM, untraced $NUM\)" \
	"the tracing overhead is printed with the result"
like "$OUT" "^tracing overhead: .*; [0-9.]+% (fewer|more) ops per CPU-second \(traced $NUM, untraced $NUM\)" \
	"the tracing overhead per CPU-second is printed too"
like "$OUT" "wakeup latency p99" "latency percentiles in the summary"

is "$(cat /sys/kernel/tracing/tracing_on 2>/dev/null)" "$tracing_on" "tracing_on unchanged"
is "$(cat /sys/kernel/tracing/events/sched/enable 2>/dev/null)" "$events_enabled" \
	"sched events' enable unchanged"
left=$(own_wakebench_pids)
is "$left" "" "no wakebench process is left"
done_testing
