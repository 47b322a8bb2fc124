#!/bin/sh
# wakebench ab with two features: the 2x2 factorial in Gray-code blocks (one
# toggle, one token, per step), both main effects and the interaction.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

fakefs_start dbg --log="$TMP/writes.log"
D="$TMP/dbg"
ORIG=$(cat "$FIXTURES/sched-features/v6.18.txt")

run_cmd wb ab --feature NO_DELAY_DEQUEUE --feature NO_PREEMPT_SHORT -t 50ms -n 2 -j 1 --debugfs "$D" --db "$TMP/f.db"
is "$RC" 0 "2x2 exits 0"
like "$OUT" "^arm 00: DELAY_DEQUEUE=on,PREEMPT_SHORT=on" "arm 00"
like "$OUT" "^arm 11: DELAY_DEQUEUE=off,PREEMPT_SHORT=off" "arm 11"
like "$OUT" "^block 2/2: (00|10|11|01) $NUM, (00|10|11|01) $NUM, (00|10|11|01) $NUM, (00|10|11|01) $NUM ops/s" "one line per block"
like "$OUT" "^verdict NO_DELAY_DEQUEUE: " "main effect of the first token"
like "$OUT" "^verdict NO_PREEMPT_SHORT: " "main effect of the second token"
like "$OUT" "^  interaction +bogo ops/s \(real time\)" "the interaction estimate"
like "$OUT" "^interaction \(NO_DELAY_DEQUEUE's effect with NO_PREEMPT_SHORT applied vs without\): " "the interaction explained"
is "$(fakefs_features dbg)" "$ORIG" "restored"
# Gray order: every write is a single token and toggles one feature
is "$(grep -vc -E '^/sched/features (NO_)?(DELAY_DEQUEUE|PREEMPT_SHORT) -> ok$' "$TMP/writes.log")" 0 "only the two features were written, one token each"
like "$(grep '^block' "$TMP/.out" | awk -F': |, ' '{ o = ""; for (i = 2; i <= NF; i++) { split($i, w, " "); o = o (i > 2 ? " " : "") w[1] } print o }' | tr '\n' '|')" "^00 10 11 01\|01 11 10 00\|$" "blocks in Gray order, the second mirrored"
is "$(wc -l <"$TMP/writes.log" | tr -d ' ')" 6 "six toggles: three per block, none between blocks, then back"
if command -v sqlite3 >/dev/null 2>&1; then
	is "$(sqlite3 "$TMP/f.db" "select count(*) from configs")" 4 "four configs"
	is "$(sqlite3 "$TMP/f.db" "select count(*) from samples where warmup = 0")" 8 "eight measured samples"
else
	skip "sqlite3 is not installed"; skip "sqlite3 is not installed"
fi
done_testing
