#!/bin/sh
# compare while another process stores experiments: it reads one snapshot,
# so an experiment begun between its reads neither aborts it nor shows up
# half-listed.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"

"$SYNTH" --synth "$WAKEBENCH_DB" 1 4 6.6.78 r host 1000000 >/dev/null
# a writer adding many small experiments, as concurrent runs do
"$SYNTH" --synth "$WAKEBENCH_DB" 1500 1 6.6.78 r host 1000000 >/dev/null &
writer=$!
at_exit "kill $writer 2>/dev/null"

n=0
bad=0
while kill -0 "$writer" 2>/dev/null && [ "$n" -lt 25 ]; do
	"$WAKEBENCH" compare --pool --format csv >"$TMP/out" 2>"$TMP/err"
	rc=$?
	n=$((n + 1))
	if [ "$rc" -ne 0 ]; then
		bad=$((bad + 1))
		cat "$TMP/err" >&2
	fi
done
wait "$writer"
is "$?" 0 "the writer stored every experiment"
ok "[ $n -ge 3 ]" "compare ran while the writer was storing ($n times)"
is "$bad" 0 "every compare during the writes exited 0"
run_cmd wb compare --pool --format csv
is "$(printf '%s\n' "$OUT" | sed -n 2p | cut -d, -f4)" 1504 "all samples afterwards"

done_testing
