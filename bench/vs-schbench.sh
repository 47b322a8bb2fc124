#!/bin/sh
# vs-schbench.sh: wakebench's schbench workload against schbench itself.
#
# Each round runs schbench -m M -t W -r SECONDS twice (its JSON and its
# "average rps" line) and `wakebench run schbench --message-threads M
# --workers W -t SECONDS -n 1 --warmup 0` once, in an order that rotates by
# round. Neither is pinned (schbench without -M/-W; wakebench --placement
# any). Printed per round: wakeup and request latency p50/p99 (us) and
# requests/s of each run; at the end, per figure, the medians, the median
# and range of the per-round ratios wakebench/schbench, the range of the
# per-round ratios of schbench's second run to its first (A/A: how far
# schbench is from itself on this machine now), the tolerance and pass or
# FAIL. The tolerance of a latency percentile is the A/A range widened on
# each side by one schbench quantum over schbench's median (its percentiles
# are whole microseconds from gettimeofday, exact below 512 us and in 256
# buckets per power of two above; wakebench's are nanoseconds from
# CLOCK_MONOTONIC, shown here in us); requests/s is held to 5%. Exits 1
# when a figure fails.
#
# With -T wakebench also traces (--trace, root): the tracepoint wakeup
# latency (sched_waking to sched_switch, every wakeup of every task of the
# instance) is printed next to its own measurement from the same samples.
#
#   SCHBENCH=/path/to/schbench bench/vs-schbench.sh [-r ROUNDS] [-s SECONDS] [-m M] [-w W] [-T]
#
# WAKEBENCH_ARGS adds options to every wakebench run (e.g. "--debugfs $(mktemp -d)", an empty directory,
# leaves out the 10 Hz sched/debug sampler, to see its cost).
#
# Defaults: 10 rounds of 10 s (3 runs each), 1 message thread, workers 0 (schbench's
# default: one per CPU). Build schbench outside the tree, e.g. from commit
# 24e32b8 of github.com/masoncl/schbench (`make`: gcc, -lpthread -lm).
# Run it under the machine's benchmark lock. Never run by `make check`.
set -eu

rounds=10 secs=10 mthreads=1 workers=0 trace=""
while getopts r:s:m:w:T o; do
	case $o in
	r) rounds=$OPTARG ;;
	s) secs=$OPTARG ;;
	m) mthreads=$OPTARG ;;
	w) workers=$OPTARG ;;
	T) trace=--trace ;;
	*) echo "usage: SCHBENCH=PATH $0 [-r ROUNDS] [-s SECONDS] [-m M] [-w W] [-T]" >&2
	   exit 2 ;;
	esac
done
case $secs in
'' | *[!0-9]*) echo "$0: -s: '$secs' is not a whole number of seconds (schbench -r)" >&2
	exit 2 ;;
esac

here=$(cd "$(dirname "$0")/.." && pwd)
wb=${WAKEBENCH:-$here/wakebench}
sb=${SCHBENCH:-}
[ -x "$wb" ] || { echo "$0: no wakebench at '$wb' (make first)" >&2; exit 2; }
[ -n "$sb" ] && [ -x "$sb" ] || {
	echo "$0: set SCHBENCH to a schbench binary (github.com/masoncl/schbench)" >&2; exit 77; }
command -v jq >/dev/null || { echo "$0: jq is not installed" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# schbench's -t 0 is "one per CPU", as wakebench's --workers 0
sbargs="-m $mthreads -r $secs"
[ "$workers" -gt 0 ] && sbargs="$sbargs -t $workers"

# prints: wakeup p50 p99, request p50 p99 (us), requests/s
run_schbench() {
	# shellcheck disable=SC2086
	"$sb" $sbargs -j "$tmp/sb.json" 2>"$tmp/sb.err" >/dev/null || {
		echo "$0: schbench failed: $(tail -3 "$tmp/sb.err")" >&2; exit 1; }
	rps=$(awk '/^average rps:/ { print $3 }' "$tmp/sb.err")
	jq -r --arg rps "$rps" '.int | "\(.["wakeup_latency_pct50.0"]) \(.["wakeup_latency_pct99.0"]) \(.["request_latency_pct50.0"]) \(.["request_latency_pct99.0"]) \($rps)"' \
		"$tmp/sb.json"
}

# prints the same for wakebench, then the traced p50 p99 (us) or "- -"
run_wakebench() {
	"$wb" run schbench --message-threads "$mthreads" --workers "$workers" -t "${secs}s" -n 1 \
		--warmup 0 --placement any --no-store --format json $trace ${WAKEBENCH_ARGS:-} \
		>"$tmp/wb.json" \
		2>"$tmp/wb.err" || { echo "$0: wakebench failed: $(tail -3 "$tmp/wb.err")" >&2; exit 1; }
	jq -r '.samples[0].metrics as $m | def us(n): if $m[n].available then $m[n].value / 1000 else "-" end;
		"\(us("schbench_wakeup_p50_ns")) \(us("schbench_wakeup_p99_ns")) \(us("schbench_request_p50_ns")) \(us("schbench_request_p99_ns")) \($m.requests_per_s.value) \(us("wakeup_lat_p50_ns")) \(us("wakeup_lat_p99_ns"))"' \
		"$tmp/wb.json"
}

# Each round runs schbench twice (A and A') and wakebench once (B), in an
# order that rotates by round (A B A', B A' A, A' A B), so that position in
# the round and slow drift hit all three alike.
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	case $((i % 3)) in
	1) a=$(run_schbench); w=$(run_wakebench); a2=$(run_schbench) ;;
	2) w=$(run_wakebench); a2=$(run_schbench); a=$(run_schbench) ;;
	0) a2=$(run_schbench); a=$(run_schbench); w=$(run_wakebench) ;;
	esac
	echo "$i $a $w $a2" >>"$tmp/rounds"
	# shellcheck disable=SC2086
	set -- $a $w $a2
	printf 'round %d: schbench wakeup %s/%s us request %s/%s us %.0f rps | wakebench wakeup %.1f/%.1f us request %.0f/%.0f us %.0f rps | schbench again %s/%s %s/%s %.0f' \
		"$i" "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" "${13}" "${14}" "${15}" "${16}" "${17}"
	[ -n "$trace" ] && printf ' | traced wakeup %s/%s us' "${11}" "${12}"
	echo
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$1" '$c != "-" { print $c }' "$tmp/rounds" | median; }
ratios() { awk -v a="$1" -v b="$2" '$a != "-" && $b > 0 { print $a / $b }' "$tmp/rounds" | sort -g; }
ratio() { ratios "$1" "$2" | median; }
range() { ratios "$1" "$2" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f..%.3f", lo, hi }'; }

echo
echo "rounds: $rounds x ${secs}s, schbench $sbargs, wakebench --message-threads $mthreads --workers $workers"
echo "A/A: schbench against itself in the same rounds. A latency figure passes when the median"
echo "of its per-round ratios wakebench/schbench lies in the range of the per-round ratios"
echo "schbench/schbench, widened on each side by schbench's quantum over its median (1 us"
echo "below 512 us, its histogram bucket above);"
echo "requests/s passes within 5%."
printf '%-16s %6s %10s %10s %8s %13s %13s %13s %s\n' figure rounds schbench wakebench ratio \
	"range" "A/A range" tolerance pass
# columns: 1 round, 2-6 schbench A, 7-11 wakebench, 12-13 traced, 14-18 schbench A'
# schbench's quantum at a value of m us: whole microseconds below 512, above
# that the width of its histogram bucket (256 per power of two)
quantum='function q(m,  b) { if (m < 512) return 1; b = 1; while (b * 512 <= m) b *= 2; return b }
'
fail=0
for f in "wakeup p50 us:2:7:14" "wakeup p99 us:3:8:15" "request p50 us:4:9:16" \
	"request p99 us:5:10:17" "requests/s:6:11:18"; do
	name=${f%%:*} rest=${f#*:}
	a=${rest%%:*} rest=${rest#*:}
	b=${rest%%:*} a2=${rest#*:}
	med=$(ratio "$b" "$a") sa=$(col "$a")
	aa=$(range "$a2" "$a")
	if [ "$name" = requests/s ]; then
		lo=0.95 hi=1.05
	else
		lo=$(awk -v r="$aa" -v m="$sa" "$quantum"'BEGIN { split(r, x, /\.\./); v = x[1] - q(m) / m; print (v > 0 ? v : 0) }')
		hi=$(awk -v r="$aa" -v m="$sa" "$quantum"'BEGIN { split(r, x, /\.\./); print x[2] + q(m) / m }')
	fi
	ok=$(awk -v v="$med" -v lo="$lo" -v hi="$hi" 'BEGIN { print (v >= lo && v <= hi) ? "pass" : "FAIL" }')
	[ "$ok" = pass ] || fail=1
	printf '%-16s %6d %10.1f %10.1f %8.3f %13s %13s %13s %s\n' "$name" "$rounds" "$sa" \
		"$(col "$b")" "$med" "$(range "$b" "$a")" "$aa" "$(printf '%.3f..%.3f' "$lo" "$hi")" "$ok"
done
if [ -n "$trace" ]; then
	printf 'traced wakeup p50 %.1f us, p99 %.1f us; wakebench own / traced: p50 %.3f, p99 %.3f\n' \
		"$(col 12)" "$(col 13)" "$(ratio 7 12)" "$(ratio 8 13)"
fi
exit "$fail"
