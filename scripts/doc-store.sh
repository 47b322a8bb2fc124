#!/bin/sh
# doc-store.sh: the synthetic stores that the documentation's examples of
# compare, show, env --diff, report and export are printed from
# (scripts/doc-examples.sh, option store=NAME). Made up, and said so wherever
# they are shown: the samples are invented around the Raspberry Pi 5 report's
# figures, so that the examples are the same on every machine and every run.
# The experiments are written through the store API by the tests' helper
# (t-store --synth); this script then sets what that helper leaves to chance
# or to the clock (UUIDs, times, boots, values, the fingerprint) with
# sqlite3, so that the same store comes out every time.
#
#   scripts/doc-store.sh NAME DB BINARY
#     NAME    pi5       four kernels of the report, three boots each (label
#                       report), and an ab of NO_DELAY_DEQUEUE on 6.12
#             boots     t3020's four kernels, each experiment a boot of its own
#             pair      one boot each of two kernels 8.5% apart
#             labels    two labels run twice each in one boot
#             governor  two runs on one kernel: ondemand at 3 GHz, performance at 2.4 GHz
#     DB      the store to create (it must not exist)
#     BINARY  wakebench; its build directory holds tests/t-store
set -eu

[ $# = 3 ] || { echo "usage: $0 NAME DB BINARY" >&2; exit 2; }
name=$1 db=$2 bin=$3
top=$(cd "$(dirname "$0")/.." && pwd)
synth="$(dirname "$bin")/tests/t-store"
[ -x "$synth" ] || { echo "$0: $synth is not built (make $synth)" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "$0: sqlite3 is not installed" >&2; exit 1; }
[ ! -e "$db" ] || { echo "$0: '$db' exists" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The Raspberry Pi 5 fixture's fingerprint (tests/fixtures/root-pi5), as JSON,
# the base of every experiment's; its debugfs an empty directory (nothing in it).
mkdir "$tmp/no-debugfs"
WAKEBENCH_ROOT="$top/tests/fixtures/root-pi5" "$bin" env --format json --debugfs "$tmp/no-debugfs" \
	>"$tmp/env.json"
feat_dir="$top/tests/fixtures/sched-features"
: >"$tmp/plan.sql"

# exp KERNEL LABEL OPS_PER_S CTXSW_PER_OP [ab=FEATURE:OFF_FACTOR] [KEY=VALUE:IMPACT...]
# One experiment of 10 samples (an ab: 10 pairs) in a boot of its own,
# around OPS_PER_S; an ab's arm without FEATURE runs OFF_FACTOR times as fast
# with 0.8 times the switches. KEY=VALUE pairs override the fingerprint.
n=0
exp() {
	n=$((n + 1))
	kernel=$1 label=$2 ops=$3 ctxsw=$4
	shift 4
	ab="" factor=1 samples=10
	case ${1:-} in ab=*)
		ab=${1#ab=}; factor=${ab#*:}; ab=${ab%%:*}; samples=20; shift ;;
	esac
	"$synth" --synth "$db" 1 "$samples" "$kernel" "$label" raspberrypi 1 \
		${ab:+"ab=$ab"} >/dev/null
	series=$(echo "$kernel" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
	[ -f "$feat_dir/v$series.txt" ] || series=6.6 # the oldest line there is
	features=$(tr -s ' ' <"$feat_dir/v$series.txt" | sed 's/ $//')
	printf "INSERT INTO plan VALUES (%d, '%s', %s, %s, %s, '%s', '%s', '%s');\n" \
		"$n" "$kernel" "$ops" "$ctxsw" "$factor" "$features" "$ab" "$label" >>"$tmp/plan.sql"
	for kv in "$@"; do
		k=${kv%%=*} v=${kv#*=}
		printf "INSERT INTO overrides VALUES (%d, '%s', '%s', %s);\n" \
			"$n" "$k" "${v%:*}" "${v##*:}" >>"$tmp/plan.sql"
	done
}

case $name in
pi5)
	# the report: 6.6 fastest, 6.12 -34%, 6.18 -25%, 7.0 -18%; boots 1-2% apart
	for ops in 2487746 2451093 2512380; do exp 6.6.78+rpt-rpi-2712 report $ops 0.31; done
	for ops in 1651427 1672118 1630270; do exp 6.12.75+rpt-rpi-2712 report $ops 0.47; done
	for ops in 1866040 1839552 1881710; do exp 6.18.20+rpt-rpi-2712 report $ops 0.42; done
	for ops in 2040130 2071902 2016668; do exp 7.0.0+rpt-rpi-2712 report $ops 0.38; done
	# the maintainer's question, in one boot of 6.12: no change beyond 2%
	exp 6.12.75+rpt-rpi-2712 "" 1660210 0.47 ab=DELAY_DEQUEUE:1.004
	;;
boots)
	for ops in 2000000 2170000 1850000 2080000; do exp 6.1.0 boots $ops 0.3; done
	for ops in 2050000 1900000 2200000 1950000; do exp 6.12.0 boots $ops 0.3; done
	for ops in 1400000 1500000 1330000 1450000; do exp 7.0 boots $ops 0.3; done
	exp 6.6.0 boots 2170000 0.3
	;;
pair)
	exp 6.1.0 "" 2000000 0.3
	exp 6.1.1 "" 2170000 0.3
	;;
labels)
	for l in x y x y; do exp 6.12.75+rpt-rpi-2712 $l 1650000 0.47; done
	;;
governor)
	exp 6.12.75+rpt-rpi-2712 "" 1651427 0.47
	exp 6.12.75+rpt-rpi-2712 performance 1408830 0.47 \
		"cpu.governor=performance (cpus 0-3):0" "cpu.max_freq=2400000 kHz (cpus 0-3):0" \
		"cpu.hw_max_freq=2400000 kHz (cpus 0-3):0" "cpu.cur_freq=2400000 kHz (cpus 0-3):4" \
		"run.loadavg=1.50 0.80 0.30:4"
	;;
*)
	echo "$0: unknown store '$name' (pi5, boots, pair, labels, governor)" >&2
	exit 2
	;;
esac

# Everything the helper left to chance or to the clock, set from the plan:
# an experiment an hour apart from 2026-04-14 09:00 UTC, each in a boot of its
# own (the labels store: all in one boot); 2-second samples after a 1-second
# warm-up; values around the plan's with a fixed pseudo-random spread of
# about 0.5% (an ab's arms alternate, B faster by the plan's factor).
{
	cat <<'SQL'
CREATE TEMP TABLE plan (id INTEGER PRIMARY KEY, kernel TEXT, ops REAL, ctxsw REAL, factor REAL,
	features TEXT, ab TEXT, label TEXT);
CREATE TEMP TABLE overrides (id INTEGER, key TEXT, value TEXT, impact INTEGER);
SQL
	cat "$tmp/plan.sql"
	sed "s|@ENV@|$tmp/env.json|; s|@BOOT@|$name|" <<'SQL'
CREATE TEMP TABLE noise AS
	SELECT id, ((((id * 2654435761) % 1000003) / 1000003.0 - 0.5) +
		    (((id * 40503 + 12345) % 999983) / 999983.0 - 0.5)) * 0.012 AS x
	FROM samples;
UPDATE experiments SET
	uuid = printf('%08x-%04x-4%03x-%04x-%012x', (id * 2654435761) % 4294967296,
		      (id * 40503) % 65536, (id * 2011) % 4096, 32768 + (id * 7919) % 16384,
		      (id * 48271 * 2147483647) % 281474976710656),
	started_ns = (1776157200 + (id - 1) * 3600) * 1000000000,
	ended_ns = (1776157200 + (id - 1) * 3600 + 1 + 2 * (SELECT count(*) FROM samples s
		WHERE s.experiment_id = experiments.id)) * 1000000000 + 412000000,
	owner_boot_id = CASE '@BOOT@' WHEN 'labels' THEN 'boot-1' ELSE 'boot-' || id END,
	owner_pid = NULL, owner_start_ticks = NULL;
UPDATE experiments SET
	cmdline = CASE kind WHEN 'ab' THEN 'wakebench ab --feature NO_' ||
			(SELECT ab FROM plan WHERE plan.id = experiments.id) || ' -n 10'
		ELSE 'wakebench run pipe' || coalesce(' --label ' || label, '') END,
	params = CASE kind WHEN 'ab' THEN
		'{"feature":["NO_' || (SELECT ab FROM plan WHERE plan.id = experiments.id) ||
		'"],"order":"abba","seed":0,"margin":0.02,"until_decided":false,"max_samples":64,' ||
		'"max_time_ns":0,"fail_on_regression":false,"instances":4,"duration_ns":2000000000,' ||
		'"samples":10,"warmup_ns":50000000,"placement":"any","cpus":[],"data_size_bytes":512,' ||
		'"pipe_size_bytes":0,"no_packet":false,"trace":"off","perf_counters":false,' ||
		'"ceiling":false,"workload":"pipe","profile":"stress-ng-0.15","design":' ||
		'{"until_decided":false,"budget":64,"time_planned":false,"alpha_two":0.05,' ||
		'"alpha_one":0.05,"serial_allowance":1.2071067341872432,"looks":1,' ||
		'"planned_looks":1,"stopped":"fixed-length"}}'
	ELSE '{"instances":4,"duration_ns":2000000000,"samples":10,"warmup_ns":1000000000,' ||
		'"placement":"any","cpus":[],"data_size_bytes":512,"pipe_size_bytes":0,' ||
		'"no_packet":false,"trace":"off","perf_counters":false,"ceiling":false,' ||
		'"workload":"pipe","profile":"stress-ng-0.15"}' END;
UPDATE configs SET features = (SELECT CASE WHEN configs.name LIKE '%=off'
		THEN replace(' ' || p.features || ' ', ' ' || p.ab || ' ', ' NO_' || p.ab || ' ')
		ELSE p.features END
	FROM plan p WHERE p.id = configs.experiment_id);
UPDATE configs SET features = trim(features);
UPDATE samples SET
	start_realtime_ns = (SELECT started_ns FROM experiments e WHERE e.id = experiment_id) +
		1000000000 + idx * 2000900000,
	duration_ns = 2000000000,
	wall_ns = 2000000000 + 410000 + (id * 7919) % 90000,
	real_s = 2.0003 + ((id * 7919) % 900) / 1000000.0,
	ops_per_s = (SELECT p.ops * (1 + n.x) *
		CASE WHEN c.name LIKE '%=off' THEN p.factor ELSE 1 END
		FROM plan p, noise n, configs c
		WHERE p.id = samples.experiment_id AND n.id = samples.id AND c.id = samples.config_id);
UPDATE samples SET
	ops = CAST(round(ops_per_s * real_s) AS INTEGER),
	usr_s = round(0.92 + ((id * 40503) % 80) / 1000.0, 2),
	sys_s = round(2.81 + ((id * 2011) % 120) / 1000.0, 2);
UPDATE samples SET ops_per_cpu_s = ops / (usr_s + sys_s);
UPDATE sample_metrics SET value = CASE name
	WHEN 'ctxsw_per_op' THEN (SELECT p.ctxsw * (1 - n.x) *
		CASE WHEN c.name LIKE '%=off' THEN 0.8 ELSE 1 END
		FROM plan p, noise n, samples s, configs c
		WHERE s.id = sample_metrics.sample_id AND p.id = s.experiment_id AND n.id = s.id
		AND c.id = s.config_id)
	WHEN 'migrations_per_kop' THEN 0.011 + ((sample_id * 7919) % 20) / 1000.0
	WHEN 'run_delay_ns_per_op' THEN (SELECT 1890 * (1 + 2 * n.x) FROM noise n
		WHERE n.id = sample_metrics.sample_id)
	WHEN 'ns_per_op' THEN (SELECT 4e9 / s.ops_per_s FROM samples s
		WHERE s.id = sample_metrics.sample_id)
	ELSE value END
WHERE available;
DELETE FROM env;
INSERT INTO env (experiment_id, phase, key, value, impact)
	SELECT p.id, 'start', json_extract(k.value, '$.key'),
		replace(json_extract(k.value, '$.value'), '6.12.25', CASE WHEN instr(p.kernel, '+')
			THEN substr(p.kernel, 1, instr(p.kernel, '+') - 1) ELSE p.kernel END),
		CASE json_extract(k.value, '$.impact') WHEN 'strong' THEN 0 WHEN 'medium' THEN 1
			WHEN 'weak' THEN 2 WHEN 'identity' THEN 3 ELSE 4 END
	FROM plan p, json_each(readfile('@ENV@'), '$.keys') k;
UPDATE env SET value = (SELECT p.kernel FROM plan p WHERE p.id = env.experiment_id)
	WHERE key = 'kernel.release';
UPDATE env SET value = (SELECT p.features FROM plan p WHERE p.id = env.experiment_id)
	WHERE key IN ('sched.features', 'sched.features_debug');
UPDATE env SET value = 'raspberrypi' WHERE key = 'host.name';
UPDATE env SET value = '0.1.0' WHERE key = 'wakebench.version';
INSERT OR REPLACE INTO env (experiment_id, phase, key, value, impact)
	SELECT experiment_id, 'start', key, value, impact FROM (
		SELECT id AS experiment_id, 'workload.name' AS key, 'pipe' AS value, 0 AS impact FROM plan
		UNION ALL SELECT id, 'workload.profile', 'stress-ng-0.15', 0 FROM plan
		UNION ALL SELECT e.id, 'wakebench.cmdline', e.cmdline, 4 FROM experiments e
		UNION ALL SELECT id, key, value, impact FROM overrides);
SQL
} >"$tmp/fix.sql"
sqlite3 -bail "$db" <"$tmp/fix.sql"
