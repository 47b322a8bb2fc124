#!/bin/sh
# stats-calibration.sh: calibration of `ab`'s statistics.
#
#   bench/stats-calibration.sh sim [EXPERIMENTS]   simulated experiments through
#        the shipped engine, per noise model (default 10000 per cell; e.g. 500
#        for a quick check)
#   bench/stats-calibration.sh pocock [SEQUENCES]  regenerate the per-look
#        levels (src/stats/pocock-table.h) and show how they differ
#   bench/stats-calibration.sh real [SAMPLES] [run options...]
#        one `wakebench run` of many short samples (one config, so every
#        difference is noise), labelled A B B A and fed in order to the
#        engine, e.g. bench/stats-calibration.sh real 130 -j 1 -t 100ms
#
# Needs a built tree (`make`; jq for `real`); compiles the bench programs.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-sim}
[ $# -gt 0 ] && shift
out="$src/build/bench"
mkdir -p "$out"
for prog in stats-calibration stats-pocock; do
	# shellcheck disable=SC2046
	cc -std=gnu11 -O2 -Wall -Wextra -D_GNU_SOURCE -I"$src/src" -o "$out/$prog" \
		"$src/bench/$prog.c" "$src/build/libwakebench.a" \
		$(pkg-config --cflags --libs gsl) -lm
done

case $mode in
sim)
	nice "$out/stats-calibration" sim "${1:-10000}"
	;;
pocock)
	tmp=$(mktemp "${TMPDIR:-/tmp}/wakebench-pocock.XXXXXX")
	trap 'rm -f "$tmp"' EXIT
	{
		sed -n '1,5p' "$src/src/stats/pocock-table.h"
		nice "$out/stats-pocock" "${1:-200000}"
	} >"$tmp"
	diff -u "$src/src/stats/pocock-table.h" "$tmp" || cp "$tmp" "$src/src/stats/pocock-table.h"
	;;
real)
	samples=${1:-130}
	[ $# -gt 0 ] && shift
	[ $# -gt 0 ] || set -- -j 1 -t 100ms
	wb=${WAKEBENCH:-$src/build/wakebench}
	tmp=$(mktemp "${TMPDIR:-/tmp}/wakebench-cal.XXXXXX")
	trap 'rm -f "$tmp"' EXIT
	trap 'exit 130' INT TERM
	echo "# wakebench run pipe $* -n $samples --warmup 0 --no-store (A/A: one config)"
	"$wb" run pipe "$@" -n "$samples" --warmup 0 --no-store --format json >"$tmp"
	jq -r '.samples[] | select(.status == "ok" and (.warmup | not)) | .ops_per_s' "$tmp" |
		"$out/stats-calibration" aa "${MARGIN:-0.02}"
	echo "# speed of the effects on large inputs"
	for n in 1000 10000 100000; do
		"$out/stats-calibration" speed "$n"
	done
	;;
*)
	echo "usage: $0 sim [EXPERIMENTS] | pocock [SEQUENCES] | real [SAMPLES] [run options]" >&2
	exit 2
	;;
esac
