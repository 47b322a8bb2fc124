#!/bin/sh
# compare while another process stores experiments: it reads one snapshot,
# so an experiment begun between its reads neither aborts it nor shows up
# half-listed.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"

"$SYNTH" --synth "$WAKEBENCH_DB" 1 4 6.6.78 r host 1000000 >/dev/null
# a writer adding many small experiments, as concurrent runs do, in batches
# of 20 until the compares are done: however slow either side is, the
# compares run while it writes
(
	b=0
	while [ ! -e "$TMP/stop" ]; do
		"$SYNTH" --synth "$WAKEBENCH_DB" 20 1 6.6.78 r host 1000000 >/dev/null || exit 1
		b=$((b + 1))
		echo $b >"$TMP/batches"
	done
) &
writer=$!
at_exit "kill $writer 2>/dev/null"

n=0
bad=0
while kill -0 "$writer" 2>/dev/null && [ "$n" -lt 6 ]; do
	"$WAKEBENCH" compare --pool --format csv >"$TMP/out" 2>"$TMP/err"
	rc=$?
	n=$((n + 1))
	if [ "$rc" -ne 0 ]; then
		bad=$((bad + 1))
		cat "$TMP/err" >&2
	fi
done
touch "$TMP/stop"
wait "$writer"
is "$?" 0 "the writer stored every experiment"
is "$n" 6 "compare ran while the writer was storing ($n times)"
is "$bad" 0 "every compare during the writes exited 0"
batches=$(cat "$TMP/batches" 2>/dev/null)
run_cmd wb compare --pool --format csv
is "$(printf '%s\n' "$OUT" | sed -n 2p | cut -d, -f4)" $((4 + 20 * ${batches:-0})) \
	"all samples afterwards ($batches batches of 20, and the first 4)"

done_testing
