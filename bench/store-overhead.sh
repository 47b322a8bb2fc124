#!/bin/sh
# store-overhead.sh: does storing results cost the workload anything?
#
#   bench/store-overhead.sh [-r ROUNDS] [-t SECONDS] [-j INSTANCES] [-w WAKEBENCH]
#
# Alternates `wakebench run pipe -n 1 --warmup 0` with and without --no-store
# (the order flips every round so drift hits both alike) and prints the
# median ratio of ops/s (stored / not stored) with its spread. Storing
# happens between samples, outside the timed window, so the ratio should be
# 1 within the machine's noise. Never run by `make check`.
set -eu

rounds=10
duration=3
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
command -v jq >/dev/null || { echo "store-overhead: needs jq" >&2; exit 2; }
[ -x "$wakebench" ] || { echo "store-overhead: no wakebench at '$wakebench' (make first)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/store-overhead.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

ops() { # ops/s of one sample, from the JSON output
	"$wakebench" run pipe -j "$jobs" -t "${duration}s" -n 1 --warmup 0 --format json -q "$@" |
		jq '[.samples[] | select(.warmup | not) | .ops_per_s][0]'
}

i=1
: >"$tmp/ratios"
while [ "$i" -le "$rounds" ]; do
	if [ $((i % 2)) = 1 ]; then
		s=$(ops --db "$tmp/results.db"); n=$(ops --no-store)
	else
		n=$(ops --no-store); s=$(ops --db "$tmp/results.db")
	fi
	r=$(awk -v s="$s" -v n="$n" 'BEGIN { printf "%.4f", s / n }')
	printf 'round %2d: stored %12.2f  not stored %12.2f ops/s  ratio %s\n' "$i" "$s" "$n" "$r"
	echo "$r" >>"$tmp/ratios"
	i=$((i + 1))
done
sort -n "$tmp/ratios" | awk '{ v[NR] = $1 } END {
	m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	printf "ratio stored / not stored: median %.4f  min %.4f  max %.4f  (%d rounds)\n", m, v[1], v[NR], NR }'
