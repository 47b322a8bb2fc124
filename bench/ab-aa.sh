#!/bin/sh
# ab-aa.sh: calibrate `wakebench ab` on A/A runs. Both arms run on the same
# kernel settings (the FUSE stand-in accepts the toggles but the running
# kernel does not change), so every decided verdict other than "no change"
# is a false one. Prints one line per run (verdict, effect, pairs, wall
# time) and the tally of verdicts.
#
# With BURN=P the stand-in makes DELAY_DEQUEUE really cost CPU: while it is
# on (arm A), a thread pinned to CPU 0 spins P% of every millisecond, so
# same-cpu pipe throughput is a few percent lower in A, and B (the token
# NO_DELAY_DEQUEUE) is a true improvement to find.
#
#   bench/ab-aa.sh [RUNS] [ab options...]
#   e.g. bench/ab-aa.sh 5 -t 200ms -n 10 -j 1 --placement same-cpu
#        BURN=5 bench/ab-aa.sh 5 --until-decided -t 250ms --warmup 50ms -j 1 --placement same-cpu
#
# Needs root (FUSE mount), /dev/fuse, fusermount3, jq; builds nothing:
# run `make wakebench build/tests/wakebench-fakefs` first.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- -t 200ms -n 10 -j 1 --placement same-cpu
wb=${WAKEBENCH:-$src/build/wakebench}
fakefs=${WAKEBENCH_FAKEFS:-$src/build/tests/wakebench-fakefs}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wakebench-aa.XXXXXX")
mnt="$tmp/debugfs"
mkdir -p "$mnt"
burn=
[ -z "${BURN:-}" ] || burn="--burn=DELAY_DEQUEUE --burn-percent=$BURN"
# shellcheck disable=SC2086
"$fakefs" --features="$src/tests/fixtures/sched-features/v6.18.txt" \
	--debug="$src/tests/fixtures/sched-debug-6.18.txt" $burn -f "$mnt" &
fpid=$!
cleanup() {
	fusermount3 -u "$mnt" 2>/dev/null || true
	wait "$fpid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
i=0
while ! awk -v m="$mnt" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; do
	i=$((i + 1)); [ $i -lt 100 ] || { echo "ab-aa: the stand-in did not mount" >&2; exit 1; }
	sleep 0.05
done
export WAKEBENCH_STATE_DIR="$tmp/state"
kind="A/A runs"
[ -z "${BURN:-}" ] || kind="BURN=$BURN runs (a true change)"
echo "# $runs $kind of: wakebench ab --feature NO_DELAY_DEQUEUE $* (stand-in debugfs)"
r=1
while [ $r -le "$runs" ]; do
	t0=$(date +%s.%N)
	"$wb" ab --feature NO_DELAY_DEQUEUE "$@" --debugfs "$mnt" --no-store --format json \
		>"$tmp/run.json" 2>"$tmp/run.err" || { cat "$tmp/run.err" >&2; exit 1; }
	t1=$(date +%s.%N)
	secs=$(echo "$t1 - $t0" | bc)
	jq -r --arg r "$r" --arg s "$secs" '.effects[0] | "run \($r): \(.verdict): effect \((.estimate * 10000 | round) / 100)% CI [\((.ci_lo * 10000 | round) / 100)%, \((.ci_hi * 10000 | round) / 100)%] at \((.conf * 10000 | round) / 100)% p=\(.p) (\(.units) pairs, \($s) s)"' "$tmp/run.json"
	echo "$secs" >>"$tmp/secs"
	jq -r '.effects[0].verdict' "$tmp/run.json" >>"$tmp/verdicts"
	r=$((r + 1))
done
echo "# verdicts:"
sort "$tmp/verdicts" | uniq -c | sed 's/^/#   /'
echo "# median wall time: $(sort -n "$tmp/secs" | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }') s"
