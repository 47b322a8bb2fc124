#!/bin/sh
# make-corpus.sh: rebuild the seed corpora in fuzz/corpus/ (`make fuzz-corpus`).
#   make-corpus.sh MKSEED WAKEBENCH
# Seeds are copies of the test fixtures and golden files (real kernel files),
# a few hand-written command lines and values, result-channel captures and
# stores written by mkseed (fuzz/mkseed.c) and by `wakebench import`, reports
# written by `wakebench report`, and a hostile corpus for the three text
# formats `import` reads (an export, a report, a LAVA job log): the same small
# documents that tests/unit/t-import.c refuses or merges (duplicate keys,
# \u0000, a 64-bit overflow, a byte-order mark, deep nesting, a UUID of 36
# dashes, "experiments" as an object, ...), each as an export, inside a report
# and framed in a log, plus damaged reports and logs and decompression bombs.
# Stores are compacted (512-byte pages, VACUUM) so that the corpus stays small.
set -eu
mkseed=$(realpath "$1")
wakebench=$(realpath "$2")
cd "$(dirname "$0")/.."
c=fuzz/corpus
fx=tests/fixtures
rm -rf "$c"
for t in opts parse cpulist features sched-debug trace-format vmchan import-json import-store \
	lava-log import-report import-posted; do
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
# The fixture's keys are sorted (jq -S); import streams, so "format" and "version" go first.
jq '{ format, version } + .' "$fx"/export/export.json >"$c/import-json/export-no-uuid.json"
jq '{ format, version } + . | .experiments |= [.[] | .uuid = "00000000-0000-4000-8000-0000000000e\(.id)"]' \
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

# ---- the hostile corpus: one small document, then what is wrong with it ----
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wakebench-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
smp() { printf '{"index":%d,"config":"default","warmup":false,"status":"ok","reason":null,"ops":99,"real_s":0.1,"ops_per_s":990.5,"metrics":{"ctxsw_per_op":2.0}}' "$1"; }
printf '%s' '{"format":"wakebench-export","version":2,"schema":4,"experiments":[{"uuid":"8f9149f5-c154-485d-83bb-594e8fb54a5c","kind":"run","workload":"pipe","profile":"stress-ng-0.15","params":{"instances":4},"label":"base","host":"host","kernel":"6.6","started_ns":1796313323512824993,"status":"complete","configs":[{"name":"default","features":"DELAY_DEQUEUE"}],"env":{"start":[{"key":"kernel.release","value":"6.6","impact":"strong"}],"end":[]},"metrics":[{"name":"ctxsw_per_op","better":"lower","evidence":true}],"samples":[' >"$tmp/base.json"
{ smp 0; printf ','; smp 1; printf ']}]}\n'; } >>"$tmp/base.json"
hostile() { # NAME SED-EXPRESSION: a variant of the base document
	sed "$2" "$tmp/base.json" >"$tmp/$1.json"
	cmp -s "$tmp/base.json" "$tmp/$1.json" && { echo "make-corpus: '$1' changed nothing" >&2; exit 1; }
	return 0
}
deep=$(printf '%40s' '' | tr ' ' '[')$(printf '%40s' '' | tr ' ' ']')
hostile dup-key 's/"label":"base"/"label":"base","label":"forged"/'
hostile dup-key-sample 's/{"index":1,/{"index":1,"index":0,/'
hostile nul 's/"label":"base"/"label":"base\\u0000forged"/'
hostile bigint 's/"started_ns":[0-9]*/"started_ns":9223372036854775808/'
hostile nonfinite 's/"real_s":0.1,/"real_s":1e400,/'
hostile deep "s/\"experiments\":/\"future\":$deep,\"experiments\":/"
hostile dashes-uuid 's/"uuid":"[^"]*"/"uuid":"------------------------------------"/'
hostile zero-uuid 's/"uuid":"[^"]*"/"uuid":"00000000-0000-0000-0000-000000000000"/'
hostile experiments-obj 's/"experiments":\[\(.*\)\]}$/"experiments":{"0":\1}}/'
hostile escapes 's/"label":"base"/"label":"\\u001b[31mred\\nforged.case pass 1 ops\/s\\r"/; s/"workload":"pipe"/"workload":"pipe\\nforged.case pass 1 ops\/s"/'
hostile claims 's/"impact":"strong"}/"impact":"strong"},{"key":"vm.accel","value":"kvm","impact":"strong"},{"key":"lava.job_id","value":"7","impact":"identity"}/'
hostile format-last 's/^{"format":"wakebench-export","version":2,\(.*\)}$/{\1,"format":"wakebench-export","version":2}/'
{ printf '\357\273\277\n'; cat "$tmp/base.json"; } >"$tmp/bom.json"
jq -c '.experiments += .experiments' "$tmp/base.json" >"$tmp/dup-uuid.json"
# a string past 64 KiB, one token across the readers' 64 KiB chunks: the digits of 1 to
# 16000, which compress too little for a report's ratio limit
hostile long-string "s/\"label\":\"base\"/\"label\":\"$(seq 1 16000 | tr -d '\n')\"/"
hostiles="base dup-key dup-key-sample dup-uuid nul bigint nonfinite deep dashes-uuid zero-uuid experiments-obj
	escapes claims format-last bom long-string"
for h in $hostiles; do
	[ "$h" = base ] || cp "$tmp/$h.json" "$c/import-json/$h.json"
done

# import-report: a real report; its head and raw data alone; the hostile documents in that
# frame; damaged blocks; decompression bombs (4 MiB of spaces then a document, from 4 KiB)
WAKEBENCH_DB="$c/import-store/export.db" "$wakebench" report -o "$c/import-report/real.html" 2>/dev/null
r=$c/import-report
{
	sed -n '1,/<meta name="generator"/p' "$r/real.html"
	printf '</head>\n<body>\n'
	sed -n '/^<pre id="wakebench-data"/,/^<\/pre>/p' "$r/real.html"
	printf '</body>\n</html>\n'
} >"$r/minimal.html"
for h in $hostiles; do
	"$mkseed" report "$r/minimal.html" "$tmp/$h.json" "$r/doc-$h.html"
done
"$mkseed" report "$r/minimal.html" - "$r/stored.html" 0
awk '/^<pre id="wakebench-data"/ { b = NR } b && NR == b + 3 { exit } { print }' "$r/minimal.html" >"$r/cut.html"
awk '/^<pre id="wakebench-data"/ { b = NR } b && NR == b + 2 { $0 = substr($0, 2, 1) substr($0, 1, 1) substr($0, 3) } { print }' \
	"$r/minimal.html" >"$r/flipped.html"
sed 's/data-sha256="[0-9a-f]*"/data-sha256="'"$(printf '%064d' 0)"'"/' "$r/minimal.html" >"$r/bad-sha.html"
sed 's/data-bytes="[0-9]*"/data-bytes="7"/' "$r/minimal.html" >"$r/bad-bytes.html"
sed 's/data-bytes="[0-9]*" data-compressed="[0-9]*"/data-bytes="2147483648" data-compressed="33554432"/' \
	"$r/minimal.html" >"$r/over-absolute.html"
sed 's/$/\r/' "$r/minimal.html" >"$r/crlf.html"
sed 's/^<pre id="wakebench-data"/  <pre id="wakebench-data"/' "$r/minimal.html" >"$r/indented.html"
sed 's/^<pre id="wakebench-data"/label: <pre id="wakebench-data"/' "$r/minimal.html" >"$r/not-at-line-start.html"
{ head -c 4194304 /dev/zero | tr '\0' ' '; cat "$tmp/base.json"; } >"$tmp/bomb.json"
"$mkseed" report "$r/minimal.html" "$tmp/bomb.json" "$r/bomb-over-ratio.html" 9
"$mkseed" report "$r/minimal.html" "$tmp/bomb.json" "$r/bomb-announced-small.html" 9 max

# lava-log: the hostile documents framed; logs in LAVA's list form and with CRLF; a forged
# job identity; frames cut, interleaved or missing a line; a long line; a huge BEGIN
l=$c/lava-log
for h in $hostiles; do
	[ "$h" = long-string ] || "$mkseed" lava "$tmp/$h.json" "$l/doc-$h.txt"
done
awk '{ printf "- {\"dt\": \"2026-12-01T21:33:38.%06d\", \"lvl\": \"target\", \"msg\": \"%s\"}\n", NR, $0 }' \
	"$l/doc-base.txt" >"$l/list.yaml"
sed 's/$/\r/' "$l/doc-base.txt" >"$l/crlf.txt"
"$mkseed" lava "$tmp/base.json" "$l/forged-identity.txt" \
	'{"lava.job_id":7,"lava.device":"rpi5","lava.forged":"x","vm.accel":"kvm"}'
"$mkseed" lava "$tmp/claims.json" "$tmp/other.txt"
{ head -n 6 "$l/doc-base.txt"; cat "$tmp/other.txt"; } >"$l/cut-then-whole.txt"
{ head -n 6 "$l/doc-base.txt"; cat "$tmp/other.txt"; tail -n +7 "$l/doc-base.txt"; } >"$l/interleaved.txt"
sed '/^WBR1 3 /d' "$l/doc-base.txt" >"$l/missing-line.txt"
{ printf '[   1.000000] '; head -c 16384 /dev/zero | tr '\0' x; printf '\n'; cat "$l/doc-base.txt"; } >"$l/long-line.txt"
printf 'WBR1 BEGIN %s\nWBR1 0 AAAA\nWBR1 END 4194304\nWBR1 BEGIN 4194305 201326640\n' \
	'4194304 201326592' >"$l/begin-huge.txt"

du -sh "$c"
# import-posted: the real and pasted outputs of other tools, and the broken ones (t3037)
cp "$fx"/posted/* "$c/import-posted/"

du -sh "$c"/import-posted "$c"/import-json "$c"/import-report "$c"/lava-log
