#!/bin/sh
# Every example in README.md and doc/*.md that shows a command's output is
# what the binary prints now (scripts/doc-examples.sh; 'make docs' rewrites
# them): one test per block, a skip with the reason where its setup (root,
# FUSE, sqlite3) is missing here. Then the mechanism itself, on a scratch
# page: a new block is filled, a stale one is found and rewritten, a second
# run changes nothing, a live block is compared without its numbers but not
# without its words, and a command's exit status is shown.
. "$(dirname "$0")/lib.sh"

EX="$WAKEBENCH_SRC/scripts/doc-examples.sh"
[ -x "$(dirname "$WAKEBENCH")/tests/t-store" ] ||
	skip_all "test helper $(dirname "$WAKEBENCH")/tests/t-store not built"
command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed"
export WAKEBENCH_FAKEFS

sh "$EX" --check "$WAKEBENCH" >"$TMP/check" 2>"$TMP/diff"
rc=$?
while IFS="$(printf '\t')" read -r res what why; do
	case $res in
	ok) _result 0 "$what" ;;
	skip) skip "$what: $why" ;;
	*) _result 1 "$what: $why" ;;
	esac
done <"$TMP/check"
[ $rc = 0 ] || diag "$(head -c 20000 "$TMP/diff")"
n=$(grep -c . "$TMP/check")
ok "[ $n -ge 30 ]" "the pages hold the examples ($n blocks)"

# the mechanism, on a scratch page
page="$TMP/page.md"
cat >"$page" <<'EOF'
before
<!-- example: wakebench run -j 0 -->
<!-- /example -->
between
<!-- example store=pi5:
wakebench compare --by kernel --label report | head -n 4
wakebench show 1 | head -n 3
-->
```
$ wakebench compare --by kernel --label report | head -n 4
a stale line
```
<!-- /example -->
after
EOF
run_cmd sh "$EX" --check "$WAKEBENCH" "$page"
is "$RC" 1 "--check: stale blocks fail"
like "$OUT" "^not ok.*page\\.md:2 wakebench run -j 0.differs" "an empty block is stale"
like "$OUT" "^not ok.*page\\.md:5 wakebench compare --by kernel --label report \\| head -n 4.differs" \
	"a block that differs is stale, named by its first line and command"
run_cmd sh "$EX" "$WAKEBENCH" "$page"
is "$RC" 0 "rewriting exits 0"
body=$(cat "$page")
like "$body" "^wakebench: error: run: option '--instances' \\(-j\\): .*'0'" "the error is the binary's"
like "$body" "^\\(exit 2\\)$" "its exit status is shown"
like "$body" "^\\$ wakebench show 1 \\| head -n 3$" "each command of a block is shown"
like "$body" "^Kernel +n boots" "the store's compare table"
like "$body" "^experiment 1  [0-9a-f]{8}-" "the store's first experiment"
unlike "$body" "a stale line" "the stale line is gone"
like "$body" "^before$" "the text before the blocks is kept"
like "$body" "^between$" "the text between them is kept"
like "$body" "^after$" "the text after them is kept"
cp "$page" "$TMP/once.md"
run_cmd sh "$EX" "$WAKEBENCH" "$page"
ok "cmp -s '$TMP/once.md' '$page'" "a second run changes nothing"
run_cmd sh "$EX" --check "$WAKEBENCH" "$page"
is "$RC" 0 "--check passes on what it wrote"

# live: numbers are not compared, words are
cat >"$page" <<'EOF'
<!-- example live: wakebench run -j 0 -->
```
$ wakebench run -j 0
EOF
wb run -j 0 2>&1 | sed 's/1\.\.4096/1..4095/' >>"$page"
printf '(exit 2)\n```\n<!-- /example -->\n' >>"$page"
cp "$page" "$TMP/live.md"
run_cmd sh "$EX" --check "$WAKEBENCH" "$page"
is "$RC" 0 "live: a number that differs is not a difference"
run_cmd sh "$EX" "$WAKEBENCH" "$page"
ok "cmp -s '$TMP/live.md' '$page'" "live: a block that matches but for numbers is kept as it is"
like "$(cat "$page")" "allowed 1\\.\\.4095$" "live: it keeps the numbers it had"
sed 's/out of range/out of bounds/' "$TMP/live.md" >"$page"
run_cmd sh "$EX" --check "$WAKEBENCH" "$page"
is "$RC" 1 "live: a word that differs is a difference"
run_cmd sh "$EX" "$WAKEBENCH" "$page"
like "$(cat "$page")" "out of range: '0', allowed 1\\.\\.4096$" "live: a block that differs is rewritten from the binary"

# what cannot run here is a skip with the reason; a transcript must be an example or marked
printf '<!-- example needs=/nonexistent/x: wakebench list -->\n<!-- /example -->\n' >"$page"
run_cmd sh "$EX" --check "$WAKEBENCH" "$page"
is "$RC" 0 "a block whose setup is missing here is not a failure"
like "$OUT" "^skip.*wakebench list.no /nonexistent/x$" "it is a skip with the reason"
printf 'text\n\n```\n$ wakebench list\nworkloads:\n```\n' >"$page"
run_cmd sh "$EX" --check "$WAKEBENCH" "$page"
is "$RC" 1 "a transcript outside an example block fails"
like "$OUT" "^not ok.*page\\.md:3 \\$ wakebench list.a transcript outside an example block" "and is named"
printf 'text\n\n<!-- recorded: a guest in qemu -->\n```\n$ wakebench list\nworkloads:\n```\n' >"$page"
run_cmd sh "$EX" --check "$WAKEBENCH" "$page"
is "$RC" 0 "a transcript marked as recorded passes"

printf '<!-- example: wakebench list\n' >"$page"
run_cmd sh "$EX" --check "$WAKEBENCH" "$page"
is "$RC" 1 "an unterminated block is an error"
done_testing
