#!/bin/sh
# import reads other tools' output as people post it (tests/fixtures/posted:
# real output of Debian's stress-ng 0.15.06, stress-ng 0.15.10 .. 0.22.00
# built from their tags, perf bench sched pipe/messaging, rt-tests hackbench,
# schbench at 24e32b8; then pasted variants and broken ones): each becomes
# an experiment of kind external with the tool's version, the profile that
# reproduces it, the posted arguments as wakebench's parameters and one
# sample per run whose figures are the text's. Broken input is refused with
# the file, the line and what was expected (exit 1), imports nothing and
# creates no store; bad option values exit 2.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "jq not installed"
P="$WAKEBENCH_SRC/tests/fixtures/posted"

# one experiment of a fresh store: "FIELD|FIELD..." chosen by a jq expression
imp() { # imp NAME FILE [OPTIONS...]: import FILE into $TMP/NAME.db
	db="$TMP/$1.db"
	f="$2"
	shift 2
	rm -f "$db"
	run_cmd wb import --db "$db" "$@" "$P/$f"
}
q() { wb export --db "$db" | jq -r "$1"; }
envk() { q "[.experiments[0].env.start[] | select(.key == \"$1\") | .value] | join(\",\")"; }

# ---- stress-ng --yaml, every version: version and profile from the text
for v in 0.15.06 0.16.00 0.18.12 0.21.00; do
	imp y$v stress-ng-$v.yaml
	is "$RC" 0 "stress-ng $v --yaml: imported"
	is "$(q '.experiments[0] | "\(.kind)|\(.workload)|\(.status)"')" "external|pipe|complete" \
		"  kind external, workload pipe, complete"
	is "$(envk external.version)|$(envk external.format)" "$v|stress-ng-yaml" \
		"  external.version $v, external.format stress-ng-yaml"
	ops=$(sed -n '/^metrics:/,$ s/^      bogo-ops: //p' "$P/stress-ng-$v.yaml" | head -1)
	rate=$(sed -n '/^metrics:/,$ s/^      bogo-ops-per-second-real-time: //p' "$P/stress-ng-$v.yaml" | head -1)
	is "$(q '.experiments[0].samples[0] | "\(.ops)|\(.ops_per_s)"')" \
		"$ops|$(echo "$rate" | jq '.')" "  the sample's bogo ops and ops/s are the YAML's"
	is "$(envk kernel.release)|$(q '.experiments[0].kernel')" \
		"6.18.44-fc-v1045|6.18.44-fc-v1045" "  kernel release from system-info"
	is "$(q '.experiments[0].params.instances')" 2 "  2 instances (from its figures)"
done
imp y015 stress-ng-0.15.06.yaml
is "$(q '.experiments[0].profile')" "stress-ng-0.15" "0.15.06 maps to stress-ng-0.15"
imp y021 stress-ng-0.21.00.yaml
is "$(q '.experiments[0].profile')" "$(wb list 2>/dev/null | grep -q 'stress-ng-0.16 ' && echo stress-ng-0.16 || echo stress-ng-0.21)" \
	"0.21.00 maps to the profile covering it"

# ---- a release no profile covers: imported without a profile, said so
imp old old-version-0.14.00.txt
is "$RC" 0 "stress-ng 0.14.00: imported"
like "$ERR" "old-version-0.14.00.txt' line [0-9]+: stress-ng 0.14.00: no pipe profile covers it" \
	"  a warning says no profile covers it"
is "$(q '.experiments[0].profile')|$(envk external.version)" "null|0.14.00" "  profile null, version kept"

# ---- --metrics-brief text: version needed
imp nov broken-no-version.txt
is "$RC" 1 "a table without stress-ng's version: exit 1"
like "$ERR" "broken-no-version.txt' line 3: stress-ng's version is not in the text: give it with --tool-version" \
	"  one line naming the file, the line and --tool-version"
ok "[ ! -e '$TMP/nov.db' ]" "  no store created (the dry run refused it)"
imp brief stress-ng-0.15.06-brief.txt --tool-version 0.15.06 --label posted --host pi5 --kernel 6.1.0-rpi7
is "$RC" 0 "the same with --tool-version 0.15.06: imported"
is "$(q '.experiments[0] | "\(.profile)|\(.label)|\(.host)|\(.kernel)|\(.params.instances)|\(.params.duration_ns)"')" \
	"stress-ng-0.15|posted|pi5|6.1.0-rpi7|4|2000000000" \
	"  profile, --label/--host/--kernel, 4 instances and 2 s from its info lines"
is "$(q '.experiments[0].samples[0] | "\(.ops)|\(.real_s)|\(.usr_s)|\(.sys_s)|\(.ops_per_s)|\(.ops_per_cpu_s)"')" \
	"3648118|2|0.8|3.12|1823259.81|931578.68" "  the sample is the table's row"
run_cmd wb show --db "$db" 1
like "$OUT" "kind +external" "  show: kind external"
like "$OUT" "external.version +0.15.06" "  show: external.version"

# ---- pastes
imp mail pasted-mail-quoted-crlf.txt
is "$RC" 0 "a quoted mail reply with CRLF line ends: imported"
is "$(q '.experiments[0] | "\(.cmdline)|\(.params.instances)|\(.params.duration_ns)|\(.profile)"')" \
	"stress-ng --pipe 4 --timeout 2s --metrics-brief|4|2000000000|stress-ng-0.15" \
	"  command line, arguments and version from its shell lines"
is "$(envk external.args)|$(q '.experiments[0].samples[0].ops_per_s')" \
	"--pipe 4 --timeout 2s --metrics-brief|1823259.81" "  external.args, and the figure"
run_cmd wb import --db "$db" "$P/pasted-mail-quoted-crlf.txt"
like "$RC:$OUT" "^0:.*0 experiments added, 1 skipped" "  importing it again adds nothing (same UUID)"

imp three pasted-three-runs.txt --tool-version 0.15.06
is "$RC" 0 "three runs, prefixes stripped: imported"
is "$(q '[.experiments[] | "\(.params.instances)x\(.samples | length)"] | join(" ")')" "2x2 1x1" \
	"  two experiments: --pipe 2 with its two runs as samples, --pipe 1 with one"
is "$(q '[.experiments[0].samples[].ops] | join(" ")')" "1248832 1250868" "  each run's bogo ops"

imp lb pasted-log-brief-0.21.00.txt
is "$RC" 0 "--log-brief output of 0.21.00, quoted twice: imported"
is "$(envk external.version)|$(q '.experiments[0].samples[0].ops')" "0.21.00|2093170" \
	"  version from its version line, the row's bogo ops"

imp yq pasted-yaml-quoted.txt
is "$RC" 0 "a quoted YAML with its command line: imported"
is "$(q '.experiments[0] | "\(.params.instances)|\(.params.duration_ns)|\(.cmdline)"')" \
	"2|1000000000|stress-ng --pipe 2 --timeout 1s --metrics-brief -Y out.yaml" \
	"  instances and duration from the command line"

# ---- perf, hackbench, schbench
imp pp perf-sched-pipe-threads.txt
is "$(q '.experiments[0] | "\(.workload)|\(.profile)|\(.params.threads)|\(.samples[0].ops)|\(.samples[0].real_s)|\(.samples[0].ops_per_s)"')" \
	"pingpong|perf-bench-sched-pipe|true|20000|0.042|473294" "perf bench sched pipe -T: pingpong, threads, its figures"
imp pm perf-sched-messaging-threads-pipe.txt
is "$(q '.experiments[0] | "\(.workload)|\(.profile)|\(.params.groups)|\(.params.fds)|\(.params.threads)|\(.samples[0].metrics.messaging_run_s)"')" \
	"messaging|perf-bench-sched-messaging|2|20|true|0.015" "perf bench sched messaging: groups, fds, threads, run time"
imp hb hackbench-threads-pipe.txt
is "$(q '.experiments[0] | "\(.profile)|\(.params.groups)|\(.params.fds)|\(.params.loops)|\(.params.threads)|\(.samples[0].metrics.messaging_run_s)|\(.samples[0].ops)"')" \
	"hackbench|2|20|50|true|0.028|40000" "hackbench: groups, fds, loops, threads, Time:, messages"
imp hb2 pasted-hackbench-twice.txt
is "$(q '.experiments[0] | "\(.params.pipe)|\(.params.samples)|\([.samples[].real_s] | join(","))"')" \
	"true|2|0.008,0.022" "two hackbench -p runs: one experiment, pipe from its command, two samples"
imp sb schbench.txt
is "$(q '.experiments[0] | "\(.profile)|\(.params.workers)|\(.params.duration_ns)|\(.samples[0].metrics.schbench_wakeup_p99_ns)|\(.samples[0].metrics.requests_per_s)"')" \
	"schbench-24e32b8|2|2000000000|5976000|265.5" "schbench text: workers, runtime, p99 wakeup in ns, average rps"
imp sj schbench.json
is "$(q '.experiments[0] | "\(.host)|\(.kernel)|\(.params.message_threads)|\(.params.workers)|\(.samples[0].metrics.schbench_request_p99_ns)"')" \
	"vm|6.18.44-fc-v1045|1|2|17120000" "schbench --json: host, kernel, -m/-t from its cmdline, p99 request"

# ---- broken input: one line, exit 1, nothing imported, no store
for case in "broken-truncated-table.txt:line 5: the table ends after its header" \
	"broken-two-tools.txt:line 10: perf-bench-sched-pipe output here, but stress-ng-metrics-brief output at line 4" \
	"broken-not-a-number.txt:line 6: '3648x18' in column 'bogo ops' is not a number" \
	"broken-yaml-number.yaml:line 37: 'bogo-ops-per-second-real-time' is 'x1865323.039434', expected a number" \
	"broken-hackbench-no-time.txt:line 1: hackbench's output ends before its 'Time:' line" \
	"broken-schbench-truncated.txt:line 12: expected schbench's 'average rps:' line"; do
	f=${case%%:*}
	imp bad "$f"
	is "$RC" 1 "$f: exit 1"
	like "$ERR" "^wakebench: error: import: '[^']*$f' ${case#*:}" "  says the file, the line and what was expected"
	is "$(printf '%s\n' "$ERR" | wc -l)" 1 "  in one line"
	ok "[ ! -e '$TMP/bad.db' ]" "  no store created"
done
# into an existing store: nothing added
imp keep stress-ng-0.16.00.yaml
run_cmd wb import --db "$TMP/keep.db" "$P/broken-not-a-number.txt"
is "$RC:$(wb export --db "$TMP/keep.db" | jq '.experiments | length')" "1:1" \
	"a broken paste into an existing store adds nothing"

# ---- bad option values: exit 2
run_cmd wb import --db "$TMP/opt.db" --tool-version 'v0.15' "$P/broken-no-version.txt"
like "$RC:$ERR" "^2:.*--tool-version 'v0.15': expected a release" "--tool-version v0.15: exit 2"
run_cmd wb import --db "$TMP/opt.db" --label '' "$P/broken-no-version.txt"
like "$RC:$ERR" "^2:.*--label: expected 1 to 256 printable" "--label '': exit 2"
ok "[ ! -e '$TMP/opt.db' ]" "  no store created"

done_testing
