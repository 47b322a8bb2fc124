#!/bin/sh
# stats-calibration.sh: wakebench's statistics on this machine's real A/A
# noise, and their speed on large inputs. One `wakebench run` of many short
# samples (one config, so every difference is noise) is labelled A B B A,
# paired as `ab` pairs, and judged by the adaptive rule; then 2000
# experiments resampled from those real pairs give the rate of wrong
# verdicts, the "no change" rate and the power for a 5% drop.
#
#   bench/stats-calibration.sh [SAMPLES] [run options...]
#   e.g. bench/stats-calibration.sh 130 -j 1 -t 100ms
#
# Needs jq and a built tree (`make`); compiles bench/stats-calibration.c.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
samples=${1:-130}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- -j 1 -t 100ms
wb=${WAKEBENCH:-$src/build/wakebench}
margin=${MARGIN:-0.02}
out="$src/build/bench"
mkdir -p "$out"
# shellcheck disable=SC2046
cc -std=gnu11 -O2 -Wall -Wextra -D_GNU_SOURCE -I"$src/src" -o "$out/stats-calibration" \
	"$src/bench/stats-calibration.c" "$src/build/libwakebench.a" \
	$(pkg-config --cflags --libs gsl) -lm
tmp=$(mktemp "${TMPDIR:-/tmp}/wakebench-cal.XXXXXX")
trap 'rm -f "$tmp"' EXIT
trap 'exit 130' INT TERM

echo "# wakebench run pipe $* -n $samples --warmup 0 --no-store (A/A: one config)"
"$wb" run pipe "$@" -n "$samples" --warmup 0 --no-store --format json >"$tmp"
jq -r '.samples[] | select(.status == "ok" and (.warmup | not)) | .ops_per_s' "$tmp" |
	"$out/stats-calibration" aa "$margin"

echo "# speed of the effects on large inputs"
for n in 1000 10000 100000; do
	"$out/stats-calibration" speed "$n"
done
