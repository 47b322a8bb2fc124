#!/bin/sh
# compare with posted results beside measured ones: experiments of kind
# "external" (another tool's output brought in by `wakebench import`, here a
# hand-written export of such experiments) are marked with their provenance
# ("stress-ng 0.21.00, 1 run, not measured here"), never pooled with measured
# results unasked, and judged by the same statistics as any group, except
# that their runs are one unit (where they ran is not known: never boots as
# units) and one posted run gives no verdict, with the reason. The
# environment diff uses only the keys the posted text gave and calls the
# rest unknown, not different.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed"
command -v jq >/dev/null || skip_all "jq is not installed"
S() { "$SYNTH" --synth "$@" >/dev/null; }
POSTED() { sh "$(dirname "$0")/posted-export.sh" "$@"; }

# Measured here: 4 experiments in 4 boots, label "here" on 6.6 (1.5% apart).
for ops in 2000000 2050000 1980000 2020000; do
	S "$WAKEBENCH_DB" 1 8 6.6 here host $ops kernel.preempt=full "mem.page_size=4 KiB:2" \
		workload.name=pipe workload.profile=stress-ng-0.15
done
sqlite3 "$WAKEBENCH_DB" "UPDATE experiments SET owner_boot_id = 'boot-' || id"
# Posted: one run of stress-ng 0.21.00 on 6.6, 6% slower; five runs in one
# paste on 6.12, 30% slower; five pastes of one run each, 30% slower.
POSTED 1 posted-1 6.6 0.21.00 1 1 1900000 >"$TMP/p1.json"
POSTED 2 posted-5 6.12 0.21.00 1 5 1400000 >"$TMP/p5.json"
POSTED 3 posted-5x 6.12 0.21.00 5 1 1400000 >"$TMP/p5x.json"
for f in p1 p5 p5x; do
	run_cmd wb import "$TMP/$f.json"
	is "$RC" 0 "import of the posted results $f"
done

run_cmd wb compare --by label --baseline here
is "$RC" 0 "compare by label: measured and posted groups"
like "$OUT" "^here +32 +4 .* baseline$" "the measured baseline: 32 samples in 4 boots"
like "$OUT" "^posted-1 \\(posted\\) +1 +1 +1 890 000 +n too small +-5\\.9% +no interval +no verdict: this group is one posted run \\(stress-ng 0\\.21\\.00, 1 run, not measured here\\), whose run-to-run and boot-to-boot spread are unknown; import several runs$" \
	"one posted run: marked, the medians' ratio as a point, no interval, no verdict and why"
like "$OUT" "^posted-5 \\(posted\\) +5 +1 .* -30\\.[0-9]% +\\[-3[0-9]\\.[0-9]%, -2[0-9]\\.[0-9]%\\] .* regression beyond the 2% margin$" \
	"five posted runs against four boots: the ordinary verdict"
like "$OUT" "^posted-5x \\(posted\\) +5 +1 " "five pastes of one run each are one unit, not five boots"
unlike "$OUT" "^here \\(posted\\)" "the measured group is not marked"
like "$OUT" "^Posted results \\(imported from another tool's output, not measured here\\):$" "a section of posted results"
like "$OUT" "^  posted-1: stress-ng 0\\.21\\.00, 1 run, not measured here$" "its note"
like "$OUT" "^    command stress-ng --pipe 4 --timeout 20s --metrics-brief$" "the posted command"
like "$OUT" "^    from    paste\\.txt lines 3-9, stress-ng-metrics-brief$" "where the text came from, in which format"
like "$OUT" "^    profile stress-ng-0\\.15$" "the profile that reproduces it"
like "$OUT" "^  posted-5: the posted runs \\(stress-ng 0\\.21\\.00, 5 runs, not measured here\\) count as one boot, since where they ran is not known: 1 boot vs 4: t on each boot's median" \
	"the inference: posted runs are one unit against the measured boots"
like "$OUT" "^    weak +mem\\.page_size +4 KiB -> 16 KiB$" "a key the posted text gave that differs"
like "$OUT" "^    unknown  kernel\\.preempt, host\\.name$" "keys the posted text lacks: unknown"
unlike "$OUT" "^    [a-z]+ +kernel\\.preempt " "... not listed as differences"
unlike "$OUT" "external\\.(tool|version)  " "the provenance keys are not environment differences"
unlike "$OUT" "workload\\.profile" "the posted result's profile is known (the experiment's): no difference"

run_cmd wb compare --by label --baseline here --format json
is "$RC" 0 "compare --format json"
J() { printf '%s' "$OUT" | jq -r "$1"; }
is "$(J '.groups[] | select(.value == "here") | .external')" "null" "json: a measured group has no external"
is "$(J '.groups[] | select(.value == "posted-1") | "\(.external.tool) \(.external.version) \(.external.runs) \(.external.profile) \(.external.source)"')" \
	"stress-ng 0.21.00 1 stress-ng-0.15 paste.txt lines 3-9" "json: the provenance"
is "$(J '.groups[] | select(.value == "posted-1") | .external.note')" \
	"stress-ng 0.21.00, 1 run, not measured here" "json: the note"
is "$(J '.groups[] | select(.value == "posted-1") | "\(.verdict) \(.effect.valid) \(.inference.decidable) \(.median_change * 1000 | round)"')" \
	"insufficient false false -59" "json: one run, no verdict, the medians' change"
like "$(J '.groups[] | select(.value == "posted-1") | .verdict_text')" "^no verdict: this group is one posted run" "json: why"
is "$(J '.groups[] | select(.value == "posted-1") | [.env_unknown[].key] | join(",")')" "kernel.preempt,host.name" \
	"json: the keys the posted text lacks"
is "$(J '.groups[] | select(.value == "posted-1") | [.env_diff[].key] | join(",")')" "mem.page_size" \
	"json: the differences are in keys both know"
is "$(J '.groups[] | select(.value == "posted-5") | "\(.verdict) \(.boots) \(.inference.unit) \(.inference.level) \(.inference.units) \(.inference.baseline_units)"')" \
	"regression 1 boot boots 1 4" "json: five posted runs, one unit, against 4 boots"
is "$(J '.groups[] | select(.value == "posted-5x") | "\(.boots) \(.external.runs) \(.external.experiments | length) \(.verdict)"')" \
	"1 5 5 regression" "json: five posted experiments without boot ids are one unit"

run_cmd wb compare --by label --baseline here --format csv
is "$(printf '%s\n' "$OUT" | head -1 | awk -F, '{ print $NF }')" "posted" "csv: a posted column"
is "$(printf '%s\n' "$OUT" | grep '^posted-1,' | cut -d, -f12,18-)" \
	'insufficient samples,"stress-ng 0.21.00, 1 run, not measured here"' "csv: the posted row, its verdict and note"
is "$(printf '%s\n' "$OUT" | grep '^here,' | awk -F, '{ print "[" $NF "]" }')" "[]" "csv: a measured row has no note"

run_cmd wb compare --by label --baseline posted-1
is "$RC" 0 "a posted run as the baseline"
like "$OUT" "^here +32 +4 .* no verdict: the baseline is one posted run \\(stress-ng 0\\.21\\.00, 1 run, not measured here\\)" \
	"against one posted run nothing is decided"
like "$OUT" "^    unknown  kernel\\.preempt, host\\.name$" "the baseline's unknown keys"
like "$OUT" "\\(not in the baseline's posted text" "... said to be the baseline's"

# By kernel: 6.6 holds measured and posted results: split, the measured baseline.
run_cmd wb compare
is "$RC" 0 "compare by kernel"
like "$ERR" "6\\.6 is split into sub-groups by source" "the warning says why 6.6 is split"
like "$OUT" "^6\\.6 \\[source=measured\\] +32 +4 .* baseline$" "the measured part of 6.6 is the baseline"
like "$OUT" "^6\\.6 \\[source=posted stress-ng 0\\.21\\.00\\] +1 +1 .*no verdict: this group is one posted run" \
	"the posted part of 6.6 has no verdict"
like "$OUT" "^6\\.12 \\(posted\\) +10 +1 .* regression beyond the 2% margin$" \
	"6.12's ten posted runs (two pastes' worth): one unit, the ordinary verdict"
run_cmd wb compare --pool
like "$ERR" "pooling the experiments of 6\\.6 although they differ in strong keys \\(source\\)" "--pool pools them, with a warning"
run_cmd wb compare --pool --format json
is "$(J '.groups[] | select(.value == "6.6") | "\(.external.pooled) \(.external.runs) \(.n)"')" "true 1 33" \
	"pooled: the posted part is counted and said to be pooled"

# Five posted runs against a measured group of one boot: one unit each, undecided.
S "$TMP/one.db" 1 8 6.6 here host 2000000
run_cmd wb import --db "$TMP/one.db" "$TMP/p5.json"
run_cmd wb compare --db "$TMP/one.db" --by label --baseline here
like "$OUT" "^posted-5 \\(posted\\) +5 +1 .* - +inconclusive at a 2% margin \\(one boot per group: boot-to-boot variation unknown\\)$" \
	"one boot against one posted unit: inconclusive, as for any two boots"
# Stored text of a posted result (its tool, its version) is quoted escaped.
POSTED 8 evil 6.6 '0.21\\n<b>' 1 1 1900000 |
	sed 's/"external.tool","value":"stress-ng"/"external.tool","value":"stress\\u001b[31m"/' >"$TMP/evil.json"
run_cmd wb import --db "$TMP/one.db" "$TMP/evil.json"
is "$RC" 0 "import of a posted result whose tool holds an escape and whose version a newline"
run_cmd wb compare --db "$TMP/one.db" --by label --baseline here
is "$RC" 0 "compare with it"
is "$(printf '%s' "$OUT" | tr -d '\n' | LC_ALL=C grep -c "$(printf '\033')")" 0 "no escape character reaches the terminal"
like "$OUT" "^evil \\(posted\\) .*no verdict: this group is one posted run \\(stress\\\\x1b\\[31m 0\\.21" \
	"the verdict quotes the tool escaped"
done_testing
