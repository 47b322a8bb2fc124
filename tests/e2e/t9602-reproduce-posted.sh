#!/bin/sh
# reproduce of what people post, the thread's question as a command: a
# stress-ng 0.21.00 --log-brief paste quoted in a mail, and a stress-ng
# 0.15.06 --yaml file, both made here by the real tools
# (tests/fixtures/posted/) and then edited as a Raspberry Pi 5 owner's
# would read: its uname (aarch64, a 6.12 rpi kernel) and, in the YAML, its
# 16 KiB pages. Each is run with the profile of its release and its
# posted instance count, and the keys that differ from this machine are
# named, strongest first; what the text does not say is unknown.
. "$(dirname "$0")/lib.sh"

FIX=$WAKEBENCH_SRC/tests/fixtures/posted
short="-n 5 -t 100ms --warmup 0"
here=$(uname -r)
# the architecture as wakebench sees it (aarch64 under qemu-user on an x86-64 host);
# the posted one is a Pi 5's, or an x86-64 server's where this is arm64
arch=$(wb env 2>/dev/null | awk '$1 == "kernel.arch" { print $2 }')
posted_arch=aarch64
[ "$arch" != aarch64 ] || posted_arch=x86_64
# likewise the page size: a Pi 5's 16 KiB, or 4 KiB where this machine has 16 KiB pages
posted_page=16384 posted_kib="16 KiB"
! wb env 2>/dev/null | grep -q '^ *mem\.page_size  *16 KiB' || posted_page=4096 posted_kib="4 KiB"

# ---- a 0.21.00 paste from a mail ----
sed "s/x86_64 Linux [^)]*)/$posted_arch Linux 6.12.25+rpt-rpi-2712)/" \
	"$FIX/pasted-log-brief-0.21.00.txt" >"$TMP/pi5-0.21.00.txt"
run_cmd wb reproduce "$TMP/pi5-0.21.00.txt" $short
is "$RC" 0 "reproduce of a pasted 0.21.00 result exits 0"
like "$OUT" "^imported: 1 experiment from '.*pi5-0\.21\.00\.txt'" "the paste is imported first"
like "$OUT" "^source: experiment 1 \([0-9a-f]{8}\) external pipe, host \?, kernel 6\.12\.25\+rpt-rpi-2712: stress-ng 0\.21\.00$" "the source: stress-ng 0.21.00 on the poster's kernel"
like "$OUT" "^workload: pipe, profile: stress-ng-0\.16$" "0.21.00 runs as the profile covering 0.16.00..0.21.01"
like "$OUT" "^2 instances, 5 samples of 100ms" "the posted 2 instances ('dispatching hogs: 2 pipe')"
like "$OUT" "^posted: bogo ops/s \(real time\) 2 092 000 \(1 run, spread unknown\), stress-ng 0\.21\.00, profile stress-ng-0\.16$" "the posted figure"
like "$OUT" "^verdict: (reproduced|not reproduced|undecided)" "a verdict"
like "$(printf '%s\n' "$OUT" | grep -A2 '^  strong  *kernel\.release$' | tr -s ' ' | tr '\n' ';')" \
	"posted: 6\.12\.25\+rpt-rpi-2712; here: $here;" "the kernel differs (strong), with both values"
like "$(printf '%s\n' "$OUT" | grep -A2 '^  identity  *kernel\.arch$' | tr -s ' ' | tr '\n' ';')" \
	"posted: $posted_arch; here: $arch;" "the architecture differs"
order=$(printf '%s\n' "$OUT" | grep -E '^  (strong|medium|weak|identity|run) ' | awk '{ print $2 }' | tr '\n' ' ')
is "$order" "kernel.release kernel.arch " "the differences, strongest first"
like "$OUT" "^unknown on the posted side \(not recorded there\): [0-9]+ keys" "the rest is unknown"
new=$(printf '%s\n' "$OUT" | sed -n 's/^stored: experiment \([0-9a-f-]*\) in .*/\1/p')
run_cmd wb show "$new"
like "$OUT" "^  profile +stress-ng-0\.16$" "the run is stored with that profile"
like "$OUT" "\"instances\":2," "and the posted instance count"

# ---- a 0.15.06 YAML ----
sed -e 's/^\( *release:\).*/\1 6.12.25+rpt-rpi-2712/' -e "s/^\\( *machine:\\).*/\\1 $posted_arch/" \
	-e "s/^\\( *pagesize:\\).*/\\1 $posted_page/" "$FIX/stress-ng-0.15.06.yaml" >"$TMP/pi5-0.15.06.yaml"
run_cmd wb reproduce "$TMP/pi5-0.15.06.yaml" $short --format json
is "$RC" 0 "reproduce of a 0.15.06 YAML exits 0"
like "$OUT" '"profile": ?"stress-ng-0\.15"' "0.15.06 runs as stress-ng-0.15"
like "$OUT" '"tool_version": ?"0\.15\.06"' "the posted release"
like "$OUT" '"outcome": ?"(reproduced|not-reproduced|undecided)"' "a verdict"
keys=$(printf '%s\n' "$OUT" | jq -r '[.verdict.differences[] | .key + "=" + .posted] | join(" ")')
is "$keys" "kernel.release=6.12.25+rpt-rpi-2712 mem.page_size=$posted_kib kernel.arch=$posted_arch" \
	"the kernel, the page size and the architecture differ, strongest first"
is "$(printf '%s\n' "$OUT" | jq -r '.verdict.here.n')" 5 "judged on this run's 5 samples"
run_cmd wb show 1
like "$OUT" "^  kind +external$" "the earlier paste stays as posted"
done_testing
