#!/bin/sh
# make-corpus.sh: rebuild the seed corpora in fuzz/corpus/ (`make fuzz-corpus`).
#   make-corpus.sh MKSEED WAKEBENCH
# Seeds are copies of the test fixtures and golden files (real kernel files),
# a few hand-written command lines and values, result-channel captures and
# stores written by mkseed (fuzz/mkseed.c) and by `wakebench import`. Stores
# are compacted (512-byte pages, VACUUM) so that the corpus stays small.
set -eu
mkseed=$(realpath "$1")
wakebench=$(realpath "$2")
cd "$(dirname "$0")/.."
c=fuzz/corpus
fx=tests/fixtures
rm -rf "$c"
for t in opts parse cpulist features sched-debug trace-format vmchan import-json import-store lava-log; do
	mkdir -p "$c/$t"
done

# opts: a mode byte, then NUL-ended arguments. Mode '0': the target's own tables; '1': the
# same, stopping at the first positional; '2': the tables of `run pipe`; '6': `run pingpong`.
args() { # NAME MODE ARG...
	f="$c/opts/$1"
	printf '%s' "$2" >"$f"
	shift 2
	for a in "$@"; do printf '%s\0' "$a" >>"$f"; done
}
args run 0 pipe -j 4 -t 20s --data-size=4k --placement same-cpu --format=json
args short 0 -j4 -t500ms -q -fDELAY_DEQUEUE -f NO_PLACE_LAG --label=x
args warmup 0 --warmup --warmup=2m --margin 2% --ratio=0.25 --secret
args vm 1 --label a -- run pipe -n 3
args pos 1 run --format metrics-brief -- -x
args help 0 -h --help --data-size 64KiB
args bad 0 --instances=0 --placement=nowhere --duration 5x
args dash 0 -- -j 4
args run-pipe 2 -j 4 -t 20s -n 1 --data-size 4k --pipe-size=64k --no-packet --format=metrics-brief
args run-pipe-2 2 --placement=cross-cpu --warmup=0 --trace=auto --perf-counters -q --db x.db
args run-pingpong 6 --threads -j1 -n 5 --trace --debugfs /d -v --no-store --format json

# parse: values as typed on command lines.
n=0
for v in 20s 500ms 0.5s 2m 100us 1h 15ns 3min 10sec 512 4k 1M 64KiB 1gb 0 \
	18446744073709551615 1.5 .5s 1e3 1e+06s 0x10ms 5x -1 '' inf; do
	n=$((n + 1))
	printf '%s' "$v" >"$c/parse/$n"
done

# cpulist: two bytes of bitmap size (1 + value % 4096 CPUs), then the list.
n=0
for f in $(find "$fx" -path '*/sys/devices/system/cpu/*' \( -name online -o -name possible \
	-o -name present -o -name affected_cpus -o -name related_cpus \) | sort); do
	n=$((n + 1))
	{ printf '\377\017'; cat "$f"; } >"$c/cpulist/fixture-$n"
done
printf '\007\000%s' '0-3,5,7-8' >"$c/cpulist/range"
printf '\001\000%s\n' '0-1' >"$c/cpulist/small"

# features, sched/debug, tracefs formats: the kernel files of the fixtures.
cp "$fx"/sched-features/*.txt "$c/features/"
cp "$fx"/sched-debug-*.txt "$c/sched-debug/"
for f in "$fx"/tracefs/*/events/sched/*/format; do
	ev=${f%/format}
	rel=${f#"$fx"/tracefs/}
	cp "$f" "$c/trace-format/${rel%%/*}-${ev##*/}"
done

# vmchan: captures as guests write them; a one-byte capture (a read past its end).
"$mkseed" vmchan "$c/vmchan"
printf 'W' >"$c/vmchan/short-W"

# import-json: the export fixture (the golden file of t3003, without UUIDs), the same with
# UUIDs as `export` writes them, and the smallest document import accepts.
cp "$fx"/export/export.json "$c/import-json/export-no-uuid.json"
jq '.experiments |= [.[] | .uuid = "00000000-0000-4000-8000-0000000000e\(.id)"]' \
	"$fx"/export/export.json >"$c/import-json/export.json"
printf '{"format":"wakebench-export","version":2,"experiments":[]}\n' >"$c/import-json/empty.json"
# "experiments" an object: its members were imported and the skipped count wrapped.
printf '{"format":"wakebench-export","version":2,"experiments":{"0":{"uuid":"%s","workload":"pipe"}}}\n' \
	00000000-0000-4000-8000-0000000000f1 >"$c/import-json/experiments-object.json"

# import-store: a store of every schema version, and one holding the export fixture.
"$mkseed" store "$c/import-store"
WAKEBENCH_DB="$c/import-store/export.db" "$wakebench" import "$c/import-json/export.json" >/dev/null
for f in "$c"/import-store/*.db; do
	sqlite3 "$f" 'PRAGMA journal_mode = DELETE; PRAGMA page_size = 512; VACUUM;' >/dev/null
	rm -f "$f-wal" "$f-shm"
done
# One stays in WAL mode, as stores are written.
sqlite3 "$c/import-store/export.db" 'PRAGMA journal_mode = WAL;' >/dev/null
rm -f "$c/import-store/export.db-wal" "$c/import-store/export.db-shm"

# lava-log: the export fixture's experiments framed for a console (export --format lava),
# as plain console text and as lava-run's log lines.
LAVA_JOB_ID=7 WAKEBENCH_LAVA_DEVICE=qemu WAKEBENCH_LAVA_LAB=lab \
	"$wakebench" export --db "$c/import-store/export.db" --format lava >"$c/lava-log/plain.txt"
awk '{ printf "{\"dt\": \"2026-12-01T21:33:38.%06d\", \"lvl\": \"target\", \"msg\": \"%s\"}\n", NR, $0 }' \
	"$c/lava-log/plain.txt" >"$c/lava-log/lava-run.yaml"

du -sh "$c"
