#!/bin/sh
# report of a workload whose primary metric is lower-is-better (seconds per
# run, ns per hop, a latency percentile): axes are not reversed (more is up,
# and to the right in the forest plot: the faster group's box is drawn below
# the slower one's), labelled "lower is better", and judged as compare
# judges it. Crafted as t3021 does; runs as soon as this build has a
# workload with a lower-is-better primary.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
command -v xmllint >/dev/null || skip_all "xmllint not installed (Debian: libxml2-utils)"
W=$(wb list --format json | jq -r '[.workloads[] | select(.better == "lower")][0].name // empty')
[ -n "$W" ] || skip_all "no workload with a lower-is-better primary metric in this build"
P=$(wb list --format json | jq -r --arg w "$W" '.workloads[] | select(.name == $w) | .primary')

A="$TMP/a.db"
for l in base faster slower; do "$SYNTH" --synth "$A" 4 3 6.6.78 "$l" hostA 2000000 >/dev/null; done
wb export --db "$A" | jq --arg w "$W" --arg p "$P" '
	.experiments |= [to_entries[] | .key as $k | .value
		| (if .label == "faster" then 0.9 elif .label == "slower" then 1.1 else 1 end) as $f
		| .workload = $w
		| .metrics += [{ "name": $p, "better": "lower", "evidence": false }]
		| .samples |= [to_entries[] | .key as $j | .value
			| .metrics[$p] = 100 * $f * (1 + 0.02 * (($k % 4) - 1.5)) * (1 + 0.001 * $j)]]
' >"$TMP/crafted.json"
wb import "$TMP/crafted.json" >/dev/null
run_cmd wb report --by label --baseline base -o "$TMP/r.html"
is "$RC" 0 "report exits 0"
ok "xmllint --noout '$TMP/r.html'" "it parses"
html=$(cat "$TMP/r.html")
like "$html" ", lower is better</text>" "the axis says lower is better"
like "$html" "change of [^<]* \\(lower is better; shaded" "and so does the forest plot's"
unlike "$html" "reversed|drawn upwards" "no axis is reversed"
for g in faster slower; do
	v=$(wb compare --by label --baseline base --format json | jq -r --arg g "$g" '.groups[] | select(.value == $g) | .verdict_text')
	like "$(printf '%s\n' "$html" | grep "<td class=\"nm\">$g</td>")" "$v" "$g: compare's verdict ($v)"
done
# the median line of each box, top to bottom: the fastest (lowest) highest up
meds=$(sed -n '/<section id="distribution">/,/<\/section>/p' "$TMP/r.html" |
	awk '/<g class="grp/ { match($0, /<title>[^:]*/); g = substr($0, RSTART + 7, RLENGTH - 7) }
	     /class="med"/ { match($0, /y1="[0-9.]+"/); print substr($0, RSTART + 4, RLENGTH - 5), g }' |
	sort -n | awk '{ print $2 }' | tr '\n' ' ')
is "$meds" "slower base faster " "lower values drawn lower: slower above base above faster"
run_cmd wb report --by label --baseline base --format email
like "$OUT" "lower is better" "the mail says which way is better"
done_testing
