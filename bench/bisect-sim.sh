#!/bin/sh
# bisect-sim.sh: whole simulated bisections through the shipped decision
# rule (src/stats/bisect.c): the chance of a wrong result over 10, 100 and
# 1000 candidates for changes of 2%, 5%, 15% and 30% at this machine's
# noise (boot offsets of sd 8.5%, samples AR(1) 0.37); bench/bisect-sim.c
# says what each column is.
#
#   bench/bisect-sim.sh [-t TRIALS] [-s SEED] [-a ALPHA] [-B MAX_BOOTS] [-R MAX_REF_BOOTS]
#                       [-b BOOT_SD] [-w WITHIN_SD] [-n SAMPLES] [-r RHO] [-d BOOT_RHO]
#
# Needs a built tree (`make`): links build/libwakebench.a, as the product does.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out="$src/build/bench"
mkdir -p "$out"
# shellcheck disable=SC2046
cc -std=gnu11 -O2 -Wall -Wextra -D_GNU_SOURCE -I"$src/src" -o "$out/bisect-sim" \
	"$src/bench/bisect-sim.c" "$src/build/libwakebench.a" \
	$(pkg-config --cflags --libs gsl) -lm
exec "$out/bisect-sim" "$@"
