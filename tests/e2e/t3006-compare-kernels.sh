#!/bin/sh
# compare --by kernel on synthesised stores: kernels in version order with
# the oldest as the default baseline, the report's table shape, a group
# whose experiments differ in a strong key split (or pooled with --pool and
# a warning), grouping by a feature's state, insufficient samples.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
S() { "$SYNTH" --synth "$WAKEBENCH_DB" "$@" >/dev/null; }

S 1 8 7.0 r host 1660000 kernel.preempt=lazy
# three experiments each: one experiment per group decides nothing (t3020)
S 3 8 6.12.75 r host 1651427 kernel.preempt=voluntary
S 3 8 6.6.78 r host 2487746 kernel.preempt=voluntary
S 1 8 6.18 r host 1700000 kernel.preempt=voluntary
S 1 8 6.18 r host 1500000 kernel.preempt=full

run_cmd wb compare
is "$RC" 0 "compare exits 0"
rows=$(printf '%s\n' "$OUT" | awk '/^Kernel/ { t = 1; next } t && NF == 0 { exit } t { print $1 }' | tr '\n' ' ')
is "$rows" "6.6.78 6.12.75 6.18 6.18 7.0 " "kernels in version order, oldest first"
like "$OUT" "^6\\.6\\.78 +24 +1 +2 4[0-9]{2} [0-9]{3} .* 100% .*baseline" \
	"baseline: the oldest kernel, samples and boots, ops/s grouped in thousands"
like "$OUT" "^6\\.12\\.75 +24 +1 .* -3[0-9]\\.[0-9]% +\\[-3[0-9]\\.[0-9]%, -3[0-9]\\.[0-9]%\\] .*regression" \
	"6.12.75: about -34% with its CI, a regression"
like "$OUT" "^  6\\.12\\.75: same boot as the baseline, so experiments are the units: 3 experiments vs 3" \
	"the inference names its unit and how many"
like "$OUT" "^  7\\.0: same boot .*: 1 experiment vs 3: .*between-experiment sd [0-9.]+% from the 3 experiments of 6\\.6\\.78" \
	"one experiment against three: the spread between experiments comes from the baseline's, as stated"
like "$OUT" "^6\\.18 \\[preempt=voluntary\\]" "6.18 split: voluntary"
like "$OUT" "^6\\.18 \\[preempt=full\\]" "6.18 split: full"
like "$ERR" "6\\.18 is split into sub-groups by kernel\\.preempt" "the split is explained"
like "$OUT" "strong +kernel\\.preempt +voluntary -> lazy" "7.0's preemption difference is listed"
like "$OUT" "strong +kernel\\.release +6\\.6\\.78 -> 7\\.0" "and its release"
run_cmd wb compare --baseline 7.0
like "$OUT" "^6\\.18 \\[preempt=full\\] +8 +1 .* - +inconclusive at a 2% margin \\(one experiment per group: run-to-run variation unknown\\)" \
	"one experiment against one: not decided, no p-value"

run_cmd wb compare --pool
is "$RC" 0 "compare --pool"
like "$ERR" "warning: .*pooling the experiments of 6\\.18" "pooling warns"
like "$OUT" "^6\\.18 +16 " "pooled: one group of 16"

run_cmd wb compare --baseline 6.12.75 --format json
is "$(printf '%s' "$OUT" | jq -r '.groups[0].value')" "6.12.75" "--baseline picks the group"
is "$(printf '%s' "$OUT" | jq -r '.groups[] | select(.value == "6.6.78") | .verdict')" "improvement" \
	"6.6.78 vs 6.12.75 is an improvement"
is "$(printf '%s' "$OUT" | jq -r '.groups[] | select(.value == "7.0") | .env_diff[0].impact')" "strong" \
	"environment differences strongest first"

run_cmd wb compare --by feature:DELAY_DEQUEUE --pool --format json
is "$RC" 0 "compare --by feature:NAME"
is "$(printf '%s' "$OUT" | jq -r '[.groups[].value] | join(",")')" "DELAY_DEQUEUE" \
	"grouped by the feature's state in the config"

# an `ab` experiment: its two arms are not pooled with each other or with `run`s
S 1 12 6.18 r host 1700000 kernel.preempt=voluntary ab=DELAY_DEQUEUE
run_cmd wb compare --kernel 6.18 --baseline 6.18 --format json
is "$(printf '%s' "$OUT" | jq -r '[.groups[].split] | join(";")')" \
	"DELAY_DEQUEUE=on, preempt=voluntary, run;DELAY_DEQUEUE=on, preempt=full, run;DELAY_DEQUEUE=on, preempt=voluntary, ab;DELAY_DEQUEUE=off, preempt=voluntary, ab" \
	"the arms of an ab are sub-groups of their own"
run_cmd wb compare --kernel 6.18 --by feature:DELAY_DEQUEUE --format json
is "$(printf '%s' "$OUT" | jq -r '[.groups[] | "\(.title):\(.n)"] | join(",")')" \
	"DELAY_DEQUEUE [preempt=voluntary]:14,DELAY_DEQUEUE [preempt=full]:8,NO_DELAY_DEQUEUE:6" \
	"by feature: the ab's arms by their vectors, runs by theirs, full preemption apart"
is "$(printf '%s' "$OUT" | jq -r '.groups[] | select(.value == "NO_DELAY_DEQUEUE") | "\(.verdict) \(.evidence[0].name) \(.evidence[0].effect.estimate < -0.4) \(.evidence[0].effect.verdict)"')" \
	"improvement ctxsw_per_op true null" "NO_DELAY_DEQUEUE: faster, half the context switches per op (evidence: no verdict)"

S 1 3 6.1.0 few host 2000000
run_cmd wb compare --kernel 6.1.0 --format csv
is "$(printf '%s\n' "$OUT" | tail -1 | cut -d, -f1,4,12)" "6.1.0,3,baseline" "a single group is its own baseline"
run_cmd wb compare --baseline 6.1.0 --format json
is "$(printf '%s' "$OUT" | jq -r '.groups[] | select(.value == "7.0") | .verdict')" "insufficient" \
	"3 samples against 8, one experiment each: insufficient samples"
run_cmd wb compare --baseline 6.1.0
like "$OUT" "^7\\.0 +8 +1 .* insufficient samples \\(at least 4 per side\\)$" \
	"text: the verdict with its reason, said once"
done_testing
