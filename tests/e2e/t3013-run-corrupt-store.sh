#!/bin/sh
# A damaged store is refused before anything is measured: run and ab exit 1
# naming the damage, print no sample, and leave the file as it was.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 is not installed"
db="$TMP/r.db"
wb run pipe -t 50ms -n 3 -j 1 --warmup 0 --db "$db" -q >/dev/null 2>&1
wb run pipe -t 50ms -n 3 -j 1 --warmup 0 --db "$db" -q >/dev/null 2>&1
# overwrite the samples table's root page with garbage
page=$(sqlite3 "$db" "PRAGMA page_size")
root=$(sqlite3 "$db" "SELECT rootpage FROM sqlite_master WHERE name = 'samples'")
head -c "$page" /dev/urandom | dd of="$db" bs="$page" seek=$((root - 1)) conv=notrunc 2>/dev/null
cp "$db" "$TMP/before"

run_cmd wb run pipe -t 50ms -n 3 -j 1 --warmup 0 --db "$db"
is "$RC" 1 "run on a damaged store exits 1"
like "$ERR" "store '.*r.db' is damaged" "the damage is named"
unlike "$OUT" "^sample " "nothing was measured"
ok "cmp -s '$TMP/before' '$db'" "the store is left as it was"

fakefs_start dbg
run_cmd wb ab --feature NO_DELAY_DEQUEUE -t 50ms -n 6 -j 1 --debugfs "$TMP/dbg" --db "$db"
is "$RC" 1 "ab on a damaged store exits 1"
like "$ERR" "is damaged" "ab names the damage"
unlike "$OUT" "^pair " "ab measured nothing"
done_testing
