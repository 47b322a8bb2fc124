#!/bin/sh
# report: one self-contained HTML file. It parses as XML (xmllint), refers
# to nothing outside itself (no script, link, image, URL or font), has every
# section, one box per group and every sample as a point, and its table
# shows compare's own numbers; `ab` experiments, a lower-is-better axis, and
# bad input (exit 2 naming the option).
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v xmllint >/dev/null || skip_all "xmllint not installed (Debian: libxml2-utils)"
command -v jq >/dev/null || skip_all "jq not installed"
S() { "$SYNTH" --synth "$WAKEBENCH_DB" "$@" >/dev/null; }

S 3 8 6.6.78 r host 2487746 kernel.preempt=voluntary
S 3 8 6.12.75 r host 1651427 kernel.preempt=voluntary
S 1 8 7.0 r host 1660000 kernel.preempt=lazy

run_cmd wb report -o "$TMP/r.html"
is "$RC" 0 "report -o FILE exits 0"
is "$OUT" "" "nothing on stdout with -o"
like "$ERR" "wrote '.*r\\.html' \\([0-9]+ bytes, 56 samples\\)" "says what it wrote"
ok "xmllint --noout '$TMP/r.html'" "the HTML is well-formed XML (xmllint parses it)"
html=$(cat "$TMP/r.html")
for bad in '<script' '<link' '<img' '<iframe' '<object' '<embed' 'src=' 'href=' 'url(' '@import' \
	'@font-face' 'http:' 'https:' '//www.'; do
	case "$html" in
	*"$bad"*) ok false "no external reference: '$bad' found" ;;
	*) ok true "no '$bad' in it" ;;
	esac
done
like "$html" "^<!DOCTYPE html>" "an HTML5 document"
for id in verdicts distribution run-order changes evidence environment reproduce data; do
	like "$html" "<section id=\"$id\">" "section $id"
done
is "$(grep -c '<svg class="plot"' "$TMP/r.html")" 6 "six plots: boxes, run order, changes, three evidence counters"
# the box plot: one group element per group, every sample a point
boxes=$(sed -n '/<section id="distribution">/,/<\/section>/p' "$TMP/r.html")
is "$(printf '%s\n' "$boxes" | grep -c '<g class="grp g')" 3 "one box per group"
is "$(printf '%s\n' "$boxes" | grep -c 'class="pt"')" 56 "every sample a point"
is "$(printf '%s\n' "$boxes" | grep -c 'class="ci"')" 3 "each median with its CI"
order=$(sed -n '/<section id="run-order">/,/<\/section>/p' "$TMP/r.html")
is "$(printf '%s\n' "$order" | grep -c 'class="pt"')" 56 "run order: every sample"
forest=$(sed -n '/<section id="changes">/,/<\/section>/p' "$TMP/r.html")
is "$(printf '%s\n' "$forest" | grep -c 'class="band"')" 1 "the forest plot has its margin band"
is "$(printf '%s\n' "$forest" | grep -c 'class="est"')" 6 "an interval with two caps per change"

# the table has compare's numbers
wb compare --format json >"$TMP/c.json"
# four significant digits, grouped by threes (util/number.h; the median is over 1 000)
med=$(jq -r '.groups[1].median' "$TMP/c.json" | awk '{ split(sprintf("%.3e", $1), p, "e"); s = p[1]
	sub(/\./, "", s); while (length(s) < p[2] + 1) s = s "0"; n = length(s); o = ""
	for (i = 1; i <= n; i++) { o = o substr(s, i, 1); if ((n - i) % 3 == 0 && i < n) o = o " " } print o }')
chg=$(jq -r '.groups[1].effect.estimate * 100' "$TMP/c.json" | awk '{ printf "%+.1f%%", $1 }')
verdict=$(jq -r '.groups[1].verdict_text' "$TMP/c.json")
row=$(sed -n '/<section id="verdicts">/,/<\/table>/p' "$TMP/r.html" | grep '<td class="nm">6.12.75</td>')
like "$row" "<td class=\"num\">$med</td>" "6.12.75's median as compare has it ($med)"
like "$row" "<td class=\"num\">$chg</td>" "its change as compare has it ($chg)"
like "$row" "<span class=\"badge b-regression\" title=\"$verdict\">regression</span>" \
	"its verdict as compare gives it, a badge in its own column"
like "$html" "<li><span class=\"badge b-regression\">regression</span> 6\\.12\\.75: $chg bogo ops/s \\(real time\\) \\[[-+0-9.%, ]+\\], $verdict</li>" \
	"and as the headline sentence"
like "$(printf '%s' "$html" | tr -d '\n')" "<title>ctxsw/op</title>.*<figcaption>Lower is better\\. " \
	"a lower-is-better counter says so"
unlike "$html" "drawn upwards|axis reversed" "and no axis is reversed"
like "$html" "ops/s \\(real time\\), higher is better" "the primary metric's direction"
like "$html" "<pre id=\"wakebench-data\" data-format=\"wakebench-export\" data-encoding=\"zlib\\+base64\"" \
	"the raw data is embedded"

# an `ab` experiment by itself: grouped by its feature, paired arms interleaved
S 1 12 6.18 r host 1700000 kernel.preempt=voluntary ab=DELAY_DEQUEUE
ab=$(sqlite3 "$WAKEBENCH_DB" "SELECT id FROM experiments WHERE kind = 'ab'")
run_cmd wb report "$ab" -o "$TMP/ab.html"
is "$RC" 0 "report EXP of an ab"
ok "xmllint --noout '$TMP/ab.html'" "it parses"
like "$(cat "$TMP/ab.html")" "<h1>wakebench report: pipe, DELAY_DEQUEUE=on \\(A\\) vs\\. DELAY_DEQUEUE=off \\(B\\), bogo ops/s \\(real time\\)</h1>" \
	"an ab is titled by its feature's two arms"
like "$(cat "$TMP/ab.html")" "<td class=\"nm\">A: DELAY_DEQUEUE=on</td>" "its arms are the groups, named as ab names them"
like "$(cat "$TMP/ab.html")" "<td class=\"nm\">B: DELAY_DEQUEUE=off</td>" "  both"
like "$(cat "$TMP/ab.html")" "<li><span class=\"badge b-[a-z-]+\">[a-z ]+</span> NO_DELAY_DEQUEUE: [-+][0-9.]+% bogo ops/s \\(real time\\) \\[[-+][0-9.]+%, [-+][0-9.]+%\\], " \
	"a headline sentence with a badge for the effect"
# without EXP..., a store of one feature's ab is grouped by it as well
S1() { "$SYNTH" --synth "$TMP/abonly.db" "$@" >/dev/null; }
S1 1 12 6.18 r host 1700000 kernel.preempt=voluntary ab=DELAY_DEQUEUE
run_cmd wb report --db "$TMP/abonly.db"
is "$RC" 0 "report of a store holding one ab"
like "$OUT" "<h1>wakebench report: pipe, DELAY_DEQUEUE=on \\(A\\) vs\\. DELAY_DEQUEUE=off \\(B\\)" \
	"without EXP... it is titled by the arms too, not 'by kernel'"
# a single run experiment: one group, no forest plot
one=$(sqlite3 "$WAKEBENCH_DB" "SELECT min(id) FROM experiments")
run_cmd wb report "$one"
is "$RC" 0 "report of one run experiment"
like "$OUT" "1 group; baseline 6.6.78" "one group"
unlike "$OUT" "<section id=\"changes\">" "no changes to plot"
printf '%s' "$OUT" >"$TMP/one.html"
ok "xmllint --noout '$TMP/one.html'" "it parses"
run_cmd wb report --no-data
like "$OUT" "<p>Not embedded: --no-data was given" "--no-data says it left the data out"
run_cmd wb report --data-limit 1k
is "$RC" 0 "a data limit too small still makes the report"
like "$ERR" "warning: report: the raw data is not embedded: about [0-9.]+ MB, more than --data-limit 1k" \
	"and warns that the data is left out (estimated from the first experiment)"
like "$OUT" "Not embedded: encoded, the raw data would take about .* more than --data-limit 1k" \
	"the report says so too"
# with few experiments the data is encoded and measured, not estimated
run_cmd wb report 1 2 --data-limit 1k
like "$ERR" "warning: report: the raw data is not embedded: it would exceed --data-limit 1k" \
	"two experiments: measured"
like "$OUT" "Not embedded: encoded, the raw data \\([0-9]+ bytes of JSON\\) would exceed --data-limit 1k" \
	"and said in the report"
run_cmd wb report 1 2 --data-limit 1M
like "$OUT" "<pre id=\"wakebench-data\"" "under the limit it is embedded"

# hostile text from a store: escaped, still well-formed
S 1 8 6.6.78 "<b>&amp;\"x\"</b> $(printf '\033[31m\377')" host 2400000 kernel.preempt=voluntary
run_cmd wb report --by label
printf '%s' "$OUT" >"$TMP/hostile.html"
ok "xmllint --noout '$TMP/hostile.html'" "a hostile label keeps it well-formed"
like "$OUT" "&lt;b&gt;&amp;amp;&quot;x&quot;&lt;/b&gt; \\\\x1b\\[31m\\\\xff" "the label escaped, visibly"

# bad input
run_cmd wb report --format pdf
is "$RC" 2 "unknown --format exits 2"
like "$ERR" "--format.*pdf.*html\\|email\\|markdown" "the message names the option, value and choices"
run_cmd wb report -o ""
is "$RC" 2 "empty -o exits 2"
like "$ERR" "option '-o'" "and names it"
run_cmd wb report 9999
is "$RC" 2 "an unknown experiment exits 2"
run_cmd wb report --kernel 1.2.3
is "$RC" 2 "an unknown filter value exits 2"
like "$ERR" "--kernel" "naming the filter"
run_cmd wb report --margin 200%
is "$RC" 2 "margin out of range exits 2"
run_cmd wb report -o "$TMP/no/such/dir/r.html"
is "$RC" 1 "an unwritable output is a runtime error"
like "$ERR" "cannot create" "said so"
WAKEBENCH_DB=$TMP/empty.db run_cmd wb report
is "$RC" 1 "no store: exit 1"
done_testing
