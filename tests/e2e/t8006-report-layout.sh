#!/bin/sh
# report's layout, checked without looking at pixels: the median's CI is a
# narrow bar inside each box (never a second, wider box), the run-order
# legend is an HTML list (it wraps, it cannot overlap), a change interval
# past +100% gets a log-ratio axis labelled in %, a counter that is 0
# everywhere is said in one line instead of an axis of +-1e-12, a reason
# without an interval is said once per caption, a long group label is
# clamped with its whole text in a tooltip; and in headless Chromium at a
# 1280-pixel window nothing is wider than the window and every verdict
# badge is inside it (a script in a copy of the page measures it; the
# report itself has none).
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v jq >/dev/null || skip_all "jq not installed"
command -v xmllint >/dev/null || skip_all "xmllint not installed (Debian: libxml2-utils)"

# four experiments per label; "wide" alternates x0.3 and x3 between its
# experiments (an interval far past +100%), "steady" is 10% slower;
# migrations are 0 everywhere, the run-queue wait is 0 in half the samples
# of the two compared groups (no interval: the same reason for both)
A="$TMP/a.db"
LONG="a-very-long-label-$(printf 'x%.0s' $(seq 1 250))-end"
for l in base wide steady; do
	for k in 1 2 3 4; do "$SYNTH" --synth "$A" 1 6 6.6.78 "$l" hostA 2000000 >/dev/null; done
done
wb export --db "$A" | jq '
	.experiments |= [to_entries[] | .key as $k | .value
		| (if .label == "wide" then (if $k % 2 == 0 then 0.3 else 3 end)
		   elif .label == "steady" then 0.9 else 1 end) as $f
		| .samples |= [to_entries[] | .key as $j | .value
			| .ops_per_s = .ops_per_s * $f
			| .metrics.migrations_per_kop = 0]]
	| .experiments |= [.[] | . as $e | .samples |= [.[]
		| (if $e.label != "base" and (.index % 2 == 0) then .metrics.run_delay_ns_per_op = 0
		   else . end)]]
' >"$TMP/crafted.json"
wb import "$TMP/crafted.json" >/dev/null
run_cmd wb report --by label --baseline base -o "$TMP/r.html"
is "$RC" 0 "report exits 0"
ok "xmllint --noout '$TMP/r.html'" "it parses"
html=$(cat "$TMP/r.html")

# the box plot: one CI bar per group, narrower than its box
boxes=$(sed -n '/<section id="distribution">/,/<\/section>/p' "$TMP/r.html")
is "$(printf '%s\n' "$boxes" | grep -c 'class="ci"')" 3 "one CI bar per group"
widths() { grep "class=\"$1\"" | sed 's/.*width="\([0-9.]*\)".*/\1/'; }
ciw=$(printf '%s\n' "$boxes" | widths ci | sort -un | tr '\n' ' ')
boxw=$(printf '%s\n' "$boxes" | widths box | sort -un | head -n 1)
is "$ciw" "6.0 " "the CI bars are 6 pixels wide"
ok "awk 'BEGIN { exit !($boxw > 30) }'" "narrower than the boxes ($boxw pixels)"
# lower and higher: more is up, no axis reversed
unlike "$html" "reversed|drawn upwards" "no reversed axis"

# the legend is HTML under the run-order plot, not text drawn in it
order=$(sed -n '/<section id="run-order">/,/<\/section>/p' "$TMP/r.html")
like "$(printf '%s' "$order" | tr -d '\n')" "</svg><ul class=\"legend\"><li title=\"base\"><span class=\"sw g0\"></span>base</li>" \
	"the run order's legend is a list after the plot"
is "$(printf '%s\n' "$order" | sed -n '/<svg/,/<\/svg>/p' | grep -c '>base</text>')" 0 \
	"and no legend text inside the SVG"

# the forest plot: a log-ratio axis, ticks in %
forest=$(sed -n '/<section id="changes">/,/<\/section>/p' "$TMP/r.html")
like "$forest" "; log-ratio axis</text>" "a wide interval gets a log-ratio axis"
like "$forest" ">0%</text>" "  with 0% on it"
like "$forest" ">\\+900%</text>|>\\+100%</text>" "  and increases in %"
like "$forest" ">-90%</text>|>-50%</text>" "  and decreases in %"
# every drawn interval end lies inside the plot (the axis spans it)
ends=$(printf '%s\n' "$forest" | grep 'class="est"' | sed 's/.*x1="\([0-9.]*\)".*x2="\([0-9.]*\)".*/\1 \2/')
is "$(printf '%s\n' "$ends" | awk '$1 < 220 || $2 > 790 { n++ } END { print n + 0 }')" 0 \
	"every interval is inside the plot area"
# a narrow change alone keeps a linear axis
run_cmd wb report --by label --baseline base --label base --label steady
unlike "$(printf '%s' "$OUT" | sed -n '/<section id="changes">/,/<\/section>/p')" "log-ratio" \
	"a narrow interval keeps a linear axis"

# evidence: all-zero migrations in one line, not plotted; the shared reason once
like "$html" "All values 0 in every group \\(not plotted\\): migrations/1000 ops\\." "an all-zero counter is said"
unlike "$html" "<title>migrations/1000 ops</title>" "  and not plotted"
unlike "$html" "e-1[0-9]<|1e-12" "no axis of +-1e-12"
cap=$(printf '%s' "$html" | tr -d '\n' | sed 's/.*<title>run-queue wait\/op<\/title>//; s/<\/figcaption>.*//')
like "$cap" "wide, steady: values must be positive" "the groups without an interval share one reason"
is "$(printf '%s' "$cap" | grep -o 'values must be positive' | wc -l | tr -d ' ')" 1 "  said once"

# a long label: clamped, whole in its tooltip
S() { db=$1; shift; "$SYNTH" --synth "$db" "$@" >/dev/null; }
S "$TMP/long.db" 2 8 6.6.78 base host 2400000
S "$TMP/long.db" 2 8 6.6.78 "$LONG" host 2000000
run_cmd wb report --db "$TMP/long.db" --by label --baseline base -o "$TMP/long.html"
like "$(cat "$TMP/long.html")" "<td><span class=\"lbl\" title=\"$LONG\">$LONG</span></td>" \
	"a long label is clamped, with its whole text as a tooltip"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	skip "chromium not installed (Debian: apt-get install chromium)"
	done_testing
	exit
fi
# a copy with a script that writes what it measures into the DOM
measure() {
	sed 's|</body>|<script>var W = window.innerWidth, o = 0;document.querySelectorAll(".badge").forEach(function (e) { if (e.getBoundingClientRect().right > W) o++; });document.body.setAttribute("data-scroll-width", document.documentElement.scrollWidth);document.body.setAttribute("data-badges", document.querySelectorAll(".badge").length);document.body.setAttribute("data-badges-out", o);</script></body>|' "$1" >"$TMP/m.html"
	timeout 300 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
		--user-data-dir="$TMP/chromium" --window-size=1280,2000 --dump-dom "file://$TMP/m.html" 2>/dev/null |
		grep -o 'data-[a-z-]*="[0-9]*"' | tr '\n' ' '
}
S "$TMP/ab.db" 1 12 6.18 r host 1700000 kernel.preempt=voluntary ab=DELAY_DEQUEUE
wb report --db "$TMP/ab.db" -o "$TMP/ab.html" 2>/dev/null
for f in r long ab; do
	m=$(measure "$TMP/$f.html")
	diag "$f: $m"
	w=$(printf '%s' "$m" | sed -n 's/.*data-scroll-width="\([0-9]*\)".*/\1/p')
	ok "[ -n '$w' ] && [ '$w' -le 1280 ]" "$f: the page fits a 1280-pixel window (scroll width $w)"
	like "$m" 'data-badges="[1-9][0-9]*"' "$f: it has verdict badges"
	like "$m" 'data-badges-out="0"' "$f: every badge is inside the window"
done
# the check can fail: a page wider than the window is found
sed 's|<body>|<body><div style="width:1500px">wide</div>|' "$TMP/r.html" >"$TMP/wide.html"
m=$(measure "$TMP/wide.html")
w=$(printf '%s' "$m" | sed -n 's/.*data-scroll-width="\([0-9]*\)".*/\1/p')
ok "[ -n '$w' ] && [ '$w' -gt 1280 ]" "a planted 1500-pixel element is measured ($w)"
done_testing
