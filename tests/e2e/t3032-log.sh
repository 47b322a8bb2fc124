#!/bin/sh
# wakebench log: the stored experiments, newest first, one line each (id,
# date, kind, workload, profile, label, kernel, host, result, notes); -n
# keeps the newest N, the filters are compare's; an ab's line carries the
# effect and verdict ab printed; JSON and CSV carry the same; `show` without
# an argument shows the newest. A run that starts with the load average
# above the online CPUs says so, stores run.overloaded, and log, compare
# and report mark it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

command -v jq >/dev/null || skip_all "jq is not installed"
fakefs_start dbg --burn=DELAY_DEQUEUE --burn-percent=30
RUN="run pipe -j 1 -t 20ms -n 3 --warmup 0 -q --debugfs $TMP/dbg"

run_cmd wb log
is "$RC" 1 "log without a store: exit 1"
like "$ERR" "no store at '.*': nothing stored yet" "says so"
# A quiet machine and a loaded one: the fake tree has 8 online CPUs (this
# machine's own load must not decide the test).
cp -r "$FIXTURES/root-x86" "$TMP/quiet"
echo "0.50 0.40 0.30 1/311 40112" >"$TMP/quiet/proc/loadavg"
cp -r "$FIXTURES/root-x86" "$TMP/root"
echo "142.00 80.00 40.00 150/311 40112" >"$TMP/root/proc/loadavg"
# shellcheck disable=SC2086
WAKEBENCH_ROOT="$TMP/quiet" run_cmd wb $RUN --label base
is "$RC" 0 "a quiet run is stored"
unlike "$ERR" "load average" "it says nothing of the load"
run_cmd wb log
is "$RC" 0 "log of one run exits 0"
# shellcheck disable=SC2086
WAKEBENCH_ROOT="$TMP/root" run_cmd wb $RUN --label busy
is "$RC" 0 "a run under load is stored"
like "$ERR" "warning: run: the load average is 142\\.00 on 8 online CPUs, 149 other tasks runnable \\(of 311\\): other work competes with the samples" \
	"the run says the load is above the CPUs, with as many tasks runnable now"
# the average still high from work that just ended, nothing runnable now: no flag
cp -r "$FIXTURES/root-x86" "$TMP/settling"
echo "9.00 5.00 2.00 1/311 40112" >"$TMP/settling/proc/loadavg"
# shellcheck disable=SC2086
WAKEBENCH_ROOT="$TMP/settling" run_cmd wb $RUN --label settling --no-store
is "$RC" 0 "a run after other work ended"
unlike "$ERR" "load average" "a load average above the CPUs alone, nothing runnable now: no warning"
run_cmd wb ab --feature NO_DELAY_DEQUEUE pipe -j 1 --placement same-cpu -t 20ms -n 6 --warmup 0 -q \
	--debugfs "$TMP/dbg" --format json
is "$RC" 0 "an ab is stored"
printf '%s\n' "$OUT" >"$TMP/ab.json"

run_cmd wb log
is "$RC" 0 "log exits 0"
printf '%s\n' "$OUT" >"$TMP/log.txt"
like "$(sed -n 1p "$TMP/log.txt")" "^ +id +date +kind +workload +profile +label +kernel +host +result +notes$" "a header"
is "$(sed -n '2,$p' "$TMP/log.txt" | awk '{ print $1 }' | tr '\n' ' ')" "3 2 1 " "newest first"
like "$(sed -n 2p "$TMP/log.txt")" "^ +3 +[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} ab +pipe +stress-ng-0\\.15 +- .* NO_DELAY_DEQUEUE [+-][0-9]" \
	"the ab's line: its effect"
like "$(sed -n 3p "$TMP/log.txt")" "^ +2 .* run +pipe +stress-ng-0\\.15 +busy .*ops/s \\(real time\\) $NUM .*overloaded" "the loaded run is marked"
unlike "$(sed -n 4p "$TMP/log.txt")" "overloaded" "the quiet one is not"

wb log --format json >"$TMP/log.json"
ok "jq -e 'length == 3 and .[0].id == 3 and .[1].overloaded and (.[2].overloaded | not)' '$TMP/log.json' >/dev/null" \
	"JSON: newest first, the overloaded flag"
wb show 3 --format json >"$TMP/show.json"
ok "jq -e --slurpfile s '$TMP/show.json' '.[0].effect | del(.verdict_text, .feature) as \$l | \$s[0].experiments[0].result.effects[0] as \$r | [\$l | keys[] as \$k | \$l[\$k] == \$r[\$k]] | all' '$TMP/log.json' >/dev/null" \
	"the ab's effect, interval, p and verdict are show's (ab's), member by member"
wb show 1 --format json >"$TMP/show1.json"
med=$(jq -r '.[2].median' "$TMP/log.json")
show_med=$(jq -r '[.experiments[0].samples[] | select(.status == "ok" and (.warmup | not)) | .ops_per_s] | sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end' "$TMP/show1.json")
ok "awk 'BEGIN { exit !(($med - $show_med) ^ 2 < 1e-12 * $med ^ 2) }'" "a run's median is its samples' ($med, $show_med)"

run_cmd wb log -n 1
is "$(printf '%s\n' "$OUT" | sed 1d | awk '{ print $1 }')" 3 "-n 1: the newest"
run_cmd wb log --label base --label busy
is "$(printf '%s\n' "$OUT" | sed 1d | awk '{ print $1 }' | tr '\n' ' ')" "2 1 " "filters as compare's"
run_cmd wb log --label nope
is "$RC" 2 "an unknown label: exit 2"
run_cmd wb log -n 0
is "$RC" 2 "-n 0: exit 2"
wb log --format csv >"$TMP/log.csv"
is "$(sed -n 1p "$TMP/log.csv" | cut -d, -f1-4)" "id,uuid,started_ns,kind" "CSV: a header"
is "$(sed -n 2p "$TMP/log.csv" | cut -d, -f1,4)" "3,ab" "CSV: newest first"

run_cmd wb show
is "$RC" 0 "show without an argument"
like "$(printf '%s\n' "$OUT" | sed -n 1p)" "^experiment 3 " "shows the newest"
run_cmd wb show 1 2
is "$RC" 2 "show of two: exit 2"

run_cmd wb compare --by label --label base --label busy
like "$OUT" "note: busy: experiment 2 started with the load average above the online CPUs" "compare marks it"
wb compare --by label --label base --label busy --format json >"$TMP/c.json"
ok "jq -e '[.groups[] | select(.title == \"busy\") | .overloaded[]] == [2]' '$TMP/c.json' >/dev/null" \
	"compare's JSON lists it"
for f in email markdown html; do
	wb report --by label --label base --label busy --format $f --no-data -o "$TMP/r.$f" 2>/dev/null
	# the mail folds at 72 columns: the lines joined
	ok "tr '\\n' ' ' <'$TMP/r.$f' | tr -s ' ' | grep -q 'busy: experiment 2 started with the load average above the online CPUs'" \
		"report ($f) marks it"
done
done_testing
