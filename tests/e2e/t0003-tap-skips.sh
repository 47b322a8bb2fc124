#!/bin/sh
# A cmocka test file that only skips leaves prove green, with each skip a
# real TAP skip carrying its reason; a failing test still fails the file,
# and what its assertion said (got, wanted, file and line) is in prove's
# output; a binary that ends in the middle of a test fails it, saying so.
. "$(dirname "$0")/lib.sh"

bin="$(dirname "$WAKEBENCH")/tests/skip-only"
exec_sh="$WAKEBENCH_SRC/tests/unit/tap-exec.sh"
[ -x "$bin" ] || skip_all "'$bin' is not built (make check builds it)"
command -v prove >/dev/null || skip_all "prove is not installed"

export CMOCKA_MESSAGE_OUTPUT=TAP
# failures made on purpose here are not the suite's: keep them out of
# make check-stress's logs (this file sets its own log directory below)
unset WB_TAP_LOG_DIR
run_cmd sh "$exec_sh" "$bin"
is "$RC" 0 "a file that only skips exits 0"
like "$OUT" "^ok 1 # SKIP test_skips_with_a_reason: the reason this test cannot run here$" \
	"its first skip is a TAP skip (ok) with the reason"
like "$OUT" "^ok 2 # SKIP test_skips_or_fails: a second reason$" "and so is the second"
unlike "$OUT" "^not ok" "no 'not ok' line is left"

run_cmd prove -v --exec "sh $exec_sh" "$bin"
is "$RC" 0 "prove passes a file that only skips"
like "$OUT" "Result: PASS" "and says PASS"
like "$OUT" "^ok 2 # SKIP test_skips_or_fails: a second reason$" "prove reads the skip lines"

WB_SKIP_ONLY_FAIL=1 run_cmd prove --exec "sh $exec_sh" "$bin"
ok "[ $RC -ne 0 ]" "a failing test still fails prove"
like "$OUT" "Result: FAIL" "and says FAIL"
all="$OUT
$ERR"
like "$all" "^#   0.25 = 0.25, expected 0.5 \(tolerance 0.01\)$" \
	"the failing assertion's got and wanted are in prove's output"
like "$all" "^#   tests/unit/skip-only.c:[0-9]+: error: Failure!$" "and its file and line"

WB_SKIP_ONLY_FAIL=1 run_cmd sh "$exec_sh" "$bin"
like "$OUT" "^not ok 2 - test_skips_or_fails$" "the failure is 'not ok' in the TAP"
like "$ERR" "^# test_skips_or_fails: failed$" "stderr names the failing test"

WB_SKIP_ONLY_FAIL=exit run_cmd sh "$exec_sh" "$bin"
is "$RC" 3 "a binary that exits in the middle of a test keeps its status"
like "$OUT" "^not ok 2 - test_skips_or_fails$" "that test is 'not ok'"
like "$ERR" "did not finish \(the test binary exited with status 3\)" "saying it did not finish"
like "$ERR" "^#   # about to exit$" "with what it printed"

# end-to-end scripts pass through untouched
printf '#!/bin/sh\necho 1..1\necho "ok 1 # SKIP shell skip"\n' >"$TMP/t.sh"
run_cmd sh "$exec_sh" "$TMP/t.sh"
is "$OUT" "$(printf '1..1\nok 1 # SKIP shell skip')" "a shell test's output is unchanged"

# with WB_TAP_LOG_DIR (make check-stress), each file's TAP and stderr are also
# kept there, and the exit status is the test's
mkdir "$TMP/logs"
printf '#!/bin/sh\necho 1..1\necho "not ok 1 - x"\necho "#   got: 2" >&2\nexit 1\n' >"$TMP/f.sh"
WB_TAP_LOG_DIR="$TMP/logs" run_cmd sh "$exec_sh" "$TMP/f.sh"
is "$RC" 1 "a failing shell test keeps its exit status when logged"
is "$OUT" "$(printf '1..1\nnot ok 1 - x')" "its stdout is unchanged"
is "$ERR" "#   got: 2" "and so is its stderr"
like "$(cat "$TMP/logs/f.sh.log")" "^#   got: 2$" "both are in its log"
WB_SKIP_ONLY_FAIL=1 WB_TAP_LOG_DIR="$TMP/logs" run_cmd sh "$exec_sh" "$bin"
like "$(cat "$TMP/logs/skip-only.log")" "^#   0.25 = 0.25, expected 0.5" "a unit test's failure is in its log"
done_testing
