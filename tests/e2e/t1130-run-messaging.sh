#!/bin/sh
# run messaging (hackbench) with tiny work in every placement, over pipes and
# socketpairs, as processes and threads, in both profiles: exactly
# groups * fds * fds * loops messages, run time as the primary metric
# (lower is better); every bad option exits 2 with one line naming it; a
# task that dies fails its sample with its number and role, the other
# samples stand.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"

ncpu=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //' | tr ',' '\n' |
	awk -F- '{ n += ($2 == "" ? 1 : $2 - $1 + 1) } END { print n + 0 }')
[ "$ncpu" -gt 0 ] || ncpu=$(getconf _NPROCESSORS_ONLN)

tiny="--groups 2 --fds 3 --loops 5 -n 1 --warmup 0 --no-store --format json"
want=$((2 * 3 * 3 * 5))

for placement in any same-cpu cross-cpu spread; do
	for channel in socket pipe; do
		for tasks in processes threads; do
			what="$placement, $channel, $tasks"
			if [ "$placement" = cross-cpu ] && [ "$ncpu" -lt 2 ]; then
				skip "cross-cpu needs two allowed CPUs ($what)"
				continue
			fi
			run_cmd wb run messaging $tiny --placement "$placement" "--$channel" "--$tasks"
			printf '%s\n' "$OUT" >"$TMP/out.json"
			if [ "$RC" = 0 ] &&
				[ "$(jq -r '.samples[0].status' "$TMP/out.json")" = ok ] &&
				[ "$(jq '.samples[0].ops' "$TMP/out.json")" = "$want" ]; then
				ok 0 "$what: exits 0, one good sample of $want messages"
			else
				ok 1 "$what: exits 0, one good sample of $want messages"
				diag "rc=$RC" "$ERR" "$(jq -c '.samples[0] | {status, reason, ops}' "$TMP/out.json" 2>&1)"
			fi
		done
	done
done

# the metrics: run time and delivery time in seconds, messages/s, by name
run_cmd wb run messaging --groups 1 --fds 2 --loops 10 -n 2 --warmup 0 --no-store --format json
printf '%s\n' "$OUT" >"$TMP/m.json"
is "$RC" 0 "two samples exit 0"
m() { jq -r "[.samples[1].metrics | if type == \"array\" then .[] | select(.name == \"$1\") else .[\"$1\"] end | .value][0]" "$TMP/m.json"; }
run=$(m messaging_run_s)
delivery=$(m messaging_delivery_s)
rate=$(m messages_per_s)
ok "awk 'BEGIN { exit !($run > 0 && $delivery > 0 && $delivery <= $run) }'" \
	"delivery time ($delivery s) is within run time ($run s)"
ok "awk 'BEGIN { r = 40 / $run; exit !($rate > r * 0.999999 && $rate < r * 1.000001) }'" \
	"messages/s ($rate) is 40 messages over the run time"
is "$(jq -r '.profile' "$TMP/m.json")" "custom (based on hackbench)" "options over hackbench's numbers make it custom" ||
	diag "$(jq -r '.profile' "$TMP/m.json")"

# the text output leads with the primary metric, run time
run_cmd wb run messaging --groups 1 --fds 2 --loops 10 -n 1 --warmup 0 --no-store
is "$RC" 0 "text output exits 0"
like "$OUT" "^sample 1/1: run time $TIME  messages/s \(real time\) $NUM  " "the sample line leads with the run time"
like "$OUT" "^workload: messaging, profile: custom \\(based on hackbench\\)" "the workload line"

for profile in hackbench perf-bench-sched-messaging; do
	run_cmd wb run messaging --profile $profile --groups 1 --fds 2 --loops 3 -n 1 --warmup 0 --no-store --format json
	is "$RC:$(printf '%s\n' "$OUT" | jq '.samples[0].ops')" "0:12" "--profile $profile runs its loops"
done

# bad input: exit 2, one line naming the option, the value and what is allowed
bad() {
	run_cmd sh -c "$1"
	if [ "$RC" = 2 ] && [ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] &&
		printf '%s\n' "$ERR" | grep -Eq -- "$2" && [ -z "$OUT" ]; then
		ok 0 "$3: exit 2, one line naming it"
	else
		ok 1 "$3: exit 2, one line naming it"
		diag "rc=$RC" "$ERR" "$OUT"
	fi
}
W="'$WAKEBENCH' run messaging --no-store -n 1 --warmup 0"
bad "$W --groups 0" "'--groups' \\(-g\\).*'0'.*1\\.\\.10000" "--groups 0"
bad "$W --groups 10001" "'--groups' \\(-g\\).*'10001'.*1\\.\\.10000" "--groups 10001"
bad "$W --groups x" "'--groups' \\(-g\\).*'x'" "--groups x"
bad "$W --fds 0" "'--fds'.*'0'.*1\\.\\.1000" "--fds 0"
bad "$W --loops 0" "'--loops' \\(-l\\).*'0'" "--loops 0"
bad "$W --datasize 0" "'--datasize'.*'0'" "--datasize 0"
bad "$W --datasize 2M" "'--datasize'.*'2M'.*1M" "--datasize 2M"
bad "$W --pipe --socket" "'--pipe' and '--socket'" "--pipe with --socket"
bad "$W --threads --processes" "'--threads' and '--processes'" "--threads with --processes"
bad "$W --profile hackbench-9" "'--profile'.*'hackbench-9'.*perf-bench-sched-messaging" "an unknown profile"
# 10 groups of threads hold 400 channel fds in one process
bad "ulimit -n 200 && $W --threads" "RLIMIT_NOFILE" "--threads over RLIMIT_NOFILE (ulimit -n 200)"
run_cmd sh -c "ulimit -n 200 && '$WAKEBENCH' run messaging --no-store -n 1 --warmup 0 --loops 1"
is "$RC" 0 "the same 10 groups as processes fit in ulimit -n 200"

# A task that dies fails its sample, naming it; the other samples stand.
# Sender task 2 is stopped first, so that its sample cannot end before the
# receiver, task 1 (the instance's first child), is killed.
# Not under qemu-user: the emulator takes a SIGSEGV for itself (a guest core
# dump, then its own exit), so which task's end the instance sees first is
# the emulator's.
if [ -n "${WAKEBENCH_EMULATOR:-}" ]; then
	for n in 1 2 3 4; do skip "a task killed by SIGSEGV under $WAKEBENCH_EMULATOR"; done
elif env --default-signal true 2>/dev/null; then
	env --default-signal "$WAKEBENCH" run messaging --groups 1 --fds 1 --loops 200000 -n 3 --warmup 0 \
		--no-store >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	inst="" kids=""
	while kill -0 $pid 2>/dev/null; do
		inst=$(ps -o pid= --ppid $pid 2>/dev/null | head -1 | tr -d ' ')
		[ -n "$inst" ] && kids=$(ps -o pid= --ppid "$inst" 2>/dev/null | sort -n | tr -d ' ' | tr '\n' ' ')
		[ "$(echo $kids | wc -w)" = 2 ] && break
		sleep 0.05
	done
	set -- $kids
	ok "[ $# = 2 ]" "an instance with its receiver and sender"
	kill -STOP "$2" 2>/dev/null
	kill -SEGV "$1" 2>/dev/null
	wait $pid
	rc=$?
	out=$(cat "$TMP/out")
	# AddressSanitizer (make check SANITIZE=1) catches the SIGSEGV and exits 1
	how="killed by SIGSEGV"
	grep -q __asan_init "$WAKEBENCH" 2>/dev/null && how="(killed by SIGSEGV|exited with status 1)"
	like "$out" "^sample [123]/3: failed: (.*: )?task 1 \\(receiver 0 of group 0\\) $how" \
		"the sample fails naming the task, its role and the signal" || diag "rc=$rc" "$(cat "$TMP/err")"
	is "$(printf '%s\n' "$out" | grep -Ec "^sample [123]/3: run time $TIME  ")" 2 "the two other samples are good"
	is "$(alive "$kids")" "" "the stopped sender was not left behind"
else
	skip "env --default-signal is not available"
	skip "env --default-signal is not available"
	skip "env --default-signal is not available"
	skip "env --default-signal is not available"
fi
done_testing
