#!/bin/sh
# A store that cannot be opened: run and ab exit 1 with the store's line,
# measure nothing, leave the features as found and no journal (and, under
# the sanitizers, leak nothing); a store that fails after the experiment was
# recorded leaves it "failed", not "interrupted".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

fakefs_start dbg
D="$TMP/dbg"
ORIG=$(cat "$FIXTURES/sched-features/v6.18.txt")
JOURNAL="$WAKEBENCH_STATE_DIR/features.journal"
: >"$TMP/file"

run_cmd wb ab --feature NO_DELAY_DEQUEUE -t 50ms -n 6 -j 1 --debugfs "$D" --db "$TMP/file/sub/r.db"
is "$RC" 1 "ab with a store that cannot be opened exits 1"
like "$ERR" "store '$TMP/file/sub/r.db'" "the store is named"
unlike "$OUT" "^pair " "nothing was measured"
is "$(fakefs_features dbg)" "$ORIG" "features as found"
ok "[ ! -e '$JOURNAL' ]" "no journal left"

run_cmd wb run pipe -t 50ms -n 1 -j 1 --warmup 0 --db "$TMP/file/sub/r.db"
is "$RC" 1 "run with a store that cannot be opened exits 1"
unlike "$OUT" "^sample " "run measured nothing"

# A store that takes the experiment but refuses its configs: a trigger makes
# inserting a config fail after the experiment row exists.
db="$TMP/r.db"
run_cmd wb run pipe -t 50ms -n 1 -j 1 --warmup 0 --db "$db" -q
is "$RC" 0 "a first run creates the store"
sqlite3 "$db" "CREATE TRIGGER no_configs BEFORE INSERT ON configs BEGIN SELECT RAISE(ABORT, 'configs refused'); END;"
run_cmd wb run pipe -t 50ms -n 1 -j 1 --warmup 0 --db "$db"
is "$RC" 1 "run whose config cannot be stored exits 1"
like "$ERR" "configs refused" "with the store's reason"
is "$(sqlite3 "$db" "SELECT status FROM experiments ORDER BY id DESC LIMIT 1")" "failed" \
	"the experiment it had recorded is failed, not left running"
run_cmd wb ab --feature NO_DELAY_DEQUEUE -t 50ms -n 6 -j 1 --debugfs "$D" --db "$db"
is "$RC" 1 "ab whose arms cannot be stored exits 1"
is "$(sqlite3 "$db" "SELECT status FROM experiments ORDER BY id DESC LIMIT 1")" "failed" \
	"ab's experiment is failed too"
is "$(fakefs_features dbg)" "$ORIG" "features as found"
ok "[ ! -e '$JOURNAL' ]" "no journal left"
done_testing
