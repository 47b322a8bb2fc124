#!/bin/sh
# A new store on a disk that is full, or nearly: the command that would
# create it fails with one line and exit 1 and leaves nothing, neither a
# store that later reads as an empty one (as a 4 KiB file once did), nor a
# temporary, nor a -wal or -shm; or, with room enough, it stores. Every
# amount of free space from none to enough, in steps of 8 KiB, on a small
# tmpfs in a private mount namespace, for `import` and for `run` (which
# once crashed when its only sample could not be stored).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root for a private tmpfs"
command -v unshare >/dev/null 2>&1 || skip_all "unshare is not installed"
command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 is not installed"
unshare -m true 2>/dev/null || skip_all "cannot create a mount namespace here"

wb run pipe -t 10ms -n 1 --warmup 0 -j 1 -q --db "$TMP/seed.db" >/dev/null 2>&1 &&
	wb export --db "$TMP/seed.db" >"$TMP/seed.json" ||
	skip_all "cannot make the source (a run failed here)"
mkdir "$TMP/full"

# one line per amount of free space: KIB RC LINES FILES STORED FIRST-LINE
# (LINES: on stderr, but warnings; FILES: in the tmpfs besides the filler,
# "none" or a,b,c; STORED: experiments in the store, "-" without one)
cat >"$TMP/sweep.sh" <<'EOF'
set -u
dir=$1 out=$2
shift 2
mount --make-rprivate / 2>/dev/null
free=0
while [ $free -le 384 ]; do
	mount -t tmpfs -o size=1m tmpfs "$dir" || exit 99
	# full, then $free KiB freed (in whole pages: at least 4 KiB)
	dd if=/dev/zero of="$dir/fill" bs=4k 2>/dev/null
	[ $free = 0 ] || truncate -s -${free}K "$dir/fill"
	"$@" --db "$dir/new.db" >/dev/null 2>"$out.all"
	rc=$?
	# warnings about the machine (a loaded one) are not the store's
	grep -v '^wakebench: warning: ' "$out.all" >"$out.err"
	files=$(ls -A "$dir" | grep -v '^fill$' | paste -s -d, -)
	stored=-
	[ -e "$dir/new.db" ] &&
		stored=$(sqlite3 "$dir/new.db" 'SELECT count(*) FROM experiments' 2>&1 | tr ' ' _)
	echo "$free $rc $(grep -c . "$out.err") ${files:-none} $stored $(head -n 1 "$out.err")"
	umount "$dir"
	free=$((free + 8))
done
EOF

sweep() { # NAME RULE COMMAND...: one line per amount of free space in $TMP/NAME.sweep
	name=$1 rule=$2
	shift 2
	unshare -m sh "$TMP/sweep.sh" "$TMP/full" "$TMP/$name" "$@" >"$TMP/$name.sweep"
	[ $? != 99 ] || skip_all "the private tmpfs could not be set up"
	bad=$(awk "!($rule)" "$TMP/$name.sweep")
	is "$bad" "" "$name: at each amount of free space, fails leaving nothing or stores"
	[ -z "$bad" ] || diag "$(cat "$TMP/$name.sweep")"
	ok "grep -q '^[0-9]* 1 1 none ' '$TMP/$name.sweep'" "$name: fails with too little room"
	ok "grep -q '^[0-9]* 0 0 ' '$TMP/$name.sweep'" "$name: and succeeds with enough"
	like "$(grep '^[0-9]* 1 ' "$TMP/$name.sweep" | head -n 1)" \
		"error: store '.*new.db': .*(full|I/O error)" "$name: saying why, naming the store"
}
# a failure: exit 1, one line, nothing left; import's success: exit 0, the
# store with its experiment (and its WAL, if it could not be moved into
# the store for want of room); run's: once its experiment is stored, the
# store is kept with what it holds, whatever goes wrong next (t3011), and
# it never crashes
FAILED='$2 == 1 && $3 == 1 && $4 == "none"'
IMPORTED='$2 == 0 && $3 == 0 && $5 == 1 && ($4 == "new.db" || $4 == "new.db,new.db-shm,new.db-wal")'
RAN='$2 <= 1 && $4 ~ /^new\.db(,|$)/ && $5 ~ /^[1-9]/'
sweep import "$FAILED || $IMPORTED" "$WAKEBENCH" import "$TMP/seed.json"
sweep run "$FAILED || $RAN" "$WAKEBENCH" run pipe -t 10ms -n 1 --warmup 0 -j 1 -q
done_testing
