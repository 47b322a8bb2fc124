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

cat >"$TMP/inner.sh" <<'INNER'
set -u
dir=$1 wb=$2 out=$3 dbg=$4
mount --make-rprivate / 2>/dev/null
mount -t tmpfs -o size=2m tmpfs "$dir" || exit 99
"$wb" ab --feature NO_DELAY_DEQUEUE pipe -j 1 -t 50ms --warmup 10ms -n 40 \
	--debugfs "$dbg" --db "$dir/r.db" >"$out.out" 2>"$out.err" &
pid=$!
stored() { n=$(sqlite3 "$dir/r.db" 'SELECT count(*) FROM samples' 2>/dev/null); echo "${n:-0}"; }
while [ "$(stored)" -lt 4 ]; do
	kill -0 $pid 2>/dev/null || break
	sleep 0.01
done
dd if=/dev/zero of="$dir/fill" bs=4k 2>/dev/null
wait $pid
echo $? >"$out.rc"
rm -f "$dir/fill"
sqlite3 "$dir/r.db" 'SELECT count(*) FROM samples' >"$out.stored"
INNER
unshare -m sh "$TMP/inner.sh" "$TMP/full" "$WAKEBENCH" "$TMP/res" "$TMP/dbg"
[ -e "$TMP/res.rc" ] || skip_all "the private tmpfs could not be set up"
is "$(cat "$TMP/res.rc")" 1 "an ab whose store fills up exits 1"
err=$(cat "$TMP/res.err")
stored=$(cat "$TMP/res.stored")
like "$err" "ab: the (warm-up )?sample of arm [^ ]+ in unit [0-9]+ was measured but could not be stored: it is lost; the $stored samples stored before it \(warm-ups included\) are kept in '.*r.db'" \
	"the lost sample and the count of kept ones are named"
is "$(cat "$TMP/dbg/sched/features")" "$before" "the features are restored"
ok "[ ! -e '$WAKEBENCH_STATE_DIR/features.journal' ]" "and the journal is removed"
done_testing
