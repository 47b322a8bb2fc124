#!/bin/sh
# vs-ring.sh: wakebench's ring against lmbench's lat_ctx, and ring at N = 2
# against pingpong over the same channel.
#
#   bench/vs-ring.sh [-r ROUNDS] [-t DURATION] [-N TASKS] [-s KB] [-c CPU] [-p same-cpu|any]
#                    [-m lat_ctx|pingpong] [-L LAT_CTX]
#
# -m lat_ctx (the default when a lat_ctx binary is found): each round runs,
# back to back, `lat_ctx -s KB TASKS` and `wakebench run ring -N TASKS
# --size KBk` for DURATION, both under `taskset -c CPU` with -p same-cpu
# (the whole ring on one CPU, lat_ctx's classic set-up) or unpinned with
# -p any. lat_ctx prints its overhead (one pipe write + read + sum in one
# process, hot caches) and the context switch time (time per hop less the
# overhead) in microseconds; ring stores the same three figures
# (hop_overhead_ns, ctxsw_ns, and ns_per_hop = their sum). Printed per
# round and as medians, with the median of the per-round ratios
# ring/lat_ctx of the switch time and of the whole hop.
#
# -m pingpong: for each channel (pipe, eventfd, futex, unix) and round, in
# turn, `run ring -N 2 --channel C` and `run pingpong --channel C`, both
# --placement same-cpu (or any): ring's ns_per_hop against half of
# pingpong's round trip (1e9 / round trips per second / 2). The two do the
# same thing (two tasks, two channels, a token) except for ring's
# working-set sum (0 bytes here) and overhead measurement, so the ratio
# should be close to 1.
#
# lat_ctx is not packaged by Debian: build it from lmbench's source in /tmp
# (`cd lmbench/src && gcc -O2 -I/usr/include/tirpc -o lat_ctx lat_ctx.c
# lib_timing.c lib_mem.c lib_stats.c lib_debug.c getopt.c lib_sched.c
# -ltirpc -lm`, libtirpc-dev) and give its path with -L or $LAT_CTX.
# lat_ctx's own calibrations (TIMING_O, LOOP_O) are set to 0 and each of its
# 11 repetitions lasts ENOUGH = 200 ms (lmbench's scripts set the same
# variables). Run it under `flock /work/spec/bench.lock` on a shared
# machine. Never run by `make check`.
set -eu

rounds=10 duration=1s tasks=2 kb=0 cpu=0 placement=same-cpu mode="" latctx=${LAT_CTX:-}
while getopts r:t:N:s:c:p:m:L: o; do
	case $o in
	r) rounds=$OPTARG ;;
	t) duration=$OPTARG ;;
	N) tasks=$OPTARG ;;
	s) kb=$OPTARG ;;
	c) cpu=$OPTARG ;;
	p) placement=$OPTARG ;;
	m) mode=$OPTARG ;;
	L) latctx=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-t DURATION] [-N TASKS] [-s KB] [-c CPU] [-p same-cpu|any] [-m lat_ctx|pingpong] [-L LAT_CTX]" >&2
	   exit 2 ;;
	esac
done
case $placement in
same-cpu) pin="taskset -c $cpu" ;;
any) pin="" ;;
*) echo "$0: -p: '$placement' is not same-cpu or any" >&2; exit 2 ;;
esac
[ -n "$latctx" ] || latctx=/tmp/lmbench/build/lat_ctx
if [ -z "$mode" ]; then
	if [ -x "$latctx" ]; then mode=lat_ctx; else mode=pingpong; fi
fi
case $mode in
lat_ctx) [ -x "$latctx" ] || { echo "$0: no lat_ctx at '$latctx' (-L)" >&2; exit 77; } ;;
pingpong) ;;
*) echo "$0: -m: '$mode' is not lat_ctx or pingpong" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")/.." && pwd)
wb=${WAKEBENCH:-$here/wakebench}
[ -x "$wb" ] || { echo "$0: no wakebench at '$wb' (make first)" >&2; exit 2; }
command -v jq >/dev/null || { echo "$0: jq is not installed" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# one wakebench sample as JSON on stdout
wbrun() {
	$pin "$wb" run "$@" -j 1 -n 1 --warmup 0 -t "$duration" --placement "$placement" \
		--no-store --format json 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
}
metric() { jq -r ".samples[0].metrics.$1 | if .available then .value else \"nan\" end"; }

if [ "$mode" = lat_ctx ]; then
	echo "ring vs lat_ctx: $tasks tasks, ${kb} KiB each, $placement${pin:+ (CPU $cpu)}, $rounds rounds, ring -t $duration"
	printf '%5s %12s %12s %12s %12s %12s %12s\n' round latctx_ovr latctx_ctx ring_ovr ring_ctx \
		latctx_hop ring_hop
	i=0
	while [ "$i" -lt "$rounds" ]; do
		i=$((i + 1))
		ENOUGH=200000 TIMING_O=0 LOOP_O=0 $pin "$latctx" -s "$kb" "$tasks" 2>"$tmp/lat" >/dev/null
		# "size=0k ovr=1.11 then "2 3.70" (microseconds)
		lo=$(awk -F'ovr=' '/ovr=/ { print $2 * 1000 }' "$tmp/lat")
		lc=$(awk -v n="$tasks" '$1 == n { print $2 * 1000 }' "$tmp/lat")
		[ -n "$lc" ] || lc=nan
		wbrun ring -N "$tasks" --size "${kb}k" >"$tmp/wb"
		ro=$(metric hop_overhead_ns <"$tmp/wb")
		rc=$(metric ctxsw_ns <"$tmp/wb")
		rh=$(metric ns_per_hop <"$tmp/wb")
		lh=$(awk -v a="$lo" -v b="$lc" 'BEGIN { print (b == "nan") ? "nan" : a + b }')
		printf '%5d %12.0f %12.0f %12.0f %12.0f %12.0f %12.0f\n' "$i" "$lo" "$lc" "$ro" "$rc" "$lh" "$rh"
		echo "$lo $lc $ro $rc $lh $rh" >>"$tmp/rounds"
	done
	printf '%5s' median
	for col in 1 2 3 4 5 6; do
		printf ' %12.0f' "$(awk -v c=$col '{ print $c }' "$tmp/rounds" | grep -v nan | median)"
	done
	echo
	ctx=$(awk '$2 != "nan" && $4 != "nan" && $2 > 0 { print $4 / $2 }' "$tmp/rounds" | median)
	hop=$(awk '$5 != "nan" && $5 > 0 { print $6 / $5 }' "$tmp/rounds" | median)
	echo "median ratio ring/lat_ctx: context switch $ctx, whole hop $hop (ns; lat_ctx prints us)"
	exit 0
fi

echo "ring -N 2 vs pingpong, same channel: $placement, $rounds rounds of -t $duration each"
printf '%-8s %14s %14s %10s\n' channel ring_ns_hop pingpong_ns_hop ratio
for ch in pipe eventfd futex unix; do
	: >"$tmp/$ch"
done
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	for ch in pipe eventfd futex unix; do
		r=$(wbrun ring -N 2 --channel "$ch" | metric ns_per_hop)
		p=$(wbrun pingpong --channel "$ch" | jq -r '.samples[0].ops_per_s')
		echo "$r $p" | awk '{ h = 1e9 / $2 / 2; print $1, h, $1 / h }' >>"$tmp/$ch"
	done
done
for ch in pipe eventfd futex unix; do
	printf '%-8s %14.0f %14.0f %10.3f\n' "$ch" \
		"$(awk '{ print $1 }' "$tmp/$ch" | median)" \
		"$(awk '{ print $2 }' "$tmp/$ch" | median)" \
		"$(awk '{ print $3 }' "$tmp/$ch" | median)"
done
echo "ratio: median over rounds of ring ns/hop / (pingpong ns per round trip / 2)"
