#!/bin/sh
# vs-perf-bench.sh: wakebench's pingpong against `perf bench sched pipe`,
# pinned to one CPU and unpinned (perf's default), and optionally the cost
# of --trace on it.
#
# Each round runs, for each placement, perf bench sched pipe -l LOOPS (under
# taskset -c CPU when pinned) and wakebench run pingpong with the same
# placement for DURATION; the order of the two alternates from round to
# round (odd rounds perf first, even rounds wakebench first), so that
# neither always runs first on a machine that drifts. With -T each round
# also runs wakebench --trace. Printed per placement: the median round
# trips/s of each, and the median and range of the per-round ratios
# wakebench/perf (target: within +-5%) and of the same on round trips per
# CPU-second (perf's from the shell's children times), which other load on
# a shared machine disturbs less than round trips per wall-second, and how
# many rounds of each ran "split" (under half the placement's highest rate:
# unpinned, the two tasks on two CPUs, so every wakeup is a cross-CPU one).
#
#   bench/vs-perf-bench.sh [-r ROUNDS] [-l LOOPS] [-t DURATION] [-p same-cpu|any|both] [-c CPU] [-T]
#
# Defaults: 10 rounds, 1000000 loops, 5s, both placements, CPU 0. Root is
# needed for -T. Exit status 0 when every wall-clock ratio is within +-5%,
# 1 otherwise, 77 when perf or jq is missing. Never run by `make check`;
# run it alone on the machine (flock).
set -eu

rounds=10 loops=1000000 duration=5s placements=both cpu=0 trace=0
usage="usage: $0 [-r ROUNDS] [-l LOOPS] [-t DURATION] [-p same-cpu|any|both] [-c CPU] [-T]"
while getopts r:l:t:p:c:T o; do
	case $o in
	r) rounds=$OPTARG ;;
	l) loops=$OPTARG ;;
	t) duration=$OPTARG ;;
	p) placements=$OPTARG ;;
	c) cpu=$OPTARG ;;
	T) trace=1 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
case $placements in
same-cpu | any) ;;
both) placements="same-cpu any" ;;
*) echo "$0: -p: '$placements' is not same-cpu, any or both (perf bench cannot pin tasks apart)" >&2
   exit 2 ;;
esac

here=$(cd "$(dirname "$0")/.." && pwd)
wb=${WAKEBENCH:-$here/wakebench}
[ -x "$wb" ] || { echo "$0: no wakebench at '$wb' (make first)" >&2; exit 2; }
command -v perf >/dev/null || { echo "$0: perf is not installed (linux-perf)" >&2; exit 77; }
command -v jq >/dev/null || { echo "$0: jq is not installed" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The wakebench pair is pinned by its own --placement; taskset on the whole
# run would also pin wakebench's parent, which perf bench has no equivalent of.
wbrun() {
	"$wb" run pingpong -j 1 -n 1 --warmup 0 -t "$duration" --placement "$placement" \
		--no-store --format json "$@" 2>"$tmp/err" |
		jq -r '.samples[0] | "\(.ops_per_s) \(.ops_per_cpu_s)"'
}

# user + system seconds of the shell's reaped children so far (POSIX `times`,
# run in this shell: a command substitution would report its own subshell)
cpu_children() {
	awk 'NR == 2 { n = 0
		for (f = 1; f <= 2; f++) { split($f, p, "m"); sub("s", "", p[2]); n += p[1] * 60 + p[2] }
		print n }' "$tmp/times"
}

# perf prints the round trips per second as "ops/sec"; its CPU time is the
# growth of the shell's children times around it
perfrun() {
	times >"$tmp/times"
	c0=$(cpu_children)
	$pin perf bench sched pipe -l "$loops" >"$tmp/perf" 2>/dev/null
	times >"$tmp/times"
	c1=$(cpu_children)
	perf_ops=$(awk '/ops\/sec/ { print $1 }' "$tmp/perf")
	perf_cpu=$(awk -v l="$loops" -v a="$c0" -v b="$c1" 'BEGIN { print (b > a) ? l / (b - a) : 0 }')
}

wbpair() {
	set -- $(wbrun)
	wb_ops=$1 wb_cpu=$2
	tr_ops=0 tr_cpu=0
	if [ "$trace" = 1 ]; then
		set -- $(wbrun --trace)
		tr_ops=$1 tr_cpu=$2
	fi
}

i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	for placement in $placements; do
		case $placement in
		same-cpu) pin="taskset -c $cpu" ;;
		any) pin="" ;;
		esac
		if [ $((i % 2)) = 1 ]; then
			perfrun
			wbpair
		else
			wbpair
			perfrun
		fi
		[ -n "$perf_ops" ] && [ "$wb_ops" != null ] && [ "$tr_ops" != null ] || {
			echo "$0: $placement round $i failed: $(cat "$tmp/err")" >&2; exit 1; }
		echo "$i $perf_ops $wb_ops $tr_ops $wb_cpu $tr_cpu $perf_cpu" >>"$tmp/$placement"
		printf '%s round %d: perf %.0f  wakebench %.0f round trips/s (%.3f)\n' \
			"$placement" "$i" "$perf_ops" "$wb_ops" \
			"$(awk -v a="$wb_ops" -v b="$perf_ops" 'BEGIN { print a / b }')"
	done
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo, hi }'; }

status=0
echo
echo "perf bench sched pipe -l $loops, wakebench run pingpong -t $duration, $rounds rounds"
echo
echo "| placement | rounds | perf round trips/s | wakebench round trips/s | wakebench / perf (median) | range | per CPU-second (median) | split rounds perf / wakebench |"
echo "|---|---|---|---|---|---|---|---|"
for placement in $placements; do
	f=$tmp/$placement
	col() { awk -v c="$1" '{ print $c }' "$f" | median; }
	ratio=$(awk '{ print $3 / $2 }' "$f" | median)
	awk -v r="$ratio" 'BEGIN { exit !(r >= 0.95 && r <= 1.05) }' || status=1
	# a round is "split" (the two tasks on two CPUs, every wakeup a cross-CPU
	# one) when its rate is under half the placement's highest
	top=$(awk '{ m = ($2 > m) ? $2 : m; m = ($3 > m) ? $3 : m } END { print m }' "$f")
	split="$(awk -v t="$top" '$2 < t / 2' "$f" | wc -l) / $(awk -v t="$top" '$3 < t / 2' "$f" | wc -l)"
	[ "$placement" = any ] || split="-"
	printf '| %s | %d | %.0f | %.0f | %.3f | %s | %.3f | %s |\n' "$placement" "$rounds" \
		"$(col 2)" "$(col 3)" "$ratio" "$(awk '{ print $3 / $2 }' "$f" | range)" \
		"$(awk '$7 > 0 { print $5 / $7 }' "$f" | median)" "$split"
done
if [ "$trace" = 1 ]; then
	echo
	for placement in $placements; do
		f=$tmp/$placement
		printf '%s: tracing overhead on ops/s (median of 1 - traced/untraced): %.1f%% (target under 10%%), on ops per CPU-second: %.1f%%\n' \
			"$placement" "$(awk '{ print (1 - $4 / $3) * 100 }' "$f" | median)" \
			"$(awk '{ print (1 - $6 / $5) * 100 }' "$f" | median)"
	done
fi
exit $status
