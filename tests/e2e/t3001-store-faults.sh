#!/bin/sh
# Store files that must be refused: not SQLite, another program's SQLite
# database, a newer schema, read-only, a directory that cannot be created.
# Each gives one clear line and exit 1, and leaves the file byte-identical.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
RUN="run pipe -t 100ms -n 2 --warmup 0 -j 1"

# refuse DESCRIPTION FILE PATTERN COMMAND...: exit 1, one line matching, file unchanged
refuse() {
	desc=$1 file=$2 pattern=$3
	shift 3
	cp "$file" "$TMP/before"
	run_cmd wb "$@"
	is "$RC" 1 "$desc: exit 1 ($*)"
	like "$ERR" "$pattern" "$desc: says why"
	is "$(printf '%s\n' "$ERR" | grep -c 'error:')" 1 "$desc: one error line"
	ok "cmp -s '$TMP/before' '$file'" "$desc: file untouched"
	ok "[ ! -e '$file-wal' ] && [ ! -e '$file-shm' ]" "$desc: no side files"
}

printf 'not a database, just notes\n' >"$TMP/notes.db"
refuse "not sqlite" "$TMP/notes.db" "not a wakebench store \\(not an SQLite database\\)" \
	$RUN --db "$TMP/notes.db"
refuse "not sqlite (compare)" "$TMP/notes.db" "not an SQLite database" compare --db "$TMP/notes.db"
refuse "not sqlite (import)" "$TMP/notes.db" "not an SQLite database" import --db "$TMP/notes.db" "$TMP/notes.db"

# a newer schema: user_version (header offset 60) beyond what we know
"$SYNTH" --synth "$TMP/newer.db" 1 2 6.18 x host 1000 >/dev/null 2>&1
printf '\000\000\003\347' | dd of="$TMP/newer.db" bs=1 seek=60 conv=notrunc 2>/dev/null
refuse "newer schema" "$TMP/newer.db" "schema version 999, newer than this wakebench" \
	$RUN --db "$TMP/newer.db"
refuse "newer schema (show)" "$TMP/newer.db" "schema version 999" show 1 --db "$TMP/newer.db"

# another program's database: application id (offset 68)
"$SYNTH" --synth "$TMP/other.db" 1 2 6.18 x host 1000 >/dev/null 2>&1
printf '\001\002\003\004' | dd of="$TMP/other.db" bs=1 seek=68 conv=notrunc 2>/dev/null
refuse "other program" "$TMP/other.db" "SQLite database of another program" \
	$RUN --db "$TMP/other.db"

# read-only (by its mode, so that it holds even for root)
"$SYNTH" --synth "$TMP/ro.db" 1 2 6.18 x host 1000 >/dev/null 2>&1
chmod 0444 "$TMP/ro.db"
refuse "read-only" "$TMP/ro.db" "store '.*ro.db' is read-only" $RUN --db "$TMP/ro.db"
run_cmd wb export --db "$TMP/ro.db"
is "$RC" 0 "a read-only store can still be read"

# the store's directory cannot be created
run_cmd wb $RUN --db "$TMP/notes.db/sub/results.db"
is "$RC" 1 "uncreatable directory: exit 1"
like "$ERR" "cannot (open store|create the store's directory).*Not a directory" "uncreatable directory: says why"
# as another user: a directory without permission, and reading a store in
# a directory where the reader may not create WAL's shared-memory file
if unprivileged_setup; then
	as_other() { unprivileged "$@"; }
	chmod 0755 "$TMP"
	mkdir "$TMP/locked"
	at_exit "chmod -R u+w '$TMP/locked'"
	"$SYNTH" --synth "$TMP/locked/theirs.db" 1 3 6.18 x host 1000 >/dev/null 2>&1
	# stores are created 0600; this one its owner shares read-only (not
	# root, the tests are that owner: then it is read-only for its owner too)
	if [ "$(id -u)" = 0 ]; then
		chmod 0644 "$TMP/locked/theirs.db"
	else
		chmod 0444 "$TMP/locked/theirs.db"
	fi
	[ "$(id -u)" = 0 ] || chmod 0555 "$TMP/locked"
	# the default location's directory (an explicit --db's is never created)
	run_cmd as_other env -u WAKEBENCH_DB XDG_DATA_HOME="$TMP/locked/sub" "$UWAKEBENCH" $RUN
	is "$RC" 1 "directory without permission: exit 1"
	like "$ERR" "cannot create the store's directory '.*locked/sub': Permission denied" \
		"directory without permission: says why"
	ok "[ ! -e '$TMP/locked/sub' ]" "directory without permission: nothing created"
	run_cmd as_other "$UWAKEBENCH" export --db "$TMP/locked/theirs.db"
	is "$RC" 0 "another user's store in a directory we cannot write is readable"
	is "$(printf '%s' "$OUT" | jq '[.experiments[].samples[]] | length')" 3 "with its samples"
	run_cmd as_other "$UWAKEBENCH" $RUN --db "$TMP/locked/theirs.db"
	is "$RC" 1 "but not writable"
	like "$ERR" "is read-only" "and says so"
	chmod 0666 "$TMP/locked/theirs.db"
	[ "$(id -u)" = 0 ] || chmod 0555 "$TMP/locked"
	cp "$TMP/locked/theirs.db" "$TMP/before"
	run_cmd as_other "$UWAKEBENCH" $RUN --db "$TMP/locked/theirs.db"
	is "$RC" 1 "a writable store in a directory we cannot write: exit 1"
	like "$ERR" "cannot be written: this user may not create files in its directory" "says why"
	ok "cmp -s '$TMP/before' '$TMP/locked/theirs.db'" "and leaves it untouched"
else
	for i in 1 2 3 4 5 6 7 8 9 10; do skip "$UWHY"; done
fi

# reading never creates a store; writing creates the default one with its
# directories (a --db in a directory that does not exist is a typo: t1094)
run_cmd wb compare --db "$TMP/absent.db"
is "$RC" 1 "compare on a missing store: exit 1"
ok "[ ! -e '$TMP/absent.db' ]" "compare on a missing store creates nothing"
XDG_DATA_HOME="$TMP/xdg" WAKEBENCH_DB= run_cmd wb $RUN
is "$RC" 0 "run creates the default store"
ok "[ -s '$TMP/xdg/wakebench/results.db' ]" "default store under XDG_DATA_HOME/wakebench"
done_testing
