#!/bin/sh
# wakebench.sh: the run script of the wakebench LAVA test definition.
#
# Runs one wakebench command (run or ab) in the device, then reports, as
# Linaro's test-definitions scripts do, one line per test case in
# output/result.txt ("NAME pass|fail|skip [VALUE UNITS]") and, where LAVA's
# lava-test-case is on PATH, the same case to LAVA:
#   wakebench-<subcommand>     pass when wakebench exited 0 (skip on 77)
#   <workload>.<kind>.<config> pass, the median of the primary metric (e.g. ops/s)
#   <workload>.ab.verdict.<token>  pass, or fail for a regression, or skip when
#                              there were too few pairs for a verdict
# Last it prints the experiment's full results (wakebench export --format
# lava: the JSON export framed and checksummed) on the console, so that
# 'wakebench import JOB.log' on the host merges them into a store.
#
# POSIX sh (busybox is enough): no jq, no python in the device.
set -u

usage() {
	echo "usage: $0 [-a WAKEBENCH_ARGS] [-l LABEL] [-s true|false] [-d DEVICE] [-L LAB] [-w WAKEBENCH] [-o OUTPUT]" >&2
	exit 2
}

ARGS="run pipe"
LABEL=""
STORE="false"
DEVICE=""
LAB=""
WB="wakebench"
OUTPUT="$(pwd)/output"
while getopts "a:l:s:d:L:w:o:h" opt; do
	case "$opt" in
	a) ARGS="$OPTARG" ;;
	l) LABEL="$OPTARG" ;;
	s) STORE="$OPTARG" ;;
	d) DEVICE="$OPTARG" ;;
	L) LAB="$OPTARG" ;;
	w) WB="$OPTARG" ;;
	o) OUTPUT="$OPTARG" ;;
	*) usage ;;
	esac
done
case "$STORE" in
true | false) ;;
*) echo "wakebench.sh: -s (STORE): '$STORE' is not true or false" >&2; exit 2 ;;
esac

RESULT_FILE="$OUTPUT/result.txt"
mkdir -p "$OUTPUT" || exit 1
: >"$RESULT_FILE"

# One test case: in result.txt always, and to LAVA when lava-test-case exists.
report() { # NAME RESULT [VALUE UNITS]
	if [ $# -ge 4 ] && [ -n "$3" ]; then
		echo "$1 $2 $3 $4" >>"$RESULT_FILE"
	else
		echo "$1 $2" >>"$RESULT_FILE"
	fi
	if command -v lava-test-case >/dev/null 2>&1; then
		if [ $# -ge 4 ] && [ -n "$3" ]; then
			lava-test-case "$1" --result "$2" --measurement "$3" --units "$4"
		else
			lava-test-case "$1" --result "$2"
		fi
	fi
}

if [ "$STORE" = true ]; then
	db="${WAKEBENCH_DB:-}"
else
	db="$OUTPUT/wakebench.db"
	rm -f "$db" "$db-wal" "$db-shm"
fi

# The command line is split into words on purpose: it is a parameter.
# shellcheck disable=SC2086
set -- $ARGS
[ $# -gt 0 ] || { echo "wakebench.sh: -a (WAKEBENCH_ARGS) is empty" >&2; exit 2; }
sub="$1"
[ -n "$LABEL" ] && set -- "$@" --label "$LABEL"
[ -n "$db" ] && set -- "$@" --db "$db"

echo "wakebench.sh: $WB $*"
"$WB" "$@" >"$OUTPUT/wakebench.out" 2>"$OUTPUT/wakebench.err"
rc=$?
cat "$OUTPUT/wakebench.out"
cat "$OUTPUT/wakebench.err" >&2
case "$rc" in
0) report "wakebench-$sub" pass ;;
77) report "wakebench-$sub" skip ;;
*) report "wakebench-$sub" fail ;;
esac

uuid=$(sed -n 's/^stored: experiment \([0-9a-f-]*\) in .*/\1/p' "$OUTPUT/wakebench.out" | tail -n 1)
if [ -z "$uuid" ]; then
	echo "wakebench.sh: wakebench stored no experiment (exit status $rc)" >&2
	report wakebench-results fail
	exit 0
fi
set -- --experiment "$uuid"
[ -n "$db" ] && set -- "$@" --db "$db"

if "$WB" export "$@" --format lava-cases >"$OUTPUT/cases.txt"; then
	while read -r name result value units; do
		report "$name" "$result" "${value:-}" "${units:-}"
	done <"$OUTPUT/cases.txt"
else
	report wakebench-cases fail
fi

# The full results, framed for 'wakebench import JOB.log' on the host.
if WAKEBENCH_LAVA_DEVICE="$DEVICE" WAKEBENCH_LAVA_LAB="$LAB" \
	"$WB" export "$@" --format lava; then
	report wakebench-results pass
else
	report wakebench-results fail
fi
exit 0
