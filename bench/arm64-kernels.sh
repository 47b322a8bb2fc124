#!/bin/sh
# arm64-kernels.sh: the report's cross-kernel question for the Raspberry Pi 5's
# architecture, on an x86-64 machine. Debian's bookworm 6.1 arm64 (4 KiB pages,
# CFS) and 6.12 arm64-16k (16 KiB pages, EEVDF, DELAY_DEQUEUE) kernels are
# booted with `wakebench vm` under qemu-system-aarch64 TCG (virt, cortex-a76),
# with the arm64 cross-build of wakebench, alternating round by round:
#
#   1. run pipe -j 1 --placement same-cpu, ROUNDS rounds per kernel, 1 guest CPU
#   2. compare --by kernel
#   3. on 6.12 arm64-16k: ab --feature DELAY_DEQUEUE pipe -j 1 --placement
#      same-cpu with 1 guest CPU (--cpus 1: see doc/vm.md on 2 guest CPUs)
#
# and the boot overhead of every round is listed. Never run by `make check`.
# Needs `scripts/deps.sh arm64` and `make CROSS_COMPILE=aarch64-linux-gnu-`.
#
# Environment:
#   WAKEBENCH   host binary (default ./wakebench); the guest's is build-aarch64/wakebench
#   ROUNDS      boots per kernel (default 3)
#   RUN_ARGS    extra arguments of every run/ab (e.g. "-t 1s -n 6" for a short run;
#               ab refuses fewer than 6 pairs)
#   AB_SAMPLES  ab's -n (default 10)
#   TIMEOUT     vm --timeout of one boot (default 10m)
#   WAKEBENCH_DB  the store (default: a new one in a temporary directory)
set -eu
cd "$(dirname "$0")/.."
wb=${WAKEBENCH:-./wakebench}
rounds=${ROUNDS:-3}
run_args=${RUN_ARGS:-}
ab_samples=${AB_SAMPLES:-10}
timeout=${TIMEOUT:-10m}
work=$(mktemp -d "${TMPDIR:-/tmp}/wakebench-arm64.XXXXXX")
export WAKEBENCH_DB="${WAKEBENCH_DB:-$work/arm64.db}"

k61=$(sh scripts/fetch-kernel.sh 6.1 arm64)
k612=$(sh scripts/fetch-kernel.sh 6.12 arm64-16k)
echo "# kernels: $k61 $k612"
echo "# store: $WAKEBENCH_DB; rounds per kernel: $rounds; extra: ${run_args:-none}"
echo "# qemu: $(qemu-system-aarch64 -version 2>/dev/null | head -n 1 || echo unknown)"

echo
echo "## run pipe -j 1 --placement same-cpu, kernels alternating, $rounds rounds each, 1 guest CPU"
start=$(date +%s)
# shellcheck disable=SC2086
"$wb" vm --arch arm64 --cpus 1 --timeout "$timeout" --kernel "$k61" --kernel "$k612" \
	--rounds "$rounds" -- run pipe -j 1 --placement same-cpu --label arm64-same-cpu $run_args \
	>"$work/run.out" 2>"$work/run.err" || echo "# vm exited with status $? (see $work/run.err)"
end=$(date +%s)
grep -E 'boot overhead|failed after' "$work/run.err" | sed 's/^wakebench: //'
echo "# wall time: $((end - start))s"

echo
echo "## compare --by kernel --label arm64-same-cpu"
"$wb" compare --by kernel --label arm64-same-cpu || true

echo
echo "## on 6.12 arm64-16k: ab --feature DELAY_DEQUEUE pipe -j 1 --placement same-cpu -n $ab_samples, 1 guest CPU"
start=$(date +%s)
# shellcheck disable=SC2086
"$wb" vm --arch arm64 --cpus 1 --timeout "$timeout" --kernel "$k612" -- \
	ab --feature DELAY_DEQUEUE pipe -j 1 --placement same-cpu -n "$ab_samples" $run_args \
	2>"$work/ab.err" || echo "# vm exited with status $? (see $work/ab.err)"
end=$(date +%s)
grep -v '^\[guest' "$work/ab.err" | grep -E 'boot overhead|error' | sed 's/^wakebench: //' || true
echo "# wall time: $((end - start))s"
echo "# logs kept in $work"
