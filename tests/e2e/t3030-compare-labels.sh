#!/bin/sh
# compare's group labels say only what sets a sub-group apart: an ab's arms
# and plain runs on one kernel are "KERNEL [DELAY_DEQUEUE=off, preempt=full]",
# not the whole feature line; a key whose values repeat another's is shown
# once; a long value keeps the part that differs. The environment
# differences show a feature vector's change as features turned on or off,
# added and removed, and fold long values at 100 columns.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed"
S() { "$SYNTH" --synth "$WAKEBENCH_DB" "$@" >/dev/null; }
SQL() { sqlite3 "$WAKEBENCH_DB" "$1"; }
vector() { tr '\n' ' ' <"$FIXTURES/sched-features/$1.txt" | sed 's/ *$//'; }
V618=$(vector v6.18)
V612=$(vector v6.12)
K=6.18.44-fc-v1098

# two runs (preempt none, features unreadable but decoded), one ab (preempt full)
S 2 8 $K "" host 1000000 "kernel.preempt=none" "sched.features=unreadable: kernel lockdown (EPERM):0" \
	"sched.features_debug=$V618" "workload.profile=stress-ng-0.15"
S 1 8 $K "" host 1000000 ab=DELAY_DEQUEUE "kernel.preempt=full" "sched.features=$V618" \
	"sched.features_debug=$V618" "workload.profile=stress-ng-0.15"

run_cmd wb compare
is "$RC" 0 "compare exits 0"
labels=$(printf '%s\n' "$OUT" | sed -n '/^Kernel /,/^$/p' | sed -n "s/^\\($K[^]]*]\\?\\) .*/\\1/p")
is "$(printf '%s\n' "$labels" | wc -l)" 3 "three sub-groups: the runs and the ab's two arms"
like "$labels" "^$K \\[DELAY_DEQUEUE=on, preempt=none\\]$" "the runs: only the keys that differ among the sub-groups"
like "$labels" "^$K \\[DELAY_DEQUEUE=on, preempt=full\\]$" "arm A: the feature's state, not the config's name"
like "$labels" "^$K \\[DELAY_DEQUEUE=off, preempt=full\\]$" "arm B"
unlike "$OUT" "PLACE_LAG|sched\\.features=|config=" "no feature line and no config key in any label"
is "$(printf '%s\n' "$labels" | awk 'length > 60' | wc -l)" 0 "every label fits 60 columns"
like "$OUT" "^    strong   sched.features +unreadable: kernel lockdown \\(EPERM\\) -> 26 features$" \
	"readable on one side only: the reason and a count, not the vector"
wb compare --format json >"$TMP/c.json"
ok "jq -e '[.groups[].title | length] | max < 60' '$TMP/c.json' >/dev/null" \
	"the JSON's group names are the short labels"

# a key that repeats another's values (profile and workload.profile) is shown once
rm -f "$WAKEBENCH_DB"
S 1 8 6.12.0 cand host 1000000 "workload.profile=stress-ng-0.15"
S 1 8 6.12.0 cand host 1000000 "workload.profile=stress-ng-0.16"
SQL "UPDATE experiments SET profile = 'stress-ng-0.16' WHERE id = 2"
run_cmd wb compare --by label
like "$OUT" "^cand \\[profile=stress-ng-0\\.15\\] " "a repeated key is shown once"
unlike "$OUT" "profile=stress-ng-0\\.15, .*profile=" "never twice"

# long values: the part that differs
rm -f "$WAKEBENCH_DB"
S 1 8 6.1.0 "" host 1000000 "kernel.build=#1 SMP PREEMPT_DYNAMIC Debian 6.1.123-1 (2025-01-02)"
S 1 8 6.1.0 "" host 1000000 "kernel.build=#1 SMP PREEMPT_DYNAMIC Debian 6.1.124-1 (2025-02-01)"
run_cmd wb compare
like "$OUT" "^6\\.1\\.0 \\[build=\\.\\.\\.123-1 \\(2025-01-02\\)\\] " "a long value keeps what differs"
like "$OUT" "^6\\.1\\.0 \\[build=\\.\\.\\.124-1 \\(2025-02-01\\)\\] " "and tells the sub-groups apart"

# environment differences of two kernels: the features added and removed, folded
rm -f "$WAKEBENCH_DB"
S 1 8 6.12.0 "" host 1000000 "sched.features=$V612" \
	"kernel.build=#1 SMP PREEMPT_DYNAMIC Debian 6.12.57-1 (2025-11-05) with a long tail of words to fold"
S 1 8 6.18.0 "" host 1000000 "sched.features=$(printf '%s\n' "$V618" | sed 's/^/NO_/; s/ DELAY_DEQUEUE / NO_DELAY_DEQUEUE /')" \
	"kernel.build=#1 SMP PREEMPT_DYNAMIC Debian 6.18.1-1 (2026-01-10) with a long tail of words to fold"
run_cmd wb compare
diffs=$(printf '%s\n' "$OUT" | sed -n '/^Environment differences/,/^$/p')
joined=$(printf '%s\n' "$diffs" | tr '\n' ' ' | tr -s ' ')
line=$(printf '%s\n' "$diffs" | grep '^    strong   sched.features ')
like "$line" "PLACE_LAG on -> off" "a feature turned off is named as such"
like "$line" "DELAY_DEQUEUE on -> off" "DELAY_DEQUEUE off"
want_added=$(for f in $V618; do b=${f#NO_}; printf '%s\n' "$V612" | tr ' ' '\n' | sed 's/^NO_//' | grep -qx "$b" || printf '%s\n' "$b"; done | head -1)
want_removed=$(for f in $V612; do b=${f#NO_}; printf '%s\n' "$V618" | tr ' ' '\n' | sed 's/^NO_//' | grep -qx "$b" || printf '%s\n' "$b"; done | head -1)
if [ -n "$want_added" ]; then
	like "$joined" "added [A-Z_ ]*$want_added" "a feature 6.18 added is listed as added ($want_added)"
else
	skip "the fixtures add no feature"
fi
if [ -n "$want_removed" ]; then
	like "$joined" "removed [A-Z_ ]*$want_removed" "a feature 6.18 removed is listed as removed ($want_removed)"
else
	skip "the fixtures remove no feature"
fi
unlike "$diffs" "WAKEUP_PREEMPTION WA_IDLE|PICK_BUDDY CACHE_HOT_BUDDY" "the vectors are not printed whole"
is "$(printf '%s\n' "$diffs" | awk 'length > 100' | wc -l)" 0 "every line of the differences fits 100 columns"
like "$diffs" "with a long tail" "the long kernel.build is folded, not dropped"
wb compare --format json >"$TMP/c.json"
ok "jq -e '[.groups[].env_diff[]? | select(.key == \"sched.features\") | .change] | .[0] | test(\"DELAY_DEQUEUE on -> off\")' '$TMP/c.json' >/dev/null" \
	"compare's JSON carries the change in words"
done_testing
