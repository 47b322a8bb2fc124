#!/bin/sh
# compare --by feature:NAME for `run`s on locked-down kernels: their configs
# carry no feature vector and sched.features is unreadable, so the state
# comes from sched.features_debug (decoded from sched/debug), which is then
# the grouping key itself and never a reason to split; other features that
# differ within a state still split it.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
synth="$TMP/synth.db"
S() { "$SYNTH" --synth "$synth" "$@" >/dev/null; }

S 1 6 6.18 r host 1700000 "sched.features=unreadable" \
	"sched.features_debug=PLACE_LAG DELAY_DEQUEUE WAKEUP_PREEMPTION"
S 1 6 6.18 r host 1900000 "sched.features=unreadable" \
	"sched.features_debug=PLACE_LAG NO_DELAY_DEQUEUE WAKEUP_PREEMPTION"
# as `run` stores them: a config without a feature vector
WAKEBENCH_DB="$synth" "$WAKEBENCH" export | jq '.experiments[].configs[].features = null' \
	>"$TMP/runs.json"
run_cmd wb import "$TMP/runs.json"
is "$RC" 0 "runs without a config vector imported"

run_cmd wb compare --by feature:DELAY_DEQUEUE --format json
is "$RC" 0 "compare --by feature:DELAY_DEQUEUE"
is "$(printf '%s' "$OUT" | jq -r '[.groups[] | "\(.title):\(.n)"] | join(",")')" \
	"DELAY_DEQUEUE:6,NO_DELAY_DEQUEUE:6" "the state from sched.features_debug, one group each"
is "$(printf '%s' "$OUT" | jq -r '.groups[1] | "\(.effect.estimate > 0.1) \(.verdict) \(.inference.level)"')" \
	"true inconclusive one-boot" "NO_DELAY_DEQUEUE vs DELAY_DEQUEUE: faster, one boot each, so not decided"
unlike "$ERR" "split" "no split by the grouping key"

# another run with DELAY_DEQUEUE, but PLACE_LAG off: not pooled silently
rm -f "$synth"
S 1 6 6.18 r host 1750000 "sched.features=unreadable" \
	"sched.features_debug=NO_PLACE_LAG DELAY_DEQUEUE WAKEUP_PREEMPTION"
WAKEBENCH_DB="$synth" "$WAKEBENCH" export | jq '.experiments[].configs[].features = null' \
	>"$TMP/more.json"
run_cmd wb import "$TMP/more.json"
run_cmd wb compare --by feature:DELAY_DEQUEUE --format json
is "$(printf '%s' "$OUT" | jq -r '[.groups[] | "\(.title):\(.n)"] | join(",")')" \
	"DELAY_DEQUEUE [PLACE_LAG=on]:6,DELAY_DEQUEUE [PLACE_LAG=off]:6,NO_DELAY_DEQUEUE:6" \
	"a state whose other features differ is split by them"
like "$ERR" "DELAY_DEQUEUE is split into sub-groups by sched\\.features_debug" "the split is explained"

done_testing
