#!/bin/sh
# wakebench ab against the FUSE stand-in: a verdict with tiny durations, the
# counterbalanced order (A B B A, or seeded random), one token per write(2),
# a warm-up after every toggle, every sample stored with its arm's feature
# vector, the features restored as found, and bad input (exit 2).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

fakefs_start dbg --log="$TMP/writes.log"
D="$TMP/dbg"
ORIG=$(cat "$FIXTURES/sched-features/v6.18.txt")
JOURNAL="$WAKEBENCH_STATE_DIR/features.journal"
db="$TMP/ab.db"
q() { sqlite3 "$db" "$1"; }
nwrites() { if [ -f "$TMP/writes.log" ]; then wc -l <"$TMP/writes.log" | tr -d ' '; else echo 0; fi; }

run_cmd wb ab --feature NO_DELAY_DEQUEUE -t 100ms -n 6 -j 1 --debugfs "$D" --db "$db"
is "$RC" 0 "ab exits 0"
like "$OUT" "^arm A: DELAY_DEQUEUE=on" "arm A is the feature as the token does not set it"
like "$OUT" "^arm B: DELAY_DEQUEUE=off" "arm B applies the token"
like "$OUT" "^pair 6/6: [AB] $NUM, [AB] $NUM ops/s, B/A [-+][0-9]+\.[0-9]%$" "one line per pair"
like "$OUT" "NO_DELAY_DEQUEUE +bogo ops/s \(real time\) [-+][0-9.]+% \[95% CI [-+][0-9.]+%, [-+][0-9.]+%\], Wilcoxon p (= [0-9]\.[0-9]{4}|<0\.0001) \(6 units\)" "effect with CI and Wilcoxon p, named as run names the metric"
# the verdict is not buried: the last line, alone, with the effect and its CI
is "$(printf '%s\n' "$OUT" | tail -n 1 | sed -E 's/[-+][0-9.]+%/X/g')" \
	"$(printf '%s\n' "$OUT" | grep '^NO_DELAY_DEQUEUE: ' | sed -E 's/[-+][0-9.]+%/X/g')" "the verdict line is the last"
like "$(printf '%s\n' "$OUT" | tail -n 1)" "^NO_DELAY_DEQUEUE: bogo ops/s \(real time\) [-+][0-9.]+% \[95% CI [-+][0-9.]+%, [-+][0-9.]+%\], (no change larger than 2%|inconclusive at a 2% margin|regression beyond the 2% margin|improvement beyond the 2% margin)" \
	"  effect, CI and verdict in one line"
is "$(printf '%s\n' "$OUT" | tail -n 2 | head -n 1)" "" "  alone, after a blank line"
# each arm's summary is one line (the whole table with -v)
like "$OUT" "^A: DELAY_DEQUEUE=on +bogo ops/s \(real time\) median $NUM \[95% CI $NUM, $NUM\], CV [0-9.]+%.*, 6 samples" "arm A in one line"
like "$OUT" "^B: DELAY_DEQUEUE=off +bogo ops/s \(real time\) median $NUM " "arm B in one line"
unlike "$OUT" "summary: 6 samples" "no summary tables without -v"
like "$OUT" "environment: arm B differs from arm A only in sched.features" "the arms differ only in the features"
is "$(fakefs_features dbg)" "$ORIG" "features restored as found"
ok "[ ! -e '$JOURNAL' ]" "no journal left"
# A B | B A | A B | B A | A B | B A: six toggles, one token each, none left to restore
is "$(sed 's/ -> ok$//' "$TMP/writes.log" | tr '\n' ' ')" \
	"$(for i in 1 2 3; do printf '/sched/features NO_DELAY_DEQUEUE /sched/features DELAY_DEQUEUE '; done)" \
	"A B B A A B B A: one token per write at every toggle"
# the arms of a unit line, in the order they ran: "pair 1/6: A 1 235 000, B 1 300 000 ops/s, ..."
arms() { awk -F': |, ' '{ o = ""; for (i = 2; i <= NF; i++) if ($i !~ /^B\/A/) { split($i, w, " "); o = o w[1] } print o }'; }
is "$(grep '^pair' "$TMP/.out" | arms | tr '\n' ' ')" "AB BA AB BA AB BA " "A B B A order"
like "$OUT" "toggles: 6, each followed by a discarded warm-up" "toggles counted"

if command -v sqlite3 >/dev/null 2>&1; then
	is "$(q "select kind || '|' || status from experiments")" "ab|complete" "stored as an ab experiment"
	is "$(q "select group_concat(name, ';') from (select name from configs order by id)")" \
		"DELAY_DEQUEUE=on;DELAY_DEQUEUE=off" "one config per arm"
	like "$(q "select features from configs where name = 'DELAY_DEQUEUE=off'")" \
		"^PLACE_LAG .* NO_DELAY_DEQUEUE .*NO_LATENCY_WARN$" "configs hold the arm's full feature vector"
	is "$(q "select count(*) from samples where warmup = 0")" 12 "12 measured samples"
	# one warm-up at the start and one after each of the 6 toggles
	is "$(q "select count(*) from samples where warmup = 1")" 7 "a warm-up after every toggle"
	is "$(q "select group_concat(c.name || ':' || s.warmup, ' ') from (select * from samples order by idx) s join configs c on c.id = s.config_id")" \
		"DELAY_DEQUEUE=on:1 DELAY_DEQUEUE=on:0$(for i in 1 2 3; do printf ' DELAY_DEQUEUE=off:1 DELAY_DEQUEUE=off:0 DELAY_DEQUEUE=off:0 DELAY_DEQUEUE=on:1 DELAY_DEQUEUE=on:0'; [ $i -lt 3 ] && printf ' DELAY_DEQUEUE=on:0'; done)" \
		"samples in run order, warm-ups right after each toggle"
else
	for i in 1 2 3 4 5 6; do skip "sqlite3 is not installed"; done
fi

# The token names the treatment: --feature DELAY_DEQUEUE has it off in A.
wb features set NO_DELAY_DEQUEUE --debugfs "$D" >/dev/null
run_cmd wb ab --feature DELAY_DEQUEUE -t 50ms -n 6 -j 1 --warmup 0 --debugfs "$D" --no-store --format json
is "$RC" 0 "ab --format json exits 0"
is "$(printf '%s' "$OUT" | jq -r '.arms[0].name + "|" + .arms[1].name')" "DELAY_DEQUEUE=off|DELAY_DEQUEUE=on" "json: arms"
is "$(printf '%s' "$OUT" | jq -r '.effects[0].what')" DELAY_DEQUEUE "json: the effect of the token"
like "$(printf '%s' "$OUT" | jq -r '.effects[0].verdict')" "^(insufficient|inconclusive|no-change|regression|improvement)$" "json: a verdict"
is "$(printf '%s' "$OUT" | jq -r '.units | length')" 6 "json: six pairs"
is "$(printf '%s' "$OUT" | jq -r '.features_restored')" true "json: restored"
is "$(printf '%s' "$OUT" | jq -r 'keys_unsorted | join(" ")')" \
	"version command cmdline workload unit primary better profile status stopped_by uuid features_restored order seed margin toggles arms units effects sequential evidence evidence_adjustment environment_differences" \
	"json: the documented keys, in order"
# one effect vocabulary for ab and compare (tests/fixtures/json/effect-keys.txt)
is "$(printf '%s' "$OUT" | jq -r '.effects[0] | keys_unsorted | .[0:9] | join(" ")')" \
	"$(cat "$FIXTURES/json/effect-keys.txt")" "json: an effect's keys, shared with compare"
is "$(printf '%s' "$OUT" | jq -r '.effects[0] | [.what, .units] | map(type) | join(" ")')" \
	"string number" "json: ab's own members follow: what, units"
like "$(fakefs_features dbg)" " NO_DELAY_DEQUEUE " "restored to the state found (NO_DELAY_DEQUEUE)"
wb features set DELAY_DEQUEUE --debugfs "$D" >/dev/null

# Seeded random order: the same seed gives the same order.
order() { grep '^pair' "$TMP/.out" | arms | tr '\n' ' '; }
run_cmd wb ab --feature NO_DELAY_DEQUEUE -t 50ms -n 6 -j 1 --warmup 0 --order random --seed 7 --debugfs "$D" --no-store
is "$RC" 0 "--order random --seed 7"
O1=$(order)
like "$O1" "^((AB BA|BA AB) ){3}$" "random order is counterbalanced in every two pairs"
run_cmd wb ab --feature NO_DELAY_DEQUEUE -t 50ms -n 6 -j 1 --warmup 0 --order random --seed 7 --debugfs "$D" --no-store
is "$(order)" "$O1" "the same seed gives the same order"
like "$OUT" "order random \(seed 7\)" "the seed is printed"

# --fail-on-regression: exit 3 exactly when the verdict is a regression
run_cmd wb ab --feature NO_DELAY_DEQUEUE -t 50ms -n 6 -j 1 --warmup 0 --fail-on-regression --debugfs "$D" --no-store
if printf '%s' "$OUT" | grep -q '^NO_DELAY_DEQUEUE: .*, regression beyond'; then
	is "$RC" 3 "--fail-on-regression: a regression exits 3"
else
	is "$RC" 0 "--fail-on-regression: no regression, exit 0"
fi

# --until-decided: looks at 10 and then --max-samples 12, each at the calibrated
# level for two looks, 97.1% (Bonferroni would give 97.5%)
run_cmd wb ab --feature NO_DELAY_DEQUEUE -t 20ms -j 1 --warmup 0 --until-decided --max-samples 12 --debugfs "$D" --no-store
is "$RC" 0 "--until-decided exits 0"
like "$OUT" "^until decided: up to 12 pairs" "--until-decided: the plan is printed"
like "$OUT" "ops/s \(real time\) [-+][0-9.]+% \[97.1% CI .*\((10|12) units\)" "--until-decided: per-look level 97.1% at a look (10 or 12 pairs)"
like "$ERR$OUT" "decided after 10 pairs|--max-samples reached: not decided|decided after 12 pairs" "--until-decided: says why it stopped"
run_cmd wb ab --feature NO_DELAY_DEQUEUE -t 20ms -j 1 --warmup 0 --until-decided --max-time 1ms --debugfs "$D" --no-store
like "$ERR" "--max-time reached after 1 pair: not decided" "--max-time stops after the unit in progress"
is "$(fakefs_features dbg)" "$ORIG" "--until-decided: restored"

# Without -n, ab runs until decided: 250ms samples, 50ms warm-ups, at most
# 64 pairs; the engine's plan and the evidence correction are in the JSON.
run_cmd wb ab --feature NO_DELAY_DEQUEUE -h
like "$OUT" "--duration DURATION .*\(default 250ms" "ab -h: samples of 250ms by default"
like "$OUT" "--warmup DURATION .*\(default 50ms" "ab -h: a 50ms warm-up after each toggle by default"
run_cmd wb ab --feature NO_DELAY_DEQUEUE -t 20ms -j 1 --max-samples 10 --debugfs "$D" --no-store --format json
is "$RC" 0 "ab without -n exits 0"
is "$(printf '%s' "$OUT" | jq -r '.sequential | "\(.until_decided) \(.planned_looks) \(.family_conf)"')" \
	"true 1 0.95" "json: until decided by default, one look at --max-samples 10"
is "$(printf '%s' "$OUT" | jq -r '.effects[0].method')" "wilcoxon-signed-rank-hl-serial" \
	"json: the serial-correlation-robust interval"
is "$(printf '%s' "$OUT" | jq -r '.evidence_adjustment.method')" holm "json: evidence is Holm-adjusted"
is "$(printf '%s' "$OUT" | jq -r '[.evidence[] | has("p_adjusted") or (.valid | not)] | all')" true \
	"json: every valid evidence line has its adjusted p"

# Bad input: exit 2, one line naming the problem.
N0=$(nwrites)
run_cmd wb ab -t 50ms -n 6 --debugfs "$D" --no-store
is "$RC" 2 "no --feature: exit 2"
like "$ERR" "option '--feature' is required" "no --feature: said"
run_cmd wb ab --feature DELAY_DEQUEU -t 50ms -n 6 --debugfs "$D" --no-store
is "$RC" 2 "misspelled feature: exit 2"
like "$ERR" "unknown scheduler feature 'DELAY_DEQUEU'; this kernel has: PLACE_LAG, .*DELAY_DEQUEUE" "misspelled feature: the valid names"
run_cmd wb ab --feature NO_DELAY_DEQUEUE --feature NO_DELAY_DEQUEUE --debugfs "$D" --no-store
is "$RC" 2 "a feature twice: exit 2"
run_cmd wb ab --feature DELAY_DEQUEUE --feature NO_DELAY_DEQUEUE --debugfs "$D" --no-store
is "$RC" 2 "NAME and NO_NAME: exit 2"
like "$ERR" "given twice" "NAME and NO_NAME: said"
run_cmd wb ab --feature NO_DELAY_DEQUEUE --feature NO_PREEMPT_SHORT --feature NO_WA_IDLE --debugfs "$D" --no-store
is "$RC" 2 "three features: exit 2"
run_cmd wb ab --feature NO_DELAY_DEQUEUE --seed 3 --debugfs "$D" --no-store
is "$RC" 2 "--seed without --order random: exit 2"
run_cmd wb ab --feature NO_DELAY_DEQUEUE -n 4 --max-time 1s --debugfs "$D" --no-store
is "$RC" 2 "--max-time with a fixed -n: exit 2"
like "$ERR" "'--max-samples' and '--max-time' bound a run until decided" "--max-time with -n: said"
run_cmd wb ab --feature NO_DELAY_DEQUEUE -n 4 --until-decided --debugfs "$D" --no-store
is "$RC" 2 "-n with --until-decided: exit 2"
run_cmd wb ab --feature NO_DELAY_DEQUEUE --margin 0 --debugfs "$D" --no-store
is "$RC" 2 "--margin 0: exit 2"
run_cmd wb ab --feature NO_DELAY_DEQUEUE --format metrics-brief --debugfs "$D" --no-store
is "$RC" 2 "--format metrics-brief: exit 2"
is "$(nwrites)" "$N0" "bad input writes nothing"
ok "[ ! -e '$JOURNAL' ]" "bad input leaves no journal"
# -v numbers every sample by its pair: 1/6 then 2/6, never beyond the total.
run_cmd wb ab --feature NO_DELAY_DEQUEUE -j 1 -t 30ms --warmup 0 -n 6 --debugfs "$D" --no-store -v
is "$RC" 0 "-v: exits 0"
is "$(printf '%s\n' "$OUT" | sed -n 's/.*] sample \([0-9]*\/[0-9]*\):.*/\1/p' | tr '\n' ' ')" \
	"1/6 1/6 2/6 2/6 3/6 3/6 4/6 4/6 5/6 5/6 6/6 6/6 " "-v: samples numbered by their pair"
like "$OUT" "\[A: DELAY_DEQUEUE=on\] summary: 6 samples" "-v: each arm's whole summary table"
like "$(printf '%s\n' "$OUT" | tail -n 1)" "^NO_DELAY_DEQUEUE: bogo ops/s \\(real time\\) " "-v: the verdict is still the last line"
done_testing
