#!/bin/sh
# compare --by feature:NAME with a NAME that no stored experiment knows (a
# typo): exit 2 and one line naming the option and listing the feature names
# the experiments recorded, instead of one group "unknown". A known name
# (also given as NO_NAME) still groups.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

fakefs_start dbg
D="$TMP/dbg"
run_cmd wb ab --feature NO_DELAY_DEQUEUE -j 1 -t 50ms --warmup 0 -n 6 --debugfs "$D" -q
is "$RC" 0 "an ab is stored"

run_cmd wb compare --by feature:NOPE
is "$RC" 2 "an unknown feature: exit 2"
is "$(printf '%s\n' "$ERR" | wc -l | tr -d ' ')" 1 "in one line"
like "$ERR" "option '--by': no scheduler feature 'NOPE' in the matching experiments, allowed feature:NAME with one of: PLACE_LAG, .*DELAY_DEQUEUE" \
	"naming the option and the stored names"
is "$OUT" "" "and nothing on stdout"
run_cmd wb compare --by feature:NO_NOPE
is "$RC" 2 "NO_NOPE: exit 2 too"

run_cmd wb compare --by feature:DELAY_DEQUEUE
is "$RC" 0 "a known feature groups"
unlike "$OUT" "unknown" "into its states, not unknown"
run_cmd wb compare --by feature:NO_DELAY_DEQUEUE
is "$RC" 0 "NO_NAME is the same key"
done_testing
