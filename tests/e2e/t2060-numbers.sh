#!/bin/sh
# Numbers and names for people: one median prints
# the same in run, compare, show, report (email, Markdown, HTML), with four
# significant digits, grouped by threes, never an exponent; a metric has one
# name in the sample lines, the summary, compare and the report; messaging's
# rates are two quantities under two names and its header says what a sample
# is; latencies read in a unit that fits them, and a percentile read from
# fewer values than it needs says so (text and JSON). No timing is asserted.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"

# printf's %g exponent (1.92e-05, 1.12721e+08), on lines without a UUID (hex)
EXP='[0-9]e[-+][0-9]{2}'
noexp() { printf '%s\n' "$1" | grep -Ev '[0-9a-f]{8}-[0-9a-f]{4}-' | grep -E "$EXP"; }
# the median (4th column) of a run's summary row named $1
summary_median() { sed -nE "s/^  $1 +[0-9]+ +($NUM) .*/\\1/p"; }

# ---- pipe: one median, one name, everywhere ----
for l in a b; do
	run_cmd wb run pipe -t 100ms -n 5 --warmup 0 -j 1 --label $l
	is "$RC" 0 "run pipe --label $l"
	[ $l = a ] && RUN_A=$OUT
done
is "$(noexp "$RUN_A")" "" "run: no exponent anywhere"
like "$RUN_A" "^sample 1/5: bogo ops/s \\(real time\\) $NUM  ops [1-9][0-9 ]*  real $TIME  usr $TIME  sys $TIME  ctxsw/op $NUM  migrations/1000 ops $NUM  run-queue wait/op $TIME$" \
	"a sample line: each value under its summary name, times in units, counts exact"
like "$RUN_A" "^  bogo ops/s \\(real time\\) +5 +$NUM +\\[$NUM, $NUM\\]" "the summary names the rate as the sample lines do"
like "$RUN_A" "^  run-queue wait/op +5 +$TIME +\\[$TIME, $TIME\\]" "a time in the summary carries its unit"
med=$(printf '%s\n' "$RUN_A" | summary_median 'bogo ops\/s \(real time\)')
like "$med" "^[0-9]{1,3}( [0-9]{3})+$" "run's median: whole, grouped ($med)"
digits=$(printf '%s' "$med" | tr -d ' ' | sed 's/0*$//')
ok "[ ${#digits} -le 4 ]" "four significant digits at most ($med)"

run_cmd wb compare --by label
is "$RC" 0 "compare"
is "$(noexp "$OUT")" "" "compare: no exponent"
like "$OUT" "^pipe bogo ops/s \\(real time\\) by label" "compare names the metric as run does"
is "$(printf '%s\n' "$OUT" | sed -nE "s/^a +[0-9]+ +[0-9]+ +($NUM)  .*/\\1/p")" "$med" "compare prints run's median"

run_cmd wb report --by label --format markdown
is "$(noexp "$OUT")" "" "Markdown: no exponent"
is "$(printf '%s\n' "$OUT" | awk -F' \\| ' '$1 == "| a" { print $4 }')" "$med" "Markdown prints the same median"
like "$OUT" "\\| bogo ops/s \\(real time\\) \\|" "and the same name"
run_cmd wb report --by label --format email
is "$(noexp "$OUT")" "" "email: no exponent"
is "$(printf '%s\n' "$OUT" | sed -nE "s/^a +($NUM) \\[.*/\\1/p")" "$med" "the email prints the same median"
like "$OUT" "^wakebench report: pipe, bogo ops/s \\(real time\\) by label" "and the same name"
run_cmd wb report --by label -o "$TMP/r.html"
row=$(grep -o '<td class="nm">a</td><td class="num">[^<]*</td><td class="num">[^<]*</td><td class="num">[^<]*</td>' "$TMP/r.html" | head -1)
is "$(printf '%s' "$row" | sed -E 's/.*<td class="num">([^<]*)<\/td>$/\1/')" "$med" "the HTML prints the same median"
like "$(cat "$TMP/r.html")" "median $med \\[95% CI $NUM, $NUM\\], quartiles $NUM to $NUM" "its box plot's tip too"

run_cmd wb show 1
is "$RC" 0 "show"
is "$(noexp "$OUT")" "" "show: no exponent (it printed 1.12721e+08)"
ops=$(printf '%s\n' "$RUN_A" | sed -nE 's/^sample 1\/5: .*  ops ([0-9 ]+)  real .*/\1/p')
like "$OUT" "^ +0 default +ok +no +$ops +$TIME +$TIME +$TIME +$NUM +$NUM$" "show's sample row: run's count, times in units"
like "$OUT" "^        run-queue wait/op +$TIME$" "show: a metric by its summary name, a time in its unit"
like "$OUT" "^  primary +bogo ops/s \\(real time\\) \\(stored as ops_per_s; higher is better\\)" "show names the primary as run does"

# ---- pingpong: the sample lines and the summary say the same name ----
run_cmd wb run pingpong -t 100ms -n 1 --warmup 0 --no-store
is "$RC" 0 "run pingpong"
like "$OUT" "^sample 1/1: round trips/s \\(real time\\) $NUM  " "pingpong's sample line: round trips/s (real time)"
like "$OUT" "^  round trips/s \\(real time\\) +1 " "its summary: the same name"
unlike "$OUT" "^  ops/s" "no bare ops/s in its summary"

# ---- messaging: fixed work; one name, one quantity ----
MSG="--groups 1 --fds 2 --loops 10 -n 1 --warmup 1ms"
run_cmd wb run messaging $MSG --no-store
is "$RC" 0 "run messaging"
like "$OUT" "^1 instance, 1 sample of 40 messages \\(time limit 1m\\), warm-up one run, placement any$" \
	"the header says what a sample is (40 messages) and that -t is a limit"
like "$OUT" "^warm-up: run time $TIME  " "the warm-up is one run of the work, not cut at --warmup 1ms"
rate=$(printf '%s\n' "$OUT" | sed -nE "s/^sample 1\\/1: run time $TIME  messages\\/s \\(real time\\) ($NUM)  .*/\\4/p")
like "$rate" "^$NUM$" "the sample line's rate is messages/s (real time) ($rate)"
is "$(printf '%s\n' "$OUT" | summary_median 'messages\/s \(real time\)')" "$rate" \
	"the summary's messages/s (real time) is the sample line's quantity"
like "$OUT" "^  messages/s \\(run time\\) +1 " "hackbench's messages over its Time has a name of its own"
unlike "$OUT" "^  messages/s +1 " "no metric is just 'messages/s'"
unlike "$OUT" "real 0 s" "real is the elapsed time"
run_cmd wb run messaging $MSG -n 3 --warmup 0 --no-store --format json
printf '%s\n' "$OUT" >"$TMP/m.json"
is "$RC" 0 "run messaging --format json"
# the instance's real time runs from the first task's start to its return, so
# it holds hackbench's Time (first task's start to the last task's exit)
is "$(jq '[.samples[] | select(.real_s >= .metrics.messaging_run_s.value and .metrics.messaging_run_s.value > 0)] | length' "$TMP/m.json")" 3 \
	"every sample: real time >= run time > 0"
is "$(jq '[.samples[] | select(((.ops_per_s * .real_s / .ops) - 1 | fabs) < 1e-9)] | length' "$TMP/m.json")" 3 \
	"messages/s (real time) is the messages over the real time"
is "$(jq '[.samples[] | select(((.metrics.messages_per_s.value * .metrics.messaging_run_s.value / .ops) - 1 | fabs) < 1e-9)] | length' "$TMP/m.json")" 3 \
	"messages/s (run time) is the messages over the run time"

# ---- schbench: latencies in units; too few values said, not hidden ----
# a 20 ms sleep per request: at most 300ms / 20ms = 15 requests per worker
SB="--workers 2 --operations 1 --cache-footprint 16k --sleep 20ms -t 300ms --warmup 0 --no-store"
run_cmd wb run schbench $SB -n 2
is "$RC" 0 "run schbench"
# seven digits in a row that are not a fraction's (a stddev of 0.0003774 is fine)
unlike "$OUT" "(^|[^0-9.])[0-9]{7}" "no latency as a raw count of nanoseconds (it printed 38043673.00 ns)"
like "$OUT" "^sample 1/2: worker wakeup p99 $TIME  requests/s \\(real time\\) $NUM  " "the sample line: the p99 in a unit that fits"
like "$OUT" "^  request latency p99 +2 +$TIME " "the summary too"
like "$OUT" "^  warning: .*request latency p99 \\(needs 100 values\\), request latency p99\\.9 \\(needs 1000 values\\) rest on as few as [0-9]+ values in a sample \\(requests measured\\): each is that sample's largest value, not its percentile" \
	"p99 and p99.9 from a few dozen requests: the summary says they are the largest value"
unlike "$OUT" "p50 \\(needs" "the median needs 2 values: no warning for it"
run_cmd wb run schbench $SB -n 1 --format json
printf '%s\n' "$OUT" >"$TMP/s.json"
is "$(jq -r '.summary.metrics.schbench_request_p99_ns | "\(.too_few_values) \(.values_needed)"' "$TMP/s.json")" "true 100" \
	"JSON: the p99 is flagged, with the values it needs"
ok "[ $(jq '.summary.metrics.schbench_request_p99_ns.fewest_values' "$TMP/s.json") -le 40 ]" \
	"JSON: and the values it had ($(jq '.summary.metrics.schbench_request_p99_ns.fewest_values' "$TMP/s.json"))"
is "$(jq -r '.summary.metrics.schbench_request_p50_ns.too_few_values' "$TMP/s.json")" false \
	"JSON: the median is not flagged"
is "$(jq -r '.samples[0].metrics.schbench_request_count.value == .samples[0].ops' "$TMP/s.json")" true \
	"the count behind the request percentiles is the requests done"
done_testing
