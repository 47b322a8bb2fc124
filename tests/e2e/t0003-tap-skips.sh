#!/bin/sh
# A cmocka test file that only skips leaves prove green, with each skip a
# real TAP skip carrying its reason; a failing test still fails the file.
. "$(dirname "$0")/lib.sh"

bin="$(dirname "$WAKEBENCH")/tests/skip-only"
exec_sh="$WAKEBENCH_SRC/tests/unit/tap-exec.sh"
[ -x "$bin" ] || skip_all "'$bin' is not built (make check builds it)"
command -v prove >/dev/null || skip_all "prove is not installed"

export CMOCKA_MESSAGE_OUTPUT=TAP
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

# end-to-end scripts pass through untouched
printf '#!/bin/sh\necho 1..1\necho "ok 1 # SKIP shell skip"\n' >"$TMP/t.sh"
run_cmd sh "$exec_sh" "$TMP/t.sh"
is "$OUT" "$(printf '1..1\nok 1 # SKIP shell skip')" "a shell test's output is unchanged"
done_testing
