#!/bin/sh
# --trace=bpf: the BPF tracer's metrics (the perf tracer's names) on a pinned and
# a cross-CPU pingpong, the tracer that ran in the stored experiment (bpf, perf,
# and what plain --trace and --trace=auto chose), no BPF program left attached,
# exit 77 with the reason as nobody and the fallback of --trace=auto; --ceiling:
# the no-wakeup rate and the scheduler and wakeup share, per sample and summarised.
. "$(dirname "$0")/lib.sh"
with_kernel_mounts

wb run -h >/dev/null 2>&1 || skip_all "run is not built"
command -v jq >/dev/null || skip_all "jq is not installed"
[ "$(id -u)" = 0 ] || skip_all "the BPF tracer needs root here"
run_cmd wb run pingpong --trace=bpf -t 100ms -n 1 --warmup 0 -j 1 --no-store
# a rejected or broken object is a defect, not a reason to skip
if [ "$RC" = 77 ] && ! printf '%s' "$ERR" | grep -q "verifier\|loading the BPF programs failed"; then
	skip_all "BPF cannot load here: $(printf '%s' "$ERR" | tail -n 1)"
fi
is "$RC" 0 "run --trace=bpf exits 0"

le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }
m() { jq -r ".samples[0].metrics.$1.$2" "$TMP/run.json"; }

run_cmd wb run pingpong --trace=bpf --placement same-cpu -t 300ms -n 1 --warmup 0 -j 1 --no-store --format json
is "$RC" 0 "pinned pingpong --trace=bpf exits 0"
printf '%s\n' "$OUT" >"$TMP/run.json"
p50=$(m wakeup_lat_p50_ns value); p99=$(m wakeup_lat_p99_ns value); max=$(m wakeup_lat_max_ns value)
if le 1 "$p50" && le "$p50" "$p99" && le "$p99" "$max"; then
	ok 0 "0 < p50 <= p99 <= max ($p50 $p99 $max ns)"
else
	ok 1 "0 < p50 <= p99 <= max"; diag "$p50 $p99 $max"
fi
r50=$(m runq_wait_p50_ns value); rmax=$(m runq_wait_max_ns value)
if le 1 "$r50" && le "$r50" "$rmax"; then ok 0 "run-queue wait: 0 < p50 <= max ($r50 $rmax ns)"; else
	ok 1 "run-queue wait: 0 < p50 <= max"; diag "$r50 $rmax"; fi
v=$(m wake_prev_cpu_share value)
if le 0.99 "$v"; then ok 0 "pinned: wakeups on the previous CPU ($v)"; else
	ok 1 "pinned: wakeups on the previous CPU"; diag "$v"; fi
v=$(m wakeups_per_op value)
if le 0.5 "$v" && le "$v" 2.5; then ok 0 "wakeups per op positive, at most two ($v)"; else
	ok 1 "wakeups per op positive, at most two"; diag "$v"; fi
v=$(m preempt_share value)
if le 0 "$v" && le "$v" 1; then ok 0 "preempt share is a share ($v)"; else
	ok 1 "preempt share is a share"; diag "$v"; fi
is "$(m trace_lost_records value)" 0 "nothing lost in the kernel"
is "$(m trace_migrations_per_kop available)" true "migrations counted"
like "$(printf '%s' "$OUT" | jq -r .tracing_overhead)" "^tracing overhead: " "the overhead line"

if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then
	run_cmd wb run pingpong --trace=bpf --placement cross-cpu -t 300ms -n 1 --warmup 0 -j 1 --no-store --format json
	is "$RC" 0 "cross-cpu pingpong --trace=bpf exits 0"
	printf '%s\n' "$OUT" >"$TMP/run.json"
	v=$(m wakeups_per_op value)
	if le 1.5 "$v" && le "$v" 2.5; then ok 0 "cross-cpu: two wakeups per round trip ($v)"; else
		ok 1 "cross-cpu: two wakeups per round trip"; diag "$v"; fi
	v=$(m preempt_share value)
	if le "$v" 0.05; then ok 0 "cross-cpu: the tasks block, not preempted ($v)"; else
		ok 1 "cross-cpu: the tasks block, not preempted"; diag "$v"; fi
else
	skip "cross-cpu needs two CPUs"; skip "cross-cpu needs two CPUs"; skip "cross-cpu needs two CPUs"
fi

# the stored experiment says which tracer ran
db="$TMP/results.db"
tracer_of() {
	run_cmd wb run pingpong "$1" -t 100ms -n 1 --warmup 0 -j 1 --db "$db" --format json
	u=$(printf '%s' "$OUT" | jq -r .experiment.uuid)
	wb show "$u" --db "$db" --format json | jq -r '.experiments[0].params.tracer'
}
is "$(tracer_of --trace=bpf)" bpf "stored: --trace=bpf ran bpf"
is "$(tracer_of --trace=perf)" perf "stored: --trace=perf ran perf"
is "$(tracer_of --trace)" bpf "stored: plain --trace chose bpf"
is "$(tracer_of --trace=auto)" bpf "stored: --trace=auto chose bpf"

# nothing stays attached
if command -v bpftool >/dev/null || [ -x /usr/sbin/bpftool ]; then
	bt=$(command -v bpftool || echo /usr/sbin/bpftool)
	progs() { "$bt" prog show 2>/dev/null | grep -c 'wb_switch\|wb_waking\|wb_migrate'; }
	# Another test (make check runs them in parallel) may hold its own
	# programs now: wait for every tracing process to end, then none may
	# be left (bpftool here cannot name a program's holder).
	i=0
	while [ "$(progs)" != 0 ] && pgrep -f 'wakebench .*--trace|t-trace-bpf|wakebench .*--ceiling' >/dev/null &&
		[ $i -lt 1200 ]; do
		sleep 0.25
		i=$((i + 1))
	done
	is "$(progs)" 0 "no BPF program of wakebench is left loaded"
else
	skip "bpftool is not installed"
fi

# --ceiling
run_cmd wb run pingpong --ceiling --placement same-cpu -t 200ms -n 2 --warmup 0 -j 1 --no-store --format json
is "$RC" 0 "run --ceiling exits 0"
printf '%s\n' "$OUT" >"$TMP/run.json"
c=$(m ceiling_pairs_per_cpu_s value); s=$(m sched_share value)
if le 1000 "$c"; then ok 0 "ceiling: write+read pairs per CPU-second ($c)"; else
	ok 1 "ceiling: write+read pairs per CPU-second"; diag "$c"; fi
if le 0 "$s" && le "$s" 1; then ok 0 "the scheduler and wakeup share is a share ($s)"; else
	ok 1 "the scheduler and wakeup share is a share"; diag "$s"; fi
# recomputed from the sample's own numbers: 1 - 2 * ops_per_cpu_s / ceiling
want=$(jq -r '.samples[0] | 1 - 2 * .ops_per_cpu_s / .metrics.ceiling_pairs_per_cpu_s.value' "$TMP/run.json")
if awk -v a="$s" -v b="$want" 'BEGIN { d = a - b; exit !(d < 1e-6 && d > -1e-6) }'; then
	ok 0 "share = 1 - 2 x ops per CPU-second / ceiling ($s)"
else
	ok 1 "share = 1 - 2 x ops per CPU-second / ceiling"; diag "$s vs $want"
fi
run_cmd wb run pipe --ceiling -t 200ms -n 1 --warmup 0 -j 1 --no-store
is "$RC" 0 "pipe --ceiling exits 0"
like "$OUT" "scheduler and wakeup share of the cost: [0-9.-]+% " "the summary line"

# as nobody
if unprivileged_setup; then
	nobody() { unprivileged "$@"; }
	cd /
	run_cmd nobody "$UWAKEBENCH" run pingpong --trace=bpf -t 100ms -n 1 --warmup 0 -j 1 --no-store
	is "$RC" 77 "--trace=bpf as nobody exits 77"
	like "$ERR" "--trace=bpf needs root or CAP_BPF and CAP_PERFMON \(loading the BPF programs: Operation not permitted\)" \
		"and says what is missing"
	run_cmd nobody "$UWAKEBENCH" run pingpong --trace=auto -t 100ms -n 1 --warmup 0 -j 1 --no-store
	is "$RC" 0 "--trace=auto as nobody runs"
	like "$ERR" "running without tracing \(--trace=auto\): --trace=bpf needs root or CAP_BPF" \
		"untraced, with the BPF reason"
	cd - >/dev/null
else
	skip "$UWHY"; skip "idem"; skip "idem"; skip "idem"
fi
done_testing
