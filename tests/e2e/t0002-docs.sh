#!/bin/sh
# The command reference doc/commands.md and the man page are what the binary's
# -h and list print (regenerate with 'make docs'); the README's first screen
# gives exactly the two commands for a fresh machine, then the five that answer
# the thread (run its workload, ab, compare, reproduce what was posted, report)
# with options the binary has; the
# README stays short (the reference lives in doc/).
. "$(dirname "$0")/lib.sh"

run_cmd sh "$WAKEBENCH_SRC/scripts/gen-docs.sh" --check "$WAKEBENCH"
is "$RC" 0 "doc/commands.md and doc/wakebench.1 match 'wakebench COMMAND -h' and 'list' (run 'make docs')"
[ "$RC" = 0 ] || diag "$OUT"
first=$(head -n 24 "$WAKEBENCH_SRC/README.md")
like "$first" "^make run " "the first screen shows make run"
like "$first" "^make check " "the first screen shows make check"
n=$(printf '%s\n' "$first" | grep -c '^make ')
is "$n" 2 "exactly two commands on the first screen"

screen=$(head -n 40 "$WAKEBENCH_SRC/README.md")
like "$screen" "^wakebench run pipe -j 4 -t 20s -n 1 --profile stress-ng-0\\.15" \
	"the first screen reproduces the reporter's workload"
like "$screen" "^sudo wakebench ab --feature NO_DELAY_DEQUEUE" "the first screen A/Bs the feature"
like "$screen" "^wakebench compare --by kernel" "the first screen compares kernels"
like "$screen" "^wakebench reproduce " "the first screen reproduces a posted result"
like "$screen" "^wakebench report .*-o report\\.html" "the first screen shares the answer"
# each of those commands' options is one its command has
printf '%s\n' "$screen" | sed -n 's/^\(sudo \)\{0,1\}wakebench \([a-z]*\) \(.*\)/\2 \3/p' |
	sed 's/ *#.*//' >"$TMP/cmds"
bad=""
while read -r cmd args; do
	help=$(wb "$cmd" -h 2>&1)
	for w in $args; do
		case $w in
		-?*) printf '%s\n' "$help" | grep -Eq -- "(^|[ ,])${w%%=*}([ ,=[]|$)" ||
			bad="$bad $cmd:$w" ;;
		esac
	done
done <"$TMP/cmds"
is "$(wc -l <"$TMP/cmds" | tr -d ' ')" 5 "five wakebench commands on the first screen"
is "$bad" "" "every option on the first screen is in its command's -h"
lines=$(wc -l <"$WAKEBENCH_SRC/README.md" | tr -d ' ')
ok "[ $lines -lt 250 ]" "the README is under 250 lines ($lines)"

if command -v man >/dev/null 2>&1; then
	run_cmd man -l "$WAKEBENCH_SRC/doc/wakebench.1"
	like "$OUT" "wakebench - reproducible IPC benchmarks" "the man page renders"
else
	skip "man is not installed"
fi
done_testing
