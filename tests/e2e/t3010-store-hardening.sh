#!/bin/sh
# The store as a boundary: an empty --db is refused; a new store is private
# (0600, its directory 0700, whatever the umask) and an existing one keeps
# its mode; readers create no -wal or -shm; import refuses what wakebench
# never writes (triggers, views, other columns or indexes, values of the
# wrong type, samples of another experiment's config), names the file it
# refuses, and creates no store for it.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 is not installed"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
RUN="run pipe -t 50ms -n 2 --warmup 0 -j 1 -q"

# --db '' is a mistake, not the default store
export XDG_DATA_HOME="$TMP/xdg"
for cmd in "$RUN" "show 1" "export" "compare" "import $TMP/x.db"; do
	run_cmd wb $cmd --db ''
	is "$RC" 2 "--db '' exits 2 ($cmd)"
	like "$ERR" "option '--db': the path is empty" "--db '' is named ($cmd)"
done
ok "[ ! -e '$WAKEBENCH_DB' ] && [ ! -e '$TMP/xdg' ]" "--db '' touched no default store"

# new stores are private, whatever the umask; existing ones keep their mode
# (directories are created for the default location only, t1094)
(umask 000 && XDG_DATA_HOME="$TMP/priv/sub" WAKEBENCH_DB= wb $RUN >/dev/null 2>&1)
is "$(stat -c %a "$TMP/priv/sub/wakebench/results.db")" 600 "a new store is 0600 under umask 000"
is "$(stat -c %a "$TMP/priv/sub/wakebench")" 700 "its new directory is 0700"
is "$(stat -c %a "$TMP/priv/sub")" 700 "and so are its parents"
is "$(stat -c %a "$TMP/priv")" 700 "all of them"
(umask 077 && wb $RUN --db "$TMP/priv077.db" >/dev/null 2>&1)
is "$(stat -c %a "$TMP/priv077.db")" 600 "a new store is 0600 under umask 077"
chmod 0640 "$TMP/priv/sub/wakebench/results.db"
wb $RUN --db "$TMP/priv/sub/wakebench/results.db" >/dev/null 2>&1
is "$(stat -c %a "$TMP/priv/sub/wakebench/results.db")" 640 "an existing store keeps its mode"

# readers create nothing next to the store
db="$TMP/priv/sub/wakebench/results.db"
exps=$(sqlite3 "$db" "SELECT group_concat(id, ' ') FROM experiments")
for cmd in "show 1" "export" "export --format csv" "compare --by label" "env --diff $exps"; do
	run_cmd wb $cmd --db "$db"
	is "$RC" 0 "$cmd reads the store"
	ok "[ ! -e '$db-wal' ] && [ ! -e '$db-shm' ]" "$cmd leaves no -wal or -shm"
done
# a store copied with its pending WAL (a writer killed before its
# checkpoint, no -shm) is read from a private copy, and left as it is
"$SYNTH" --synth "$TMP/w.db" 1 3 6.18 x host 1000 >/dev/null 2>&1
(printf "UPDATE experiments SET label = 'pending';\n.shell kill -9 \$PPID\n" |
	sqlite3 "$TMP/w.db") >/dev/null 2>&1
rm -f "$TMP/w.db-shm"
if [ -s "$TMP/w.db-wal" ]; then
	cp "$TMP/w.db-wal" "$TMP/wal.before"
	run_cmd wb export --db "$TMP/w.db"
	is "$(printf '%s' "$OUT" | jq -r '.experiments[0].label')" pending "a pending WAL is read"
	ok "[ ! -e '$TMP/w.db-shm' ]" "no -shm created for it"
	ok "cmp -s '$TMP/wal.before' '$TMP/w.db-wal'" "its WAL is left as it is"
	run_cmd wb import --db "$TMP/fromwal.db" "$TMP/w.db"
	is "$(sqlite3 "$TMP/fromwal.db" "SELECT label FROM experiments")" pending \
		"import reads the pending WAL too"
else
	skip "sqlite3 left no WAL to read"
fi

# import: what wakebench never writes is refused, naming the file
"$SYNTH" --synth "$TMP/src.db" 2 3 6.18 x host 1000 >/dev/null 2>&1
refuse() { # DESCRIPTION FILE PATTERN
	run_cmd wb import --db "$TMP/dst.db" "$2"
	is "$RC" 1 "$1: exit 1"
	like "$ERR" "$3" "$1: says why"
	like "$ERR" "'$2'" "$1: names the file"
	ok "[ ! -e '$TMP/dst.db' ]" "$1: no destination store created"
}
craft() { cp "$TMP/src.db" "$TMP/$1.db"; sqlite3 "$TMP/$1.db" "$2"; }
craft trigger "CREATE TRIGGER t AFTER INSERT ON env BEGIN
	UPDATE env SET value = 'kvm' WHERE key = 'vm.accel'; END;"
refuse "a trigger" "$TMP/trigger.db" "not the one wakebench writes .*trigger t"
craft view "CREATE VIEW v AS SELECT 1"
refuse "a view" "$TMP/view.db" "not the one wakebench writes .*view v"
craft column "ALTER TABLE samples ADD COLUMN x TEXT"
refuse "another column" "$TMP/column.db" "not the one wakebench writes .*table samples"
craft config "UPDATE samples SET config_id = 1 WHERE experiment_id = 2"
refuse "another experiment's config" "$TMP/config.db" "sample 0 refers to config 1, which is not one of its experiment's"
craft fast "UPDATE samples SET ops_per_s = 'fast' WHERE id = 2"
refuse "a text ops_per_s" "$TMP/fast.db" "samples.ops_per_s is text \\('fast'\\), expected a number"
craft yesterday "UPDATE experiments SET started_ns = 'yesterday'"
refuse "a text started_ns" "$TMP/yesterday.db" "experiments.started_ns is text"
wb export --db "$TMP/src.db" >"$TMP/src.json"
jcraft() { jq "$2" "$TMP/src.json" >"$TMP/$1.json"; }
jcraft kind '.experiments[0].kind = 42'
refuse "JSON kind 42" "$TMP/kind.json" "kind is integer, expected text"
jcraft started '.experiments[0].started_ns = "yesterday"'
refuse "JSON started_ns text" "$TMP/started.json" "started_ns is text, expected an integer"
jcraft fastj '.experiments[1].samples[0].ops_per_s = "fast"'
refuse "JSON ops_per_s text" "$TMP/fastj.json" "sample 0 ops_per_s is text, expected a number"
jcraft cfg '.experiments[0].samples[0].config = "other"'
refuse "JSON sample of an unknown config" "$TMP/cfg.json" "names config 'other', which its experiment does not have"
run_cmd wb import --db "$TMP/dst.db" "$TMP/src.db"
is "$RC" 0 "the untouched store imports"
like "$OUT" "2 experiments added" "with both experiments"
run_cmd wb import --db "$TMP/dst.db" "$TMP/trigger.db"
is "$RC" 1 "a refused file into an existing store exits 1"
like "$ERR" "'$TMP/trigger.db'" "naming the source, not the destination"
is "$(sqlite3 "$TMP/dst.db" "SELECT count(*) FROM experiments")" 2 "and adds nothing"
done_testing
