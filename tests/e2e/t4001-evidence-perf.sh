#!/bin/sh
# Evidence without tracing: pingpong pinned to one CPU switches context about
# twice per round trip, by /proc counters and by perf software counters
# (--perf-counters, when permitted), and every evidence metric is in the JSON.
. "$(dirname "$0")/lib.sh"
with_kernel_mounts

wb run -h >/dev/null 2>&1 || skip_all "run is not built"
command -v jq >/dev/null || skip_all "jq is not installed"

run_cmd wb run pingpong --placement same-cpu -t 1s -n 1 --warmup 0 -j 1 --no-store --perf-counters --format json
is "$RC" 0 "run pingpong --placement same-cpu exits 0"
printf '%s\n' "$OUT" >"$TMP/run.json"
m() { jq -r ".samples[0].metrics.$1.$2" "$TMP/run.json"; }
in_range() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }

ok "$(jq -e '.samples[0].ops > 0' "$TMP/run.json" >/dev/null; echo $?)" "round trips are counted"
v=$(m ctxsw_per_op value)
if in_range "$v" 1.5 2.5; then ok 0 "/proc: about 2 context switches per round trip ($v)"; else
	ok 1 "/proc: about 2 context switches per round trip"; diag "ctxsw_per_op: $v"; fi

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$(id -u)" = 0 ] || [ "$paranoid" -lt 2 ]; then
	v=$(m perf_ctxsw_per_op value)
	if in_range "$v" 1.5 2.5; then ok 0 "perf: about 2 context switches per round trip ($v)"; else
		ok 1 "perf: about 2 context switches per round trip"; diag "perf_ctxsw_per_op: $v $(m perf_ctxsw_per_op why)"; fi
	is "$(m perf_migrations_per_kop available)" true "perf migrations are measured"
	is "$(m perf_ctxsw_per_op better)" lower "fewer switches per op are better"
else
	skip "perf counters need root here"
	skip "perf counters need root here"
	skip "perf counters need root here"
fi

if [ -r /sys/kernel/debug/sched/debug ]; then
	is "$(m delayed_mean available)" true "delayed entities are sampled from sched/debug"
else
	like "$(m delayed_mean why)" "^unavailable \(" "delayed entities unavailable with a reason"
fi

# per-task perf counters are opt-in (they slow context switches)
run_cmd wb run pingpong --placement same-cpu -t 100ms -n 1 --warmup 0 -j 1 --no-store --format json
is "$RC" 0 "run without --perf-counters exits 0"
is "$(printf '%s\n' "$OUT" | jq -r '.samples[0].metrics | has("perf_ctxsw_per_op")')" false \
	"no perf counters unless asked for"

# the text output names them too
run_cmd wb run pingpong --placement same-cpu -t 100ms -n 1 --warmup 0 -j 1 --no-store
is "$RC" 0 "text output exits 0"
like "$OUT" "^workload: pingpong, profile: perf-bench-sched-pipe$" "the profile is perf-bench-sched-pipe"
like "$OUT" "^sample 1/1: round trips/s \(real time\) $NUM  " "the sample line counts round trips"
like "$OUT" "^  round trips/s \(real time\) +1 " "the summary names it as the sample line does"

run_cmd wb run pingpong --threads --placement same-cpu -t 100ms -n 1 --warmup 0 -j 1 --no-store --format json
is "$RC" 0 "--threads exits 0"
ok "$(printf '%s\n' "$OUT" | jq -e '.samples[0].ops > 0 and .params.threads == true' >/dev/null; echo $?)" \
	"--threads counts round trips"

run_cmd wb run pingpong -j 2 --placement cross-cpu -t 100ms -n 1 --warmup 0 --no-store
case "$(getconf _NPROCESSORS_ONLN)" in
1) is "$RC" 2 "cross-cpu on one CPU is refused" ;;
*) is "$RC" 0 "two pairs across CPUs exit 0" ;;
esac
done_testing
