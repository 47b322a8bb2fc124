#!/bin/sh
# ab --ceiling --trace against the FUSE stand-in: each arm's summary has the
# scheduler and wakeup share of the cost, every measured sample stores the
# ceiling and the share, and the experiment stores the tracer that ran.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

command -v jq >/dev/null || skip_all "jq is not installed"
fakefs_start dbg
D="$TMP/dbg"
db="$TMP/ab.db"

run_cmd wb ab --feature NO_DELAY_DEQUEUE -t 50ms -n 6 -j 1 --ceiling --debugfs "$D" --db "$db"
is "$RC" 0 "ab --ceiling exits 0"
is "$(printf '%s\n' "$OUT" | grep -c '^  scheduler and wakeup share of the cost: [0-9.-]*% ')" 2 \
	"one share line per arm"
u=$(wb show 1 --db "$db" --format json | jq -r '.experiments[0].uuid')
wb show "$u" --db "$db" --format json >"$TMP/show.json"
n=$(jq '[.experiments[0].samples[] | select(.warmup == false) | .metrics.sched_share
	| select(. != null)] | length' "$TMP/show.json")
is "$n" 12 "every measured sample (6 pairs x 2 arms) stores the share"
is "$(jq -r '.experiments[0].params.ceiling' "$TMP/show.json")" true "the option is stored"

if [ "$(id -u)" = 0 ]; then
	run_cmd wb ab --feature NO_DELAY_DEQUEUE -t 50ms -n 6 -j 1 --trace=auto --debugfs "$D" --db "$db" --format json
	is "$RC" 0 "ab --trace=auto exits 0"
	t=$(printf '%s' "$OUT" | jq -r '.uuid' 2>/dev/null)
	tr=$(wb show "$t" --db "$db" --format json | jq -r '.experiments[0].params.tracer')
	like "$tr" "^(bpf|perf|off)$" "the stored tracer is named ($tr)"
else
	skip "tracing needs root"; skip "tracing needs root"
fi
done_testing
