#!/bin/sh
# Stored text reaches compare's and env --diff's text output with its
# control characters as visible escapes (group titles, environment values);
# compare's JSON keeps the exact value.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 is not installed"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
ESC=$(printf '\033')

"$SYNTH" --synth "$WAKEBENCH_DB" 1 6 6.6 x host 1000 >/dev/null 2>&1
"$SYNTH" --synth "$WAKEBENCH_DB" 1 6 6.12 x host 900 >/dev/null 2>&1
sqlite3 "$WAKEBENCH_DB" "UPDATE experiments SET kernel = '6.12' || char(27) || '[2J' WHERE id = 2;
	UPDATE env SET value = 'v' || char(27) || ']0;pwned' || char(7)
		WHERE experiment_id = 2 AND key = (SELECT min(key) FROM env WHERE experiment_id = 2);"

run_cmd wb compare --by kernel
is "$RC" 0 "compare reads it"
ok "! grep -q '$ESC' '$TMP/.out'" "no escape character reaches compare's text output"
like "$OUT" '6\.12\\x1b\[2J' "the kernel shows its escape"
run_cmd wb compare --by kernel --format json
ok "printf '%s' \"\$OUT\" | jq -e '[.groups[].title] | index(\"6.12\\u001b[2J\")' >/dev/null" \
	"JSON keeps the exact title"

run_cmd wb env --diff 1 2
is "$RC" 0 "env --diff reads it"
ok "! grep -q '$ESC' '$TMP/.out'" "no escape character reaches env --diff's output"
ok "! grep -q \"\$(printf '\\007')\" '$TMP/.out'" "nor a bell"
like "$OUT" 'kernel 6\.12\\x1b\[2J' "the experiment line shows the kernel's escape"
like "$OUT" 'v\\x1b\]0;pwned\\x07' "the environment value shows its escapes"
done_testing
