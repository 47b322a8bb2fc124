#!/bin/sh
# check-stress.sh: the flake hunt behind `make check-stress N=3`.
#   check-stress.sh N MAKE-COMMAND...
# Runs the whole test suite (MAKE-COMMAND, `make check-run`) N times while
# every CPU is kept busy by a CPU hog of this script's own (one spinning
# process per CPU, at the tests' priority, started before the first round
# and killed on every exit path), then prints each test file that failed
# at least once: in how many rounds, and its failing assertions with what
# they got and wanted (tests/unit/tap-exec.sh keeps each file's TAP and
# stderr in a log per round, WB_TAP_LOG_DIR). Exits 1 if any round failed.
#
# A test that fails here fails on a loaded CI machine some day: fix it at
# its cause (wait for events, not for time; tolerances from what is
# measured), never by retrying.
set -u

rounds=$1
shift
case $rounds in
'' | *[!0-9]* | 0)
	echo "check-stress: N='$rounds': a number of rounds, at least 1, is needed" >&2
	exit 2
	;;
esac
cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
logs=$(mktemp -d "${TMPDIR:-/tmp}/wakebench-stress.XXXXXX") || exit 1
hogs=""
stop_hogs() {
	for p in $hogs; do kill "$p" 2>/dev/null; done
	for p in $hogs; do wait "$p" 2>/dev/null; done
	hogs=""
}
trap 'stop_hogs' EXIT
trap 'stop_hogs; exit 130' INT TERM HUP

i=0
while [ "$i" -lt "$cpus" ]; do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
	i=$((i + 1))
done
echo "check-stress: $rounds round(s) of the test suite with $cpus CPU hog(s) running (logs in $logs)"

failed_rounds=0
r=1
while [ "$r" -le "$rounds" ]; do
	mkdir -p "$logs/$r"
	start=$(date +%s)
	WB_TAP_LOG_DIR="$logs/$r" "$@" >"$logs/$r.out" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	if [ "$rc" = 0 ]; then
		echo "check-stress: round $r/$rounds passed in ${secs}s"
	else
		failed_rounds=$((failed_rounds + 1))
		echo "check-stress: round $r/$rounds FAILED in ${secs}s (exit $rc; $logs/$r.out)"
	fi
	r=$((r + 1))
done
stop_hogs

# each file that failed in a round: its "not ok" lines and their details
summary=$(
	for log in "$logs"/*/*.log; do
		[ -f "$log" ] || continue
		grep -qE '^not ok|^# tap-exec: exit status' "$log" || continue
		basename "$log" .log
	done | sort | uniq -c | sort -rn
)
if [ -z "$summary" ] && [ "$failed_rounds" = 0 ]; then
	echo "check-stress: 0 failures in $rounds round(s)"
	exit 0
fi
echo "check-stress: failures in $failed_rounds of $rounds round(s); test files that failed:"
printf '%s\n' "$summary" | while read -r count name; do
	[ -n "$name" ] || continue
	echo "  $name: failed in $count of $rounds round(s)"
	for log in "$logs"/*/"$name.log"; do
		grep -qE '^not ok|^# tap-exec: exit status' "$log" || continue
		round=$(basename "$(dirname "$log")")
		echo "    round $round:"
		grep -E '^not ok|^# tap-exec: exit status|^#   |^# [^ ]+: (failed|did not finish)' "$log" |
			head -n 40 | sed 's/^/      /'
	done
done
if [ -z "$summary" ]; then
	echo "  (no test file's log shows the failure: see the round's output named above)"
fi
exit 1
