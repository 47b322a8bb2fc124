#!/bin/sh
# Every command handles -h: usage on stdout, exit 0; unknown commands exit 2.
. "$(dirname "$0")/lib.sh"

for c in run ab compare env features list show export import vm; do
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
