#!/bin/sh
# The tests never depend on where the clone lives: a clone under root's
# home (/root is 0700) or under a mktemp -d directory is out of reach for
# the unprivileged user that some tests run wakebench as. Here the binary
# under test (and the test helpers beside it) sit below a 0700 directory,
# and every test file that runs wakebench as another user passes from
# there, with none of its cases skipped for want of reach.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root to become nobody (as another user these tests run as themselves)"
command -v setpriv >/dev/null 2>&1 || skip_all "setpriv is not installed (util-linux)"
case $WAKEBENCH in
*/qemu/*) skip_all "'$WAKEBENCH' is a qemu-user wrapper whose sysroot is root's own" ;;
esac

private="$TMP/private"
mkdir -m 0700 "$private"
mkdir -p "$private/build/tests"
cp "$WAKEBENCH" "$private/build/wakebench"
for h in "$(dirname "$WAKEBENCH")"/tests/*; do
	case $h in *.d) continue ;; esac
	[ -f "$h" ] && [ -x "$h" ] && cp "$h" "$private/build/tests/"
done
run_cmd setpriv --reuid=nobody --regid=nogroup --clear-groups env "$private/build/wakebench" --version
ok "[ $RC -ne 0 ]" "nobody cannot execute a binary below a 0700 directory (the case under test)"

# every e2e test that runs wakebench as another user, this one aside
files=$(grep -l '^[^#]*unprivileged_setup' "$WAKEBENCH_SRC"/tests/e2e/t[0-9]*.sh | grep -v /t0004-)
n=$(printf '%s\n' "$files" | grep -c .)
ok "[ $n -ge 5 ]" "the test files that run wakebench as nobody are found ($n)"
for f in $files; do
	t=$(basename "$f" .sh)
	WAKEBENCH="$private/build/wakebench" run_cmd sh "$f"
	is "$RC" 0 "$t passes with the binary below a 0700 directory"
	unlike "$OUT" "^not ok" "$t: no case fails"
	unlike "$OUT$ERR" "nobody cannot run|failed to execute|# SKIP.*(nobody|setpriv)" "$t: nothing skipped or refused for want of reach"
	if [ "$RC" != 0 ]; then
		printf '%s\n' "$OUT" "$ERR" | grep -E '^not ok|^#' | head -20 | sed 's/^/# /' >&2
	fi
done
done_testing
