#!/bin/sh
# kernels.sh: the report's cross-kernel question on one machine. Debian's
# bookworm 6.1 and bookworm-backports 6.12 kernels are booted with
# `wakebench vm` (TCG unless KVM is usable), alternating round by round:
#
#   1. run pipe -j 1 --placement same-cpu, ROUNDS rounds per kernel
#   2. run pipe -j 1 --placement any,      ROUNDS rounds per kernel
#   3. compare --by kernel for each placement
#   4. on 6.12 only: ab --feature DELAY_DEQUEUE pipe -j 1 --placement same-cpu -n 10
#
# and the boot overhead of every round is listed. Never run by `make check`.
#
# Environment:
#   WAKEBENCH   binary (default ./wakebench)
#   ROUNDS      boots per kernel and placement (default 3)
#   RUN_ARGS    extra arguments of every run/ab (e.g. "-t 2s -n 6" for a short run;
#               ab refuses fewer than 6 pairs)
#   AB_SAMPLES  ab's -n (default 10)
#   ACCEL       auto|kvm|tcg (default tcg, as the report's figures were made)
#   TIMEOUT     vm --timeout of one boot (default 5m)
#   WAKEBENCH_DB  the store (default: a new one in a temporary directory)
set -eu
cd "$(dirname "$0")/.."
wb=${WAKEBENCH:-./wakebench}
rounds=${ROUNDS:-3}
run_args=${RUN_ARGS:-}
ab_samples=${AB_SAMPLES:-10}
accel=${ACCEL:-tcg}
timeout=${TIMEOUT:-5m}
work=$(mktemp -d "${TMPDIR:-/tmp}/wakebench-kernels.XXXXXX")
export WAKEBENCH_DB="${WAKEBENCH_DB:-$work/kernels.db}"

k61=$(sh scripts/fetch-kernel.sh 6.1)
k612=$(sh scripts/fetch-kernel.sh 6.12)
echo "# kernels: $k61 $k612"
echo "# store: $WAKEBENCH_DB; rounds per kernel: $rounds; accel: $accel; extra: ${run_args:-none}"
echo "# qemu: $(qemu-system-x86_64 -version 2>/dev/null | head -n 1 || echo unknown)"

for placement in same-cpu any; do
	echo
	echo "## run pipe -j 1 --placement $placement, kernels alternating, $rounds rounds each"
	start=$(date +%s)
	# shellcheck disable=SC2086
	"$wb" vm --accel "$accel" --timeout "$timeout" --kernel "$k61" --kernel "$k612" --rounds "$rounds" -- \
		run pipe -j 1 --placement "$placement" --label "$placement" $run_args \
		>"$work/run-$placement.out" 2>"$work/run-$placement.err" ||
		echo "# vm exited with status $? (see $work/run-$placement.err)"
	end=$(date +%s)
	grep -E 'boot overhead|failed after' "$work/run-$placement.err" | sed 's/^wakebench: //'
	echo "# wall time: $((end - start))s"
done

for placement in same-cpu any; do
	echo
	echo "## compare --by kernel --label $placement"
	"$wb" compare --by kernel --label "$placement" || true
done

echo
echo "## on 6.12: ab --feature DELAY_DEQUEUE pipe -j 1 --placement same-cpu -n $ab_samples"
start=$(date +%s)
# shellcheck disable=SC2086
"$wb" vm --accel "$accel" --timeout "$timeout" --kernel "$k612" -- \
	ab --feature DELAY_DEQUEUE pipe -j 1 --placement same-cpu -n "$ab_samples" $run_args \
	2>"$work/ab.err" || echo "# vm exited with status $? (see $work/ab.err)"
end=$(date +%s)
grep -v '^\[guest' "$work/ab.err" | grep -E 'boot overhead|error' | sed 's/^wakebench: //' || true
echo "# wall time: $((end - start))s"
echo "# logs kept in $work"
