#!/bin/sh
# fill-store.sh DIR N OUT CMD...: the disk fills while CMD stores. Run it in a
# private mount namespace (unshare -m sh fill-store.sh ...): a 2 MB tmpfs is
# mounted at DIR, CMD (whose store is DIR/r.db) runs with stdout and stderr
# in OUT.out and OUT.err, and once N samples are committed (an event, not a
# time) the tmpfs is filled. Then OUT.rc holds CMD's exit status, OUT.stored
# and OUT.stored_ok the samples stored (all, and those with status ok). Exits
# 99 when the tmpfs cannot be mounted.
set -u
dir=$1 n=$2 out=$3
shift 3
mount --make-rprivate / 2>/dev/null
mount -t tmpfs -o size=2m tmpfs "$dir" || exit 99
"$@" >"$out.out" 2>"$out.err" &
pid=$!
stored() { c=$(sqlite3 "$dir/r.db" "SELECT count(*) FROM samples ${1:-}" 2>/dev/null); echo "${c:-0}"; }
while [ "$(stored)" -lt "$n" ]; do
	kill -0 $pid 2>/dev/null || break
	sleep 0.01
done
dd if=/dev/zero of="$dir/fill" bs=4k 2>/dev/null
wait $pid
echo $? >"$out.rc"
rm -f "$dir/fill"
stored >"$out.stored"
stored "WHERE status = 'ok'" >"$out.stored_ok"
