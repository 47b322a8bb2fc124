#!/bin/sh
# compare-boots.sh: the calibration of `compare`'s boot-level inference on
# simulated stores: per-boot offsets of sd 0%, 1%, 2%, lognormal 3%
# within-boot noise with AR(1) 0.5, 8 or 20 samples per boot, 1, 2, 4, 8
# boots per group; A/A wrong decided verdicts, coverage, power for -2%,
# -5%, -15% (bench/compare-boots.c says what each column is).
#
#   bench/compare-boots.sh [-e EXPERIMENTS] [-s SEED] [-m MARGIN]
#   e.g. bench/compare-boots.sh -e 1000     a quick check (default 10000 per cell)
#
# Needs a built tree (`make`): links build/libwakebench.a, as the product does.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out="$src/build/bench"
mkdir -p "$out"
# shellcheck disable=SC2046
cc -std=gnu11 -O2 -Wall -Wextra -D_GNU_SOURCE -I"$src/src" -o "$out/compare-boots" \
	"$src/bench/compare-boots.c" "$src/build/libwakebench.a" \
	$(pkg-config --cflags --libs gsl) -lm
exec "$out/compare-boots" "$@"
