#!/bin/sh
# tap-exec.sh: prove's --exec in `make check`. An end-to-end script runs as it
# is. A cmocka binary runs with its skips made real TAP skips: cmocka 1.1
# prints "not ok N # SKIP name" (a failure to prove) and no reason, so the
# reason a test prints just before ("# SKIP reason: why", tests/unit/harness.h)
# is joined to it as "ok N # SKIP name: why". Nothing else is changed, and the
# binary's exit status is kept.
case $1 in
*.sh) exec sh "$1" ;;
esac
out=$(mktemp "${TMPDIR:-/tmp}/wakebench-tap.XXXXXX") || exit 1
"$1" >"$out"
rc=$?
awk '
/^# SKIP reason: / { why = substr($0, 16); print; next }
/^not ok [0-9]+ # SKIP/ {
	sub(/^not ok/, "ok")
	if (why == "") why = "no reason given"
	print $0 ": " why
	why = ""
	next
}
{ print }
' "$out"
rm -f "$out"
exit "$rc"
