#!/bin/sh
# One experiment, one verdict: a stored ab experiment's effect, CI, p and
# verdict are the same in ab's text and JSON, show (text and JSON), compare
# (text and JSON), report (email, Markdown, HTML) and export (JSON, KCIDB,
# LAVA cases), its evidence lines and each pair (report's per-pair plot) too;
# and a compare of several boots gives
# the same change, CI, p and verdict in compare's text and JSON and in every
# report format. The stand-in's DELAY_DEQUEUE burns CPU, so the effect is real.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

command -v jq >/dev/null || skip_all "jq is not installed"
command -v python3 >/dev/null || skip_all "python3 is not installed"
SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"

fakefs_start dbg --burn=DELAY_DEQUEUE --burn-percent=30
AB="ab --feature NO_DELAY_DEQUEUE pipe -j 1 --placement same-cpu -t 50ms -n 10 --debugfs $TMP/dbg"

# shellcheck disable=SC2086
run_cmd wb $AB --db "$TMP/t.db"
is "$RC" 0 "ab (text) exits 0"
printf '%s\n' "$OUT" >"$TMP/ab.txt"
# shellcheck disable=SC2086
run_cmd wb $AB --db "$TMP/j.db" --format json
is "$RC" 0 "ab (JSON) exits 0"
printf '%s\n' "$OUT" >"$TMP/ab.json"

# ab's text and show's: the same lines, from the evidence to the verdicts, the last lines of both
block() { sed -n '/^evidence per op \|^effects on /,$p'; }
wb show --db "$TMP/t.db" 1 >"$TMP/show.txt"
block <"$TMP/ab.txt" >"$TMP/ab.block"
block <"$TMP/show.txt" >"$TMP/show.block"
ok "[ \$(wc -l <'$TMP/ab.block') -ge 5 ]" "ab's text has its effects block"
ok "tail -n 1 '$TMP/ab.block' | grep -q '^NO_DELAY_DEQUEUE: bogo ops/s (real time) .* CI .*, '" "  ending with the verdict line"
ok "diff -u '$TMP/ab.block' '$TMP/show.block'" "show prints ab's effects, verdict and evidence lines as ab did"

# the JSON outputs against ab --format json, member by member
wb show --db "$TMP/j.db" 1 --format json >"$TMP/show.json"
wb export --db "$TMP/j.db" --format json >"$TMP/export.json"
wb export --db "$TMP/j.db" --format kcidb --origin t >"$TMP/kcidb.json"
wb export --db "$TMP/j.db" --format lava-cases >"$TMP/cases.txt"
wb compare --db "$TMP/j.db" --by feature:DELAY_DEQUEUE --format json >"$TMP/compare.json"
wb compare --db "$TMP/j.db" --by feature:DELAY_DEQUEUE >"$TMP/compare.txt"
for f in email markdown html; do
	wb report --db "$TMP/j.db" 1 --format $f --no-data -o "$TMP/report.$f" 2>/dev/null
done
wb report --db "$TMP/j.db" 1 -o "$TMP/report.data.html" 2>/dev/null

check() { python3 "$TMP/check.py" "$@"; }
cat >"$TMP/check.py" <<'PY'
import json, sys

def load(p): return json.load(open(p))
def text(p): return open(p).read()
def pct(x): return "%+.1f%%" % (x * 100)
def pval(p): return "<0.0001" if p < 0.0001 else "%.4f" % p
def same(what, got, want):
    if got != want:
        print("%s: got %.200r, want %.200r" % (what, got, want)); sys.exit(1)

kind = sys.argv[1]
d = sys.argv[2]
if kind == "ab":
    ab = load(d + "/ab.json")
    res = {k: ab[k] for k in ("effects", "sequential", "evidence", "evidence_adjustment")}
    eff = ab["effects"][0]
    same("show --format json result", load(d + "/show.json")["experiments"][0]["result"], res)
    same("export --format json result", load(d + "/export.json")["experiments"][0]["result"], res)
    t = [t for t in load(d + "/kcidb.json")["tests"] if ".verdict" in t["id"]]
    same("kcidb verdict tests", len(t), 1)
    m = t[0]["misc"]
    same("kcidb effect, CI, p, confidence, verdict",
         (m["effect"], m["ci_lo"], m["ci_hi"], m["p"], m["confidence"], m["verdict"]),
         (eff["estimate"], eff["ci_lo"], eff["ci_hi"], eff["p"], eff["conf"], eff["verdict"]))
    same("kcidb comment", t[0]["comment"], eff["verdict_text"])
    status = {"regression": "fail", "insufficient": "skip"}.get(eff["verdict"], "pass")
    same("lava case", [l for l in text(d + "/cases.txt").splitlines() if ".verdict." in l],
         ["pipe.ab.verdict.NO_DELAY_DEQUEUE " + status])
    g = load(d + "/compare.json")["groups"][1]
    same("compare group", g["value"], "NO_DELAY_DEQUEUE")
    same("compare effect", (g["effect"]["estimate"], g["effect"]["ci_lo"], g["effect"]["ci_hi"],
         g["effect"]["p"], g["verdict"], g["verdict_text"]),
         (eff["estimate"], eff["ci_lo"], eff["ci_hi"], eff["p"], eff["verdict"], eff["verdict_text"]))
    lines = {e["metric"]: e for e in ab["evidence"] if e["what"] == "NO_DELAY_DEQUEUE"}
    same("compare evidence metrics", sorted(e["name"] for e in g["evidence"]), sorted(lines))
    for e in g["evidence"]:
        w = lines[e["name"]]
        same("compare evidence " + e["name"], (e["effect"]["estimate"], e["effect"]["ci_lo"],
             e["effect"]["ci_hi"], e["effect"]["p"], e["effect"].get("p_adjusted")),
             (w["estimate"], w["ci_lo"], w["ci_hi"], w["p"], w.get("p_adjusted")))
    # the per-pair plot's data: each complete pair's B/A - 1, in run order
    want = [u["B"]["ops_per_s"] / u["A"]["ops_per_s"] - 1 for u in ab["units"]
            if u.get("A") and u.get("B") and u["A"]["status"] == "ok" and u["B"]["status"] == "ok"]
    same("compare pairs", len(g["pairs"]), len(want))
    for got, w in zip(g["pairs"], want):
        if abs(got - w) > 1e-9:
            print("compare pair %r, want %r" % (got, w)); sys.exit(1)
    if 'id="pairs"' not in text(d + "/report.html") or text(d + "/report.html").count("<circle") < len(want):
        print("report html lacks the per-pair plot"); sys.exit(1)
    rows = [(g["title"], eff["estimate"], eff["ci_lo"], eff["ci_hi"], eff["p"], eff["verdict_text"])]
else:
    c = load(d + "/compare.json")
    rows = [(g["title"], g["effect"]["estimate"], g["effect"]["ci_lo"], g["effect"]["ci_hi"],
             g["effect"]["p"], g["verdict_text"]) for g in c["groups"] if not g["baseline"]]
    same("groups compared", len(rows) >= 2, True)

ct = text(d + "/compare.txt")
# the mail is wrapped at 72 columns: compare its words
em = " ".join(text(d + "/report.email").split())
md, html = text(d + "/report.markdown"), text(d + "/report.html")
for title, est, lo, hi, p, vt in rows:
    if est is None:
        print("%s: no estimate" % title); sys.exit(1)
    change, ci = pct(est), "[%s, %s]" % (pct(lo), pct(hi))
    row = [l for l in ct.splitlines() if l.startswith(title + " ")]
    same("compare text row of " + title, len(row), 1)
    for s in (change, ci, pval(p), vt):
        if s not in row[0]:
            print("compare text row %r lacks %r" % (row[0], s)); sys.exit(1)
    if (change + " " + ci) not in em or \
            ("= %s (p = %s)" % (vt, pval(p)) not in em and "= %s (p %s)" % (vt, pval(p)) not in em):
        print("report email lacks %s %s = %s (p = %s)" % (change, ci, vt, pval(p))); sys.exit(1)
    mdrow = "| %s | %s | %s | **%s** |" % (change, ci, pval(p), vt.replace("_", "\\_"))
    if mdrow not in md and mdrow.replace("**", "") not in md:
        print("report markdown lacks %r" % mdrow); sys.exit(1)
    for s in (change, ci, vt):
        if s not in html:
            print("report html lacks %r" % s); sys.exit(1)
PY

run_cmd check ab "$TMP"
is "$RC:$OUT" "0:" "ab's effect, CI, p and verdict: the same in show, export, KCIDB, LAVA cases, compare and report"
ok "grep -q 'wakebench-export' '$TMP/report.data.html'" "the HTML report embeds its data"
like "$(jq -r '.sequential.per_look_conf' "$TMP/ab.json")" "^0\\.9[0-9]*$" "ab's level is in its JSON"

# The checks can fail: a planted difference in a copy is found.
jq '.effects[0].estimate = 0.123456' "$TMP/ab.json" >"$TMP/ab.orig" &&
	cp "$TMP/ab.json" "$TMP/ab.keep" && cp "$TMP/ab.orig" "$TMP/ab.json"
run_cmd check ab "$TMP"
is "$RC" 1 "a planted estimate is caught"
like "$OUT" "got .*want" "  saying what differs"
cp "$TMP/ab.keep" "$TMP/ab.json"

# A compare of several boots: two kernels, four boots each.
B="$TMP/b"
mkdir -p "$B"
export WAKEBENCH_DB="$B/b.db"
for ops in 2000000 2170000 1850000 2080000; do "$SYNTH" --synth "$WAKEBENCH_DB" 1 8 6.1.0 boots host $ops >/dev/null; done
for ops in 1400000 1500000 1330000 1450000; do "$SYNTH" --synth "$WAKEBENCH_DB" 1 8 6.12.0 boots host $ops >/dev/null; done
for ops in 2050000 1900000 2200000 1950000; do "$SYNTH" --synth "$WAKEBENCH_DB" 1 8 7.0 boots host $ops >/dev/null; done
if command -v sqlite3 >/dev/null; then
	sqlite3 "$WAKEBENCH_DB" "UPDATE experiments SET owner_boot_id = 'boot-' || id"
fi
wb compare --format json >"$B/compare.json"
wb compare >"$B/compare.txt"
for f in email markdown html; do wb report --format $f --no-data -o "$B/report.$f" 2>/dev/null; done
run_cmd check compare "$B"
is "$RC:$OUT" "0:" "a compare of 12 boots: the same change, CI, p and verdict in compare's text and JSON and every report format"
is "$(jq -r '[.groups[] | select(.baseline | not) | .inference.unit] | unique | join(" ")' "$B/compare.json")" "boot" "  boots are the units"

done_testing
