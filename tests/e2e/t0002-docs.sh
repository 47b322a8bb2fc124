#!/bin/sh
# The option reference in README.md and the man page are what the binary's
# -h prints (regenerate with 'make docs'); the README's first screen gives
# exactly the two commands for a fresh machine.
. "$(dirname "$0")/lib.sh"

run_cmd sh "$WAKEBENCH_SRC/scripts/gen-docs.sh" --check "$WAKEBENCH"
is "$RC" 0 "README.md and doc/wakebench.1 match 'wakebench COMMAND -h' (run 'make docs')"
[ "$RC" = 0 ] || diag "$OUT"
first=$(head -n 24 "$WAKEBENCH_SRC/README.md")
like "$first" "^make run " "the first screen shows make run"
like "$first" "^make check " "the first screen shows make check"
n=$(printf '%s\n' "$first" | grep -c '^make ')
is "$n" 2 "exactly two commands on the first screen"
if command -v man >/dev/null 2>&1; then
	run_cmd man -l "$WAKEBENCH_SRC/doc/wakebench.1"
	like "$OUT" "wakebench - reproducible IPC benchmarks" "the man page renders"
else
	skip "man is not installed"
fi
done_testing
