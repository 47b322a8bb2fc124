#!/bin/sh
# Each workload's own -j default, from 'wakebench list' (no hand-kept list of
# workloads): help of run and ab shows the default that applies, a run with
# no -j uses it, list names it. pipe runs 4 instances (stress-ng --pipe 4),
# pingpong one pair (perf bench sched pipe).
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
run_cmd wb list --format json
is "$RC" 0 "list --format json exits 0"
printf '%s\n' "$OUT" >"$TMP/list.json"
j() { jq -r --arg w "$1" ".workloads[] | select(.name == \$w) | $2" "$TMP/list.json"; }
is "$(j pipe .default_instances)" 4 "pipe: -j defaults to 4 (stress-ng --pipe 4)"
is "$(j pingpong .default_instances)" 1 "pingpong: -j defaults to 1 (one pair, as perf bench)"

wb list >"$TMP/list.txt"
for w in $(jq -r '.workloads[].name' "$TMP/list.json"); do
	d=$(j "$w" .default_instances)
	run_cmd wb run "$w" -h
	like "$OUT" "--instances N .*\(default $d;" "run $w -h: -j defaults to $d"
	run_cmd wb ab "$w" -h
	like "$OUT" "--instances N .*\(default $d;" "ab $w -h: -j defaults to $d"
	like "$(cat "$TMP/list.txt")" "$(j "$w" .op); .*-j defaults to $d$" "list names $w's -j default"
	t=50ms
	[ "$(j "$w" .fixed_work)" = true ] && t=120s
	run_cmd wb run "$w" -t "$t" -n 1 --warmup 0 --no-store
	is "$RC" 0 "run $w exits 0"
	[ "$d" = 1 ] && s= || s=s
	like "$OUT" "^$d instance$s, 1 sample" "run $w runs $d instance$s by default"
done
run_cmd wb run pingpong -j 2 -t 50ms -n 1 --warmup 0 --no-store
like "$OUT" "^2 instances, 1 sample" "-j overrides the workload's default"
done_testing
