#!/bin/sh
# The mistakes people make, each answered with exit 2, one line on stderr
# and what they meant: a mistyped command, workload, option, option value,
# profile, placement, --by key or scheduler feature ("did you mean"),
# stress-ng's options typed out of habit (the whole command in wakebench's
# words), and a --db in a directory that does not exist (refused, nothing
# created: only the default location's directory is created).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

# bad "ARGS" "text the line must contain" "name"
bad() {
	run_cmd sh -c "$1"
	if [ "$RC" = 2 ] && [ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] &&
		printf '%s\n' "$ERR" | grep -qF -- "$2"; then
		ok 0 "$3: exit 2, one line, '$2'"
	else
		ok 1 "$3: exit 2, one line, '$2'"
		diag "rc=$RC" "$ERR"
	fi
	[ -z "$OUT" ] || { diag "stdout: $OUT"; }
}

fakefs_start dbg
D="$TMP/dbg"
ORIG=$(fakefs_features dbg)
W="'$WAKEBENCH'"

# names, each with the closest one
bad "$W rnu" "unknown command 'rnu', allowed run|ab|" "a swapped command"
bad "$W rnu" "; did you mean 'run'?" "  offered"
bad "$W Run" "; did you mean 'run'?" "a command in capitals"
bad "$W run piep --no-store" "run: unknown workload 'piep', allowed pipe|pingpong|messaging|ring|schbench; did you mean 'pipe'?" "a swapped workload"
bad "$W run --sample 3 --no-store" "run: unknown option '--sample' (see 'wakebench run -h'); did you mean '--samples'?" \
	"an option without its s (not the workload '3')"
bad "$W ab --feature NO_DELAY_DEQUEUE --max 3" "did you mean '--max-samples' or '--max-time'?" "two as close: both"
bad "$W run --profile stress-ng-015 --no-store" \
	"run: option '--profile': unknown value 'stress-ng-015', allowed stress-ng-0.15|stress-ng-0.15.07|stress-ng-0.16|stress-ng-0.21.02 or stress-ng-X.Y.Z for 0.15.00..0.22.00; did you mean 'stress-ng-0.15'?" \
	"a profile without its dot"
bad "$W run --placement samecpu --no-store" \
	"option '--placement': unknown value 'samecpu', allowed any|same-cpu|cross-cpu|spread; did you mean 'same-cpu'?" \
	"a placement without its dash"
bad "$W features sho --debugfs '$D'" "unknown subcommand 'sho', allowed show|set|restore; did you mean 'show'?" \
	"a features subcommand"
bad "$W export --format jsn" "export: option '--format': unknown value 'jsn', allowed json|csv|" "a format"
bad "$W export --format jsn" "; did you mean 'json'?" "  offered"

# scheduler features: as this kernel spells them, NAME or NO_NAME as typed
bad "$W ab --feature delay_dequeue --debugfs '$D' --no-store" \
	"ab: option '--feature': unknown scheduler feature 'delay_dequeue'; this kernel has: " "a feature in lower case"
like "$ERR" "; did you mean 'DELAY_DEQUEUE'\\?\$" "  offered as the kernel spells it"
bad "$W ab --feature no_delay_dequeu --debugfs '$D' --no-store" "; did you mean 'NO_DELAY_DEQUEUE'?" \
	"NO_ kept, a letter missing"
bad "$W features set delay_dequeue --debugfs '$D'" "; did you mean 'DELAY_DEQUEUE'?" "features set"
is "$(fakefs_features dbg)" "$ORIG" "features as found"

# compare and report --by
wb run pipe -t 20ms -n 1 -j 1 --warmup 0 -q >/dev/null 2>&1
bad "$W compare --by kernal" \
	"compare: option '--by': unknown key 'kernal', allowed kernel|label|profile|host|feature:NAME; did you mean 'kernel'?" \
	"compare --by kernal"
bad "$W report --by kernal -o '$TMP/r.html'" "did you mean 'kernel'?" "report --by kernal"
if [ -x "$(dirname "$WAKEBENCH")/tests/t-store" ]; then
	"$(dirname "$WAKEBENCH")/tests/t-store" --synth "$TMP/f.db" 1 4 6.18 "" host 1000 >/dev/null
	bad "$W compare --db '$TMP/f.db' --by feature:delay_dequeue" \
		"no scheduler feature 'delay_dequeue' in the matching experiments, allowed feature:NAME with one of: DELAY_DEQUEUE, PREEMPT_SHORT; did you mean 'feature:DELAY_DEQUEUE'?" \
		"compare --by feature:delay_dequeue"
else
	skip "test helper t-store not built"
fi

# nothing close: the list alone
bad "$W frobnicate" "unknown command 'frobnicate', allowed run|" "nothing close"
unlike "$ERR" "did you mean" "  and nothing offered"
bad "$W run --xyzzy --no-store" "unknown option '--xyzzy' (see 'wakebench run -h')" "an option nothing is close to"
unlike "$ERR" "did you mean" "  and nothing offered"

# stress-ng's options: the whole command in wakebench's words
bad "$W run --timeout 20s --no-store" "run: unknown option '--timeout' (stress-ng's --timeout: here -t/--duration" "--timeout"
bad "$W run --timeout 20s --no-store" "did you mean 'wakebench run -t 20s --no-store'?" "  as -t"
bad "$W run --pipe 4" "run: unknown option '--pipe' (stress-ng's --pipe N: here the workload pipe with -j N instances); did you mean 'wakebench run pipe -j 4'?" \
	"--pipe 4 (not the workload '4')"
bad "$W run --pipe=2 --no-store" "did you mean 'wakebench run pipe -j 2 --no-store'?" "--pipe=2"
bad "$W run --metrics-brief" "did you mean 'wakebench run --format metrics-brief'?" "--metrics-brief"
bad "$W run --pipe 4 --timeout 20s --metrics-brief" \
	"did you mean 'wakebench run pipe -j 4 -t 20s --format metrics-brief'?" "the report's stress-ng command"
bad "$W run pipe --taskset 0-1 --pipe-data-size 4k" "did you mean 'wakebench run pipe --cpus 0-1 --data-size 4k'?" \
	"--taskset and --pipe-data-size after the workload"
bad "$W ab --feature NO_DELAY_DEQUEUE --pipe 2 --timeout=1s --debugfs '$D'" \
	"did you mean 'wakebench ab --feature NO_DELAY_DEQUEUE pipe -j 2 -t 1s --debugfs $D'?" "ab --pipe 2 --timeout=1s"
bad "$W ab --feature NO_DELAY_DEQUEUE --metrics-brief --debugfs '$D'" "unknown option '--metrics-brief' (see 'wakebench ab -h')" \
	"ab has no metrics-brief: no translation"
is "$(fakefs_features dbg)" "$ORIG" "features as found"
# messaging's own --pipe (hackbench's) is no habit
run_cmd wb run messaging --pipe -h
is "$RC" 0 "run messaging --pipe -h: messaging's --pipe"
like "$OUT" "workload options \\(messaging\\)" "  its help"

# --db in a directory that does not exist: refused, nothing created
for cmd in "run pipe -t 20ms -n 1 -j 1 --warmup 0" "export" "compare" "show 1" "import $WAKEBENCH_DB"; do
	bad "$W $cmd --db '$TMP/typo/dir/x.db'" \
		"option '--db': directory '$TMP/typo/dir' does not exist: create it, or leave --db out for the default store" \
		"--db in a missing directory ($cmd)"
done
bad "$W ab --feature NO_DELAY_DEQUEUE -n 6 --debugfs '$D' --db '$TMP/typo/dir/x.db'" \
	"option '--db': directory '$TMP/typo/dir' does not exist" "--db in a missing directory (ab)"
bad "WAKEBENCH_DB='$TMP/typo/x.db' $W run pipe -t 20ms -n 1 -j 1 --warmup 0" \
	"WAKEBENCH_DB: directory '$TMP/typo' does not exist: create it, or unset WAKEBENCH_DB for the default store" \
	"WAKEBENCH_DB in a missing directory"
ok "[ ! -e '$TMP/typo' ]" "nothing created"
is "$(fakefs_features dbg)" "$ORIG" "features as found"
# a missing file in a directory that exists is still created, as before
run_cmd wb run pipe -t 20ms -n 1 -j 1 --warmup 0 -q --db "$TMP/new.db"
is "$RC" 0 "--db of a new file in an existing directory"
ok "[ -s '$TMP/new.db' ]" "  creates the store"
# the default location is created with its directories
XDG_DATA_HOME="$TMP/xdg/deep" WAKEBENCH_DB= run_cmd wb run pipe -t 20ms -n 1 -j 1 --warmup 0 -q
is "$RC" 0 "the default store"
ok "[ -s '$TMP/xdg/deep/wakebench/results.db' ]" "  is created with its directories"
is "$(stat -c %a "$TMP/xdg/deep/wakebench")" 700 "  private"
# a reader of the default location creates nothing
XDG_DATA_HOME="$TMP/xdg2" WAKEBENCH_DB= run_cmd wb compare
is "$RC" 1 "compare with no default store: exit 1"
ok "[ ! -e '$TMP/xdg2' ]" "  creates nothing"
done_testing
