#!/bin/sh
# reproduce: an external experiment (here made from a hand-written export
# document, as a posted stress-ng 0.15.06 result would be imported) is run
# again with its profile and parameters, stored with its link to the
# source, and judged; the environment keys that differ are listed
# strongest first and the keys the posted side lacks as unknown. A figure
# far from anything is not reproduced; a source that cannot be reproduced
# gets one line; a report and a posted file work as sources.
. "$(dirname "$0")/lib.sh"

short="-n 5 -t 100ms --warmup 0"

# posted FILE UUID KIND PROFILE VERSION VALUE...: an external pipe experiment,
# 3 instances for 20s, one sample per value of ops_per_s.
posted() {
	_f=$1 _u=$2 _k=$3 _p=$4 _v=$5
	shift 5
	_s="" _i=0
	for _x in "$@"; do
		_s="$_s${_s:+,}{\"index\":$_i,\"config\":\"default\",\"warmup\":false,\"status\":\"ok\","
		_s="$_s\"reason\":null,\"duration_ns\":20000000000,\"instances\":3,\"ops\":30000000,"
		_s="$_s\"real_s\":20.0,\"usr_s\":4.0,\"sys_s\":30.0,\"ops_per_s\":$_x,"
		_s="$_s\"ops_per_cpu_s\":882352.9,\"metrics\":{},\"unavailable\":{}}"
		_i=$((_i + 1))
	done
	cat >"$_f" <<EOF
{"format":"wakebench-export","version":2,"schema":4,"experiments":[{
 "id":1,"uuid":"$_u","kind":"$_k","workload":"pipe","profile":$_p,
 "params":{"instances":3,"duration_ns":20000000000,"data_size_bytes":512,"pipe_size_bytes":0,
  "no_packet":false,"workload":"pipe","profile":$_p},
 "cmdline":"stress-ng --pipe 3 --timeout 20s --metrics-brief","version":"0.1.0","label":null,
 "host":"reporter-pi5","kernel":"6.6.51+rpt-rpi-2712",
 "started":"2024-10-01T10:00:00Z","started_ns":1727776800000000000,
 "ended":"2024-10-01T10:01:00Z","ended_ns":1727776860000000000,
 "status":"complete","configs":[{"name":"default","features":null}],
 "env":{"start":[
  {"key":"external.tool","value":"stress-ng","impact":"identity"},
  {"key":"external.version","value":"$_v","impact":"identity"},
  {"key":"external.format","value":"stress-ng-metrics-brief","impact":"identity"},
  {"key":"kernel.release","value":"6.6.51+rpt-test-kernel","impact":"strong"},
  {"key":"mem.page_size","value":"64 KiB (posted)","impact":"weak"},
  {"key":"kernel.arch","value":"posted-arch","impact":"identity"}]},
 "samples":[$_s]}]}
EOF
}

U=5ea1ed00-0000-4000-8000-000000000015
posted "$TMP/posted.json" $U external '"stress-ng-0.15"' 0.15.06 1500000.0 1550000.0 1450000.0
run_cmd wb import "$TMP/posted.json"
is "$RC" 0 "the posted document imports"

# ---- by UUID ----
run_cmd wb reproduce 5ea1ed00 $short
is "$RC" 0 "reproduce by UUID prefix exits 0"
like "$OUT" "^source: experiment 1 \(5ea1ed00\) external pipe, host reporter-pi5, kernel 6.6.51\+rpt-rpi-2712: stress-ng 0.15.06$" "the source is named with its tool and version"
like "$OUT" "^workload: pipe, profile: stress-ng-0.15$" "the posted profile runs"
like "$OUT" "^3 instances, 5 samples of 100ms" "the posted instance count runs, -n and -t override"
like "$OUT" "^posted: bogo ops/s \(real time\) 1 500 000 \(mean of 3 runs, sd 50 000\), stress-ng 0.15.06" "the posted mean and spread"
like "$OUT" "^here:   bogo ops/s \(real time\) $NUM \(median\), [0-9]+% CI $NUM \.\. $NUM \(5 samples\)" "this run's median and interval"
like "$OUT" "^verdict: (reproduced \(the posted value lies within|not reproduced: [0-9.]+% (lower|higher) here)" "a verdict line"
like "$OUT" "^3 environment differences that could explain a gap \(strongest first\):$" "three differences"
order=$(printf '%s\n' "$OUT" | grep -E '^  (strong|medium|weak|identity|run) ' | awk '{ print $1 " " $2 }' | tr '\n' ';')
is "$order" "strong kernel.release;weak mem.page_size;identity kernel.arch;" "the differing keys, strongest first"
like "$OUT" "posted: 64 KiB \(posted\)" "each with the posted value"
unlike "$OUT" "external\.(tool|version|format)" "the posted tool is no environment difference"
like "$OUT" "^unknown on the posted side \(not recorded there\): [0-9]+ keys" "keys the posted side lacks are unknown"
like "$OUT" "^  .*kernel\.preempt" "a strong unknown key is named"
like "$OUT" "^stored: experiment " "the run is stored"
new=$(printf '%s\n' "$OUT" | sed -n 's/^stored: experiment \([0-9a-f-]*\) in .*/\1/p')
run_cmd wb show "$new"
like "$OUT" "^  label +reproduce of 5ea1ed00$" "stored with the label 'reproduce of UUID8'"
like "$OUT" "\"instances\":3," "stored with the posted instance count"
like "$OUT" "\"reproduces\":\"$U\"" "stored with its link to the source"
like "$OUT" "^  profile +stress-ng-0.15$" "stored with the posted profile"
run_cmd wb show 5ea1ed00
like "$OUT" "^  status +complete$" "the source is unchanged"

# ---- a stored run (another host's, as far as reproduce cares) ----
run_cmd wb reproduce "$new" $short
is "$RC" 0 "reproduce of a stored run exits 0"
like "$OUT" "^source: experiment [0-9]+ \(${new%"${new#????????}"}\) run pipe, .*: wakebench " "a run's source is wakebench itself"
like "$OUT" "^posted: bogo ops/s \(real time\) $NUM \(mean of 5 runs, sd $NUM\), wakebench [^ ]+, profile stress-ng-0.15$" "its figure: the run's own samples"

# ---- options override the source's ----
run_cmd wb reproduce 1 $short -j 1 --label mine --format json
is "$RC" 0 "reproduce by id with -j 1 --label --format json exits 0"
like "$OUT" '"outcome": ?"(reproduced|not-reproduced)"' "JSON: the outcome"
like "$OUT" '"key": ?"kernel.release"' "JSON: the differences"
like "$OUT" '"tool_version": ?"0.15.06"' "JSON: the source's tool version"
new=$(printf '%s\n' "$OUT" | sed -n 's/^  "uuid": "\([0-9a-f-]*\)",*$/\1/p' | tail -n 1)
run_cmd wb show "$new"
like "$OUT" "\"instances\":1," "-j overrides the posted instance count"
like "$OUT" "^  label +mine$" "--label overrides the default label"

# ---- a figure far from anything ----
F=5ea1ed00-0000-4000-8000-0000000000ff
posted "$TMP/far.json" $F external '"stress-ng-0.15"' 0.15.06 1e12
wb import "$TMP/far.json" >/dev/null
run_cmd wb reproduce 5ea1ed00-0000-4000-8000-0000000000ff $short
is "$RC" 0 "reproduce of a far-off figure exits 0"
like "$OUT" "^posted: bogo ops/s \(real time\) 1 000 000 000 000 \(1 run, spread unknown\)" "one posted run: no spread"
like "$OUT" "^verdict: not reproduced: (99\.[0-9]|100\.0)% lower here \(the posted value lies outside" "not reproduced, and how far"

# ---- what cannot be reproduced: one line, exit 2, nothing run ----
posted "$TMP/ab.json" 5ea1ed00-0000-4000-8000-0000000000ab ab '"stress-ng-0.15"' 0.15.06 1500000.0
run_cmd wb reproduce "$TMP/ab.json" $short
is "$RC" 2 "an ab experiment: exit 2"
like "$ERR" "cannot be reproduced: it is an ab experiment .*'wakebench ab'" "an ab experiment: says why"
is "$(printf '%s\n' "$ERR" | wc -l)" 1 "an ab experiment: one line"
posted "$TMP/old.json" 5ea1ed00-0000-4000-8000-000000000090 external null 0.9.01 1500000.0
run_cmd wb reproduce "$TMP/old.json" $short
is "$RC" 2 "a release no profile covers: exit 2"
like "$ERR" "cannot be reproduced: no profile of pipe reproduces stress-ng 0.9.01 \(its profiles cover stress-ng 0\.15\.00\.\." "names the release and the range covered"
unlike "$OUT" "^sample" "nothing was run"
run_cmd wb reproduce
is "$RC" 2 "no SOURCE: exit 2"
like "$ERR" "no SOURCE" "no SOURCE: says so"
run_cmd wb reproduce zzzz
is "$RC" 2 "an unknown experiment: exit 2"
run_cmd wb reproduce 1 $short --db "$TMP/none/x.db"
is "$RC" 2 "a store in a missing directory: exit 2"
run_cmd wb reproduce -h
is "$RC" 0 "-h exits 0"
like "$OUT" "^usage: wakebench reproduce SOURCE \[options\]" "-h: the usage"

# ---- a posted file and a report as SOURCE ----
run_cmd wb reproduce "$TMP/posted.json" --db "$TMP/fresh.db" $short
is "$RC" 0 "a posted file as SOURCE exits 0"
like "$OUT" "^imported: 1 experiment from '.*posted.json' into '.*fresh.db' \(1 new\)$" "says the file was imported, and where"
run_cmd wb show $U --db "$TMP/fresh.db"
like "$OUT" "^  kind +external$" "the posted experiment is in the store"
run_cmd wb reproduce "$TMP/posted.json" --db "$TMP/fresh.db" $short
like "$OUT" "\(0 new\)$" "a second time: nothing new imported, reproduced again"
like "$OUT" "^verdict: " "a second time: a verdict"
wb report $U -o "$TMP/r.html" 2>/dev/null
run_cmd wb reproduce "$TMP/r.html" --db "$TMP/from-report.db" $short
is "$RC" 0 "a report.html as SOURCE exits 0"
like "$OUT" "^source: experiment 1 \(5ea1ed00\) external pipe" "the report's experiment is reproduced"
like "$OUT" "^verdict: " "a report: a verdict"
done_testing
