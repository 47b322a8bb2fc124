#!/bin/sh
# show EXP by id and by UUID prefix: provenance, configs, environment, every
# sample with its metrics; JSON; unknown and ambiguous references.
. "$(dirname "$0")/lib.sh"

run_cmd wb run pipe -t 100ms -n 2 --warmup 0 -j 1 -q --label shown
is "$RC" 0 "a run to show"
uuid=$(wb export | jq -r '.experiments[0].uuid')

run_cmd wb show 1
is "$RC" 0 "show by id"
like "$OUT" "^experiment 1  $uuid" "id and UUID"
like "$OUT" "label +shown" "label"
like "$OUT" "command +.*run pipe -t 100ms" "command line"
like "$OUT" "status +complete" "status"
like "$OUT" "^configs:" "configs"
like "$OUT" "^environment" "environment"
like "$OUT" "kernel\\.release +$(uname -r)" "kernel release in the fingerprint"
is "$(printf '%s\n' "$OUT" | grep -cE '^ +[0-9]+ default +ok ')" 2 "both samples"
like "$OUT" "^        ctxsw/op +$NUM$" "metrics of the samples, by the summary's names and the one number formatter"

run_cmd wb show "$(printf '%s' "$uuid" | cut -c1-8)"
is "$RC" 0 "show by UUID prefix"
like "$OUT" "^experiment 1 " "the same experiment"

run_cmd wb show 1 --format json
is "$(printf '%s' "$OUT" | jq -r '.experiments[0].samples | length')" 2 "json: both samples"
is "$(printf '%s' "$OUT" | jq -r '.experiments[0].uuid')" "$uuid" "json: the experiment"

run_cmd wb show 42
is "$RC" 2 "unknown experiment exits 2"
like "$ERR" "no experiment '42'" "names it"
run_cmd wb show
is "$RC" 0 "show without EXP shows the newest"
like "$OUT" "^experiment 1 " "  the one stored"
run_cmd wb show 1 2
is "$RC" 2 "show of two experiments exits 2"
done_testing
