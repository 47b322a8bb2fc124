#!/bin/sh
# Eight commands starting at once on a store that does not exist yet, 200
# times over: four writers (a run, an import of a JSON export twice, an
# import of another store) and four readers (log, compare, show, export).
# A new store is built under a temporary name and published whole, so a
# reader finds either no store or one with its schema, never a half-made
# one ("an SQLite database with other tables", "store ... is empty").
#
# What each may say, exactly (anything else on stderr but a warning about
# the machine fails the round):
# - every writer exits 0; the two imports of one export add it once between
#   them ("1 experiment added", the other "1 skipped");
# - a reader before the store exists: exit 1, "no store at 'PATH': nothing
#   stored yet"; once it exists, before anything is stored in it: log and
#   export exit 0 (an empty list), compare exits 1 ("no stored samples
#   with status ok match", also while the run's experiment has begun and
#   its sample is not stored yet), show exits 2 ("no experiment is stored
#   yet"); later they exit 0.
# Afterwards the store holds the three experiments, each once, and no
# temporary is left. WB_T3015_ROUNDS sets another number of rounds (fewer
# under the sanitizers, more to hunt).
. "$(dirname "$0")/lib.sh"

ROUNDS=${WB_T3015_ROUNDS:-200}

# the sources: a JSON export of one experiment, a store with another
wb run pipe -t 10ms -n 1 --warmup 0 -j 1 -q --db "$TMP/seed.db" >/dev/null 2>&1 &&
	wb export --db "$TMP/seed.db" >"$TMP/seed.json" &&
	wb run pipe -t 10ms -n 1 --warmup 0 -j 1 -q --db "$TMP/other.db" >/dev/null 2>&1 ||
	skip_all "cannot make the sources (a run failed here)"

DB=$TMP/c.db
NOSTORE="wakebench: error: no store at '$DB': nothing stored yet"

# check NAME RC: whether command NAME's outcome (rc, $TMP/NAME.out, .err) is
# allowed. Warnings about the machine (a run's "the load average is ...")
# are not about the store and pass; one that names a store does not.
check() {
	out=$(cat "$TMP/$1.out")
	err=$(grep -v "^wakebench: warning: " "$TMP/$1.err")
	! grep -q "^wakebench: warning: .*store '" "$TMP/$1.err" || return 1
	case $1:$2:$err in
	run:0: | import_other:0: | log:0: | export:0: | compare:0: | show:0:) return 0 ;;
	import_a:0: | import_b:0:)
		case $out in
		"$TMP/seed.json: 1 experiment added, 0 skipped (already present)") ;;
		"$TMP/seed.json: 0 experiments added, 1 skipped (already present)") ;;
		*) return 1 ;;
		esac
		;;
	log:1:"$NOSTORE" | export:1:"$NOSTORE" | compare:1:"$NOSTORE" | show:1:"$NOSTORE")
		[ -z "$out" ] ;;
	"compare:1:wakebench: error: compare: no stored samples with status ok match (0 experiments matched the filters)") ;;
	"compare:1:wakebench: error: compare: no stored samples with status ok match (1 experiment matched the filters)") ;;
	"show:2:wakebench: error: show: no experiment is stored yet ('wakebench run' stores one)") ;;
	*) return 1 ;;
	esac
}

start() { # start NAME ARGS...: in the background, its pid in pid_NAME
	name=$1
	shift
	"$WAKEBENCH" "$@" --db "$DB" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	eval "pid_$name=\$!"
}

NAMES="run import_a import_b import_other log compare show export"
fails=0 first=""
r=0
while [ $r -lt "$ROUNDS" ]; do
	rm -f "$DB" "$DB-wal" "$DB-shm"
	start run run pipe -t 10ms -n 1 --warmup 0 -j 1 -q
	start import_a import "$TMP/seed.json"
	start log log
	start compare compare
	start import_b import "$TMP/seed.json"
	start show show
	start import_other import "$TMP/other.db"
	start export export
	bad=""
	for n in $NAMES; do
		eval "p=\$pid_$n"
		wait "$p"
		check "$n" $? && continue
		bad="$bad $n"
		printf '%s: %s\n' "$n" "$(grep -v '^wakebench: warning: ' "$TMP/$n.err" |
			head -n 1 | sed "s|$TMP/||g")" >>"$TMP/tally"
	done
	added=$(grep -l ' 1 experiment added' "$TMP/import_a.out" "$TMP/import_b.out" | wc -l)
	[ "$added" = 1 ] || bad="$bad import-twice"
	stored=$("$WAKEBENCH" log --db "$DB" 2>&1 | tail -n +2 | wc -l)
	[ "$stored" = 3 ] || bad="$bad stored=$stored"
	leftover=$(ls -A "$TMP" | grep -c '^c\.db\.' || true)
	[ "$leftover" = 0 ] || bad="$bad leftover"
	if [ -n "$bad" ]; then
		fails=$((fails + 1))
		if [ -z "$first" ]; then
			first="round $r:$bad"
			for n in $NAMES; do
				first="$first
$n: $(cat "$TMP/$n.err" "$TMP/$n.out" | head -3)"
			done
		fi
	fi
	r=$((r + 1))
done
is "$fails" 0 "8 commands starting at once on a new store, $ROUNDS times: each outcome allowed"
[ "$fails" = 0 ] || diag "$first
what went wrong, how often (commands; the round's own checks not counted):
$(sort "$TMP/tally" 2>/dev/null | uniq -c | sort -rn)"
is "$(ls -A "$TMP" | grep -c '^c\.db\.')" 0 "no temporary store left next to it"
done_testing
