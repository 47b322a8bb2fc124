#!/bin/sh
# vs-hackbench.sh: wakebench's messaging against rt-tests' hackbench and
# `perf bench sched messaging`, with the same parameters.
#
# For each configuration (socketpairs or pipes, processes or threads), each
# round runs the three back to back, in an order that rotates from round to
# round over the tools that run (so that each runs first, second ... equally
# often on a machine that drifts):
#   hackbench -g G -l L [-p] [-T]                 its "Time:"
#   perf bench sched messaging -g G -l L [-p] [-t]   its "Total time"
#   wakebench run messaging --groups G --loops L [--pipe] [--threads] -n 1
#                                                 its messaging_run_s
# All three time the same thing: from the start of every sender and
# receiver to the exit of the last (hackbench and perf also reap them).
# Printed per configuration: the median seconds of each, and the medians of
# the per-round ratios wakebench/hackbench and wakebench/perf (target: within
# +-5%); at the end one table of every configuration: rounds, median
# seconds, the median and range of the per-round ratios.
#
#   bench/vs-hackbench.sh [-r ROUNDS] [-g GROUPS] [-l LOOPS] [-c CONFIGS] [-P] [-L]
#
# CONFIGS is a comma-separated list of socket, pipe, socket-threads,
# pipe-threads (default: all four). Defaults: 10 rounds, 10 groups, 100
# loops (the references' defaults). -P leaves perf out (hackbench and
# wakebench only; perf's process mode is the slowest of the three). -L also
# runs hackbench with the shared libraries wakebench links (its ldd list)
# preloaded (LD_PRELOAD), so that hackbench's tasks carry wakebench's weight
# (the mappings each task's exit tears down inside the time); its column
# "hackbench+libs" is not part of the exit status. Exit status 0 when every ratio is within
# the target, 1 otherwise, 77 when a reference is not installed. Never run by
# `make check`; run it alone on the machine (flock /work/spec/bench.lock).
set -eu

rounds=10 groups=10 loops=100 configs=socket,pipe,socket-threads,pipe-threads with_perf=1 with_libs=0
while getopts r:g:l:c:PL o; do
	case $o in
	r) rounds=$OPTARG ;;
	g) groups=$OPTARG ;;
	l) loops=$OPTARG ;;
	c) configs=$OPTARG ;;
	P) with_perf=0 ;;
	L) with_libs=1 ;;
	*) echo "usage: $0 [-r ROUNDS] [-g GROUPS] [-l LOOPS] [-c CONFIGS] [-P] [-L]" >&2
	   exit 2 ;;
	esac
done

here=$(cd "$(dirname "$0")/.." && pwd)
wb=${WAKEBENCH:-$here/wakebench}
[ -x "$wb" ] || { echo "$0: no wakebench at '$wb' (make first)" >&2; exit 2; }
command -v hackbench >/dev/null || { echo "$0: hackbench is not installed (rt-tests)" >&2; exit 77; }
[ "$with_perf" = 0 ] || command -v perf >/dev/null || { echo "$0: perf is not installed (linux-perf)" >&2; exit 77; }
command -v jq >/dev/null || { echo "$0: jq is not installed" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libs=
if [ "$with_libs" = 1 ]; then
	libs=$(ldd "$wb" | awk '$3 ~ /^\// && $1 !~ /^(libc|libm)\.so/ { print $3 }' | paste -sd: -)
	[ -n "$libs" ] || { echo "$0: -L: ldd lists no shared library of '$wb'" >&2; exit 2; }
fi

# one run of each; prints seconds
run_hackbench() {
	hackbench -g "$groups" -l "$loops" $hb_flags >"$tmp/hb" 2>&1 || {
		echo "$0: hackbench failed: $(cat "$tmp/hb")" >&2; exit 1; }
	awk '/^Time:/ { print $2 }' "$tmp/hb"
}
run_hackbenchlibs() {
	[ "$with_libs" = 1 ] || { echo 1; return; }
	LD_PRELOAD=$libs hackbench -g "$groups" -l "$loops" $hb_flags >"$tmp/hbl" 2>&1 || {
		echo "$0: hackbench with wakebench's libraries failed: $(cat "$tmp/hbl")" >&2; exit 1; }
	awk '/^Time:/ { print $2 }' "$tmp/hbl"
}
run_perf() {
	[ "$with_perf" = 1 ] || { echo 1; return; }
	perf bench sched messaging -g "$groups" -l "$loops" $perf_flags >"$tmp/perf" 2>&1 || {
		echo "$0: perf bench failed: $(cat "$tmp/perf")" >&2; exit 1; }
	awk '/Total time:/ { print $3 }' "$tmp/perf"
}
run_wakebench() {
	"$wb" run messaging --groups "$groups" --loops "$loops" $wb_flags -n 1 --warmup 0 \
		--no-store --format json >"$tmp/wb.json" 2>"$tmp/err" || {
		echo "$0: wakebench failed: $(cat "$tmp/err")" >&2; exit 1; }
	jq -r '.samples[0].metrics | if type == "array" then .[] | select(.name == "messaging_run_s")
		else .messaging_run_s end | .value' "$tmp/wb.json"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo, hi }'; }
col() { awk -v c="$1" '{ print $c }' "$2" | median; }

tools="hackbench wakebench"
[ "$with_perf" = 0 ] || tools="hackbench perf wakebench"
[ "$with_libs" = 0 ] || tools="$tools hackbenchlibs"
status=0
for config in $(echo "$configs" | tr ',' ' '); do
	case $config in
	socket) hb_flags="" perf_flags="" wb_flags="" ;;
	pipe) hb_flags="-p" perf_flags="-p" wb_flags="--pipe" ;;
	socket-threads) hb_flags="-T" perf_flags="-t" wb_flags="--threads" ;;
	pipe-threads) hb_flags="-p -T" perf_flags="-p -t" wb_flags="--pipe --threads" ;;
	*) echo "$0: -c: '$config' is not socket, pipe, socket-threads or pipe-threads" >&2
	   exit 2 ;;
	esac
	rf=$tmp/rounds.$config
	: >"$rf"
	i=0
	while [ "$i" -lt "$rounds" ]; do
		i=$((i + 1))
		# rotate over the tools that run, so that each runs first, second ...
		# equally often (a left-out one must not shift the order)
		set -- $tools
		k=$(((i - 1) % $#))
		while [ "$k" -gt 0 ]; do
			first=$1
			shift
			set -- "$@" "$first"
			k=$((k - 1))
		done
		t_perf=1 t_hackbenchlibs=1
		for tool in "$@"; do
			eval "t_$tool=\$(run_$tool)"
		done
		[ -n "$t_hackbench" ] && [ -n "$t_perf" ] && [ "$t_wakebench" != null ] || {
			echo "$0: $config round $i: no time from one of them" >&2; exit 1; }
		echo "$i $t_hackbench $t_perf $t_wakebench $t_hackbenchlibs" >>"$rf"
		printf '%s round %d: hackbench %.3f  perf %.3f  wakebench %.4f s\n' \
			"$config" "$i" "$t_hackbench" "$t_perf" "$t_wakebench"
	done
	r_hb=$(awk '{ print $4 / $2 }' "$rf" | median)
	r_perf=$(awk '{ print $4 / $3 }' "$rf" | median)
	echo
	echo "$config: $rounds rounds, $groups groups, $loops loops"
	printf '  median s: hackbench %.3f, perf %.3f, wakebench %.4f\n' \
		"$(col 2 "$rf")" "$(col 3 "$rf")" "$(col 4 "$rf")"
	pairs="hackbench $r_hb"
	[ "$with_perf" = 0 ] || pairs="$pairs,perf $r_perf"
	echo "$pairs" | tr ',' '\n' >"$tmp/pairs"
	[ "$with_libs" = 0 ] || printf '  hackbench+libs: median %.3f s, hackbench+libs / hackbench (median of per-round ratios) %.3f\n' \
		"$(col 5 "$rf")" "$(awk '{ print $5 / $2 }' "$rf" | median)"
	while read -r pair; do
		set -- $pair
		verdict=$(awk -v r="$2" 'BEGIN { print (r >= 0.95 && r <= 1.05) ? "within" : "OUTSIDE" }')
		[ "$verdict" = within ] || status=1
		printf '  wakebench / %s (median of per-round ratios): %.3f (%+.1f%%; %s +-5%%)\n' \
			"$1" "$2" "$(awk -v r="$2" 'BEGIN { print (r - 1) * 100 }')" "$verdict"
	done <"$tmp/pairs"
	echo
done

echo "| configuration | rounds | hackbench s | wakebench s | wakebench / hackbench (median) | range |$( [ "$with_perf" = 1 ] && echo " perf s | wakebench / perf (median) | range |")$( [ "$with_libs" = 1 ] && echo " hackbench+libs s | hackbench+libs / hackbench (median) | range |")"
echo "|---|---|---|---|---|---|$( [ "$with_perf" = 1 ] && echo "---|---|---|")$( [ "$with_libs" = 1 ] && echo "---|---|---|")"
for config in $(echo "$configs" | tr ',' ' '); do
	rf=$tmp/rounds.$config
	printf '| %s | %d | %.3f | %.3f | %.3f | %s |' "$config" "$(wc -l <"$rf")" \
		"$(col 2 "$rf")" "$(col 4 "$rf")" "$(awk '{ print $4 / $2 }' "$rf" | median)" \
		"$(awk '{ print $4 / $2 }' "$rf" | range)"
	[ "$with_perf" = 0 ] || printf ' %.3f | %.3f | %s |' "$(col 3 "$rf")" \
		"$(awk '{ print $4 / $3 }' "$rf" | median)" "$(awk '{ print $4 / $3 }' "$rf" | range)"
	[ "$with_libs" = 0 ] || printf ' %.3f | %.3f | %s |' "$(col 5 "$rf")" \
		"$(awk '{ print $5 / $2 }' "$rf" | median)" "$(awk '{ print $5 / $2 }' "$rf" | range)"
	echo
done
exit $status
