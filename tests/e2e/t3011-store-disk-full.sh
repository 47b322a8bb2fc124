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

cat >"$TMP/inner.sh" <<'INNER'
set -u
dir=$1 wb=$2 out=$3
mount --make-rprivate / 2>/dev/null
mount -t tmpfs -o size=2m tmpfs "$dir" || exit 99
"$wb" run pipe -t 100ms -n 40 -j 1 --warmup 0 --db "$dir/r.db" >"$out.out" 2>"$out.err" &
pid=$!
# wait (for an event, not a time) until two samples are committed
stored() { n=$(sqlite3 "$dir/r.db" 'SELECT count(*) FROM samples' 2>/dev/null); echo "${n:-0}"; }
while [ "$(stored)" -lt 2 ]; do
	kill -0 $pid 2>/dev/null || break
	sleep 0.01
done
dd if=/dev/zero of="$dir/fill" bs=4k 2>/dev/null
wait $pid
echo $? >"$out.rc"
rm -f "$dir/fill"
sqlite3 "$dir/r.db" 'SELECT count(*) FROM samples' >"$out.stored"
sqlite3 "$dir/r.db" "SELECT count(*) FROM samples WHERE status = 'ok'" >"$out.stored_ok"
INNER
unshare -m sh "$TMP/inner.sh" "$TMP/full" "$WAKEBENCH" "$TMP/res"
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
