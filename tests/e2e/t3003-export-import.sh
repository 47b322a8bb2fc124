#!/bin/sh
# export: JSON parses and matches the golden file, CSV matches its golden
# file, filters select; import: round trips (store file and JSON export) into
# an empty store give the same export, a second import skips everything,
# stores from elsewhere merge.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
GOLDEN="$FIXTURES/export"
A="$TMP/a.db"

"$SYNTH" --synth "$A" 2 3 6.6.78 base hostA 2487746 && \
"$SYNTH" --synth "$A" 1 3 6.12.75 base hostA 1651427 kernel.preempt=full
is "$?" 0 "synthesised a store through the store API"

# what changes from one run to the next: UUIDs and clock readings
norm_json() {
	jq -S 'del(.experiments[] | .uuid, .started, .started_ns, .ended, .ended_ns)
	       | del(.experiments[].samples[] | .start, .start_realtime_ns)'
}
norm_csv() { awk -F, -v OFS=, 'NR > 1 { $2 = "UUID"; $16 = "TIME" } { print }'; }

run_cmd wb export --db "$A"
is "$RC" 0 "export exits 0 (JSON by default)"
ok "printf '%s' '$OUT' | jq -e . >/dev/null" "export JSON parses"
is "$(printf '%s' "$OUT" | jq '.experiments | length')" 3 "three experiments"
is "$(printf '%s' "$OUT" | jq '[.experiments[].samples[]] | length')" 9 "nine samples"
is "$(printf '%s' "$OUT" | jq -r '.experiments[0].samples[0] | "\(.metrics.perf_ctxsw_per_op) \(.unavailable.perf_ctxsw_per_op)"')" \
	"null perf_event_paranoid=2" "unavailable metric: null with its reason"
is "$(printf '%s' "$OUT" | jq -r '.experiments[0].metrics[0] | "\(.name) \(.better) \(.evidence)"')" \
	"ctxsw_per_op lower true" "metric definitions per experiment"
printf '%s\n' "$OUT" | norm_json >"$TMP/a.json"
ok "diff -u '$GOLDEN/export.json' '$TMP/a.json'" "export JSON matches the golden file"

run_cmd wb export --db "$A" --format csv
is "$RC" 0 "export --format csv"
printf '%s\n' "$OUT" | norm_csv >"$TMP/a.csv"
ok "diff -u '$GOLDEN/export.csv' '$TMP/a.csv'" "export CSV matches the golden file"
is "$(printf '%s\n' "$OUT" | wc -l)" 10 "CSV: a header and one row per sample"

run_cmd wb export --db "$A" --kernel 6.12.75
is "$(printf '%s' "$OUT" | jq '.experiments | length')" 1 "--kernel filters"
run_cmd wb export --db "$A" --host hostB
is "$RC" 2 "unknown --host exits 2"
like "$ERR" "stored hostA" "names the hosts that exist"
run_cmd wb export --db "$A" --format text
is "$RC" 2 "export --format text is refused"

# round trip: import into an empty store, export again: the same document
cp "$A" "$TMP/a-copy.db"
run_cmd wb import --db "$TMP/b.db" "$A"
is "$RC" 0 "import into an empty store"
like "$OUT" "3 experiments added, 0 skipped" "import says how many were added"
ok "cmp -s '$A' '$TMP/a-copy.db'" "the imported file is only read"
wb export --db "$A" >"$TMP/a-full.json"
wb export --db "$TMP/b.db" >"$TMP/b-full.json"
ok "cmp -s '$TMP/a-full.json' '$TMP/b-full.json'" "export after import is identical (same counts, ids, values)"
run_cmd wb import --db "$TMP/b.db" "$A" --format json
is "$(printf '%s' "$OUT" | jq -c '.[0] | [.added, .skipped]')" "[0,3]" "importing again skips every experiment"

# the JSON export itself imports: the same document comes back out
wb export --db "$A" >"$TMP/a-export.json"
run_cmd wb import --db "$TMP/from-json.db" "$TMP/a-export.json"
is "$RC" 0 "import of a JSON export"
like "$OUT" "3 experiments added, 0 skipped" "all of its experiments"
wb export --db "$TMP/from-json.db" >"$TMP/from-json.json"
ok "cmp -s '$TMP/a-export.json' '$TMP/from-json.json'" "export -> import -> export is byte-identical"
run_cmd wb import --db "$TMP/from-json.db" "$TMP/a-export.json"
like "$OUT" "0 experiments added, 3 skipped" "a JSON export imported twice adds nothing"
printf '{"format":"something-else"}\n' >"$TMP/other.json"
run_cmd wb import --db "$TMP/from-json.db" "$TMP/other.json"
is "$RC" 1 "another JSON document exits 1"
like "$ERR" "neither a wakebench store nor a wakebench export" "and says what it is not"

# merging a store from elsewhere with one shared experiment
"$SYNTH" --synth "$TMP/c.db" 1 4 6.18 other hostC 1700000
wb import --db "$TMP/c.db" "$A" >/dev/null
run_cmd wb import --db "$TMP/b.db" "$TMP/c.db"
like "$OUT" "1 experiment added, 3 skipped" "merge adds only the new experiment"
is "$(wb export --db "$TMP/b.db" | jq '[.experiments[].samples[]] | length')" 13 "every sample of it arrived"
run_cmd wb import --db "$TMP/b.db" "$TMP/missing.db"
is "$RC" 1 "importing a missing file exits 1"
done_testing
