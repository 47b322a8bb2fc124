#!/bin/sh
# export --format lava-cases and --format kcidb of experiments whose stored
# workload, kind, config names, feature tokens and architecture hold
# anything (another machine's store): a newline in a workload name does not
# forge a test case. Each test is exactly one lava-cases line whose name is
# letters, digits and "-_." (everything else became '_'), and the KCIDB
# document's test paths and architectures match KCIDB's own patterns (the
# exact values stay in misc).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 is not installed"
db="$TMP/k.db"

fakefs_start dbg
run_cmd wb ab --feature NO_DELAY_DEQUEUE -t 20ms -n 6 -j 1 --warmup 0 -q --debugfs "$TMP/dbg" --db "$db"
is "$RC" 0 "an ab is stored"
"$SYNTH" --synth "$db" 2 6 6.12 lab host 900 >/dev/null 2>&1
X="char(27) || ']0;x' || char(7) || char(10) || 'forged.case pass 1 ops/s' || char(10) || ' a.b/c'"
sqlite3 "$db" "
	UPDATE experiments SET workload = workload || $X,
		params = json_set(params, '\$.feature', json_array('NO_DELAY_DEQUEUE' || $X))
		WHERE kind = 'ab';
	UPDATE experiments SET workload = 'pipe' || $X, kind = kind || $X WHERE kind = 'run';
	UPDATE configs SET name = name || $X;
	UPDATE configs SET name = '' WHERE id = (SELECT max(id) FROM configs);
	INSERT OR REPLACE INTO env (experiment_id, phase, key, value, impact)
		SELECT id, 'start', 'kernel.arch', 'X86-64' || $X, 0 FROM experiments;"
is "$(sqlite3 "$db" "SELECT count(*) FROM experiments WHERE instr(workload, char(10))")" 3 \
	"three experiments have a workload with a newline"

# 2 configs and 1 verdict of the ab, 1 config of each run
run_cmd wb export --db "$db" --format lava-cases
is "$RC" 0 "export --format lava-cases exits 0"
printf '%s\n' "$OUT" >"$TMP/cases.txt"
is "$(wc -l <"$TMP/cases.txt")" 5 "exactly one line per test: five"
is "$(grep -c '^forged' "$TMP/cases.txt")" 0 "no forged case"
is "$(grep -Evc '^[A-Za-z0-9_.-]+ (pass|fail|skip)( -?[0-9][0-9.e+-]* [!-~]+)?$' "$TMP/cases.txt")" 0 \
	"every line is NAME RESULT [VALUE UNITS], the name letters, digits and -_."
like "$OUT" '^pipe__0_x__forged_case_pass_1_ops_s__a_b_c\.ab\.DELAY_DEQUEUE_on__0_x__forged_case_pass_1_ops_s__a_b_c pass [0-9.]+ ops/s$' \
	"a config's case: each part with its other characters as '_'"
like "$OUT" '^pipe__0_x__forged_case_pass_1_ops_s__a_b_c\.ab\.verdict\.NO_DELAY_DEQUEUE__0_x__forged_case_pass_1_ops_s__a_b_c (pass|fail|skip)$' \
	"the verdict's case too"
like "$OUT" '^pipe__0_x__forged_case_pass_1_ops_s__a_b_c\.run__0_x__forged_case_pass_1_ops_s__a_b_c\._ pass ' \
	"the kind is a part too; an empty config name is '_'"

python3 -c 'import jsonschema' 2>/dev/null || { skip "python3-jsonschema is not installed" && done_testing; exit; }
run_cmd wb export --db "$db" --format kcidb --origin wb_test
is "$RC" 0 "export --format kcidb exits 0"
printf '%s\n' "$OUT" >"$TMP/k.json"
run_cmd python3 "$FIXTURES/kcidb/validate.py" "$FIXTURES/kcidb/v5.3.schema.json" "$TMP/k.json"
is "$RC:$OUT" "0:" "the document validates against the KCIDB v5.3 schema fixture"
py() { python3 -c "import json, re, sys; d = json.load(open(sys.argv[1])); $1" "$TMP/k.json"; }
is "$(py 'print(sum(not re.fullmatch(r"([a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*)?", t["path"]) for t in d["tests"]))')" 0 \
	"every test path matches KCIDB's pattern in full (no newline)"
is "$(py 'print(sorted(t["path"][len("wakebench."):] for t in d["tests"]) == sorted(l.split()[0] for l in open(sys.argv[1][:-6] + "cases.txt")))')" \
	True "the LAVA cases are the KCIDB tests"
is "$(py 'print(set(b["architecture"] for b in d["builds"]))')" \
	"{'x86_64__0_x__forged_case_pass_1_ops_s__a_b_c'}" \
	"the architecture as KCIDB allows it: lower case, the rest '_'"
# (a fingerprint value is one line: its newlines were read as spaces)
is "$(py 'print(set(b["misc"]["kernel_arch"] for b in d["builds"]) == {"X86-64\x1b]0;x\x07 forged.case pass 1 ops/s  a.b/c"})')" \
	True "the exact architecture is in the build's misc"
is "$(py 'print(set(t["misc"]["workload"] for t in d["tests"]) == {"pipe\x1b]0;x\x07\nforged.case pass 1 ops/s\n a.b/c"})')" \
	True "the exact workload is in each test's misc"
done_testing
