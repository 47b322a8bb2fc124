#!/bin/sh
# Two `wakebench run` writing to one store at the same time: both complete
# and every sample of both is stored.
. "$(dirname "$0")/lib.sh"

RUN="run pipe -t 100ms -n 4 --warmup 0 -j 1 -q"
"$WAKEBENCH" $RUN --label one >"$TMP/one.out" 2>"$TMP/one.err" &
p1=$!
"$WAKEBENCH" $RUN --label two >"$TMP/two.out" 2>"$TMP/two.err" &
p2=$!
wait $p1
rc1=$?
wait $p2
rc2=$?
is "$rc1" 0 "first concurrent run completes"
[ "$rc1" = 0 ] || diag "first run's stderr: $(cat "$TMP/one.err")"
is "$rc2" 0 "second concurrent run completes"
[ "$rc2" = 0 ] || diag "second run's stderr: $(cat "$TMP/two.err")"
unlike "$(cat "$TMP/one.err" "$TMP/two.err")" "locked|busy" "no lock errors"

run_cmd wb export
is "$RC" 0 "export after concurrent runs"
is "$(printf '%s' "$OUT" | jq '.experiments | length')" 2 "two experiments"
is "$(printf '%s' "$OUT" | jq -c '[.experiments[] | .samples | length]')" "[4,4]" "every sample of both"
is "$(printf '%s' "$OUT" | jq -r '[.experiments[].status] | unique | join(",")')" "complete" "both complete"
is "$(printf '%s' "$OUT" | jq -r '[.experiments[].label] | sort | join(",")')" "one,two" "with their labels"
SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
if [ -x "$SYNTH" ]; then
	is "$("$SYNTH" --integrity "$WAKEBENCH_DB")" "ok" "integrity_check ok"
else
	skip "test helper $SYNTH not built"
fi
done_testing
