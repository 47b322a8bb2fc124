#!/bin/sh
# The disk fills during an ab: the sample that could not be stored is not
# counted in any unit or verdict, the error names it and the samples kept,
# the features are restored, exit 1. The store lives on a small tmpfs in a
# private mount namespace, filled once a few samples are stored; the
# features are the FUSE stand-in's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root for a private tmpfs"
command -v unshare >/dev/null 2>&1 || skip_all "unshare is not installed"
command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 is not installed"
unshare -m true 2>/dev/null || skip_all "cannot create a mount namespace here"
fakefs_start dbg
before=$(cat "$TMP/dbg/sched/features")
mkdir "$TMP/full"

unshare -m sh "$(dirname "$0")/fill-store.sh" "$TMP/full" 4 "$TMP/res" \
	"$WAKEBENCH" ab --feature NO_DELAY_DEQUEUE pipe -j 1 -t 50ms --warmup 10ms -n 40 \
	--debugfs "$TMP/dbg" --db "$TMP/full/r.db"
[ -e "$TMP/res.rc" ] || skip_all "the private tmpfs could not be set up"
is "$(cat "$TMP/res.rc")" 1 "an ab whose store fills up exits 1"
err=$(cat "$TMP/res.err")
stored=$(cat "$TMP/res.stored")
like "$err" "ab: the (warm-up )?sample of arm [^ ]+ in unit [0-9]+ was measured but could not be stored: it is lost; the $stored samples stored before it \(warm-ups included\) are kept in '.*r.db'" \
	"the lost sample and the count of kept ones are named"
is "$(cat "$TMP/dbg/sched/features")" "$before" "the features are restored"
ok "[ ! -e '$WAKEBENCH_STATE_DIR/features.journal' ]" "and the journal is removed"
done_testing
