#!/bin/sh
# run stores the experiment, its config, every sample (the warm-up too, with
# its status) and the environment at both ends; --no-store writes nothing.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 is not installed"
db="$TMP/store.db"
q() { sqlite3 "$db" "$1"; }

run_cmd wb run pipe -j 1 -t 100ms -n 2 --warmup 100ms --db "$db" --label "first try" --data-size 1k
is "$RC" 0 "run --db exits 0"
like "$OUT" "^stored: experiment [0-9a-f-]{36} in $db" "says where it stored the experiment"
is "$(q "select count(*) from experiments")" 1 "one experiment"
is "$(q "select kind || '|' || workload || '|' || profile || '|' || label || '|' || status from experiments")" \
	"run|pipe|custom (based on stress-ng-0.15)|first try|complete" "experiment: kind, workload, profile, label, status"
like "$(q "select cmdline from experiments")" "run pipe -j 1 -t 100ms -n 2 --warmup 100ms --db" "the command line"
is "$(q "select json_extract(params, '\$.data_size_bytes') || ',' || json_extract(params, '\$.duration_ns') || ',' || json_extract(params, '\$.instances') from experiments")" \
	"1024,100000000,1" "params as JSON: resolved values"
is "$(q "select kernel from experiments")" "$(uname -r)" "the kernel"
is "$(q "select count(*) from configs")" 1 "one config"
is "$(q "select group_concat(idx || ':' || warmup || ':' || status, ' ') from (select * from samples order by idx)")" \
	"0:1:ok 1:0:ok 2:0:ok" "three samples, the warm-up first, all ok"
ok "[ $(q "select count(*) from sample_metrics where name = 'ctxsw_per_op'") -eq 3 ]" "each sample has its counters"
is "$(q "select count(*) from sample_metrics where available = 0 and (why is null or why = '')")" 0 \
	"every unavailable metric says why"
is "$(q "select value from env where phase = 'start' and key = 'kernel.release'")" "$(uname -r)" "environment at the start"
is "$(q "select count(distinct phase) from env")" 2 "environment at the start and the end"
is "$(q "select value from env where phase = 'start' and key = 'workload.profile'")" \
	"custom (based on stress-ng-0.15)" "the profile is in the fingerprint"

# a second run appends; WAKEBENCH_DB is the default store
run_cmd env WAKEBENCH_DB="$db" "$WAKEBENCH" run pipe -j 1 -t 100ms -n 1 --warmup 0
is "$RC" 0 "run with WAKEBENCH_DB exits 0"
is "$(q "select count(*) from experiments")" 2 "a second experiment in the same store"
is "$(q "select profile from experiments order by id desc limit 1")" stress-ng-0.15 "the second one uses the default profile"

run_cmd env WAKEBENCH_DB="$TMP/none.db" "$WAKEBENCH" run pipe -j 1 -t 100ms -n 1 --warmup 0 --no-store
is "$RC" 0 "--no-store exits 0"
ok "[ ! -e '$TMP/none.db' ]" "--no-store creates no store"
unlike "$OUT" "^stored:" "--no-store does not claim to have stored"
done_testing
