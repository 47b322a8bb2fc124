#!/bin/sh
# Two `wakebench run` writing to one store at the same time: both complete
# and every sample of both is stored. Eight runs starting at once on a new
# store, 20 times over: every one of them completes (none sees the store
# half made by another, with its tables and without its version).
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

fails=0 errs=""
r=0
while [ $r -lt 20 ]; do
	rm -f "$TMP/burst.db" "$TMP/burst.db-wal" "$TMP/burst.db-shm"
	pids=""
	for i in 1 2 3 4 5 6 7 8; do
		"$WAKEBENCH" run pipe -t 10ms -n 1 --warmup 0 -j 1 -q --db "$TMP/burst.db" \
			>/dev/null 2>"$TMP/burst.$i.err" &
		pids="$pids $!"
	done
	for p in $pids; do wait "$p" || fails=$((fails + 1)); done
	errs="$errs$(cat "$TMP"/burst.*.err)"
	r=$((r + 1))
done
is "$fails" 0 "8 runs starting at once on a new store, 20 times: all complete"
[ "$fails" = 0 ] || diag "$(printf '%s\n' "$errs" | sort | uniq -c | head -5)"
done_testing
