#!/bin/sh
# wakebench list: workloads, profiles with what they set, every option with
# its default and range; the same in JSON.
. "$(dirname "$0")/lib.sh"

run_cmd wb list
is "$RC" 0 "list exits 0"
like "$OUT" "^  pipe: " "lists the pipe workload"
like "$OUT" "stress-ng-0.15 .*\(default\)" "lists the default profile"
like "$OUT" "^      stress-ng-0\.15 +stress-ng 0\.15\.00\.\.0\.15\.06: " "lists the 0.15 profile with its releases"
like "$OUT" "^      stress-ng-0\.15\.07 +stress-ng 0\.15\.07\.\.0\.15\.10: " "lists the 0.15.07 profile with its releases"
like "$OUT" "^      stress-ng-0\.16 +stress-ng 0\.16\.00\.\.0\.21\.01: " "lists the 0.16 profile with its releases"
like "$OUT" "^      stress-ng-0\.21\.02 +stress-ng 0\.21\.02\.\.0\.22\.00: " "lists the 0.21.02 profile with its releases"
unlike "$OUT" "stress-ng-0\.21 " "the old name stress-ng-0.21 is no profile of its own"
like "$OUT" "sets:.*--data-size=512" "0.15 sets 512-byte writes"
like "$OUT" "sets:.*--data-size=4k" "0.16 sets 4096-byte writes"
like "$OUT" "--data-size SIZE.*default 512; 8\.\." "the data size option with its default and range"
like "$OUT" "-j, --instances N.*default 4" "the instances option with its default"
like "$OUT" "--placement.*any\|same-cpu\|cross-cpu\|spread" "placement choices"
like "$OUT" "--profile NAME" "the profile option"
like "$OUT" "--format FORMAT" "the common options"
like "$OUT" "^    metrics \(\* primary" "each workload lists its metrics"
like "$OUT" "^      \* ops_per_s +ops/s \(real time\) +ops/s +higher " "pipe's primary metric, marked, with label, unit and direction"
run_cmd wb list --metrics
is "$RC" 0 "list --metrics exits 0"
like "$OUT" "^name +label +unit +better +kind +source" "list --metrics has a header"
like "$OUT" "^ctxsw_per_op +ctxsw/op +- +lower +evidence,per-op +/proc " "a common metric with its kind and source"
like "$OUT" "^wakeup_lat_p99_ns +wakeup latency p99 +ns +lower " "a latency percentile, lower is better (its label without a unit: values carry theirs)"
run_cmd wb list --workloads
unlike "$OUT" "runner options" "list --workloads leaves out the options"
like "$OUT" "^  pingpong: " "list --workloads lists the workloads"
run_cmd wb list --metrics --workloads
is "$RC" 2 "--metrics and --workloads together are a usage error"
like "$ERR" "'--metrics' and '--workloads'" "the message names both options"

command -v jq >/dev/null 2>&1 || { skip "jq is not installed"; done_testing; exit; }
run_cmd wb list --format json
is "$RC" 0 "list --format json exits 0"
printf '%s\n' "$OUT" >"$TMP/list.json"
ok "jq -e . '$TMP/list.json'" "parses as JSON"
is "$(jq -r '.workloads[] | select(.name == "pipe") | .default_profile' "$TMP/list.json")" stress-ng-0.15 "default profile in JSON"
is "$(jq '.workloads[] | select(.name == "pipe") | .profiles[] | select(.name == "stress-ng-0.16") | .params.data_size_bytes' "$TMP/list.json")" 4096 \
	"profile parameters in JSON"
is "$(jq -r '.option_groups[0].options[] | select(.name == "instances") | .default' "$TMP/list.json")" 4 "runner option default in JSON"
is "$(jq -r '.workloads[] | select(.name == "pingpong") | "\(.primary) \(.unit) \(.better) \(.metrics[0].name)"' "$TMP/list.json")" \
	"ops_per_s round trips/s higher ops_per_s" "a workload's primary metric in JSON"
is "$(jq -r '.metrics[] | select(.name == "run_delay_ns_per_op") | "\(.unit) \(.better) \(.evidence) \(.per_op) \(.source)"' "$TMP/list.json")" \
	"ns lower true true /proc" "the registry in JSON"
run_cmd wb list --format metrics-brief
is "$RC" 2 "list --format metrics-brief is a usage error"
run_cmd wb list extra
is "$RC" 2 "list with an argument is a usage error"
done_testing
