#!/bin/sh
# import is the door other people's data comes through: special files are
# refused up front with what they are (no hang on a FIFO, no endless read of
# /dev/zero); a report announcing more than its compressed size allows is
# refused before anything is decompressed; a job log line over its limit is
# refused; a store whose label holds a report's data marker is read as the
# store it is; a killed import leaves no temporary file and no store;
# ambiguous JSON (duplicate keys, NUL, integers past 64 bits) is refused
# whole. The streamed parser's other refusals: tests/unit/t-import.c;
# 100,000 samples: t3036.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
D="$TMP/dst.db"
# a refused file: exit 1, one line that names it and says why, no store created
refuse() { # DESCRIPTION FILE PATTERN
	run_cmd wb import --db "$D" "$2"
	is "$RC" 1 "$1: exit 1"
	like "$ERR" "$3" "$1: says why"
	is "$(printf '%s\n' "$ERR" | wc -l)" 1 "$1: in one line"
	ok "[ ! -e '$D' ]" "$1: no store created"
}

mkfifo "$TMP/fifo"
refuse "a FIFO" "$TMP/fifo" "'$TMP/fifo' is refused: it is a FIFO; import reads regular files"
refuse "/dev/zero" /dev/zero "'/dev/zero' is refused: it is a character device"
refuse "a directory" "$TMP" "is refused: it is a directory"

# the store itself
"$SYNTH" --synth "$TMP/self.db" 1 2 6.6 base host 1000 >/dev/null
run_cmd wb import --db "$TMP/self.db" "$TMP/self.db"
is "$RC" 1 "the store into itself: exit 1"
like "$ERR" "'$TMP/self.db' is the store it would be merged into" "  says so"

# a report whose block announces far more than its compressed size
"$SYNTH" --synth "$TMP/s.db" 1 3 6.6 base host 1000 >/dev/null
wb report --db "$TMP/s.db" -o "$TMP/r.html" 2>/dev/null
sed 's/data-bytes="[0-9]*"/data-bytes="629145600"/' "$TMP/r.html" >"$TMP/bomb.html"
refuse "a decompression bomb" "$TMP/bomb.html" \
	"announces 629145600 bytes from [0-9]+ compressed, over the limit \\(64 times"
run_cmd wb import --db "$D" "$TMP/r.html"
is "$RC" 0 "the same report untouched imports"
rm -f "$D"*

# a job log with a line over 1 MiB
{
	echo "- {dt: 2026-01-01T00:00:00, lvl: target, msg: boot}"
	head -c 2000000 /dev/zero | tr '\0' x
	echo
} >"$TMP/long.log"
refuse "a job log line of 2 MB" "$TMP/long.log" "log line 2 has over 1048576 bytes"

# a store whose label holds the report's marker is a store: its own experiment
"$SYNTH" --synth "$TMP/marker.db" 1 2 6.6 '<pre id="wakebench-data" data-bytes="5">' host 1000 >/dev/null
run_cmd wb import --db "$D" "$TMP/marker.db"
is "$RC" 0 "a store with the report's marker in a label imports"
like "$OUT" "1 experiment added" "  its own experiment"
is "$(sqlite3 "$D" 'SELECT label FROM experiments')" '<pre id="wakebench-data" data-bytes="5">' \
	"  with its label as stored"
rm -f "$D"*

# killed mid-import (the input open, the merge under way): no temporary file, no store
sh "$(dirname "$0")/export-big.sh" 20000 >"$TMP/big.json"
mkdir "$TMP/tmpdir"
TMPDIR="$TMP/tmpdir" "$WAKEBENCH" import --db "$TMP/killed.db" "$TMP/big.json" >/dev/null 2>&1 &
pid=$!
# wait for the event: the import has the input open
while kill -0 "$pid" 2>/dev/null && ! ls -l "/proc/$pid/fd" 2>/dev/null | grep -q "big.json"; do
	sleep 0.01
done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
is "$(ls -A "$TMP/tmpdir" | wc -l)" 0 "killed: no temporary file left"
# what was left, if anything: its name says whose it is (SQLite's are etilqs_*)
[ -z "$(ls -A "$TMP/tmpdir")" ] || diag "left in TMPDIR: $(ls -lA "$TMP/tmpdir")"
ok "[ ! -e '$TMP/killed.db' ] || [ \"\$(sqlite3 '$TMP/killed.db' 'SELECT count(*) FROM experiments')\" = 0 ]" \
	"killed: no store, or an empty one"

# ambiguous JSON is refused whole
wb export --db "$TMP/s.db" >"$TMP/s.json"
sed 's/"label":"base"/"label":"base","label":"forged"/' "$TMP/s.json" >"$TMP/dup.json"
refuse "a duplicate key" "$TMP/dup.json" 'the key "label" comes twice in one object'
sed 's/"label":"base"/"label":"base\\u0000forged"/' "$TMP/s.json" >"$TMP/nul.json"
refuse "a NUL in a label" "$TMP/nul.json" "a string holds a NUL character"
sed 's/"started_ns":[0-9]*/"started_ns":9223372036854775808/' "$TMP/s.json" >"$TMP/big-int.json"
refuse "started_ns 2^63" "$TMP/big-int.json" "the number 9223372036854775808 is out of range"
printf '\357\273\277' | cat - "$TMP/s.json" >"$TMP/bom.json"
run_cmd wb import --db "$D" "$TMP/bom.json"
is "$RC" 0 "a byte-order mark before the JSON is allowed"

done_testing
