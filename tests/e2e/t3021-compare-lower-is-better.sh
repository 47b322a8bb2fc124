#!/bin/sh
# A workload whose primary metric is lower-is-better (seconds per run, ns per
# hop, a latency percentile), end to end through a store: a crafted export of
# such a workload's experiments is imported, and compare, export and show
# judge and name it the right way round: B 10% lower is an improvement, 10%
# higher a regression. The workload comes from 'wakebench list' (the first
# with a lower-is-better primary), so the test runs as soon as one exists.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
W=$(wb list --format json | jq -r '[.workloads[] | select(.better == "lower")][0].name // empty')
[ -n "$W" ] || skip_all "no workload with a lower-is-better primary metric in this build"
P=$(wb list --format json | jq -r --arg w "$W" '.workloads[] | select(.name == $w) | .primary')
LABEL=$(wb list --metrics --format json | jq -r --arg p "$P" '.metrics[] | select(.name == $p) | .label')

# four experiments (boots) of three samples per label, in a store written by
# the store API, then exported and rewritten as experiments of $W whose
# samples carry $P: "faster" 10% below "base", "slower" 10% above
A="$TMP/a.db"
for l in base faster slower; do "$SYNTH" --synth "$A" 4 3 6.6.78 "$l" hostA 2000000 >/dev/null; done
is "$?" 0 "synthesised a store through the store API"
wb export --db "$A" | jq --arg w "$W" --arg p "$P" '
	.experiments |= [to_entries[] | .key as $k | .value
		| (if .label == "faster" then 0.9 elif .label == "slower" then 1.1 else 1 end) as $f
		| .workload = $w
		| .metrics += [{ "name": $p, "better": "lower", "evidence": false }]
		| .samples |= [to_entries[] | .key as $j | .value
			| .metrics[$p] = 100 * $f * (1 + 0.02 * (($k % 4) - 1.5)) * (1 + 0.001 * $j)]]
' >"$TMP/crafted.json"
run_cmd wb import --db "$TMP/b.db" "$TMP/crafted.json"
is "$RC" 0 "import of the crafted export"
like "$OUT" "12 experiments added" "every experiment imported"

run_cmd wb compare --db "$TMP/b.db" --by label --baseline base --format json
is "$RC" 0 "compare exits 0"
is "$(printf '%s' "$OUT" | jq -r '"\(.workload) \(.metric) \(.better)"')" "$W $P lower" \
	"compare names the primary metric and its direction"
is "$(printf '%s' "$OUT" | jq -r '.groups[] | select(.value == "faster") | .verdict')" improvement \
	"10% lower on a lower-is-better metric: improvement"
is "$(printf '%s' "$OUT" | jq -r '.groups[] | select(.value == "slower") | .verdict')" regression \
	"10% higher on a lower-is-better metric: regression"
is "$(printf '%s' "$OUT" | jq -r '.groups[] | select(.value == "faster") | .effect.estimate < -0.05')" true \
	"the change is the metric's own: negative when B is lower"
run_cmd wb compare --db "$TMP/b.db" --by label --baseline base
like "$OUT" "^$W $LABEL by label \(lower is better\):" "the text says which way is better"
like "$OUT" "^faster .* improvement" "text: faster is an improvement"
like "$OUT" "^slower .* regression" "text: slower is a regression"
run_cmd wb compare --db "$TMP/b.db" --by label --baseline base --fail-on-regression
is "$RC" 3 "--fail-on-regression: the higher group is the regression"
run_cmd wb compare --db "$TMP/b.db" --by label --baseline slower --fail-on-regression
is "$RC" 0 "against the slower baseline nothing regressed"

run_cmd wb export --db "$TMP/b.db" --format csv
is "$(printf '%s\n' "$OUT" | awk -F, 'NR == 2 { print $26, $27 }')" "$P lower" \
	"export CSV: the primary metric and its direction"
run_cmd wb export --db "$TMP/b.db"
is "$(printf '%s' "$OUT" | jq -r '.experiments[0].primary | "\(.name) \(.better)"')" "$P lower" \
	"export JSON: the primary metric and its direction"
run_cmd wb show --db "$TMP/b.db" 1
like "$OUT" "^  primary +$LABEL \(stored as $P; lower is better\)" "show names the primary metric as compare does, and its key"
done_testing
