#!/bin/sh
# wakebench env output formats are reviewed diffs: the fake trees' fingerprints
# in JSON (Pi 5) and text (x86 server) against golden files. Regenerate with
# the commands below when a key is added on purpose.
. "$(dirname "$0")/lib.sh"

V=$(wb --version | awk '{print $2}')
norm() { sed "s/\"$V\"/\"VERSION\"/; s/\(wakebench.version  *\)$V\$/\1VERSION/"; }

mkdir "$TMP/no-debugfs"
WAKEBENCH_ROOT="$FIXTURES/root-pi5" wb env --debugfs "$TMP/no-debugfs" --format json | norm \
	>"$TMP/pi5.json"
ok "diff -u '$WAKEBENCH_SRC/tests/golden/env-pi5.json' '$TMP/pi5.json'" "Pi 5 JSON matches the golden file"
[ "$_tap_fail" = 0 ] || diff -u "$WAKEBENCH_SRC/tests/golden/env-pi5.json" "$TMP/pi5.json" | head -30 | sed "s/^/# /"
is "$(jq -r '.keys | length' "$TMP/pi5.json")" "$(jq -r '.keys | map(.key) | unique | length' "$TMP/pi5.json")" \
	"every key appears once"

WAKEBENCH_ROOT="$FIXTURES/root-x86" wb env --debugfs "$FIXTURES/root-x86/sys/kernel/debug" | norm \
	>"$TMP/x86.txt"
ok "diff -u '$WAKEBENCH_SRC/tests/golden/env-x86.txt' '$TMP/x86.txt'" "x86 text matches the golden file"
done_testing
