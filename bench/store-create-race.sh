#!/bin/sh
# store-create-race.sh: commands starting at once on a new store.
#
# ROUNDS times, removes the store and starts 8 `wakebench run` (10 ms, one
# sample) at once on it, then counts the commands that failed and prints the
# distinct errors. Before the schema check read in one transaction, 2 of 320
# commands failed with "is not a wakebench store (an SQLite database with other
# tables)"; after it, 0 of 800. Never run by `make check` (t3004 starts 8
# runs at once 20 times).
#
#   sh bench/store-create-race.sh [ROUNDS] [WAKEBENCH]   (default 100, build/wakebench)
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-100}
wb=${2:-$PWD/build/wakebench}
[ -x "$wb" ] || make --no-print-directory wakebench >/dev/null
dir=$(mktemp -d "${TMPDIR:-/tmp}/wakebench-race.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fails=0
r=0
while [ "$r" -lt "$rounds" ]; do
	rm -f "$dir/c.db" "$dir/c.db-wal" "$dir/c.db-shm"
	pids=""
	for i in 1 2 3 4 5 6 7 8; do
		"$wb" run pipe -t 10ms -n 1 --warmup 0 -j 1 -q --db "$dir/c.db" \
			>/dev/null 2>"$dir/err.$r.$i" &
		pids="$pids $!"
	done
	for p in $pids; do wait "$p" || fails=$((fails + 1)); done
	r=$((r + 1))
done
echo "store-create-race: $fails of $((rounds * 8)) commands failed ($rounds rounds of 8 at once)"
cat "$dir"/err.* | sed 's/wakebench-race\.[A-Za-z0-9]*/wakebench-race.X/' | sort | uniq -c
