#!/bin/sh
# import-scale.sh: `import` time and peak memory against the samples of one
# experiment, in each input format.
#
# For each size (1,000, 10,000 and 100,000 samples by default) synthesises a
# store of one experiment of that many samples (`t-store --synth DB 1 N 6.6 r
# host 1000000`) and writes it as each format `import` reads: the JSON export
# (`export`), an HTML report with its raw data (`report --data-limit 0`: by
# default a report leaves its data out past 4 MiB of encoding, 100,000 samples
# need about 9 MB), a LAVA job log (`export --format lava`'s frame, each
# console line wrapped as lava-run logs it, {"dt": ..., "lvl": "target",
# "msg": ...}, between lines of the dispatcher's own) and the store itself.
# Each is imported once into an existing store (a copy of a store holding
# another experiment of 10 samples) and once into a new one (which `import`
# first checks against a scratch store, so a new store costs about twice the
# merge), and the merged sample count is checked.
#
# Prints per import its wall and CPU (user + system) seconds, its peak
# resident memory (GNU time's %M) and its CPU seconds per 1,000 samples; then
# a verdict per format:
#   linear:  CPU seconds per sample at the largest size within 2x of those at
#            the next size down (CPU, not wall: on a shared machine the wall
#            time includes waiting for a CPU);
#   bounded: peak RSS at the largest size within 1.5x that at the smallest
#            plus 8 MiB (SQLite's page caches, 2 MiB each for the store and
#            its temporary tables, fill only with larger imports).
# Exits 1 if a check fails, 2 if it cannot run. Never run by `make check`;
# up to 100,000 samples it takes about 2.5 minutes on 2 CPUs and 400 MB of
# $TMPDIR (the LAVA log of 100,000 samples alone is 143 MB).
#
#   [WAKEBENCH=build/wakebench] [T_STORE=build/tests/t-store] \
#     [SIZES="1000 10000 100000"] sh bench/import-scale.sh
set -eu
cd "$(dirname "$0")/.."
WB=${WAKEBENCH:-$PWD/build/wakebench}
SYNTH=${T_STORE:-$PWD/build/tests/t-store}
SIZES=${SIZES:-1000 10000 100000}
FORMATS="json html lava store"
RATIO_TIME=2
RATIO_RSS=1.5
ALLOW_RSS_MIB=8

for b in "$WB" "$SYNTH"; do
	if [ ! -x "$b" ]; then
		echo "import-scale: '$b' is not built (make wakebench build/tests/t-store)" >&2
		exit 2
	fi
done
set -- $SIZES
if [ $# -lt 3 ]; then
	echo "import-scale: SIZES='$SIZES': give at least three sizes, smallest first" >&2
	exit 2
fi

DIR=$(mktemp -d "${TMPDIR:-/tmp}/wakebench-import-scale.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
trap 'exit 130' INT TERM
unset WAKEBENCH_DB

# The peak RSS: GNU time's (getrusage's of the child). Sampling
# /proc/PID/status VmHWM instead misses imports shorter than its period.
GNU_TIME=
for t in /usr/bin/time /bin/time; do
	if "$t" -f '%M' -o "$DIR/probe" true 2>/dev/null && [ -s "$DIR/probe" ]; then
		GNU_TIME=$t
		break
	fi
done
if [ -z "$GNU_TIME" ]; then
	echo "import-scale: needs GNU time for the peak RSS (Debian's package 'time')" >&2
	exit 2
fi

# measure CMD...: run it with stdout in $DIR/out and stderr in $DIR/err; set
# WALL, CPU (user + sys, seconds) and RSS (peak, KiB); its exit status in RC.
measure() {
	RC=0
	"$GNU_TIME" -f '%e %U %S %M' -o "$DIR/time" "$@" >"$DIR/out" 2>"$DIR/err" || RC=$?
	# after a failure GNU time writes "Command exited with non-zero status" first
	set -- $(tail -n 1 "$DIR/time")
	WALL=$1 RSS=$4
	CPU=$(awk -v u="$2" -v s="$3" 'BEGIN { printf "%.2f", u + s }')
}

# make_inputs N: the store of one experiment of N samples and its formats
make_inputs() {
	n=$1
	d=$DIR/in
	rm -rf "$d"
	mkdir -p "$d"
	"$SYNTH" --synth "$d/store" 1 "$n" 6.6 r host 1000000 >/dev/null
	"$WB" export --db "$d/store" >"$d/json"
	"$WB" report --db "$d/store" --data-limit 0 -o "$d/html" 2>/dev/null
	if ! grep -q '^<pre id="wakebench-data"' "$d/html"; then
		echo "import-scale: the report of $n samples has no raw data block" >&2
		exit 2
	fi
	LAVA_JOB_ID=7 WAKEBENCH_LAVA_DEVICE=bench WAKEBENCH_LAVA_LAB=lab \
		"$WB" export --db "$d/store" --format lava | awk '
		BEGIN { print "{\"dt\": \"2026-12-01T21:00:00.000000\", \"lvl\": \"info\", \"msg\": \"start: 0 validate\"}" }
		{ printf "{\"dt\": \"2026-12-01T21:33:38.%06d\", \"lvl\": \"target\", \"msg\": \"%s\"}\n", NR % 1000000, $0 }
		END { print "{\"dt\": \"2026-12-01T22:00:00.000000\", \"lvl\": \"info\", \"msg\": \"Job finished correctly\"}" }' \
		>"$d/lava"
}

# The existing store: another experiment of 10 samples.
"$SYNTH" --synth "$DIR/base.db" 1 10 6.1 base host 900000 >/dev/null
BASE_SAMPLES=10

samples_in() { "$WB" export --db "$1" --format csv | tail -n +2 | wc -l | tr -d ' '; }

printf '%-6s %-8s %8s %9s %8s %8s %9s %10s\n' format into samples 'file MiB' 'wall s' 'CPU s' \
	'RSS MiB' 'CPU s/1k'
: >"$DIR/results"
failed=0
for n in $SIZES; do
	make_inputs "$n"
	for f in $FORMATS; do
		src=$DIR/in/$f
		mib=$(wc -c <"$src" | awk '{ printf "%.1f", $1 / 1048576 }')
		for into in existing new; do
			dst=$DIR/dst.db
			rm -f "$dst" "$dst-wal" "$dst-shm"
			want=$n
			if [ "$into" = existing ]; then
				cp "$DIR/base.db" "$dst"
				want=$((n + BASE_SAMPLES))
			fi
			measure "$WB" import --db "$dst" "$src"
			got=$(samples_in "$dst")
			if [ "$RC" -ne 0 ] || [ "$got" -ne "$want" ]; then
				printf 'import-scale: import of %s (%s samples) into a %s store: exit %s, %s samples in it where %s were expected:\n' \
					"$f" "$n" "$into" "$RC" "$got" "$want" >&2
				cat "$DIR/err" >&2
				exit 2
			fi
			per=$(awk -v c="$CPU" -v n="$n" 'BEGIN { printf "%.3f", c * 1000 / n }')
			printf '%-6s %-8s %8s %9s %8.2f %8.2f %9.1f %10s\n' "$f" "$into" "$n" "$mib" \
				"$WALL" "$CPU" "$(awk -v k="$RSS" 'BEGIN { print k / 1024 }')" "$per"
			echo "$f $into $n $CPU $RSS" >>"$DIR/results"
		done
	done
done
rm -rf "$DIR/in" "$DIR/dst.db"*

# The verdicts: largest size against the next one down (time), and against
# the smallest (memory).
small=$1
eval "large=\${$#}"
eval "mid=\${$(($# - 1))}"
echo
printf 'checks: CPU s/sample at %s <= %sx that at %s; peak RSS at %s <= %s x that at %s + %s MiB\n' \
	"$large" "$RATIO_TIME" "$mid" "$large" "$RATIO_RSS" "$small" "$ALLOW_RSS_MIB"
for f in $FORMATS; do
	awk -v f="$f" -v s="$small" -v m="$mid" -v l="$large" -v rt="$RATIO_TIME" \
		-v rr="$RATIO_RSS" -v allow="$ALLOW_RSS_MIB" '
	# CPU times are counted in 10 ms ticks
	$1 == f { cpu[$2, $3] = $4 > 0.01 ? $4 : 0.01; rss[$2, $3] = $5 / 1024 }
	END {
		ok = 1
		for (i = 1; i <= 2; i++) {
			into = i == 1 ? "existing" : "new"
			tr = (cpu[into, l] / l) / (cpu[into, m] / m)
			lim = rr * rss[into, s] + allow
			t = t sprintf("%s%s %.2fx", i > 1 ? ", " : "", into, tr)
			r = r sprintf("%s%s %.1f MiB (limit %.1f)", i > 1 ? ", " : "", into,
				      rss[into, l], lim)
			if (tr > rt) { ok = 0; bad = bad " time(" into ")" }
			if (rss[into, l] > lim) { ok = 0; bad = bad " memory(" into ")" }
		}
		printf "%-6s %s: CPU per sample at %s over at %s: %s (limit %sx); peak RSS at %s: %s\n",
		       f, ok ? "ok    " : "FAILED", l, m, t, rt, l, r
		if (!ok)
			printf "%-6s failed:%s\n", f, bad
		exit !ok
	}' "$DIR/results" || failed=1
done
printf 'load average: %s; times and peak RSS from GNU time (%s)\n' \
	"$(cut -d' ' -f1-3 /proc/loadavg)" "$GNU_TIME"
exit "$failed"
