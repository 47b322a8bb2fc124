#!/bin/sh
# run ring (lmbench lat_ctx) with tiny durations: every channel in every
# placement, as processes and as threads; ns/hop is the primary metric and
# lat_ctx's figures are stored; every profile runs; bad input is exit 2 with
# one line naming the option; a task count over the fd or process limits is
# refused up front; a task killed mid-sample fails that sample with the
# reason and the next sample stands; SIGTERM ends a ring of 300 tasks.
. "$(dirname "$0")/lib.sh"

short="-t 50ms -n 1 --warmup 0 --no-store"
ncpu=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //' | tr ',' '\n' |
	awk -F- '{ n += ($2 == "" ? 1 : $2 - $1 + 1) } END { print n + 0 }')
[ "$ncpu" -gt 0 ] || ncpu=$(getconf _NPROCESSORS_ONLN)

total=0
for channel in pipe eventfd futex unix; do
	for placement in any same-cpu cross-cpu spread; do
		for mode in processes threads; do
			name="$channel $placement $mode"
			if [ "$placement" = cross-cpu ] && [ "$ncpu" -lt 2 ]; then
				skip "cross-cpu needs two allowed CPUs ($name)"
				continue
			fi
			flag=""
			[ "$mode" = threads ] && flag=--threads
			run_cmd wb run ring -N 3 --size 4k --channel "$channel" \
				--placement "$placement" $flag $short --format json
			ops=$(printf '%s\n' "$OUT" | jq -r '.samples[0].ops' 2>/dev/null)
			st=$(printf '%s\n' "$OUT" | jq -r '.samples[0].status' 2>/dev/null)
			nsh=$(printf '%s\n' "$OUT" | jq -r '.samples[0].metrics.ns_per_hop |
				if .available then .value else "n/a: " + .why end' 2>/dev/null)
			# a loaded machine may leave a task off its CPU for the whole
			# window (then ns/hop says "no hop completed"): hops are summed
			# over every run below
			if [ "$RC" = 0 ] && [ "$st" = ok ] && [ "${ops:-x}" -ge 0 ] 2>/dev/null &&
				{ awk -v v="$nsh" 'BEGIN { exit !(v > 0) }' || [ "$ops" = 0 ]; }; then
				ok 0 "$name: exit 0, a good sample, $ops hops, ns/hop $nsh"
				total=$((total + ops))
			else
				ok 1 "$name: exit 0, a good sample with ns/hop"
				diag "rc=$RC status=$st ops=$ops ns_per_hop=$nsh" "$ERR"
			fi
		done
	done
done

ok "[ $total -gt 0 ]" "hops were counted ($total in all)"

# the text output: time per hop first (a time, in its unit), then hops/s; the summary's rows by the same names
run_cmd wb run ring -t 200ms -n 2 --warmup 0 --no-store
is "$RC" 0 "run ring with its defaults exits 0"
like "$OUT" "^workload: ring, profile: lat_ctx-2p-0k$" "the default profile is lat_ctx-2p-0k"
like "$OUT" "^sample 1/2: time/hop $TIME  hops/s \(real time\) $NUM  ops [1-9]" "a sample line: time/hop, then hops/s"
like "$OUT" "^  time/hop +2 +$TIME " "the summary is of time/hop"

# lat_ctx's own figures: the overhead and the context switch time
run_cmd wb run ring -N 2 --size 16k -t 200ms -n 1 --warmup 0 --no-store --format json
ovr=$(printf '%s\n' "$OUT" | jq -r '.samples[0].metrics.hop_overhead_ns.value // empty' 2>/dev/null)
nsh=$(printf '%s\n' "$OUT" | jq -r '.samples[0].metrics.ns_per_hop.value // empty' 2>/dev/null)
ctx=$(printf '%s\n' "$OUT" | jq -r '.samples[0].metrics.ctxsw_ns | if .available then .value else .why end' 2>/dev/null)
ok "awk -v o='$ovr' 'BEGIN { exit !(o > 0) }'" "hop_overhead_ns is measured ($ovr)"
if awk -v c="$ctx" -v o="$ovr" -v n="$nsh" 'BEGIN { d = c + o - n; exit !(c > 0 && d < 0.01 && d > -0.01) }'; then
	ok 0 "ctxsw_ns is ns_per_hop - hop_overhead_ns ($ctx = $nsh - $ovr)"
else
	like "$ctx" "not below the hop time" "ctxsw_ns: available as the difference, or says why not ($ctx)"
fi

# every profile
for p in $(wb list --format json 2>/dev/null |
	jq -r '.workloads[] | select(.name == "ring") | .profiles[].name' 2>/dev/null); do
	run_cmd wb run ring --profile "$p" -t 50ms -n 1 --warmup 0 --no-store
	is "$RC" 0 "profile $p runs"
done

# bad input: exit 2, one line naming the option and the value, nothing run
bad() {
	run_cmd sh -c "$1"
	if [ "$RC" = 2 ] && [ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] &&
		printf '%s\n' "$ERR" | grep -Eq -- "$2"; then
		ok 0 "$3: exit 2, one line naming it"
	else
		ok 1 "$3: exit 2, one line naming it"
		diag "rc=$RC" "$ERR"
	fi
}
W="'$WAKEBENCH' run ring -t 50ms -n 1 --warmup 0 --no-store"
bad "$W -N 1" "'--tasks' \\(-N\\).*'1'.*2\\.\\.4096" "--tasks 1"
bad "$W --tasks 4097" "'--tasks' \\(-N\\).*'4097'.*2\\.\\.4096" "--tasks 4097"
bad "$W --tasks x" "'--tasks' \\(-N\\).*'x'" "--tasks x"
bad "$W --channel smoke" "'--channel'.*'smoke'.*pipe\\|eventfd\\|futex\\|unix" "--channel smoke"
bad "$W --size 6" "'--size'.*'6'.*multiples of 4" "--size 6"
bad "$W --size 65M" "'--size'.*65M" "--size 65M"
bad "$W -N 4096 --size 64M" "'--size'.*4096 tasks.*half of the memory" "4096 x 64M"
bad "(ulimit -n 200; $W -N 150)" "RLIMIT_NOFILE" "150 pipes over ulimit -n 200"
# root is not held to RLIMIT_NPROC (nor is wakebench's check): as root, try it as nobody
if ! command -v prlimit >/dev/null 2>&1; then
	skip "prlimit is not installed (RLIMIT_NPROC)"
elif [ "$(id -u)" != 0 ]; then
	bad "prlimit --nproc=100 $W -N 150 --channel futex" "RLIMIT_NPROC" "150 tasks over ulimit -u 100"
elif unprivileged_setup; then
	bad "cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups env prlimit --nproc=100 '$UWAKEBENCH' run ring -t 50ms -n 1 --warmup 0 --no-store -N 150 --channel futex" \
		"RLIMIT_NPROC" "150 tasks over ulimit -u 100 (as nobody)"
else
	skip "$UWHY"
fi
run_cmd sh -c "ulimit -n 200; $W -N 150 --channel futex"
is "$RC" 0 "150 futex tasks need no fds: they run under ulimit -n 200"

# A task killed mid-sample fails that sample with the reason; the next one stands.
# The kill aims at sample 1; a slow shell (the check and the kill are two steps)
# may land it in the setup of sample 1 or in sample 2, never once 2 was printed.
"$WAKEBENCH" run ring -N 4 -t 2s -n 3 --warmup 0 --no-store >"$TMP/out" 2>"$TMP/err" &
pid=$!
victim=""
while [ -z "$victim" ] && kill -0 $pid 2>/dev/null && ! grep -q '^sample 2/' "$TMP/out"; do
	# the instance process is wakebench's child; tasks 1..3 are its children.
	# A live task only: a kill of a zombie (a task already done, not yet
	# reaped) succeeds but does nothing.
	for inst in $(ps -o pid= --ppid $pid); do
		for k in $(ps -o pid= --ppid "$inst"); do
			state=$(awk '{ print $3 }' /proc/$k/stat 2>/dev/null)
			case $state in S|R) ;; *) continue ;; esac
			grep -q '^sample 2/' "$TMP/out" && break 2
			if kill -KILL "$k" 2>/dev/null; then
				victim=$k
				break 2
			fi
		done
	done
	[ -n "$victim" ] || sleep 0.05
done
wait $pid
rc=$?
ok "[ -n '$victim' ]" "a hop task was killed ($victim)"
is "$rc" 0 "the run with one failed sample exits 0"
out=$(cat "$TMP/out")
failed=$(printf '%s\n' "$out" | sed -n 's|^sample \([0-9]*\)/3: failed: .*|\1|p')
is "$(printf '%s\n' "$failed" | grep -c .)" 1 "one sample failed (sample ${failed:-none})"
like "$out" "^sample ${failed:-0}/3: failed: .*task [123] \\(hop\\) killed by SIGKILL" \
	"the failed sample names the task, its role and the signal"
if [ "${failed:-3}" -lt 3 ]; then
	like "$out" "^sample $((failed + 1))/3: time/hop $TIME  " "the next sample stands"
else
	skip "the kill landed in the last sample: no next one"
fi
like "$out" "^summary: 2 samples, 1 failed excluded" "the summary has the good samples"

# SIGTERM with a ring of 300 tasks, processes and threads: exit 143, no task left
if env --default-signal true 2>/dev/null; then
	for mode in processes threads; do
		flag=""
		[ "$mode" = threads ] && flag=--threads
		env --default-signal "$WAKEBENCH" run ring -N 300 $flag -t 5s -n 2 --warmup 0 \
			--no-store >"$TMP/out" 2>"$TMP/err" &
		pid=$!
		tasks=0
		# bounded by the run: its first sample ends after 5 s
		while kill -0 $pid 2>/dev/null && ! grep -q '^sample' "$TMP/out"; do
			inst=$(ps -o pid= --ppid $pid | head -1 | tr -d ' ')
			if [ -n "$inst" ]; then
				if [ "$mode" = threads ]; then
					tasks=$(ls /proc/$inst/task 2>/dev/null | wc -l)
				else
					tasks=$(($(ps -o pid= --ppid "$inst" | wc -l) + 1))
				fi
			fi
			[ "$tasks" -ge 300 ] && break
			sleep 0.1
		done
		ok "[ $tasks -ge 300 ]" "$mode: 300 tasks exist before the signal ($tasks)"
		kids="$inst $(ps -o pid= --ppid "$inst" 2>/dev/null)"
		kill -TERM $pid
		wait $pid
		is "$?" 143 "$mode: SIGTERM: exit 143"
		is "$(alive "$kids")" "" "$mode: no task left"
		like "$(cat "$TMP/out")" "^sample 1/2: interrupted by SIGTERM" "$mode: the sample is interrupted"
	done
else
	skip "env --default-signal is not available"
fi
done_testing
