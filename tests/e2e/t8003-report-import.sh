#!/bin/sh
# import report.html: the raw data a report embeds merges into an empty
# store with the same experiments (UUIDs), samples and environment; twice
# changes nothing; a damaged report is refused whole and creates no store.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed"
S() { "$SYNTH" --synth "$WAKEBENCH_DB" "$@" >/dev/null; }

S 2 8 6.6.78 r host 2487746 kernel.preempt=voluntary
S 2 8 6.12.75 r host 1651427 kernel.preempt=voluntary
S 1 12 6.12.75 r host 1700000 kernel.preempt=voluntary ab=DELAY_DEQUEUE
S 1 8 7.0 other host 1600000 kernel.preempt=lazy

# what a store holds, in a form that does not depend on its row ids
dump() {
	sqlite3 "$1" "
	SELECT e.uuid, e.kind, e.workload, e.kernel, coalesce(e.label, ''), e.cmdline,
	       c.name, coalesce(c.features, ''), s.idx, s.status, s.warmup, s.ops_per_s
	FROM samples s JOIN experiments e ON e.id = s.experiment_id JOIN configs c ON c.id = s.config_id
	ORDER BY e.uuid, s.idx;
	SELECT e.uuid, s.idx, m.pos, m.name, m.value, m.available, coalesce(m.why, ''), m.better, m.flags
	FROM sample_metrics m JOIN samples s ON s.id = m.sample_id JOIN experiments e ON e.id = s.experiment_id
	ORDER BY e.uuid, s.idx, m.pos;
	SELECT e.uuid, v.phase, v.key, v.value, v.impact FROM env v
	JOIN experiments e ON e.id = v.experiment_id ORDER BY e.uuid, v.phase, v.key;" 2>&1
}
uuids() { sqlite3 "$1" "SELECT uuid FROM experiments ORDER BY uuid"; }

# the schema's names for what dump() reads (fail loudly if they change)
dump "$WAKEBENCH_DB" >"$TMP/src.txt"
unlike "$(cat "$TMP/src.txt")" "Error|no such" "the dump query fits the schema"

run_cmd wb report --label r -o "$TMP/r.html"
is "$RC" 0 "a report of the experiments labelled r"
DST=$TMP/dst.db
run_cmd wb import --db "$DST" "$TMP/r.html"
is "$RC" 0 "import report.html into an empty store"
like "$OUT" "r\\.html: 5 experiments added, 0 skipped" "its five experiments added"
sqlite3 "$WAKEBENCH_DB" "SELECT uuid FROM experiments WHERE label = 'r' ORDER BY uuid" >"$TMP/want-uuids"
is "$(uuids "$DST")" "$(cat "$TMP/want-uuids")" "the same experiment UUIDs"
dump "$DST" >"$TMP/dst.txt"
grep -v "|other|" "$TMP/src.txt" | grep -vF "$(sqlite3 "$WAKEBENCH_DB" "SELECT uuid FROM experiments WHERE label = 'other'")" >"$TMP/want.txt"
ok "cmp -s '$TMP/want.txt' '$TMP/dst.txt'" "the same samples, metrics, configs and environment, value for value"
ok "[ $(wc -l <"$TMP/dst.txt") -gt 200 ]" "(all $(wc -l <"$TMP/dst.txt") rows of them)"
is "$(sqlite3 "$DST" "SELECT count(*) FROM samples")" \
	"$(sqlite3 "$WAKEBENCH_DB" "SELECT count(*) FROM samples s JOIN experiments e ON e.id = s.experiment_id WHERE e.label = 'r'")" \
	"every sample, warm-ups and all"
is "$(sqlite3 "$DST" "SELECT count(*) FROM env")" \
	"$(sqlite3 "$WAKEBENCH_DB" "SELECT count(*) FROM env v JOIN experiments e ON e.id = v.experiment_id WHERE e.label = 'r'")" \
	"every environment key"
# the imported store gives the same groups, counts and medians (export's JSON
# keeps 15 digits, and no boot ids: each imported experiment is a boot of its own)
summary() { jq -r '.groups[] | "\(.title) \(.n) \(.median * 1e6 | round)"'; }
is "$(wb compare --db "$DST" --format json 2>/dev/null | summary)" \
	"$(wb compare --label r --format json 2>/dev/null | summary)" \
	"compare on the imported store: the same groups, samples and medians"
run_cmd wb import --db "$DST" "$TMP/r.html"
like "$OUT" "0 experiments added, 5 skipped" "importing twice changes nothing"
run_cmd wb import --db "$DST" --format json "$TMP/r.html"
is "$(printf '%s' "$OUT" | jq -r '.[0].skipped')" 5 "JSON output says so too"

# damage: one base64 character changed, the block cut, the data left out
python3 - "$TMP/r.html" "$TMP/bad.html" <<'PY'
import sys
s = open(sys.argv[1]).read()
i = s.index('id="wakebench-data"')
j = s.index('\n', i) + 300
s = s[:j] + ('A' if s[j] != 'A' else 'B') + s[j + 1:]
open(sys.argv[2], 'w').write(s)
PY
run_cmd wb import --db "$TMP/new.db" "$TMP/bad.html"
is "$RC" 1 "a damaged report is refused"
like "$ERR" "report '.*bad\\.html': its raw data block .*; nothing imported from it" "saying what is wrong"
ok "[ ! -e '$TMP/new.db' ]" "and no store is created for it"
head -c 20000 "$TMP/r.html" >"$TMP/cut.html"
run_cmd wb import --db "$TMP/new.db" "$TMP/cut.html"
is "$RC" 1 "a cut report is refused"
like "$ERR" "cut" "as cut"
wb report --no-data -o "$TMP/nodata.html" 2>/dev/null
run_cmd wb import --db "$TMP/new.db" "$TMP/nodata.html"
is "$RC" 1 "a report without its data is not a store"
ok "[ ! -e '$TMP/new.db' ]" "nothing created"
done_testing
