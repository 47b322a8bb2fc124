#!/bin/sh
# Ctrl-C during reproduce: no workload process is left, exit 130, the run
# is stored as interrupted with its completed samples and its link to the
# source, the source is unchanged, and the store is consistent.
. "$(dirname "$0")/lib.sh"

# A background job of a non-interactive shell ignores SIGINT; give the
# program the default dispositions, as a terminal would.
env --default-signal true 2>/dev/null || skip_all "env --default-signal is not available"

U=5ea1ed00-0000-4000-8000-000000000015
cat >"$TMP/posted.json" <<EOF2
{"format":"wakebench-export","version":2,"schema":4,"experiments":[{
 "id":1,"uuid":"$U","kind":"external","workload":"pipe","profile":"stress-ng-0.15",
 "params":{"instances":2,"duration_ns":20000000000,"workload":"pipe","profile":"stress-ng-0.15"},
 "cmdline":null,"version":"0.1.0","label":null,"host":"reporter","kernel":"6.6.51",
 "started":"2024-10-01T10:00:00Z","started_ns":1727776800000000000,
 "ended":"2024-10-01T10:01:00Z","ended_ns":1727776860000000000,
 "status":"complete","configs":[{"name":"default","features":null}],
 "env":{"start":[{"key":"external.tool","value":"stress-ng","impact":"identity"},
  {"key":"external.version","value":"0.15.06","impact":"identity"}]},
 "samples":[{"index":0,"config":"default","warmup":false,"status":"ok","reason":null,
  "duration_ns":20000000000,"instances":2,"ops":30000000,"real_s":20.0,"usr_s":4.0,
  "sys_s":30.0,"ops_per_s":1500000.0,"ops_per_cpu_s":882352.9,"metrics":{},"unavailable":{}}]}]}
EOF2
wb import "$TMP/posted.json" >/dev/null || { echo "1..0 # SKIP the posted document does not import"; exit 0; }

# Far more samples than the wait needs: the wait ends on events (two
# samples printed and workload processes seen), or when the run is over.
env --default-signal "$WAKEBENCH" reproduce 5ea1ed00 -t 300ms -n 10000 --warmup 0 \
	>"$TMP/out" 2>"$TMP/err" &
pid=$!
kids=$(wait_running $pid "$TMP/out" '^sample 2/10000')
ok "[ -n '$kids' ]" "reproduce has workload processes before the signal"
kill -INT $pid
wait $pid
is "$?" 130 "SIGINT: exit 130"
is "$(alive "$kids")" "" "no workload process left"
like "$(cat "$TMP/err")" "stopped by SIGINT" "says it was stopped"
unlike "$(cat "$TMP/out")" "^verdict:" "no verdict on an interrupted run"

run_cmd wb log
like "$OUT" "interrupted" "the run is stored as interrupted"
run_cmd wb show 2 # the source is 1
like "$OUT" "^  status +interrupted$" "show: interrupted"
like "$OUT" "\"reproduces\":\"$U\"" "with its link to the source"
like "$OUT" "^  samples +([2-9]|[1-9][0-9]+)$" "its completed samples are stored"
run_cmd wb show $U
like "$OUT" "^  status +complete$" "the source is unchanged"
if command -v sqlite3 >/dev/null 2>&1; then
	is "$(sqlite3 "$WAKEBENCH_DB" 'pragma integrity_check')" ok "the store is consistent"
else
	skip "sqlite3 is not installed"
fi
done_testing
