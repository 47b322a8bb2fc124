#!/bin/sh
# vs-perf-bench.sh: wakebench's pingpong against `perf bench sched pipe`, and
# the cost of --trace on it.
#
# Each round runs, back to back: perf bench sched pipe -l LOOPS (under
# taskset for placement), wakebench run pingpong with the same placement
# for DURATION, and the same wakebench run with --trace. Alternating within
# a round cancels slow drift of a noisy machine. Printed: the median round
# trips/s of each, the median of the per-round ratios wakebench/perf
# (target: within +-5%), the same on round trips per CPU-second (perf's
# from the shell's children times) and the tracing overhead, 1 - traced/untraced
# (median of per-round ratios; target: under 10% for pingpong), plus the
# same on ops per CPU-second, which a machine shared with other load
# disturbs much less than ops per wall-second.
#
#   bench/vs-perf-bench.sh [-r ROUNDS] [-l LOOPS] [-t DURATION] [-p any|same-cpu] [-c CPU]
#
# Defaults: 10 rounds, 1000000 loops, 5s, same-cpu on CPU 0. Root is needed
# for --trace. Never run by `make check`.
set -eu

rounds=10 loops=1000000 duration=5s placement=same-cpu cpu=0
while getopts r:l:t:p:c: o; do
	case $o in
	r) rounds=$OPTARG ;;
	l) loops=$OPTARG ;;
	t) duration=$OPTARG ;;
	p) placement=$OPTARG ;;
	c) cpu=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-l LOOPS] [-t DURATION] [-p any|same-cpu] [-c CPU]" >&2
	   exit 2 ;;
	esac
done
case $placement in
same-cpu) pin="taskset -c $cpu" ;;
any) pin="" ;;
*) echo "$0: -p: '$placement' is not any or same-cpu (perf bench cannot pin tasks apart)" >&2
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

i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	# perf prints the round trips per second as "ops/sec"; its CPU time is
	# the growth of the shell's children times around it
	times >"$tmp/times"
	c0=$(cpu_children)
	$pin perf bench sched pipe -l "$loops" >"$tmp/perf" 2>/dev/null
	times >"$tmp/times"
	c1=$(cpu_children)
	perf_ops=$(awk '/ops\/sec/ { print $1 }' "$tmp/perf")
	perf_cpu=$(awk -v l="$loops" -v a="$c0" -v b="$c1" 'BEGIN { print (b > a) ? l / (b - a) : 0 }')
	set -- $(wbrun)
	wb_ops=$1 wb_cpu=$2
	set -- $(wbrun --trace)
	tr_ops=$1 tr_cpu=$2
	[ -n "$perf_ops" ] && [ "$wb_ops" != null ] && [ "$tr_ops" != null ] || {
		echo "$0: round $i failed: $(cat "$tmp/err")" >&2; exit 1; }
	echo "$i $perf_ops $wb_ops $tr_ops $wb_cpu $tr_cpu $perf_cpu" >>"$tmp/rounds"
	printf 'round %d: perf %.0f  wakebench %.0f  traced %.0f round trips/s\n' \
		"$i" "$perf_ops" "$wb_ops" "$tr_ops"
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$1" '{ print $c }' "$tmp/rounds" | median; }

echo
echo "rounds: $rounds, perf bench sched pipe -l $loops, wakebench -t $duration, placement $placement"
printf 'median round trips/s: perf %.0f, wakebench %.0f, wakebench --trace %.0f\n' \
	"$(col 2)" "$(col 3)" "$(col 4)"
ratio=$(awk '{ print $3 / $2 }' "$tmp/rounds" | median)
printf 'wakebench / perf (median of per-round ratios): %.3f (%+.1f%%; target within +-5%%)\n' \
	"$ratio" "$(awk -v r="$ratio" 'BEGIN { print (r - 1) * 100 }')"
cratio=$(awk '$7 > 0 { print $5 / $7 }' "$tmp/rounds" | median)
printf 'the same per CPU-second (usr+sys of the tasks): %.3f (%+.1f%%)\n' \
	"$cratio" "$(awk -v r="$cratio" 'BEGIN { print (r - 1) * 100 }')"
ovh=$(awk '{ print 1 - $4 / $3 }' "$tmp/rounds" | median)
printf 'tracing overhead on ops/s (median of 1 - traced/untraced): %.1f%% (target under 10%%)\n' \
	"$(awk -v o="$ovh" 'BEGIN { print o * 100 }')"
ovh_cpu=$(awk '{ print 1 - $6 / $5 }' "$tmp/rounds" | median)
printf 'tracing overhead on ops per CPU-second: %.1f%%\n' \
	"$(awk -v o="$ovh_cpu" 'BEGIN { print o * 100 }')"
