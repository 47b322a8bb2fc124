#!/bin/sh
# Each workload's own -j default: pipe runs 4 instances (stress-ng --pipe 4),
# pingpong one pair (perf bench sched pipe); help shows the default that applies.
. "$(dirname "$0")/lib.sh"

run_cmd wb run pipe -h
like "$OUT" "--instances N .*\(default 4;" "run pipe -h: -j defaults to 4"
run_cmd wb run pingpong -h
like "$OUT" "--instances N .*\(default 1;" "run pingpong -h: -j defaults to 1"
run_cmd wb ab pingpong -h
like "$OUT" "--instances N .*\(default 1;" "ab pingpong -h: -j defaults to 1"
run_cmd wb run pingpong -t 50ms -n 1 --warmup 0 --no-store
is "$RC" 0 "run pingpong exits 0"
like "$OUT" "^1 instance, 1 sample" "pingpong runs one pair by default"
run_cmd wb run pingpong -j 2 -t 50ms -n 1 --warmup 0 --no-store
like "$OUT" "^2 instances, 1 sample" "-j overrides the workload's default"
run_cmd wb run pipe -t 50ms -n 1 --warmup 0 --no-store
like "$OUT" "^4 instances, 1 sample" "pipe runs four instances by default"
run_cmd wb list --format json
is "$(printf '%s' "$OUT" | jq -c '[.workloads[] | [.name, .default_instances]]')" \
	'[["pipe",4],["pingpong",1]]' "list --format json gives each workload's -j default"
run_cmd wb list
like "$OUT" "round trips; .*-j defaults to 1$" "list names pingpong's -j default"
done_testing
