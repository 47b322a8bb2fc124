#!/bin/sh
# Every command handles -h: usage on stdout, exit 0; unknown commands exit 2.
. "$(dirname "$0")/lib.sh"

# the commands as the binary lists them (src/main.c's table is the one list)
commands=$(wb help | awk '/^commands:/ { c = 1; next } c && NF { print $1 } c && !NF { exit }')
like "$(echo $commands)" "^run ab .* vm( |$)" "help lists the commands, run first"
for c in $commands; do
	run_cmd wb "$c" -h
	is "$RC" 0 "$c -h exits 0"
	like "$OUT" "^usage: wakebench $c" "$c -h prints usage"
done
run_cmd wb nosuchcmd
is "$RC" 2 "unknown command exits 2"
like "$ERR" "unknown command 'nosuchcmd'" "unknown command is named"
run_cmd wb --version
like "$OUT" "^wakebench [0-9]" "--version"
done_testing
