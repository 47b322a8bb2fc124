#!/bin/sh
# scripts/next-step.sh, the line `make run` ends with: compare once two
# kernels are stored; else ab where the features can be read as root (the
# FUSE stand-in); else how to store a second kernel, with the reason.
. "$(dirname "$0")/lib.sh"

NEXT="$WAKEBENCH_SRC/scripts/next-step.sh"
SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"

# one kernel stored, features not readable (a debugfs directory with nothing in it)
mkdir "$TMP/empty"
"$SYNTH" --synth "$WAKEBENCH_DB" 1 6 6.6.78 r host 2487746 >/dev/null
# compare takes no --debugfs: the wrapper adds it to features only
printf '#!/bin/sh\ncase $1 in features) exec "%s" "$@" --debugfs "%s" ;; esac\nexec "%s" "$@"\n' \
	"$WAKEBENCH" "$TMP/empty" "$WAKEBENCH" >"$TMP/wb"
chmod +x "$TMP/wb"
run_cmd sh "$NEXT" "$TMP/wb"
is "$RC" 0 "next-step exits 0"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 1 "one line"
like "$OUT" "^next: store a second kernel, then compare: wakebench vm --kernel IMAGE -- run pipe; wakebench compare --by kernel +\(no ab here: " \
	"one kernel, no features: how to get a second kernel, and why no ab"

if [ "$(id -u)" = 0 ]; then
	. "$(dirname "$0")/fakefs.sh"
	fakefs_start dbg
	printf '#!/bin/sh\ncase $1 in features) exec "%s" "$@" --debugfs "%s" ;; esac\nexec "%s" "$@"\n' \
		"$WAKEBENCH" "$TMP/dbg" "$WAKEBENCH" >"$TMP/wb"
	run_cmd sh "$NEXT" "$TMP/wb"
	like "$OUT" "^next: wakebench ab --feature NO_DELAY_DEQUEUE " "features readable as root: ab of DELAY_DEQUEUE"
else
	skip "the features stand-in needs root"
fi

"$SYNTH" --synth "$WAKEBENCH_DB" 1 6 6.12.75 r host 1651427 >/dev/null
run_cmd sh "$NEXT" "$TMP/wb"
like "$OUT" "^next: wakebench compare --by kernel +\(2 kernels are stored" "two kernels: compare"
done_testing
