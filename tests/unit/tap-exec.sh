#!/bin/sh
# tap-exec.sh: prove's --exec in `make check`. An end-to-end script runs as it
# is. A cmocka binary runs with cmocka's plain output, which this turns into
# TAP, because cmocka 1.1's own TAP output loses what a failing assertion
# printed (print_error(), fail_msg(), assert_close()'s got and wanted): here
# everything a test printed between its "[ RUN ]" and its "[ FAILED ]" goes
# to stderr under its "not ok" line, which prove shows even when it is not
# verbose, so that one CI log is enough to find a failure's cause.
#
# - "[ OK ]" is "ok N - name"; what the test printed that starts with "#" stays
#   a TAP comment (prove -v shows it), the rest goes to stderr as before;
# - "[ SKIPPED ]" is "ok N # SKIP name: why", the reason being what
#   tests/unit/harness.h's wb_skip() printed ("# SKIP reason: why");
# - a test that never finished (a crash, a sanitizer report, an _exit) is
#   "not ok" with what it printed and the binary's exit status.
# The binary's exit status is kept.
#
# WB_TAP_LOG_DIR (scripts/check-stress.sh): also keep each file's TAP and
# stderr in that directory, named after the test file, with a last line
# "# tap-exec: exit status N" when it exited non-zero.
case $1 in
*.sh)
	if [ -z "${WB_TAP_LOG_DIR:-}" ]; then
		exec sh "$1"
	fi
	log="$WB_TAP_LOG_DIR/$(basename "$1").log"
	# stdout to prove and the log; stderr to prove's stderr and the log
	rcf=$(mktemp "${TMPDIR:-/tmp}/wakebench-tap-rc.XXXXXX") || exit 1
	{ { sh "$1" 2>&1 1>&3 3>&-; echo $? >"$rcf"; } | tee -a "$log" >&2; } 3>&1 |
		tee -a "$log"
	rc=$(cat "$rcf")
	rm -f "$rcf"
	[ "${rc:-1}" = 0 ] || echo "# tap-exec: exit status ${rc:-unknown}" >>"$log"
	exit "${rc:-1}"
	;;
esac
out=$(mktemp "${TMPDIR:-/tmp}/wakebench-tap.XXXXXX") || exit 1
CMOCKA_MESSAGE_OUTPUT=STDOUT "$1" >"$out" 2>&1
rc=$?
tap=$(mktemp "${TMPDIR:-/tmp}/wakebench-tap-err.XXXXXX") || exit 1
tap_out=$(mktemp "${TMPDIR:-/tmp}/wakebench-tap-out.XXXXXX") || exit 1
awk -v rc="$rc" -v errf="$tap" '
function flush_comments(   i) {
	for (i = 1; i <= nbuf; i++) {
		if (buf[i] ~ /^#/) print buf[i]
		else print buf[i] > errf
	}
	nbuf = 0
}
function details(   i) {
	for (i = 1; i <= nbuf; i++) {
		line = buf[i]
		sub(/^\[  ERROR   \] --- /, "", line)
		sub(/^\[   LINE   \] --- /, "", line)
		print "#   " line > errf
	}
	nbuf = 0
}
/^\[==========\] Running [0-9]+ test\(s\)\./ && !planned {
	print "1.." $3
	planned = 1
	next
}
/^\[==========\] [0-9]+ test\(s\) run\./ { finished = 1; next }
finished { next }
/^\[ RUN      \] / { name = substr($0, 14); intest = 1; nbuf = 0; next }
intest && /^\[       OK \] / {
	n++
	flush_comments()
	print "ok " n " - " name
	intest = 0
	next
}
intest && /^\[  SKIPPED \] / {
	n++
	why = ""
	for (i = 1; i <= nbuf; i++)
		if (buf[i] ~ /^# SKIP reason: /) why = substr(buf[i], 16)
	flush_comments()
	if (why == "") why = "no reason given"
	print "ok " n " # SKIP " name ": " why
	intest = 0
	next
}
intest && /^\[  FAILED  \] / {
	n++
	print "not ok " n " - " name
	print "# " name ": failed" > errf
	details()
	intest = 0
	next
}
intest { buf[++nbuf] = $0; next }
/^\[  ERROR   \] / { print "# " $0 > errf; next }
/^\[[ A-Z=]+\] / { next }
{ print > errf }
END {
	if (intest) {
		n++
		print "not ok " n " - " name
		print "# " name ": did not finish (the test binary exited with status " rc ")" > errf
		details()
	}
	if (!planned) {
		print "1..1"
		print "not ok 1 - cmocka output"
		print "# the test binary printed no cmocka output (exit status " rc ")" > errf
	}
}
' "$out" >"$tap_out"
status=$?
cat "$tap_out"
# the details after the TAP they explain (prove reads stdout as it comes)
cat "$tap" >&2
if [ -n "${WB_TAP_LOG_DIR:-}" ]; then
	{
		cat "$tap_out" "$tap"
		[ "$rc" = 0 ] && [ "$status" = 0 ] || echo "# tap-exec: exit status $rc"
	} >>"$WB_TAP_LOG_DIR/$(basename "$1").log"
fi
rm -f "$out" "$tap" "$tap_out"
[ "$status" = 0 ] || exit "$status"
exit "$rc"
