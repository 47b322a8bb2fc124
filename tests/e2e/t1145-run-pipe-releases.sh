#!/bin/sh
# run pipe --profile stress-ng-X.Y.Z: a release maps to the profile that
# covers it, the mapping is printed once and stored (the profile's name, the
# release in the parameters, both in `show`); the old name stress-ng-0.21 is
# release 0.21.00; every profile runs; a value that is neither a profile nor
# a covered release is refused with exit 2 and one line.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 is not installed"
db="$TMP/store.db"
q() { sqlite3 "$db" "$1"; }
short="-j 1 -t 100ms -n 1 --warmup 0"

run_cmd wb run pipe --profile stress-ng-0.18.12 $short --db "$db"
is "$RC" 0 "--profile stress-ng-0.18.12 exits 0"
is "$(printf '%s\n' "$ERR" | grep -c '^wakebench: profile: ')" 1 "the mapping is printed once"
like "$ERR" "^wakebench: profile: stress-ng 0\.18\.12 runs as stress-ng-0\.16 \(stress-ng 0\.16\.00\.\.0\.21\.01\)$" \
	"the mapping names the release, the profile and its releases"
like "$OUT" "^workload: pipe, profile: stress-ng-0\.16$" "the header names the profile"
is "$(q "select profile || '|' || json_extract(params, '\$.profile_release') || '|' || json_extract(params, '\$.data_size_bytes') from experiments")" \
	"stress-ng-0.16|0.18.12|4096" "stored: the profile, the release, the profile's data size"
run_cmd wb show 1 --db "$db"
is "$RC" 0 "show exits 0"
like "$OUT" "^  profile +stress-ng-0\.16$" "show: the profile"
like "$OUT" "\"profile_release\": ?\"0\.18\.12\"" "show: the release in the parameters"

# the old name is release 0.21.00, a profile's own name stores no release
run_cmd wb run pipe --profile stress-ng-0.21 $short --db "$db"
is "$RC" 0 "the old name stress-ng-0.21 still runs"
like "$ERR" "profile: stress-ng 0\.21\.00 runs as stress-ng-0\.16 " "stress-ng-0.21 is release 0.21.00"
is "$(q "select profile || '|' || json_extract(params, '\$.profile_release') from experiments where id = 2")" \
	"stress-ng-0.16|0.21.00" "the old name stores stress-ng-0.16 and 0.21.00"
run_cmd wb run pipe --profile stress-ng-0.16 $short --db "$db"
is "$RC" 0 "a profile's own name runs"
unlike "$ERR" "profile: " "a profile's own name prints no mapping"
is "$(q "select profile || '|' || ifnull(json_extract(params, '\$.profile_release'), 'none') from experiments where id = 3")" \
	"stress-ng-0.16|none" "a profile's own name stores no release"

# each release range's ends, and every profile, run
for r in "0.15.00 stress-ng-0.15" "0.15.06 stress-ng-0.15" "0.15.07 stress-ng-0.15.07" \
	"0.15.10 stress-ng-0.15.07" "0.16.00 stress-ng-0.16" "0.21.01 stress-ng-0.16" \
	"0.21.02 stress-ng-0.21.02" "0.22.00 stress-ng-0.21.02" "0.22 stress-ng-0.21.02"; do
	set -- $r
	run_cmd wb run pipe --profile "stress-ng-$1" $short --no-store
	is "$RC" 0 "stress-ng-$1 runs"
	like "$OUT" "^workload: pipe, profile: $2\$" "stress-ng-$1 runs as $2"
	like "$OUT" "^sample 1/1: bogo ops/s \(real time\) $NUM  ops [1-9]" "stress-ng-$1: a sample with ops"
done

# neither a profile nor a covered release: exit 2, one line naming it and what is allowed
for v in stress-ng-0.14.06 stress-ng-0.22.01 stress-ng-1 stress-ng-0.x perf-0.16 0.18.12; do
	run_cmd wb run pipe --profile "$v" $short --no-store
	if [ "$RC" = 2 ] && [ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] &&
		printf '%s\n' "$ERR" | grep -qF "option '--profile': unknown value '$v', allowed stress-ng-0.15|stress-ng-0.15.07|stress-ng-0.16|stress-ng-0.21.02 or stress-ng-X.Y.Z for 0.15.00..0.22.00"; then
		ok 0 "--profile $v: exit 2, one line naming the option, the value and what is allowed"
	else
		ok 1 "--profile $v: exit 2, one line naming the option, the value and what is allowed"
		diag "rc=$RC" "$ERR"
	fi
done
is "$(q "select count(*) from experiments")" 3 "refused values store nothing"

# ab takes a release as run does
. "$(dirname "$0")/fakefs.sh"
fakefs_start dbg
run_cmd wb ab --feature NO_DELAY_DEQUEUE --profile stress-ng-0.22.00 -t 100ms -n 6 -j 1 \
	--debugfs "$TMP/dbg" --db "$db"
is "$RC" 0 "ab --profile stress-ng-0.22.00 exits 0"
like "$ERR" "profile: stress-ng 0\.22\.00 runs as stress-ng-0\.21\.02 \(stress-ng 0\.21\.02\.\.0\.22\.00\)" \
	"ab prints the mapping"
is "$(q "select profile || '|' || json_extract(params, '\$.profile_release') from experiments where kind = 'ab'")" \
	"stress-ng-0.21.02|0.22.00" "ab stores the profile and the release"
run_cmd wb ab --feature NO_DELAY_DEQUEUE --profile stress-ng-0.23 -t 100ms -n 2 -j 1 --debugfs "$TMP/dbg" --no-store
is "$RC" 2 "ab refuses a release no profile covers"
like "$ERR" "^wakebench: error: ab: option '--profile': unknown value 'stress-ng-0\.23'" "ab names the option and the value"
done_testing
