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
#
# A kernel message on a serial console lands wherever the console is, in
# the middle of a frame's line too, and that line is then lost to import.
# So while the frame is printed the console shows KERN_EMERG messages only
# (console_loglevel 1; the kernel log keeps the rest, dmesg shows them),
# and the saved levels are written back after it, also when the script is
# stopped. WAKEBENCH_PRINTK names the file (tests point it elsewhere); a
# file that cannot be written (no root) leaves the console as it is.
PRINTK="${WAKEBENCH_PRINTK:-/proc/sys/kernel/printk}"
printk_saved=""
console_restore() {
	if [ -n "$printk_saved" ]; then
		echo "$printk_saved" >"$PRINTK" 2>/dev/null
		printk_saved=""
	fi
}
if [ -w "$PRINTK" ] && IFS= read -r saved <"$PRINTK" 2>/dev/null &&
	read -r level rest <"$PRINTK" && [ -n "$level" ]; then
	trap 'console_restore; exit 130' INT
	trap 'console_restore; exit 143' TERM
	trap 'console_restore; exit 129' HUP
	printk_saved="$saved"
	echo "1 $rest" >"$PRINTK" 2>/dev/null || printk_saved=""
fi
if WAKEBENCH_LAVA_DEVICE="$DEVICE" WAKEBENCH_LAVA_LAB="$LAB" \
	"$WB" export "$@" --format lava; then
	results=pass
else
	results=fail
fi
console_restore
trap - INT TERM HUP
report wakebench-results "$results"
exit 0
