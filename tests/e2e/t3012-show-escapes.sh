#!/bin/sh
# Stored text may come from another machine or a guest: show's text output
# prints its control characters as visible escapes (a label, a host name,
# an environment value, a config, a failure reason), while JSON keeps the
# exact value.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 is not installed"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
ESC=$(printf '\033')

"$SYNTH" --synth "$TMP/s.db" 1 2 6.18 x host 1000 >/dev/null 2>&1
sqlite3 "$TMP/s.db" "UPDATE experiments SET label = 'a' || char(27) || ']0;pwned' || char(7) || 'b',
	host = 'h' || char(27) || '[2J', kernel = '6.18' || char(155) || '31m';
	UPDATE env SET value = 'v' || char(27) || '[31m' WHERE key = (SELECT min(key) FROM env);
	UPDATE configs SET name = 'c' || char(27) || '[1m';
	UPDATE samples SET status = 'failed', reason = 'r' || char(27) || '[K' WHERE idx = 0;"
run_cmd wb show 1 --db "$TMP/s.db"
is "$RC" 0 "show reads it"
ok "! grep -q '$ESC' '$TMP/.out'" "no escape character reaches the terminal"
ok "! grep -q \"\$(printf '\\007')\" '$TMP/.out'" "nor a bell"
like "$OUT" 'label +a\\x1b\]0;pwned\\x07b' "the label shows its escapes"
like "$OUT" 'host +h\\x1b\[2J' "the host shows its escapes"
like "$OUT" 'kernel +6\.18\\u009b31m' "a C1 control shows as its code point"
like "$OUT" 'c\\x1b\[1m' "the config shows its escapes"
like "$OUT" 'reason: r\\x1b\[K' "the reason shows its escapes"
like "$OUT" 'v\\x1b\[31m' "the environment value shows its escapes"
run_cmd wb show 1 --db "$TMP/s.db" --format json
is "$(printf '%s' "$OUT" | jq -r '.experiments[0].label')" "a${ESC}]0;pwned$(printf '\007')b" \
	"JSON keeps the exact label"
done_testing
