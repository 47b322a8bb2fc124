#!/bin/sh
# check-layers.sh: the folders of src/ depend on each other one way only.
#   check-layers.sh [SRC]      (SRC: the source folder, default src/ of this tree)
# Reads every #include "FOLDER/..." in SRC and fails, naming the file, the line
# and what that folder may include, on any include that the table below does
# not allow. Run by `make check` (t0005), so that the layering stays true.
#
# The layers, top down (folders not yet present are in the table already):
#   main.c     the command table: anything
#   cli        commands: parse, call, render
#   engine     what a command does, without argv or stdout
#   render     rendering (wakebench report's HTML, mail, Markdown), from result structs
#   runner     instances, placement, the timed window; it runs workloads
#   workloads  one file per workload
#   sys        thin kernel interfaces
#   stats      pure statistics
#   store      the only SQL
#   core       shared types: sample, metric definition, the instance contract
#   util       errors, parsing, I/O, digests; includes nothing of ours
set -u
src=${1:-$(cd "$(dirname "$0")/.." && pwd)/src}

allowed() {
	case $1 in
	cli) echo "engine render runner workloads sys stats store core util" ;;
	engine) echo "render runner workloads sys stats store core util" ;;
	render) echo "stats core util" ;;
	runner) echo "workloads sys stats core util" ;;
	workloads) echo "sys stats core util" ;;
	sys) echo "core util" ;;
	stats) echo "core util" ;;
	store) echo "core util" ;;
	core) echo "util" ;;
	util) echo "" ;;
	*) echo "?" ;;
	esac
}

# Includes that go the wrong way today, each to be removed by moving what it
# needs to its layer (and then taken off this list): FILE:INCLUDE. None left.
known="
"

fail=0
cd "$src" || exit 2
for f in $(find . -name '*.[ch]' | sed 's|^\./||' | sort); do
	case $f in
	*/*) from=${f%%/*} ;;
	*) continue ;; # main.c
	esac
	ok=$(allowed "$from")
	if [ "$ok" = "?" ]; then
		echo "check-layers: src/$f: folder '$from' is not in the layer table (scripts/check-layers.sh)"
		fail=1
		continue
	fi
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_-]*/' "$f" |
		sed 's/^\([0-9]*\):.*"\([a-z_-]*\)\/\([^"]*\)".*/\1 \2 \3/' >"${TMPDIR:-/tmp}/check-layers.$$"
	while read -r line to rest; do
		[ "$to" = "$from" ] && continue
		case " $ok " in *" $to "*) continue ;; esac
		case $known in *"
$f:$to/$rest
"*) continue ;; esac
		echo "check-layers: src/$f:$line: $from may not include $to/$rest ($from may include: ${ok:-nothing of ours})"
		fail=1
	done <"${TMPDIR:-/tmp}/check-layers.$$"
	rm -f "${TMPDIR:-/tmp}/check-layers.$$"
done
exit "$fail"
