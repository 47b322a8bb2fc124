#!/bin/sh
# Task counts over RLIMIT_NPROC (as an unprivileged user: root is not held
# to it) and file descriptors over RLIMIT_NOFILE are refused up front:
# exit 2, one line naming the limit and its value, nothing measured, no
# task started. Under the limits the same runs work.
. "$(dirname "$0")/lib.sh"

command -v prlimit >/dev/null || skip_all "prlimit is not installed"

# RLIMIT_NOFILE: wakebench, its barrier and the workload's own descriptors
run_cmd prlimit --nofile=10 "$WAKEBENCH" run pipe -j 1 -t 10ms -n 1 --warmup 0 --no-store
is "$RC" 2 "ulimit -n 10: exit 2"
like "$ERR" "^wakebench: error: run: workload 'pipe' needs [0-9]+ file descriptors in one process \([0-9]+ of its own with these options\), above the open-file limit RLIMIT_NOFILE \(ulimit -n 10\)$" \
	"names the open-file limit"
is "$OUT" "" "nothing measured"
run_cmd prlimit --nofile=64 "$WAKEBENCH" run pipe -j 1 -t 10ms -n 1 --warmup 0 --no-store
is "$RC" 0 "ulimit -n 64: runs"

# RLIMIT_NPROC: only an unprivileged user is held to it
if ! unprivileged_setup; then
	skip "$UWHY"
	done_testing
	exit
fi
cd /
# the user's tasks count too: leave room for those it runs already
uid=$(unprivileged id -u)
mine=0
for s in /proc/[0-9]*/status; do
	n=$(awk -v u="$uid" '/^Uid:/ { mine = $2 == u } /^Threads:/ { if (mine) print $2 }' "$s" 2>/dev/null)
	mine=$((mine + ${n:-0}))
done
lim=$((mine + 40))
run_cmd unprivileged prlimit --nproc=$lim "$UWAKEBENCH" run pipe -j 25 -t 10ms -n 1 --warmup 0 --no-store
is "$RC" 2 "ulimit -u $lim with $mine tasks of the user running: -j 25 (50 tasks) refused"
like "$ERR" "^wakebench: error: run: option '--instances' \(-j\): '25' needs 50 tasks \(2 per instance\), with the [0-9]+ this user runs above the process limit RLIMIT_NPROC \(ulimit -u $lim\)$" \
	"names -j, the tasks, those running and the process limit"
is "$OUT" "" "nothing measured"
run_cmd unprivileged prlimit --nproc=$lim "$UWAKEBENCH" run pipe -j 200 -t 10ms -n 1 --warmup 0 --no-store
is "$RC" 2 "-j 200: refused"
like "$ERR" "'200' needs 400 tasks" "with its task count"
run_cmd unprivileged prlimit --nproc=$lim "$UWAKEBENCH" run pingpong --threads -j 5 -t 10ms -n 1 \
	--warmup 0 --no-store
is "$RC" 0 "-j 5 (10 tasks, threads count too) runs under the same limit"
like "$OUT" "^sample 1/1: round trips/s \(real time\) $NUM  " "and measures"
done_testing
