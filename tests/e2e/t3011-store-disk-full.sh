#!/bin/sh
# The disk fills during a run: the sample that could not be stored is not
# printed as a result nor counted; the error says which sample was lost and
# that the samples before it are kept; exit 1. The store lives on a small
# tmpfs in a private mount namespace, filled once two samples are stored.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root for a private tmpfs"
command -v unshare >/dev/null 2>&1 || skip_all "unshare is not installed"
command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 is not installed"
mkdir "$TMP/full"
unshare -m true 2>/dev/null || skip_all "cannot create a mount namespace here"

unshare -m sh "$(dirname "$0")/fill-store.sh" "$TMP/full" 2 "$TMP/res" \
	"$WAKEBENCH" run pipe -t 100ms -n 40 -j 1 --warmup 0 --db "$TMP/full/r.db"
[ -e "$TMP/res.rc" ] || skip_all "the private tmpfs could not be set up"
is "$(cat "$TMP/res.rc")" 1 "a run whose store fills up exits 1"
err=$(cat "$TMP/res.err")
like "$err" "full" "the store's reason is given"
like "$err" "run: sample [0-9]+/40 was measured but could not be stored: it is lost; the [0-9]+ samples stored before it are kept in '.*r.db'" \
	"the lost sample and the kept ones are named"
stored=$(cat "$TMP/res.stored")
printed=$(grep -c '^sample [0-9]*/40:' "$TMP/res.out")
ok "[ $stored -ge 2 ]" "the samples before the disk filled are stored ($stored)"
is "$printed" "$stored" "only stored samples are printed as results"
like "$err" "the $stored samples stored before it" "the count of kept samples is right"
like "$(cat "$TMP/res.out")" "summary: $(cat "$TMP/res.stored_ok") samples" "the summary counts the stored samples only"
done_testing
