#!/bin/sh
# ab-aa.sh: calibrate `wakebench ab` on A/A runs. Both arms run on the same
# kernel settings (the FUSE stand-in accepts the toggles but the running
# kernel does not change), so every decided verdict other than "no change"
# is a false one. Prints one line per run and the tally of verdicts.
#
#   bench/ab-aa.sh [RUNS] [ab options...]
#   e.g. bench/ab-aa.sh 5 -t 200ms -n 10 -j 1 --placement same-cpu
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
"$fakefs" --features="$src/tests/fixtures/sched-features/v6.18.txt" \
	--debug="$src/tests/fixtures/sched-debug-6.18.txt" -f "$mnt" &
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
echo "# $runs A/A runs of: wakebench ab --feature NO_DELAY_DEQUEUE $* (stand-in debugfs)"
r=1
while [ $r -le "$runs" ]; do
	"$wb" ab --feature NO_DELAY_DEQUEUE "$@" --debugfs "$mnt" --no-store --format json \
		>"$tmp/run.json" 2>"$tmp/run.err" || { cat "$tmp/run.err" >&2; exit 1; }
	jq -r --arg r "$r" '.effects[0] | "run \($r): \(.verdict): effect \((.estimate * 10000 | round) / 100)% CI [\((.ci_lo * 10000 | round) / 100)%, \((.ci_hi * 10000 | round) / 100)%] p=\(.p) (\(.units) pairs)"' "$tmp/run.json"
	jq -r '.effects[0].verdict' "$tmp/run.json" >>"$tmp/verdicts"
	r=$((r + 1))
done
echo "# verdicts:"
sort "$tmp/verdicts" | uniq -c | sed 's/^/#   /'
