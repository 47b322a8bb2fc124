#!/bin/sh
# --format metrics-brief from real runs: stress-ng's table per sample, every
# line prefixed "wakebench: metrc: [PID] "; the MB/s line only for 0.15.
. "$(dirname "$0")/lib.sh"

golden="$WAKEBENCH_SRC/tests/golden/metrics-brief-0.15.txt"
hdr1=$(sed -n 1p "$golden" | sed 's/^wakebench: metrc: \[4242\] //')
hdr2=$(sed -n 2p "$golden" | sed 's/^wakebench: metrc: \[4242\] //')
row='^pipe {2,}[0-9]+ +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2}$'

run_cmd wb run pipe -j 2 -t 100ms -n 2 --warmup 0 --no-store --format metrics-brief
is "$RC" 0 "metrics-brief run exits 0"
is "$(printf '%s\n' "$OUT" | grep -vc '^wakebench: metrc: \[[0-9]*\] ')" 0 "every line has the prefix"
is "$(printf '%s\n' "$OUT" | sed 's/^wakebench: metrc: \[\([0-9]*\)\] .*/\1/' | sort -u | wc -l)" 1 \
	"one PID on every line"
body=$(printf '%s\n' "$OUT" | sed 's/^wakebench: metrc: \[[0-9]*\] //')
is "$(printf '%s\n' "$body" | wc -l)" 10 "two tables of five lines"
is "$(printf '%s\n' "$body" | grep -cxF "$hdr1")" 2 "first header line as stress-ng's, per sample"
is "$(printf '%s\n' "$body" | grep -cxF "$hdr2")" 2 "second header line as stress-ng's, per sample"
is "$(printf '%s\n' "$body" | grep -cE "$row")" 2 "one data row per sample in stress-ng's row layout"
is "$(printf '%s\n' "$body" | grep -cx 'miscellaneous metrics:')" 2 "miscellaneous metrics per sample (0.15)"
is "$(printf '%s\n' "$body" | grep -cE '^pipe +[0-9]+\.[0-9]{2} MB per sec pipe write rate \(geometic mean of 2 instances\)$')" 2 \
	"MB/s line as stress-ng 0.15 prints it"
# the columns line up with stress-ng's: the data row's ops end where "bogo ops" ends
r=$(printf '%s\n' "$body" | grep -E "$row" | head -1)
ops=$(printf '%s\n' "$r" | awk '{ print $2 }')
[ ${#ops} -le 9 ] && is "$(printf '%s' "$r" | cut -c15-23 | tr -d ' ')" "$ops" "ops right-aligned in stress-ng's column"

run_cmd wb run pipe -j 1 -t 100ms -n 1 --warmup 0 --no-store --format metrics-brief --profile stress-ng-0.16
is "$RC" 0 "0.16 metrics-brief run exits 0"
body=$(printf '%s\n' "$OUT" | sed 's/^wakebench: metrc: \[[0-9]*\] //')
is "$(printf '%s\n' "$body" | wc -l)" 3 "0.16: the table only (no MB/s line, as stress-ng 0.21.00)"
done_testing
