#!/bin/sh
# As an unprivileged user: perf counters are "unavailable (perf_event_paranoid=N)"
# (never a zero), --trace exits 77 naming what is missing, --trace=auto runs
# without tracing and says so. Where perf_event_open(2) is missing for root too
# (qemu-user does not implement it), the reason nobody is given must be that
# one, not the paranoia setting.
. "$(dirname "$0")/lib.sh"
with_kernel_mounts

wb run -h >/dev/null 2>&1 || skip_all "run is not built"
command -v jq >/dev/null || skip_all "jq is not installed"
[ "$(id -u)" = 0 ] || skip_all "needs root to become nobody"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
[ "$paranoid" -ge 2 ] || skip_all "perf_event_paranoid=$paranoid lets everyone count"
unprivileged_setup || skip_all "$UWHY"
nobody() { unprivileged "$@"; }

# what root is told: nothing when perf events work, else the reason for all
cd /
run_cmd wb run pingpong -t 100ms -n 1 --warmup 0 -j 1 --no-store --perf-counters --format json
is "$RC" 0 "run as root exits 0"
rootwhy=$(printf '%s\n' "$OUT" | jq -r '.samples[0].metrics.perf_ctxsw_per_op.why')
case $rootwhy in
null) why="unavailable (perf_event_paranoid=$paranoid)" rootok=0 ;;
"unavailable (perf events not supported: "*)
	why=$rootwhy rootok=0
	diag "perf events are not supported here, for root either: $rootwhy"
	;;
*) why="unavailable (perf_event_paranoid=$paranoid)" rootok=1 ;;
esac
ok "$rootok" "root's perf counters are measured, or not supported at all ($rootwhy)"

# the store is in a directory nobody cannot write: --no-store
run_cmd nobody "$UWAKEBENCH" run pingpong -t 100ms -n 1 --warmup 0 -j 1 --no-store --perf-counters --format json
is "$RC" 0 "run as nobody exits 0"
printf '%s\n' "$OUT" >"$TMP/run.json"
m() { jq -r ".samples[0].metrics.$1.$2" "$TMP/run.json"; }
is "$(m perf_ctxsw_per_op available)" false "perf ctxsw/op is unavailable"
is "$(m perf_ctxsw_per_op why)" "$why" "with the reason"
is "$(m perf_ctxsw_per_op value)" null "and no value"
is "$(m perf_migrations_per_kop why)" "$why" "perf migrations: the same reason"
is "$(m ctxsw_per_op available)" true "/proc counters still measured"

run_cmd nobody "$UWAKEBENCH" run pingpong -t 100ms -n 1 --warmup 0 -j 1 --no-store --perf-counters
is "$RC" 0 "text output as nobody exits 0"
like "$OUT" "perf ctxsw/op +$(printf '%s' "$why" | sed 's/[][().*+?^$|\\]/\\&/g')" "text names the reason"

run_cmd nobody "$UWAKEBENCH" run pingpong --trace -t 100ms -n 1 --warmup 0 -j 1 --no-store
is "$RC" 77 "--trace as nobody exits 77"
like "$ERR" "--trace needs root or CAP_PERFMON" "and says what is missing"
is "$OUT" "" "nothing measured"

run_cmd nobody "$UWAKEBENCH" run pingpong --trace=auto -t 100ms -n 1 --warmup 0 -j 1 --no-store
is "$RC" 0 "--trace=auto as nobody runs"
like "$ERR" "running without tracing \(--trace=auto\)" "and says it runs without tracing"
done_testing
