#!/bin/sh
# vs-stress-ng.sh: wakebench's pipe workload against stress-ng's pipe stressor
# on the same machine, alternating the two so that drift hits both alike.
#
#   bench/vs-stress-ng.sh [-r ROUNDS] [-t DURATION] [-j INSTANCES] [-w WAKEBENCH]
#
# Defaults: 10 rounds of 5s with 4 instances (the report's workload). Each
# round runs `stress-ng --pipe J --timeout T --metrics-brief` and
# `wakebench run pipe -j J -t T -n 1 --warmup 0 --profile stress-ng-0.15
# --no-store --format metrics-brief` back to back (the order alternates by
# round). Prints the median ratio of ops/s (wakebench / stress-ng) over the
# rounds with its spread, the CV of each tool, and syscalls per op from
# `strace -c -f` on one short run of each. Targets (issue 2): ratio >= 0.97,
# syscalls per op equal within 1%, wakebench's CV no worse than stress-ng's.
# Not part of `make check`: it takes minutes and wants a quiet machine.
set -eu

rounds=10
duration=5
jobs=4
here=$(cd "$(dirname "$0")/.." && pwd)
wakebench="$here/wakebench"
while getopts r:t:j:w: o; do
	case $o in
	r) rounds=$OPTARG ;;
	t) duration=${OPTARG%s} ;;
	j) jobs=$OPTARG ;;
	w) wakebench=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-t SECONDS] [-j INSTANCES] [-w WAKEBENCH]" >&2; exit 2 ;;
	esac
done
command -v stress-ng >/dev/null || { echo "vs-stress-ng: stress-ng is not installed" >&2; exit 77; }
[ -x "$wakebench" ] || { echo "vs-stress-ng: no wakebench at '$wakebench' (make first)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vs-stress-ng.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# The data row of a metrics-brief table: "pipe OPS REAL USR SYS OPS/S OPS/CPU-S".
row() { sed -n 's/^.*metrc: \[[0-9]*\] pipe  *\([0-9]\)/pipe \1/p' | head -1; }

run_sng() { stress-ng --pipe "$jobs" --timeout "${duration}s" --metrics-brief 2>&1 | row; }
run_wb() {
	"$wakebench" run pipe -j "$jobs" -t "${duration}s" -n 1 --warmup 0 \
		--profile stress-ng-0.15 --no-store --format metrics-brief 2>&1 | row
}

echo "vs-stress-ng: $(stress-ng --version 2>&1 | head -1); $("$wakebench" --version)"
echo "vs-stress-ng: $rounds rounds of ${duration}s, $jobs instances, kernel $(uname -r), $(nproc) CPUs"
: >"$tmp/pairs"
i=1
while [ "$i" -le "$rounds" ]; do
	if [ $((i % 2)) -eq 1 ]; then
		s=$(run_sng); w=$(run_wb)
	else
		w=$(run_wb); s=$(run_sng)
	fi
	sv=$(echo "$s" | awk '{ print $6 }')
	wv=$(echo "$w" | awk '{ print $6 }')
	[ -n "$sv" ] && [ -n "$wv" ] || { echo "vs-stress-ng: round $i: no metrics row" >&2; exit 1; }
	printf 'round %2d: stress-ng %12.2f  wakebench %12.2f ops/s  ratio %.4f\n' "$i" "$sv" "$wv" \
		"$(echo "$wv $sv" | awk '{ print $1 / $2 }')"
	echo "$sv $wv" >>"$tmp/pairs"
	i=$((i + 1))
done

# median, min, max, quartiles and CV of a column of numbers
stats() {
	sort -g | awk '{ v[NR] = $1; s += $1; ss += $1 * $1 }
	function q(p,  h, l) { h = 1 + (NR - 1) * p; l = int(h); return v[l] + (h - l) * (v[l + 1 < NR ? l + 1 : NR] - v[l]) }
	END {
		m = s / NR; sd = NR > 1 ? sqrt((ss - NR * m * m) / (NR - 1)) : 0
		printf "median %.4f  IQR %.4f..%.4f  min %.4f  max %.4f  mean %.4f  CV %.2f%%\n",
			q(0.5), q(0.25), q(0.75), v[1], v[NR], m, 100 * sd / m }'
}
echo
echo "ratio wakebench/stress-ng: $(awk '{ print $2 / $1 }' "$tmp/pairs" | stats)"
echo "stress-ng ops/s:           $(awk '{ print $1 }' "$tmp/pairs" | stats)"
echo "wakebench ops/s:           $(awk '{ print $2 }' "$tmp/pairs" | stats)"

# Syscalls per op from one short traced run of each (tracing slows both
# alike). Two counts: every syscall of the whole run (strace -c -f: includes
# wakebench's environment fingerprint and /proc counters, a fixed cost outside
# the window), and the syscalls of the workload processes alone (the tasks
# that moved 512-byte packets), which is what the issue's target compares.
if command -v strace >/dev/null 2>&1; then
	sd=2
	[ "$duration" -lt "$sd" ] && sd=$duration
	strace -c -f -o "$tmp/sng.strace" stress-ng --pipe "$jobs" --timeout "${sd}s" --metrics-brief \
		>"$tmp/sng.out" 2>&1 || true
	strace -c -f -o "$tmp/wb.strace" "$wakebench" run pipe -j "$jobs" -t "${sd}s" -n 1 --warmup 0 \
		--profile stress-ng-0.15 --no-store --format metrics-brief >"$tmp/wb.out" 2>&1 || true
	strace -f -qq -o "$tmp/sng.trace" stress-ng --pipe "$jobs" --timeout "${sd}s" --metrics-brief \
		>"$tmp/sng2.out" 2>&1 || true
	strace -f -qq -o "$tmp/wb.trace" "$wakebench" run pipe -j "$jobs" -t "${sd}s" -n 1 --warmup 0 \
		--profile stress-ng-0.15 --no-store --format metrics-brief >"$tmp/wb2.out" 2>&1 || true
	calls() { awk '$NF == "total" { print $4 }' "$1"; }
	# syscalls made by the pids that read or wrote 512-byte packets
	workload_calls() {
		awk '/(read|write)\([0-9]+, .*, 512\) += 512$/ || /<\.\.\. (read|write) resumed>.* = 512$/ { w[$1] = 1 }
			{ n[$1]++; if ($0 ~ /resumed>/ || $0 ~ /^[0-9]+ +(\+\+\+|---)/) n[$1]-- }
			END { for (p in w) t += n[p]; print t + 0 }' "$1"
	}
	so=$(row <"$tmp/sng.out" | awk '{ print $2 }')
	wo=$(row <"$tmp/wb.out" | awk '{ print $2 }')
	so2=$(row <"$tmp/sng2.out" | awk '{ print $2 }')
	wo2=$(row <"$tmp/wb2.out" | awk '{ print $2 }')
	echo
	echo "syscalls per op under strace (${sd}s runs):"
	awk -v c="$(calls "$tmp/sng.strace")" -v o="$so" -v w="$(workload_calls "$tmp/sng.trace")" -v o2="$so2" \
		'BEGIN { printf "  stress-ng: whole run %.4f per op (%d / %d); workload processes %.4f per op (%d / %d)\n", c / o, c, o, w / o2, w, o2 }'
	awk -v c="$(calls "$tmp/wb.strace")" -v o="$wo" -v w="$(workload_calls "$tmp/wb.trace")" -v o2="$wo2" \
		'BEGIN { printf "  wakebench: whole run %.4f per op (%d / %d); workload processes %.4f per op (%d / %d)\n", c / o, c, o, w / o2, w, o2 }'
	awk -v a="$(calls "$tmp/sng.strace")" -v ao="$so" -v b="$(calls "$tmp/wb.strace")" -v bo="$wo" \
		-v wa="$(workload_calls "$tmp/sng.trace")" -v wao="$so2" -v wb="$(workload_calls "$tmp/wb.trace")" -v wbo="$wo2" \
		'BEGIN { printf "  ratio wakebench/stress-ng: whole run %.4f, workload processes %.4f\n", (b / bo) / (a / ao), (wb / wbo) / (wa / wao) }'
else
	echo "syscalls per op: strace is not installed"
fi
