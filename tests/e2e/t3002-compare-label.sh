#!/bin/sh
# Two labelled runs, then compare --by label: both groups, a verdict, the
# evidence counters; JSON and CSV forms; --fail-on-regression; bad input.
. "$(dirname "$0")/lib.sh"

RUN="run pipe -t 100ms -n 4 --warmup 0 -j 1"
run_cmd wb $RUN --label before
is "$RC" 0 "first labelled run"
run_cmd wb $RUN --label after
is "$RC" 0 "second labelled run"

run_cmd wb compare --by label
is "$RC" 0 "compare --by label exits 0"
like "$OUT" "^pipe bogo ops/s \(real time\) by label: " "the title names the workload and its primary metric as run does"
like "$OUT" "^Label +n +boots +bogo ops/s \(real time\) +95% CI of median" "table header names the key, samples, boots and the metric"
like "$OUT" "^before +4 +1 +$NUM +n too small " "the median by the one number formatter (four samples: no CI)"
like "$OUT" "^before +4 .* 100% .*baseline" "baseline row: the first label, n = 4"
like "$OUT" "^after +4 .*(regression|improvement|no change|inconclusive|insufficient)" "second row has a verdict"
like "$OUT" "Evidence per op vs. before" "evidence section"
like "$OUT" "^    ctxsw/op +$NUM -> $NUM " "context switches per op are compared, by the summary's name"
like "$OUT" "Environment differences vs. before" "environment section"

run_cmd wb compare --by label --baseline after --format json
is "$RC" 0 "compare --format json"
is "$(printf '%s' "$OUT" | jq -r '.groups[0].title')" "after" "--baseline puts that group first"
is "$(printf '%s' "$OUT" | jq -r '.groups | length')" 2 "two groups"
is "$(printf '%s' "$OUT" | jq -r '.groups[1].n')" 4 "n of the other group"
like "$(printf '%s' "$OUT" | jq -r '.groups[1].verdict')" \
	"^(regression|improvement|no-change|inconclusive|insufficient)$" "verdict key in json"
ok "printf '%s' '$OUT' | jq -e '.groups[1].effect.valid == true and .groups[1].effect.ci_lo <= .groups[1].effect.estimate and .groups[1].effect.estimate <= .groups[1].effect.ci_hi'" \
	"change with its CI in json"
is "$(printf '%s' "$OUT" | jq -r '.groups[1].effect | keys_unsorted | .[0:9] | join(" ")')" \
	"$(cat "$FIXTURES/json/effect-keys.txt")" "json: the effect object is ab's (one vocabulary)"
is "$(printf '%s' "$OUT" | jq -r '.groups[1] | .verdict as $v | $v == .effect.verdict and (.verdict_text | startswith($v | sub("-"; " ")))')" \
	true "json: the group's verdict key is its effect's, with the text beside it"

run_cmd wb compare --by label --format csv
is "$RC" 0 "compare --format csv"
is "$(printf '%s\n' "$OUT" | head -1)" \
	"group,split,baseline,n,median,median_ci_lo,median_ci_hi,change,change_ci_lo,change_ci_hi,p,verdict,boots,unit,level,metric,better,posted" \
	"csv header"
is "$(printf '%s\n' "$OUT" | wc -l)" 3 "csv: header and one row per group"

# a regression gate: exit 3 exactly when the verdict is a regression
run_cmd wb compare --by label --format json
verdict=$(printf '%s' "$OUT" | jq -r '.groups[1].verdict')
run_cmd wb compare --by label --fail-on-regression
if [ "$verdict" = regression ]; then want=3; else want=0; fi
is "$RC" "$want" "--fail-on-regression exits $want for '$verdict'"

# bad input names what exists
run_cmd wb compare --by label --label nope
is "$RC" 2 "unknown --label exits 2"
like "$ERR" "option '--label': no stored experiment has 'nope', stored after\\|before" "names the labels that exist"
run_cmd wb compare --workload nosuch
is "$RC" 2 "unknown --workload exits 2"
like "$ERR" "stored pipe" "names the workloads that exist"
run_cmd wb compare --by label --baseline nope
is "$RC" 2 "unknown --baseline exits 2"
like "$ERR" "option '--baseline': no group 'nope'.*groups before\\|after" "names the groups"
run_cmd wb compare --by colour
is "$RC" 2 "unknown --by exits 2"
like "$ERR" "allowed kernel\\|label\\|profile\\|host\\|feature:NAME" "names the keys"
run_cmd wb compare --since yesterday
is "$RC" 2 "bad --since exits 2"
run_cmd wb compare --since 1h --by label
is "$RC" 0 "--since 1h keeps the fresh runs"
done_testing
