#!/bin/sh
# Text from outside never reaches a terminal raw. Stored labels, kernels,
# hosts, profiles, workloads, config names, environment values and reasons
# (another machine's store may hold anything) and a command's own arguments
# show their control characters (C0 with ESC, DEL, C1, invalid UTF-8) as
# visible escapes in every text output (log, show, compare, env --diff,
# report's mail and Markdown, run's header) and in every error and warning,
# which stay one line each: compare's heading, its "split into sub-groups"
# warnings and its "several workloads" error, run's errors naming an
# argument, an unknown command. CSV keeps the text exact, quoted (RFC 4180).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 is not installed"

# Lines holding a C0 control but tab, DEL or the byte 0x9b (CSI as a raw
# 8-bit byte, and the second byte of U+009B): none may reach a terminal.
raw() { LC_ALL=C grep -c "$(printf '[\001-\010\013-\037\177\233]')" "$1"; }
# Every line of stderr is one message: it starts with "wakebench: ".
stray() { grep -vc '^wakebench: ' "$1"; }
checked() { # NAME: the last run_cmd's output and errors hold no raw control byte
	is "$(raw "$TMP/.out"):$(raw "$TMP/.err")" "0:0" "$1: no raw control byte in output or errors"
}

X="char(27) || ']0;pwned' || char(7) || char(10) || 'forged.case pass 1 ops/s' || char(13) ||
	char(127) || char(155) || CAST(X'9b' AS TEXT)"
db="$TMP/h.db"
"$SYNTH" --synth "$db" 2 6 6.6 base hostA 1000 >/dev/null 2>&1
"$SYNTH" --synth "$db" 2 6 6.12 lab hostB 900 >/dev/null 2>&1
sqlite3 "$db" "
	UPDATE experiments SET label = label || $X, host = host || $X, kernel = kernel || $X,
		profile = profile || $X WHERE id >= 3;
	UPDATE configs SET name = name || $X || experiment_id, features = features || $X
		WHERE experiment_id >= 3;
	UPDATE samples SET status = 'failed', reason = 'r' || $X WHERE idx = 0 AND experiment_id = 3;
	UPDATE env SET value = value || $X WHERE experiment_id >= 3;
	UPDATE sample_metrics SET name = name || $X WHERE name = 'ctxsw_per_op';
	UPDATE sample_metrics SET available = 0, value = NULL, why = 'w' || $X
		WHERE name = 'ns_per_op';
	UPDATE experiments SET workload = 'pipe' || $X;"
is "$(sqlite3 "$db" "SELECT count(*) FROM experiments WHERE instr(label, char(27))")" 2 \
	"the store holds labels with an escape"

# 1. every text output of the stored text
for c in "log" "log -v" "show 3" "show 1" "compare --by label" "compare --by host" \
	"compare --by kernel" "compare --by profile" "compare --by label --pool" \
	"env --diff 1 3" "report --format email" "report --format markdown"; do
	# shellcheck disable=SC2086
	run_cmd wb $c --db "$db"
	is "$RC" 0 "$c exits 0"
	checked "$c"
	is "$(stray "$TMP/.err")" 0 "$c: each message on stderr is one line"
done
run_cmd wb compare --by label --db "$db"
like "$(printf '%s\n' "$OUT" | head -n 1)" \
	'^pipe\\x1b\]0;pwned\\x07\\nforged\.case pass 1 ops/s\\r\\x7f\\u009b\\x9b ' \
	"compare's heading shows the workload's escapes"
like "$ERR" "^wakebench: warning: compare: lab\\\\x1b\\]0;pwned\\\\x07\\\\nforged\\.case pass 1 ops/s\\\\r\\\\x7f\\\\u009b\\\\x9b is split into sub-groups by config" \
	"the 'split into sub-groups' warning shows the label's escapes"
run_cmd wb show 3 --db "$db"
like "$OUT" 'reason: r\\x1b\]0;pwned\\x07\\nforged' "show: a failure reason shows its escapes"

# 2. the "several workloads" error names both, on one line
sqlite3 "$db" "UPDATE experiments SET workload = 'pipe' WHERE id < 3"
run_cmd wb compare --db "$db"
is "$RC" 2 "several workloads: exit 2"
checked "several workloads"
is "$(wc -l <"$TMP/.err")" 1 "the error is one line"
like "$ERR" "several workloads \\('pipe', 'pipe\\\\x1b\\]0;pwned\\\\x07\\\\nforged\\.case pass 1 ops/s\\\\r\\\\x7f\\\\u009b\\\\x9b'\\)" \
	"it names the workload with its escapes"

# 3. a command's own arguments, echoed by its errors
ESC=$(printf '\033') BEL=$(printf '\007')
run_cmd wb run "pi${ESC}]0;x${BEL}pe"
is "$RC" 2 "run with an unknown workload: exit 2"
checked "run's unknown workload"
is "$ERR" "wakebench: error: run: unknown workload 'pi\\x1b]0;x\\x07pe', allowed pipe|pingpong|messaging|ring|schbench" \
	"the workload is named with its escapes, on one line"
run_cmd wb "ru${ESC}[2Jn"
is "$RC" 2 "an unknown command: exit 2"
checked "unknown command"
like "$ERR" "^wakebench: error: unknown command 'ru\\\\x1b\\[2Jn', allowed run\\|ab\\|" \
	"the command is named with its escapes"
is "$(wc -l <"$TMP/.err")" 1 "on one line"
run_cmd wb run pipe --profile "$(printf 'p\033[1m\nx')"
is "$RC" 2 "an unknown profile: exit 2"
checked "unknown profile"
like "$ERR" "unknown value 'p\\\\x1b\\[1m\\\\nx'" "the profile is named with its escapes"
run_cmd wb show "$(printf '\033[2J\n1')" --db "$db"
is "$RC" 2 "show of an unknown experiment: exit 2"
checked "show's unknown experiment"
is "$(wc -l <"$TMP/.err")" 1 "on one line"
run_cmd wb compare --by "$(printf 'label\033[8m')" --db "$db"
checked "compare --by"
like "$ERR" "unknown key 'label\\\\x1b\\[8m'" "compare --by names the key with its escapes"

# 4. run's header prints the label it was given
fakefs_start dbg
run_cmd wb run pipe -j 1 -t 20ms -n 1 --warmup 0 --no-store --debugfs "$TMP/dbg" \
	--label "$(printf 'L\033]0;x\007\nz')"
is "$RC" 0 "a run with a label holding an escape"
checked "run's header"
like "$OUT" "label L\\\\x1b\\]0;x\\\\x07\\\\nz$" "the header shows the label's escapes"

# 5. a stored ab's feature token (from its parameters), in show and log
run_cmd wb ab --feature NO_DELAY_DEQUEUE -t 20ms -n 6 -j 1 --warmup 0 -q --debugfs "$TMP/dbg" \
	--db "$TMP/ab.db"
is "$RC" 0 "an ab is stored"
sqlite3 "$TMP/ab.db" "UPDATE experiments SET
	params = json_set(params, '\$.feature', json_array('NO_DELAY_DEQUEUE' || $X))"
for c in "show 1" "log"; do
	# shellcheck disable=SC2086
	run_cmd wb $c --db "$TMP/ab.db"
	is "$RC" 0 "ab: $c exits 0"
	checked "ab: $c"
	like "$OUT" 'NO_DELAY_DEQUEUE\\x1b\]0;pwned\\x07\\nforged\.case' "ab: $c shows the token's escapes"
done

# 6. CSV: stored text exact, quoted per RFC 4180 (a UUID too)
if command -v python3 >/dev/null 2>&1; then
	sqlite3 "$db" "UPDATE experiments SET uuid = 'u,' || char(34) || 'x' || char(10) || 'y' WHERE id = 2"
	run_cmd wb log --format csv --db "$db"
	is "$RC" 0 "log --format csv exits 0"
	is "$(python3 -c 'import csv, sys; r = list(csv.reader(open(sys.argv[1], newline="", errors="surrogateescape"))); print(len(r), all(len(x) == len(r[0]) for x in r), [x[1] for x in r if x[0] == "2"] == ["u,\"x\ny"])' "$TMP/.out")" \
		"5 True True" "log's CSV: one record per experiment, every field in place, the UUID exact"
else
	skip "python3 is not installed"
fi
done_testing
