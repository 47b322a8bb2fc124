#!/bin/sh
# report with posted results (experiments of kind "external", imported from
# another tool's output) beside measured ones: their rows are marked
# ("posted", with "stress-ng 0.21.00, 1 run, not measured here"), a section
# lists each with its provenance (tool, version, posted command, arguments,
# source, format, the profile and the run that reproduce it here), one
# posted run has no verdict, the keys its text lacks are unknown, and the
# reproducer runs; in HTML, mail and Markdown, and through the embedded data.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed"
S() { "$SYNTH" --synth "$WAKEBENCH_DB" "$@" >/dev/null; }

for ops in 2000000 2050000 1980000 2020000; do
	S 1 8 6.6 here host $ops kernel.preempt=full workload.name=pipe workload.profile=stress-ng-0.15
done
sqlite3 "$WAKEBENCH_DB" "UPDATE experiments SET owner_boot_id = 'boot-' || id"
sh "$(dirname "$0")/posted-export.sh" 1 posted-1 6.6 0.21.00 1 1 1900000 >"$TMP/p1.json"
sh "$(dirname "$0")/posted-export.sh" 2 posted-5 6.12 0.21.00 1 5 1400000 >"$TMP/p5.json"
wb import "$TMP/p1.json" "$TMP/p5.json" >/dev/null
is "$?" 0 "posted results imported"

run_cmd wb report --by label --baseline here -o "$TMP/r.html"
is "$RC" 0 "report exits 0"
H=$(cat "$TMP/r.html")
if command -v xmllint >/dev/null; then
	ok "xmllint --noout '$TMP/r.html'" "the HTML is still well-formed XML"
else
	skip "xmllint not installed (Debian: libxml2-utils)"
fi
is "$(printf '%s\n' "$H" | grep -c '^<tr class="posted"><td><span class="sw g[0-9]"></span></td><td>posted-')" 2 \
	"two rows of the verdicts table are marked as posted"
like "$H" '^<tr class="posted"><td><span class="sw g1"></span></td><td>posted-1 <span class="badge b-posted" title="stress-ng 0\.21\.00, 1 run, not measured here">posted</span><div class="vt">stress-ng 0\.21\.00, 1 run, not measured here</div></td>' \
	"posted-1's row: the badge and its note"
like "$H" 'posted-1 <span.*<td class="num">-5\.9%</td><td class="num">no interval</td><td class="num">-</td><td><span class="badge b-insufficient" title="no verdict: this group is one posted run[^"]*">no verdict</span>' \
	"one posted run: the medians' change, no interval, no verdict with the reason in its tooltip"
like "$H" 'posted-5 <span.*<span class="badge b-regression"' "five posted runs: the ordinary verdict"
like "$H" '^<li><span class="badge b-regression">regression</span> posted-5: \(posted: stress-ng 0\.21\.00, 5 runs, not measured here\) -30\.[0-9]%' \
	"the headline marks the posted group"
like "$H" '^<tr><td><span class="sw g0"></span></td><td class="nm">here</td>' "the measured row is not marked"
like "$H" '^<g class="grp g1"><title>posted-1: -5\.9% \(the medians&#39; ratio, no interval\): no verdict: ' \
	"the changes plot: the posted run's tooltip"
like "$H" '^<text x="[0-9.]*" y="[0-9.]*" text-anchor="start" class="note">no interval</text>$' \
	"... a point without an interval"
like "$H" '^<text x="[0-9.]*" y="[0-9.]*" text-anchor="start" class="t-insufficient">-5\.9% no verdict</text>$' \
	"... the medians' change and no verdict"
like "$H" '^<section id="posted"><h2>Posted results \(not measured here\)</h2>$' "a section of posted results"
like "$H" '<b>experiment 5</b></dt><dd><span class="badge b-posted">posted</span> stress-ng 0\.21\.00, 1 run, not measured here</dd>' \
	"each posted experiment with its note"
for f in 'tool</dt><dd>stress-ng<' 'version</dt><dd>0\.21\.00<' \
	'command</dt><dd>stress-ng --pipe 4 --timeout 20s --metrics-brief<' \
	'arguments</dt><dd>--pipe 4 --timeout 20s --metrics-brief<' 'source</dt><dd>paste\.txt lines 3-9<' \
	'format</dt><dd>stress-ng-metrics-brief<' 'profile</dt><dd>stress-ng-0\.15<'; do
	like "$H" "<dt>$f" "provenance: ${f%%<*}"
done
like "$H" '<dt>reproduce here</dt><dd>wakebench run pipe --instances=4 --duration=20000000000ns --samples=1 --data-size=512 --profile stress-ng-0\.15</dd>' \
	"the run that reproduces it here"
like "$H" '^<span class="c"># as posted: stress-ng 0\.21\.00, 1 run, not measured here</span>$' "the reproducers say which command is the posted one"
like "$H" '<td>unknown</td><td colspan="3">2 keys not in the posted text \(unknown, not counted as differences\): <span class="val">kernel\.preempt, host\.name</span>' \
	"environment: the keys the posted text lacks are unknown"
unlike "$H" '<td>kernel\.preempt</td>' "... and not differences"

# the reproducer is a command run accepts (shortened here: 20 s runs are not a test)
cmd=$(printf '%s\n' "$H" | sed -n 's|.*<dt>reproduce here</dt><dd>wakebench \(run pipe [^<]*--samples=1 [^<]*\)</dd>.*|\1|p' | head -1)
run_cmd wb $cmd --duration=50ms --samples=1 --warmup=0 --instances=1 --no-store
is "$RC" 0 "the posted result's reproducer runs"
like "$OUT" "profile: stress-ng-0\\.15" "with the profile that reproduces it"

run_cmd wb report --by label --baseline here --format email
is "$RC" 0 "report --format email"
is "$(printf '%s\n' "$OUT" | LC_ALL=C awk 'length($0) > 72 || /\t/ || /[^ -~]/ { n++ } END { print n + 0 }')" 0 \
	"every line ASCII, no tab, at most 72 columns"
like "$OUT" "^\\[no verdict\\] posted-1: \\(posted: stress-ng 0\\.21\\.00, 1 run, not measured$" "the headline: marked, no verdict"
like "$OUT" "^    here\\) -5\\.9% bogo ops/s \\(real time\\) \\(the medians' ratio, no$" "... the medians' change"
like "$OUT" "^  posted: stress-ng 0\\.21\\.00, 1 run, not measured here$" "the table marks the posted row"
like "$OUT" "^Posted results \\(imported from another tool's output, not measured here\\):$" "a section of posted results"
like "$OUT" "^  experiment 5 \\(00000001\\), posted-1: stress-ng 0\\.21\\.00, 1 run, not$" "each with its note"
like "$OUT" "^    unknown  2 keys not in the posted text \\(unknown, not counted as$" "unknown keys"
run_cmd wb report --by label --baseline here --format markdown
like "$OUT" "^\\| posted-1 \\*\\(posted: stress-ng 0\\.21\\.00, 1 run, not measured here\\)\\* \\| 1 \\| 1 \\|" "markdown: the marked row"
like "$OUT" "^### Posted results" "markdown: the section"

# the raw data keeps them posted
run_cmd wb import --db "$TMP/again.db" "$TMP/r.html"
is "$RC" 0 "import of the report"
run_cmd wb compare --db "$TMP/again.db" --by label --baseline here
like "$OUT" "^posted-1 \\(posted\\) .*no verdict" "the report's data are posted results again"
done_testing
