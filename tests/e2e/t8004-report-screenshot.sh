#!/bin/sh
# report in a browser: headless Chromium (Debian's chromium) opens the HTML
# file offline, takes a screenshot, and every plot area in it holds marks
# (coloured pixels where the SVGs are), so the plots render and are not
# blank. WAKEBENCH_REPORT_SHOT=FILE keeps the screenshot.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || skip_all "chromium not installed (Debian: apt-get install chromium)"
command -v python3 >/dev/null || skip_all "python3 not installed"
S() { "$SYNTH" --synth "$WAKEBENCH_DB" "$@" >/dev/null; }

S 3 8 6.6.78 r host 2487746 kernel.preempt=voluntary
S 3 8 6.12.75 r host 1651427 kernel.preempt=voluntary
S 1 8 7.0 r host 1660000 kernel.preempt=lazy

wb report -o "$TMP/r.html" 2>/dev/null
# as root Chromium needs --no-sandbox; its profile stays in $TMP, no network
# (the report needs none: a fetch would be an external reference, t8001)
run_cmd timeout 300 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--no-first-run --user-data-dir="$TMP/chromium" --window-size=1100,2600 \
	--screenshot="$TMP/shot.png" "file://$TMP/r.html"
is "$RC" 0 "chromium took a screenshot"
ok "[ -s '$TMP/shot.png' ]" "the screenshot exists"
[ -n "${WAKEBENCH_REPORT_SHOT:-}" ] && cp "$TMP/shot.png" "$WAKEBENCH_REPORT_SHOT"
python3 "$WAKEBENCH_SRC/tests/e2e/png-regions.py" "$TMP/shot.png" >"$TMP/regions"
diag "plot areas (top bottom coloured-pixels): $(tr '\n' ';' <"$TMP/regions")"
# box plot, run order, changes, one row of evidence small multiples
is "$(wc -l <"$TMP/regions" | tr -d ' ')" 4 "four rows of plot areas on the page"
is "$(awk '$3 < 100 { n++ } END { print n + 0 }' "$TMP/regions")" 0 \
	"each holds drawn marks (at least 100 coloured pixels: a dot of radius 5 has about 80)"
# the run-order plot (second) shows all 56 samples: many coloured dots
ok "[ $(awk 'NR == 2 { print $3 }' "$TMP/regions") -gt 500 ]" "the run-order plot is full of points"

# the same page without its plots is blank there: the check can fail
sed '/<svg class="plot"/,/<\/svg>/d' "$TMP/r.html" >"$TMP/blank.html"
run_cmd timeout 300 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--no-first-run --user-data-dir="$TMP/chromium" --window-size=1100,2600 \
	--screenshot="$TMP/blank.png" "file://$TMP/blank.html"
is "$(python3 "$WAKEBENCH_SRC/tests/e2e/png-regions.py" "$TMP/blank.png" | wc -l | tr -d ' ')" 0 \
	"without the SVGs no plot area is found"
done_testing
