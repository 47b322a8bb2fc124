#!/bin/sh
# vs-stress-ng.sh: wakebench's pipe workload against stress-ng's pipe stressor
# on the same machine, one stress-ng release after another, alternating the
# two tools round by round so that drift hits both alike.
#
#   bench/vs-stress-ng.sh [-r ROUNDS] [-t SECONDS] [-j INSTANCES] [-s SECONDS]
#                         [-w WAKEBENCH] [VERSION=STRESS-NG ...]
#
# Each VERSION=STRESS-NG names a stress-ng binary and its release
# (0.18.12=/root/peers/stress-ng-0.18.12/stress-ng); without any, the
# stress-ng on PATH, its release from --version. For each release, each
# round runs `STRESS-NG --pipe J --timeout T --metrics-brief` and `wakebench
# run pipe -j J -t T -n 1 --warmup 0 --profile stress-ng-VERSION --no-store
# --format metrics-brief` back to back, the order alternating by round
# (stress-ng first in odd rounds). The ratio of ops/s (real time),
# wakebench / stress-ng, per round; its median and range over the rounds.
#
# The syscall shape: two runs of each tool under `strace -ff -y`, of 1 and
# -s seconds; the processes of the workload are those that touched a pipe
# that carried the data (the writes of its most frequent size). Per op: the
# difference of the two runs' counts over the difference of their ops (so
# what a run does once, its start, end and harness, cancels), for every
# call on such a pipe, by name and, for read and write, by the size they
# moved (read(pipe,4096) 1.0000), and every other call of those processes,
# by name; listed when at least 1 in 2000 ops. The shapes are equal when
# both list the same calls, each within 2% (or 0.0005) of the other.
# Targets: equal shape, ratio within 0.97..1.03. -r 0: the
# traced runs only.
#
# Defaults: 7 rounds of 3s with 4 instances, traced runs of 1s and 3s. Not part of
# `make check`: it takes minutes and wants a quiet machine (on a shared one,
# run it under flock with the other benchmarks).
set -eu

rounds=7
duration=3
jobs=4
sdur=3
here=$(cd "$(dirname "$0")/.." && pwd)
wakebench="$here/build/wakebench"
[ -x "$wakebench" ] || wakebench="$here/wakebench"
usage="usage: $0 [-r ROUNDS] [-t SECONDS] [-j INSTANCES] [-s SECONDS] [-w WAKEBENCH] [VERSION=STRESS-NG ...]"
while getopts r:t:j:s:w: o; do
	case $o in
	r) rounds=$OPTARG ;;
	t) duration=${OPTARG%s} ;;
	j) jobs=$OPTARG ;;
	s) sdur=${OPTARG%s} ;;
	w) wakebench=$OPTARG ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -x "$wakebench" ] || { echo "vs-stress-ng: no wakebench at '$wakebench' (make first)" >&2; exit 2; }
if [ $# -eq 0 ]; then
	command -v stress-ng >/dev/null || { echo "vs-stress-ng: stress-ng is not installed" >&2; exit 77; }
	v=$(stress-ng --version 2>&1 | sed -n 's/.*version \([0-9][0-9.]*\).*/\1/p' | head -1)
	set -- "$v=$(command -v stress-ng)"
fi
for p in "$@"; do
	case $p in
	*=*) [ -x "${p#*=}" ] || { echo "vs-stress-ng: '$p': no stress-ng at '${p#*=}'" >&2; exit 2; } ;;
	*) echo "vs-stress-ng: '$p' is not VERSION=STRESS-NG; $usage" >&2; exit 2 ;;
	esac
done
has_strace=0
command -v strace >/dev/null 2>&1 && strace -f -o /dev/null true 2>/dev/null && has_strace=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vs-stress-ng.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# The data row of a metrics-brief table: "pipe OPS REAL USR SYS OPS/S OPS/CPU-S".
row() { sed -n 's/^.*metrc: \[[0-9]*\] pipe  *\([0-9]\)/pipe \1/p' | head -1; }

run_sng() { "$1" --pipe "$jobs" --timeout "${2}s" --metrics-brief 2>&1; }
run_wb() {
	"$wakebench" run pipe -j "$jobs" -t "${2}s" -n 1 --warmup 0 --profile "stress-ng-$1" \
		--no-store --format metrics-brief 2>&1
}

# median, min and max of a column of numbers
stats() {
	sort -g | awk '{ v[NR] = $1 }
	function q(p,  h, l) { h = 1 + (NR - 1) * p; l = int(h); return v[l] + (h - l) * (v[l + 1 < NR ? l + 1 : NR] - v[l]) }
	END { printf "%.4f %.4f %.4f\n", q(0.5), v[1], v[NR] }'
}

# The calls of a traced run: directory of strace -ff files. Prints "key
# count" lines: every call on a pipe that carried the data (the writes of
# the run's most frequent size), by name and for read and write the size
# moved, and every other call of the processes that touched such a pipe.
counts() {
	awk '
	FNR == 1 { f++ }
	/^(\+\+\+|---)/ { next }
	{
		name = $0; sub(/\(.*/, "", name)
		fd = ""; if (match($0, /^[a-z0-9_]+\([0-9]+<pipe:\[[0-9]+\]>/)) {
			fd = substr($0, RSTART, RLENGTH); sub(/.*pipe:\[/, "", fd); sub(/\]>.*/, "", fd)
		}
		ret = $0; sub(/.*= /, "", ret); sub(/ .*/, "", ret)
		line[f, ++n[f]] = name " " fd " " ret
		if (name == "write" && fd != "" && ret + 0 > 1) { sz[ret]++; ino[ret, fd] = 1 }
	}
	END {
		best = 0; for (s in sz) if (sz[s] > best) { best = sz[s]; size = s }
		for (k in ino) { split(k, a, SUBSEP); if (a[1] == size) data[a[2]] = 1 }
		for (i = 1; i <= f; i++) {
			mine = 0
			for (j = 1; j <= n[i]; j++) { split(line[i, j], a, " "); if (a[2] in data) mine = 1 }
			if (!mine) continue
			for (j = 1; j <= n[i]; j++) {
				split(line[i, j], a, " ")
				k = a[1]
				if (a[2] in data) {
					k = k "(pipe"
					if (a[1] == "read" || a[1] == "write") k = k "," (a[3] ~ /^[0-9]+$/ ? a[3] : "err")
					k = k ")"
				}
				c[k]++
			}
		}
		for (k in c) print k, c[k]
	}' "$1"/t.*
}

# The per-op shape from a short and a long traced run (counts files and
# their ops): (long - short) / (ops long - ops short) for every call, so
# that what a run does once (start, end, the harness) cancels. Lists the
# calls of at least 1 in 2000 ops (a call of the loop comes at least every
# 512 ops: FIONREAD).
shape() {
	awk -v o1="$2" -v o2="$4" 'FNR == NR { a[$1] = $2; next } { b[$1] = $2 }
	END {
		for (k in b) a[k] += 0
		for (k in a) { r = (b[k] - a[k]) / (o2 - o1); if (r >= 0.0005) printf "%s %.4f\n", k, r }
	}' "$1" "$3"
}

# Equal shapes: the same calls per op, each within 2% (or 0.0005).
same_shape() {
	awk 'FNR == NR { a[$1] = $2; next } { b[$1] = $2 }
	END {
		ok = 1
		for (k in a) {
			if (!(k in b)) ok = 0
			else { d = a[k] - b[k]; if (d < 0) d = -d; if (d > 0.0005 && d > 0.02 * a[k]) ok = 0 }
		}
		for (k in b) if (!(k in a)) ok = 0
		print ok ? "yes" : "no"
	}' "$1" "$2"
}

# One traced run: tool (sng|wb), version, binary, seconds; the counts in
# $tmp/c.TOOL.SECONDS, its ops echoed.
traced_run() {
	rm -rf "$tmp/st"; mkdir "$tmp/st"
	if [ "$1" = sng ]; then
		strace -ff -qq -y -s 0 -o "$tmp/st/t" "$3" --pipe "$jobs" --timeout "${4}s" --metrics-brief \
			>"$tmp/st.out" 2>&1 || true
	else
		strace -ff -qq -y -s 0 -o "$tmp/st/t" "$wakebench" run pipe -j "$jobs" -t "${4}s" -n 1 \
			--warmup 0 --profile "stress-ng-$2" --no-store --format metrics-brief >"$tmp/st.out" 2>&1 || true
	fi
	o=$(row <"$tmp/st.out" | awk '{ print $2 }')
	[ -n "$o" ] || { echo "vs-stress-ng: $2: traced $1 run printed no metrics row" >&2; return 1; }
	counts "$tmp/st" >"$tmp/c.$1.$4"
	echo "$o"
}

traced() { # tool version binary: the shape into $tmp/shape.TOOL
	o1=$(traced_run "$1" "$2" "$3" 1) && o2=$(traced_run "$1" "$2" "$3" "$sdur") || return 1
	[ "$o2" -gt "$o1" ] || { echo "vs-stress-ng: $2: the ${sdur}s traced $1 run made no more ops than the 1s one" >&2; return 1; }
	shape "$tmp/c.$1.1" "$o1" "$tmp/c.$1.$sdur" "$o2" | sort >"$tmp/shape.$1"
}

echo "vs-stress-ng: $("$wakebench" --version); kernel $(uname -r), $(nproc) CPUs"
echo "vs-stress-ng: $rounds rounds of ${duration}s, $jobs instances per release"
: >"$tmp/table"
for p in "$@"; do
	ver=${p%%=*} bin=${p#*=}
	# the profile the release runs as: from the mapping wakebench prints
	prof=$("$wakebench" run pipe -j 1 -t 10ms -n 1 --warmup 0 --profile "stress-ng-$ver" \
		--no-store 2>&1 >/dev/null | sed -n 's/.*runs as \([^ ]*\) .*/\1/p' | head -1) || true
	[ -n "$prof" ] || prof="stress-ng-$ver"
	echo
	echo "== stress-ng $ver ($bin): $("$bin" --version 2>&1 | head -1); wakebench --profile stress-ng-$ver = $prof"
	: >"$tmp/pairs"
	i=1
	while [ "$i" -le "$rounds" ]; do
		if [ $((i % 2)) -eq 1 ]; then
			s=$(run_sng "$bin" "$duration" | row); w=$(run_wb "$ver" "$duration" | row)
		else
			w=$(run_wb "$ver" "$duration" | row); s=$(run_sng "$bin" "$duration" | row)
		fi
		sv=$(echo "$s" | awk '{ print $6 }')
		wv=$(echo "$w" | awk '{ print $6 }')
		[ -n "$sv" ] && [ -n "$wv" ] || { echo "vs-stress-ng: $ver round $i: no metrics row" >&2; exit 1; }
		printf 'round %2d: stress-ng %12.2f  wakebench %12.2f ops/s  ratio %.4f\n' "$i" "$sv" "$wv" \
			"$(echo "$wv $sv" | awk '{ print $1 / $2 }')"
		echo "$sv $wv" >>"$tmp/pairs"
		i=$((i + 1))
	done
	med=- lo=- hi=-
	if [ "$rounds" -gt 0 ]; then
		set -- $(awk '{ print $2 / $1 }' "$tmp/pairs" | stats)
		med=$1 lo=$2 hi=$3
		echo "ratio wakebench/stress-ng: median $med, range $lo..$hi"
	fi
	eq="n/a"
	if [ "$has_strace" = 1 ] && traced sng "$ver" "$bin" && traced wb "$ver" "$wakebench"; then
		eq=$(same_shape "$tmp/shape.sng" "$tmp/shape.wb")
		echo "per-op shape under strace (${sdur}s minus 1s runs), stress-ng | wakebench:"
		join -a 1 -a 2 -e - -o 0,1.2,2.2 "$tmp/shape.sng" "$tmp/shape.wb" |
			awk '{ printf "  %-22s %8s | %8s\n", $1, $2, $3 }'
		echo "shape equal: $eq"
	fi
	printf '| %s | %s | %s | %s | %s..%s | %s |\n' "$ver" "$prof" "$eq" "$med" "$lo" "$hi" "$rounds" >>"$tmp/table"
done
echo
echo "| stress-ng | profile | strace shape equal | median ratio | range | rounds |"
echo "|---|---|---|---|---|---|"
cat "$tmp/table"
