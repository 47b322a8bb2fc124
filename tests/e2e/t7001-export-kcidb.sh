#!/bin/sh
# export --format kcidb: a KCIDB v5.3 document that validates against the
# schema fixture (tests/fixtures/kcidb), DONE tests carrying the median of
# the primary metric with its unit, ab verdicts recomputed exactly as ab
# printed them, FAIL for a regression and PASS otherwise (factorial designs
# too), the fingerprint in environment.misc, ids under --origin and stable
# from one export to the next, and --origin checked (exit 2).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

python3 -c 'import jsonschema' 2>/dev/null || skip_all "python3-jsonschema is not installed"
SCHEMA="$FIXTURES/kcidb/v5.3.schema.json"
validate() { python3 "$FIXTURES/kcidb/validate.py" "$SCHEMA" "$@"; }
py() { python3 -c "$1" "$TMP/k.json"; }
db="$TMP/k.db"

fakefs_start dbg
run_cmd wb run -t 50ms -n 5 -j 1 --warmup 0 --label base --db "$db" --format json
is "$RC" 0 "a short run is stored"
printf '%s\n' "$OUT" >"$TMP/run.json"
run_cmd wb ab --feature NO_DELAY_DEQUEUE -t 50ms -n 6 -j 1 --warmup 0 --debugfs "$TMP/dbg" \
	--db "$db" --format json
is "$RC" 0 "a short ab is stored"
printf '%s\n' "$OUT" >"$TMP/ab.json"

run_cmd wb export --db "$db" --format kcidb --origin wb_test
is "$RC" 0 "export --format kcidb exits 0"
printf '%s\n' "$OUT" >"$TMP/k.json"
run_cmd validate "$TMP/k.json"
is "$RC:$OUT" "0:" "the document validates against the KCIDB v5.3 schema fixture"
is "$(py 'import json,sys; d=json.load(open(sys.argv[1])); print(d["version"])')" \
	"{'major': 5, 'minor': 3}" "version 5.3"
is "$(py 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(t["path"] + ":" + t["status"] for t in d["tests"] if "verdict" not in t["path"]))')" \
	"wakebench.pipe.run.default:DONE wakebench.pipe.ab.DELAY_DEQUEUE_on:DONE wakebench.pipe.ab.DELAY_DEQUEUE_off:DONE" \
	"one DONE test per config"
is "$(py 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["checkouts"]), len(d["builds"]), len(d["tests"]))')" \
	"1 1 4" "one checkout and one build for the one kernel; four tests"

# the number is the median of the measured samples' primary metric, with the workload's unit
want=$(python3 -c 'import json,sys,statistics; r=json.load(open(sys.argv[1])); print("%.6g ops/s" % statistics.median(s["ops_per_s"] for s in r["samples"] if not s["warmup"] and s["status"] == "ok"))' "$TMP/run.json")
is "$(py 'import json,sys; d=json.load(open(sys.argv[1])); t=d["tests"][0]; print("%.6g %s %s" % (t["number"]["value"], t["number"]["unit"], t["number"]["prefix"]))')" \
	"$want metric" "DONE: number {value: the median, unit, prefix}"
is "$(py 'import json,sys; d=json.load(open(sys.argv[1])); t=d["tests"][0]; print(t["misc"]["samples"], t["misc"]["label"], t["misc"]["kind"], t["misc"]["config"])')" \
	"5 base run default" "DONE: n, label, kind and config in misc"

# the verdict is the one ab printed, effect and CI included
is "$(py 'import json,sys; d=json.load(open(sys.argv[1])); t=[t for t in d["tests"] if ".verdict" in t["id"]][0]; m=t["misc"]; print(t["path"], m["effect_of"], m["verdict"], m["units"], "%.9g %.9g %.9g" % (m["effect"], m["ci_lo"], m["ci_hi"]))')" \
	"$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["effects"][0]; print("wakebench.pipe.ab.verdict." + e["what"], e["what"], e["verdict"], e["units"], "%.9g %.9g %.9g" % (e["estimate"], e["ci_lo"], e["ci_hi"]))' "$TMP/ab.json")" \
	"verdict: effect, CI and verdict as ab gave them"
like "$(py 'import json,sys; d=json.load(open(sys.argv[1])); t=[t for t in d["tests"] if ".verdict" in t["id"]][0]; print(t["status"], t["misc"]["verdict"])')" \
	"^(FAIL regression|PASS (improvement|no-change|inconclusive))$" "verdict: FAIL only for a regression"

# environment.misc is the fingerprint; ids are under the origin and stable
is "$(py 'import json,sys; d=json.load(open(sys.argv[1])); print(d["tests"][0]["environment"]["misc"]["kernel.release"])')" \
	"$(uname -r)" "environment.misc holds the fingerprint"
is "$(py 'import json,sys; d=json.load(open(sys.argv[1])); print(sorted({o["id"].split(":")[0] for k in ("checkouts","builds","tests") for o in d[k]}))')" \
	"['wb_test']" "every id is under --origin"
wb export --db "$db" --format kcidb --origin wb_test >"$TMP/k2.json"
ok "cmp '$TMP/k.json' '$TMP/k2.json'" "a second export gives the same document (stable ids)"
uuid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["experiment"]["uuid"])' "$TMP/run.json")
run_cmd wb export --db "$db" --format kcidb --origin wb_test --experiment "$uuid"
is "$(printf '%s' "$OUT" | jq -r '[.tests[].path] | join(" ")')" "wakebench.pipe.run.default" "--experiment selects"

# the validator is alive: a lower-case status, a DONE without number, a stray field
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["tests"][0]["status"]="done"; del d["tests"][1]["number"]; d["builds"][0]["arch"]="x"; json.dump(d, open(sys.argv[2], "w"))' "$TMP/k.json" "$TMP/bad.json"
run_cmd validate "$TMP/bad.json"
is "$RC" 1 "the schema check refuses a broken document"
like "$OUT" "tests/0/status: 'done' is not one of" "  names the bad status"
like "$OUT" "DONE without a number" "  names the DONE without a number"
like "$OUT" "'arch' was unexpected" "  names the stray field"

# A regression is FAIL, every effect of a 2x2 factorial gets a test: a
# crafted export (arm order 00 10 11 01, the first token halves ops/s, the
# second changes nothing) imported into a store of its own.
python3 - "$WAKEBENCH" "$db" "$TMP/fact.json" <<'PY'
import json, subprocess, sys
exp = json.loads(subprocess.check_output([sys.argv[1], "export", "--db", sys.argv[2]]))["experiments"]
e = [x for x in exp if x["kind"] == "run"][0]
tmpl = [s for s in e["samples"] if not s["warmup"]][0]
e["uuid"] = "00000000-0000-4000-8000-00000000f4c7"
e["kind"] = "ab"
e["params"]["feature"] = ["NO_DELAY_DEQUEUE", "NO_PLACE_LAG"]
e["params"]["margin"] = 0.02
e["params"]["samples"] = 24 # a fixed length of 24 blocks: one look at the factorial's level
names = ["DELAY_DEQUEUE=on,PLACE_LAG=on", "DELAY_DEQUEUE=off,PLACE_LAG=on",
         "DELAY_DEQUEUE=on,PLACE_LAG=off", "DELAY_DEQUEUE=off,PLACE_LAG=off"]
e["configs"] = [{"name": n, "features": None} for n in names]
samples, idx = [], 0
for u in range(24):
    for arm in (0, 1, 3, 2):
        s = dict(tmpl)
        s["index"] = idx; idx += 1
        s["config"] = names[arm]
        noise = 1 + 0.001 * ((u * 7 + arm * 3) % 5 - 2)
        s["ops_per_s"] = 1e6 * (0.5 if arm & 1 else 1.0) * noise
        samples.append(s)
e["samples"] = samples
json.dump({"format": "wakebench-export", "version": 2, "schema": json.loads(subprocess.check_output([sys.argv[1], "export", "--db", sys.argv[2]]))["schema"], "experiments": [e]}, open(sys.argv[3], "w"))
PY
is "$?" 0 "crafted a 2x2 ab export"
run_cmd wb import --db "$TMP/fact.db" "$TMP/fact.json"
is "$RC" 0 "  imported"
run_cmd wb export --db "$TMP/fact.db" --format kcidb --origin wb_test
printf '%s\n' "$OUT" >"$TMP/k.json"
run_cmd validate "$TMP/k.json"
is "$RC:$OUT" "0:" "the factorial's document validates"
is "$(py 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(t["misc"]["effect_of"] + ":" + t["status"] + ":" + t["misc"]["verdict"] for t in d["tests"] if ".verdict" in t["id"]))')" \
	"NO_DELAY_DEQUEUE:FAIL:regression NO_PLACE_LAG:PASS:no-change interaction:PASS:no-change" \
	"a regression is FAIL; no change is PASS; main effects and the interaction"
is "$(py 'import json,sys; d=json.load(open(sys.argv[1])); t=[t for t in d["tests"] if ".verdict" in t["id"]][0]; m=t["misc"]; print("%.3f" % m["effect"], m["ci_lo"] <= m["effect"] <= m["ci_hi"] < -0.02, m["confidence"] > 0.95, m["margin"], m["units"])')" \
	"-0.500 True True 0.02 24" "the effect, its CI (at the factorial's stricter level) and the units are in misc"

# the golden file (tests/fixtures/kcidb/golden-synth.json): a store
# synthesised through the store API, UUIDs and times normalised
SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
if [ -x "$SYNTH" ]; then
	"$SYNTH" --synth "$TMP/g.db" 2 3 6.6.78 base hostA 2487746 &&
		"$SYNTH" --synth "$TMP/g.db" 1 3 6.12.75 base hostA 1651427 kernel.preempt=full
	wb export --db "$TMP/g.db" --format kcidb --origin golden |
		python3 "$FIXTURES/kcidb/normalize.py" >"$TMP/g.json"
	ok "diff -u '$FIXTURES/kcidb/golden-synth.json' '$TMP/g.json'" "the document matches the golden file"
	wb export --db "$TMP/g.db" --format lava-cases >"$TMP/g.txt"
	ok "diff -u '$FIXTURES/kcidb/golden-synth-lava-cases.txt' '$TMP/g.txt'" "lava-cases matches its golden file"
else
	skip "test helper $SYNTH not built"
	skip "test helper $SYNTH not built"
fi

# --origin is required and checked
run_cmd wb export --db "$db" --format kcidb
is "$RC" 2 "no --origin: exit 2"
like "$ERR" "option '--origin': missing: --format kcidb needs your KCIDB origin" "  names the option"
run_cmd wb export --db "$db" --format kcidb --origin Lab-1
is "$RC" 2 "a bad --origin: exit 2"
like "$ERR" "option '--origin': 'Lab-1'.*lower-case letters, digits and '_'" "  names the value and what is allowed"
done_testing
