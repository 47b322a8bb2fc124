#!/bin/sh
# check-lengths.sh: commands stay thin and functions short.
#   check-lengths.sh [SRC]     (SRC: the source folder, default src/ of this tree)
# Fails, naming the file (and the function with its first line), on any
# function of over MAX_FUNCTION lines (from its definition to its closing
# brace) and on any command file src/cli/cmd-*.c of over MAX_COMMAND lines,
# unless the table below lists it. Run by `make check` (t0005). The code is
# clang-formatted: a definition starts at column 0 and its body's braces are
# counted with strings, characters and comments left out.
set -u
src=${1:-$(cd "$(dirname "$0")/.." && pwd)/src}
MAX_FUNCTION=100
MAX_COMMAND=400

# Files over the limit, each to be made thin (and then taken off this list):
# FILE LINES-AT-MOST. A listed file that grows fails too. None left.
known="
"

fail=0
cd "$src" || exit 2
for f in cli/cmd-*.c; do
	n=$(wc -l <"$f")
	[ "$n" -le "$MAX_COMMAND" ] && continue
	cap=$(printf '%s\n' "$known" | awk -v f="$f" '$1 == f { print $2 }')
	if [ -n "$cap" ] && [ "$n" -le "$cap" ]; then
		continue
	fi
	echo "check-lengths: src/$f: $n lines, a command file has at most $MAX_COMMAND${cap:+ (listed at $cap)}: move what it does to an engine"
	fail=1
done

awk -v limit="$MAX_FUNCTION" '
function strip(s) {
	gsub(/\\./, "", s)
	gsub(/"[^"]*"/, "", s)
	gsub(/'"'"'[^'"'"']*'"'"'/, "", s)
	gsub(/\/\*.*\*\//, "", s)
	sub(/\/\/.*/, "", s)
	return s
}
FNR == 1 { depth = 0; incomment = 0; name = ""; infn = 0 }
{
	line = $0
	if (incomment) {
		if (line ~ /\*\//) { sub(/.*\*\//, "", line); incomment = 0 } else next
	}
	line = strip(line)
	if (line ~ /\/\*/) { sub(/\/\*.*/, "", line); incomment = 1 }
	if (depth == 0 && $0 ~ /^[A-Za-z_].*\(/ && $0 !~ /;[[:space:]]*$/ && $0 !~ /=/) { name = $0; start = FNR }
	o = gsub(/\{/, "{", line); c = gsub(/\}/, "}", line)
	if (depth == 0 && o > 0 && $0 ~ /^\{/ && name != "") infn = 1
	depth += o - c
	if (infn && depth == 0) {
		n = FNR - start + 1
		if (n > limit) {
			sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
			printf "check-lengths: src/%s:%d: %s() has %d lines, at most %d: split it\n", FILENAME, start, name, n, limit
			bad = 1
		}
		infn = 0; name = ""
	}
	if (depth == 0 && !infn && $0 ~ /;[[:space:]]*$/) name = ""
}
END { exit bad }
' $(find . -name '*.c' ! -name '*.bpf.c' | sed 's|^\./||' | sort) || fail=1
exit "$fail"
