#!/bin/sh
# The filters of compare, export and report: a repeated filter is a union
# (--label base --label brief keeps both), the filters together an
# intersection; --kernel takes a stored release or the start of exactly
# one up to a separator (6.12.75 of 6.12.75+rpt-rpi-2712; 6.1 never of
# 6.18.44); the start of several is refused,
# naming them, with exit 2; so is a --since day that does not exist.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v jq >/dev/null || skip_all "jq is not installed"
S() { "$SYNTH" --synth "$WAKEBENCH_DB" "$@" >/dev/null; }

S 1 4 6.18.44-fc-v1098 base host 1000000
S 1 4 6.18.44-fc-v1098 brief host 1100000
S 1 4 6.12.75+rpt-rpi-2712 base pi 900000
S 1 4 6.12.75+rpt-rpi-2712 other pi 900000
S 1 4 6.1.0 base host 800000
S 1 4 6.1.0-rt base host 800000

ids() { wb export --format json "$@" | jq -c '[.experiments[].id]'; }
is "$(ids --label base --label brief)" "[1,2,3,5,6]" "--label twice: either label"
is "$(ids --label base --label brief --host host)" "[1,2,5,6]" "repeated filters are a union, different ones an intersection"
is "$(ids --kernel 6.18.44 --kernel 6.12.75)" "[1,2,3,4]" "--kernel twice, each the start of one release"
is "$(ids --kernel 6.1.0)" "[5]" "a stored release is taken as it is, though it starts another"
is "$(ids --kernel 6.1.0-rt --kernel 6.18)" "[1,2,6]" "6.18 is the start of 6.18.44-fc-v1098 only, up to a separator"

run_cmd wb compare --label base --label brief --format json
is "$RC" 0 "compare --label A --label B exits 0"
is "$(printf '%s' "$OUT" | jq -c '[.groups[].experiments[]] | sort')" "[1,2,3,5,6]" \
	"compare: the experiments of both labels"
run_cmd wb compare --kernel 6.18.44
is "$RC" 0 "compare --kernel 6.18.44 (stored: 6.18.44-fc-v1098)"
like "$OUT" "^6\\.18\\.44-fc-v1098 " "the prefix names the stored release"

run_cmd wb compare --kernel 6.1
is "$RC" 2 "the start of several releases: exit 2"
is "$(printf '%s\n' "$ERR" | wc -l)" 1 "one line"
like "$ERR" "compare: option '--kernel': '6\\.1' is the start of 2 stored releases, allowed one of 6\\.1\\.0\\|6\\.1\\.0-rt$" \
	"names the option, the value and the releases it could mean"
run_cmd wb compare --kernel 6.19
is "$RC" 2 "an unknown release: exit 2"
like "$ERR" "option '--kernel': no stored experiment has '6\\.19', stored " "says what is stored"
run_cmd wb export --label base --label nope
is "$RC" 2 "one unknown value of a repeated filter: exit 2"
like "$ERR" "export: option '--label': no stored experiment has 'nope', stored base\\|brief\\|other$" \
	"names the unknown one"
run_cmd wb report --label brief --label other --format markdown --no-data
is "$RC" 0 "report takes repeated filters too"
like "$OUT" "6\\.12\\.75\\+rpt-rpi-2712" "report: the other label's kernel is in"
like "$OUT" "6\\.18\\.44-fc-v1098" "and brief's"

# --since: a day that does not exist is refused, not moved into the next month
for day in 2026-02-30 2026-02-29 2026-04-31T08:00; do
	run_cmd wb log --since "$day"
	is "$RC" 2 "--since $day: exit 2"
	is "$ERR" "wakebench: error: log: option '--since': not a date or duration: '$day', allowed YYYY-MM-DD[THH:MM[:SS]] or a duration such as 2h" \
		"--since $day: one line naming the option, the value and what is allowed"
done
run_cmd wb log --since 2028-02-29
is "$RC" 0 "--since 2028-02-29 (a leap year's day): exit 0"
done_testing
