#!/bin/sh
# wakebench ab with two features: the 2x2 factorial in Gray-code blocks (one
# toggle, one token, per step), both main effects and the interaction.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

fakefs_start dbg --log="$TMP/writes.log"
D="$TMP/dbg"
ORIG=$(cat "$FIXTURES/sched-features/v6.18.txt")

run_cmd wb ab --feature NO_DELAY_DEQUEUE --feature NO_PREEMPT_SHORT -t 20ms --warmup 10ms -n 10 -j 1 --debugfs "$D" --db "$TMP/f.db"
is "$RC" 0 "2x2 exits 0"
like "$OUT" "^arm 00: DELAY_DEQUEUE=on,PREEMPT_SHORT=on" "arm 00"
like "$OUT" "^arm 11: DELAY_DEQUEUE=off,PREEMPT_SHORT=off" "arm 11"
like "$OUT" "^block 10/10: (00|10|11|01) $NUM, (00|10|11|01) $NUM, (00|10|11|01) $NUM, (00|10|11|01) $NUM ops/s" "one line per block"
is "$(printf '%s\n' "$OUT" | tail -n 2 | cut -d: -f1 | tr '\n' ' ')" "NO_DELAY_DEQUEUE NO_PREEMPT_SHORT " \
	"the last two lines: one verdict per token, in order"
like "$OUT" "^NO_DELAY_DEQUEUE: bogo ops/s \(real time\) [-+][0-9.]+% \[[0-9.]+% CI [-+][0-9.]+%, [-+][0-9.]+%\], " "main effect of the first token"
like "$OUT" "^NO_PREEMPT_SHORT: bogo ops/s \(real time\) [-+][0-9.]+% \[[0-9.]+% CI " "main effect of the second token"
like "$OUT" "^  interaction +bogo ops/s \(real time\)" "the interaction estimate"
like "$OUT" "^interaction \(NO_DELAY_DEQUEUE's effect with NO_PREEMPT_SHORT applied vs without\): " "the interaction explained"
is "$(fakefs_features dbg)" "$ORIG" "restored"
# Gray order: every write is a single token and toggles one feature
is "$(grep -vc -E '^/sched/features (NO_)?(DELAY_DEQUEUE|PREEMPT_SHORT) -> ok$' "$TMP/writes.log")" 0 "only the two features were written, one token each"
like "$(grep '^block' "$TMP/.out" | awk -F': |, ' '{ o = ""; for (i = 2; i <= NF; i++) { split($i, w, " "); o = o (i > 2 ? " " : "") w[1] } print o }' | tr '\n' '|')" "^(00 10 11 01\|01 11 10 00\|){5}$" "blocks in Gray order, every second mirrored"
is "$(wc -l <"$TMP/writes.log" | tr -d ' ')" 30 "30 toggles: three per block, none between blocks, back at the start"
if command -v sqlite3 >/dev/null 2>&1; then
	is "$(sqlite3 "$TMP/f.db" "select count(*) from configs")" 4 "four configs"
	is "$(sqlite3 "$TMP/f.db" "select count(*) from samples where warmup = 0")" 40 "40 measured samples"
else
	skip "sqlite3 is not installed"; skip "sqlite3 is not installed"
fi
done_testing
