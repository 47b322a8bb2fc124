#!/bin/sh
# Every bad input of the run command: exit 2 and one line on stderr that
# names the option (and the value), before anything runs.
. "$(dirname "$0")/lib.sh"

# bad "ARGS" "regex the message must match" "name"
bad() {
	run_cmd sh -c "$1"
	if [ "$RC" = 2 ] && [ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] &&
		printf '%s\n' "$ERR" | grep -Eq -- "$2"; then
		ok 0 "$3: exit 2, one line naming it"
	else
		ok 1 "$3: exit 2, one line naming it"
		diag "rc=$RC" "$ERR"
	fi
	[ -z "$OUT" ] || { diag "stdout: $OUT"; }
}

W="'$WAKEBENCH'"
max=$(cat /proc/sys/fs/pipe-max-size)
bad "$W run pipe -j 0 --no-store" "'--instances' \\(-j\\).*'0'" "-j 0"
bad "$W run pipe -t 0 --no-store" "'--duration' \\(-t\\).*'0'" "-t 0"
bad "$W run pipe -t 5x --no-store" "'--duration' \\(-t\\).*'5x'" "-t 5x"
bad "$W run pipe -t 99999999999999h --no-store" "'--duration' \\(-t\\): value out of range: '99999999999999h', allowed 1ms\\.\\.24h" "-t too large to hold: out of range"
bad "$W run pipe -n 99999999999999999999999 --no-store" "'--samples' \\(-n\\): value out of range: '9+', allowed 1\\.\\." "-n too large to hold: out of range"
bad "$W run pipe -t 0x10ms --no-store" "'--duration' \\(-t\\): not a duration .*'0x10ms'" "-t 0x10ms (hexadecimal)"
bad "$W run pipe --data-size 0x10 --no-store" "'--data-size': not a size .*'0x10'" "--data-size 0x10 (hexadecimal)"
bad "$W run pipe --debugfs '' --no-store" "run: option '--debugfs': empty directory name" "--debugfs ''"
bad "$W ab --feature NO_DELAY_DEQUEUE --debugfs '' --no-store" "ab: option '--debugfs': empty directory name" "ab --debugfs ''"
bad "$W features --debugfs ''" "features: option '--debugfs': empty directory name" "features --debugfs ''"
# a --debugfs that is no directory is a typo: said before anything runs
ALLOWED="allowed the directory where debugfs is mounted \\(default /sys/kernel/debug\\)$"
printf 'not a directory\n' >"$TMP/file"
bad "$W run pipe -n 1 -t 10ms --debugfs /nonexistent --no-store" \
	"^wakebench: error: run: option '--debugfs': '/nonexistent' does not exist, $ALLOWED" \
	"--debugfs /nonexistent"
bad "$W run pipe -n 1 -t 10ms --debugfs '$TMP/file' --no-store" \
	"run: option '--debugfs': '.*/file' is not a directory, $ALLOWED" "--debugfs FILE"
bad "$W ab --feature NO_DELAY_DEQUEUE --debugfs /nonexistent --no-store" \
	"ab: option '--debugfs': '/nonexistent' does not exist" "ab --debugfs /nonexistent"
bad "$W features --debugfs /nonexistent" \
	"features: option '--debugfs': '/nonexistent' does not exist" "features --debugfs /nonexistent"
bad "$W env --debugfs '$TMP/file/sub'" \
	"env: option '--debugfs': '.*/file/sub' does not exist" "env --debugfs FILE/sub"
bad "$W run pipe --data-size 3 --no-store" "'--data-size'.*3" "--data-size 3"
bad "$W run pipe --data-size 8k --no-store" "'--data-size'.*8" "--data-size 8k with packets"
bad "$W run pipe --pipe-size $((max * 2)) --no-store" "'--pipe-size'.*$((max * 2))|'--pipe-size'.*$((max * 2 / 1024))" \
	"--pipe-size above pipe-max-size ($max)"
bad "$W run pipe --profile stress-ng-9 --no-store" "'--profile'.*'stress-ng-9'.*stress-ng-0\\.15\\|stress-ng-0\\.15\\.07\\|stress-ng-0\\.16\\|stress-ng-0\\.21\\.02 or stress-ng-X\\.Y\\.Z for 0\\.15\\.00\\.\\.0\\.22\\.00" "unknown profile"
bad "$W run nosuch --no-store" "unknown workload 'nosuch'.*pipe" "unknown workload"
bad "$W run pipe --placement nowhere --no-store" "'--placement'.*'nowhere'.*cross-cpu" "unknown placement"
bad "$W run pipe --format csv --no-store" "'--format'.*'csv'.*metrics-brief" "--format csv"
bad "$W run pipe extra --no-store" "unexpected argument 'extra'" "a second positional argument"
bad "$W run pipe --no-such-option" "unknown option '--no-such-option'" "an unknown option"
if command -v taskset >/dev/null 2>&1; then
	bad "taskset -c 0 $W run pipe --placement cross-cpu -t 100ms -n 1 --warmup 0 --no-store" \
		"'--placement'.*cross-cpu" "--placement cross-cpu on one allowed CPU"
else
	skip "taskset is not installed"
fi
ok "[ ! -e '$WAKEBENCH_DB' ]" "nothing was stored"
done_testing
