#!/bin/sh
# run pipe with tiny durations in every profile and every placement; the
# default workload; the warm-up; the profile label when an option overrides it.
. "$(dirname "$0")/lib.sh"

short="-t 100ms -n 2 --warmup 0 --no-store"
ncpu=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //' | tr ',' '\n' |
	awk -F- '{ n += ($2 == "" ? 1 : $2 - $1 + 1) } END { print n + 0 }')
[ "$ncpu" -gt 0 ] || ncpu=$(getconf _NPROCESSORS_ONLN)

for profile in stress-ng-0.15 stress-ng-0.15.07 stress-ng-0.16 stress-ng-0.21.02; do
	for placement in any same-cpu cross-cpu spread; do
		if [ "$placement" = cross-cpu ] && [ "$ncpu" -lt 2 ]; then
			skip "cross-cpu needs two allowed CPUs ($profile)"
			skip "cross-cpu needs two allowed CPUs ($profile): output"
			continue
		fi
		run_cmd wb run pipe -j 2 $short --profile "$profile" --placement "$placement"
		is "$RC" 0 "run pipe --profile $profile --placement $placement exits 0"
		n=$(printf '%s\n' "$OUT" | grep -Ec "^sample [12]/2: bogo ops/s \(real time\) $NUM  ops [1-9][0-9 ]*")
		if [ "$n" = 2 ] && printf '%s\n' "$OUT" | grep -q "^summary: 2 samples" &&
			printf '%s\n' "$OUT" | grep -q "profile: $profile\$"; then
			ok 0 "$profile $placement: two sample lines, the summary and the profile"
		else
			ok 1 "$profile $placement: two sample lines, the summary and the profile"
			diag "$OUT" "$ERR"
		fi
	done
done

run_cmd wb run -t 100ms -n 1 --warmup 0 --no-store -j 1
is "$RC" 0 "run without a workload exits 0"
like "$OUT" "^workload: pipe, profile: stress-ng-0.15$" "the default workload is pipe in stress-ng-0.15"

run_cmd wb run pipe -j 1 -t 100ms -n 1 --warmup 100ms --no-store
is "$RC" 0 "run with a warm-up exits 0"
like "$OUT" "^warm-up: bogo ops/s \(real time\) $NUM .*\(discarded\)" "the warm-up sample is printed as discarded"
like "$OUT" "^summary: 1 sample, 1 warm-up excluded" "the warm-up is excluded from the summary"

run_cmd wb run pipe -j 1 -t 100ms -n 1 --warmup 0 --no-store --data-size 1k
is "$RC" 0 "--data-size 1k exits 0"
like "$OUT" "profile: custom \(based on stress-ng-0.15\)$" "an overridden profile is custom (based on it)"
run_cmd wb run pipe -j 1 -t 100ms -n 1 --warmup 0 --no-store --profile stress-ng-0.16 --pipe-size 4k
like "$OUT" "profile: custom \(based on stress-ng-0.16\)$" "--pipe-size makes stress-ng-0.16 custom"
run_cmd wb run pipe -j 1 -t 100ms -n 1 --warmup 0 --no-store --no-packet
like "$OUT" "profile: custom \(based on stress-ng-0.15\)$" "--no-packet makes the profile custom"

like "$OUT" "^  bogo ops/s \(real time\) +1 +$NUM +n too small" "the summary has ops/s with n, by the sample line's name"
like "$OUT" "n too small" "one sample: no CI of the median"
like "$OUT" "^environment: kernel $(uname -r)" "the environment line names the kernel"
# every workload of the registry runs through the same command
wb list --format json >"$TMP/list.json" 2>/dev/null
for w in $(jq -r '.workloads[].name' "$TMP/list.json" 2>/dev/null); do
	# fixed work (hackbench's loops) runs to its end: -t is only a limit
	t=100ms
	[ "$(jq -r --arg w "$w" '.workloads[] | select(.name == $w) | .fixed_work' "$TMP/list.json")" = true ] && t=120s
	run_cmd wb run "$w" -j 1 -t $t -n 1 --warmup 0 --no-store
	is "$RC" 0 "run $w exits 0"
	like "$OUT" "^sample 1/1: [a-z].* ($NUM|$TIME)  " "run $w prints its sample"
done
done_testing
