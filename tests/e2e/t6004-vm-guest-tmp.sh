#!/bin/sh
# vm's hidden guest side works in a private directory: a symlink planted
# where it used to write (/tmp/wakebench/stdout) is not followed, and the
# store it sends home is its own. Run on the host in a private mount
# namespace with its own /tmp, the channel being a plain file.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root for a private /tmp"
command -v unshare >/dev/null 2>&1 || skip_all "unshare is not installed"
unshare -m true 2>/dev/null || skip_all "cannot create a mount namespace here"

cat >"$TMP/inner.sh" <<'INNER'
# the binary under test is held open, and run as /proc/self/fd/3, so that a
# clone under /tmp (a mktemp -d directory) works after /tmp is replaced
exec 3<"$1"
wb=/proc/self/fd/3
mount --make-rprivate / 2>/dev/null
mount -t tmpfs tmpfs /tmp || { echo "setup failed"; exit 0; }
mkdir /tmp/wakebench
echo precious >/tmp/victim
ln -s /tmp/victim /tmp/wakebench/stdout
ln -s /tmp/victim /tmp/wakebench/stderr
ln -s /tmp/victim /tmp/wakebench/results.db
: >/tmp/chan
printf '%s\0' /tmp/chan run pipe -t 50ms -n 1 -j 1 --warmup 0 >/tmp/args
unset TMPDIR WAKEBENCH_DB
"$wb" vm --guest /tmp/args >/tmp/guest.out 2>/tmp/guest.err
echo "rc=$?"
echo "victim=$(cat /tmp/victim)"
echo "chan=$(wc -c </tmp/chan)"
grep -c 'results.db' /tmp/chan | sed 's/^/dbrecord=/'
echo "left=$(ls -d /tmp/wakebench-guest.* 2>/dev/null | wc -l)"
INNER
res=$(unshare -m sh "$TMP/inner.sh" "$WAKEBENCH" 2>&1)
[ "$res" = "setup failed" ] && skip_all "cannot mount a private /tmp"
like "$res" "rc=0" "the guest side runs its subcommand"
like "$res" "victim=precious" "symlinks planted in /tmp/wakebench are not followed"
like "$res" "dbrecord=[1-9]" "its store is sent home"
like "$res" "left=0" "its private directory is removed"
done_testing
