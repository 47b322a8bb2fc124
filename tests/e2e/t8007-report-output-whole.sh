#!/bin/sh
# report -o FILE appears complete or not at all: written under a temporary
# name beside FILE and renamed into place. On a full disk (a small tmpfs in
# a private mount namespace) it exits 1 with one line, an older FILE is left
# as it was, a new one is not made, and no temporary is left; with room,
# FILE is replaced whole. -o /dev/stdout still writes to the descriptor.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
"$SYNTH" --synth "$WAKEBENCH_DB" 3 8 6.6.78 r host 2487746 >/dev/null
"$SYNTH" --synth "$WAKEBENCH_DB" 3 8 6.12.75 r host 1651427 >/dev/null

# /dev/stdout: the descriptor's file, written through it (not replaced by another)
wb report --format markdown -o /dev/stdout >"$TMP/out.md" 2>"$TMP/out.err"
is "$?" 0 "-o /dev/stdout exits 0"
like "$(head -n 3 "$TMP/out.md")" "^#|\\|" "and the report is on standard output"

if [ "$(id -u)" != 0 ]; then
	skip "needs root for a private tmpfs"
	done_testing
	exit
fi
command -v unshare >/dev/null 2>&1 && unshare -m true 2>/dev/null ||
	{ skip "cannot create a mount namespace here"; done_testing; exit; }
mkdir "$TMP/full"
cat >"$TMP/full.sh" <<'EOF'
set -u
dir=$1 out=$2
shift 2
mount --make-rprivate / 2>/dev/null
mount -t tmpfs -o size=256k tmpfs "$dir" || exit 99
printf 'an older report\n' >"$dir/r.html"
dd if=/dev/zero of="$dir/fill" bs=4k 2>/dev/null
"$@" -o "$dir/r.html" >"$out.old.out" 2>"$out.old.err"
echo $? >"$out.old.rc"
"$@" -o "$dir/new.html" >"$out.new.out" 2>"$out.new.err"
echo $? >"$out.new.rc"
cp "$dir/r.html" "$out.old.after"
ls -A "$dir" >"$out.files"
rm "$dir/fill"
"$@" -o "$dir/r.html" >"$out.room.out" 2>"$out.room.err"
echo $? >"$out.room.rc"
cp "$dir/r.html" "$out.room.after"
ls -A "$dir" >"$out.room.files"
EOF
unshare -m sh "$TMP/full.sh" "$TMP/full" "$TMP/res" "$WAKEBENCH" report --no-data
[ -e "$TMP/res.old.rc" ] || skip_all "the private tmpfs could not be set up"

is "$(cat "$TMP/res.old.rc")" 1 "a full disk: report -o over an older file exits 1"
is "$(cat "$TMP/res.old.err")" \
	"wakebench: error: report: cannot write '$TMP/full/r.html': No space left on device" \
	"with one line naming the file and why"
is "$(cat "$TMP/res.old.after")" "an older report" "the older file is left as it was"
is "$(cat "$TMP/res.new.rc")" 1 "a new file: exit 1"
is "$(grep -c . "$TMP/res.new.err")" 1 "with one line"
is "$(tr '\n' ' ' <"$TMP/res.files")" "fill r.html " "no new file, no temporary left"
is "$(cat "$TMP/res.room.rc")" 0 "with room: exit 0"
like "$(head -c 200 "$TMP/res.room.after")" "^<!DOCTYPE html>" "the file replaced by the report"
like "$(tail -c 20 "$TMP/res.room.after")" "</html>" "whole"
is "$(tr '\n' ' ' <"$TMP/res.room.files")" "r.html " "and no temporary left"
done_testing
