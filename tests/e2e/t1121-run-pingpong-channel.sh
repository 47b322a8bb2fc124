#!/bin/sh
# pingpong --channel pipe|eventfd|futex|unix: every channel runs as processes
# and as threads in every placement; the default is perf bench sched pipe's
# program, system call for system call (strace: per round trip two 4-byte
# reads and two 4-byte writes on pipes, nothing else), and each other
# channel makes its own calls (eventfd's 8-byte counter, the futex calls,
# shared between processes and private between threads, a socketpair);
# ring at N = 2 makes the same calls per hop as pingpong per half round trip.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "jq is not installed"
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
			run_cmd wb run pingpong --channel "$channel" --placement "$placement" $flag \
				$short --format json
			ops=$(printf '%s\n' "$OUT" | jq -r '.samples[0].ops' 2>/dev/null)
			st=$(printf '%s\n' "$OUT" | jq -r '.samples[0].status' 2>/dev/null)
			# a loaded machine may leave a task off its CPU for the whole
			# window: the round trips are summed over every run below
			if [ "$RC" = 0 ] && [ "$st" = ok ] && [ "${ops:-x}" -ge 0 ] 2>/dev/null; then
				ok 0 "$name: exit 0, a good sample, $ops round trips"
				total=$((total + ops))
			else
				ok 1 "$name: exit 0, a good sample"
				diag "rc=$RC status=$st ops=$ops" "$OUT" "$ERR"
			fi
		done
	done
done

ok "[ $total -gt 0 ]" "round trips were counted ($total in all)"

run_cmd wb run pingpong --channel futex -t 50ms -n 1 --warmup 0 --no-store
like "$OUT" "^profile: custom \\(based on perf-bench-sched-pipe\\)$|profile: custom \\(based on perf-bench-sched-pipe\\)" \
	"another channel than perf's pipe makes the profile custom"
run_cmd wb run pingpong --channel pipe -t 50ms -n 1 --warmup 0 --no-store
like "$OUT" "profile: perf-bench-sched-pipe$" "--channel pipe is perf bench's profile"
run_cmd wb run pingpong --channel smoke $short
is "$RC" 2 "--channel smoke: exit 2"
like "$ERR" "'--channel'.*'smoke'.*pipe\\|eventfd\\|futex\\|unix" "it names the option, the value and the channels"

command -v strace >/dev/null || { skip "strace is not installed"; done_testing; exit; }
strace -f -o /dev/null true 2>/dev/null || { skip "strace cannot trace here"; done_testing; exit; }
# under qemu-user, strace sees the emulator's system calls (its own futexes
# and signals), not the workload's
[ -z "${WAKEBENCH_EMULATOR:-}" ] ||
	{ skip "strace under $WAKEBENCH_EMULATOR traces the emulator, not the workload"; done_testing; exit; }

# trace NAME ARGS...: run wakebench under strace, one file per task (no
# interleaved lines), then count the calls that move a token
trace() {
	d="$TMP/strace-$1"
	shift
	mkdir -p "$d"
	# LeakSanitizer (make check SANITIZE=1) cannot run under ptrace and
	# would fail the run at exit: leaks are checked by every other test
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -ff -y -o "$d/t" -e trace=read,write,futex,pipe,pipe2,socketpair,eventfd2 \
		-e signal=none "$WAKEBENCH" run "$@" -t 500ms -n 1 --warmup 0 --no-store \
		--format json >"$d/out" 2>"$d/err"
	RC=$?
	ops=$(jq -r '.samples[0].ops' "$d/out" 2>/dev/null)
	# -y names each descriptor: reads of /proc files are the runtime's
	# (AddressSanitizer reads /proc/self/maps in chunks, sometimes of 8
	# bytes), not the workload's
	cat "$d"/t.* | grep -Ev '^read\([0-9]+</proc/' >"$d/calls"
	fd='[0-9]+(<[^>]*>)?'
	r4=$(grep -Ec "^read\\($fd, .*, 4\\) += 4\$" "$d/calls")
	w4=$(grep -Ec "^write\\($fd, .*, 4\\) += 4\$" "$d/calls")
	r8=$(grep -Ec "^read\\($fd, .*, 8\\) += 8\$" "$d/calls")
	w8=$(grep -Ec "^write\\($fd, .*, 8\\) += 8\$" "$d/calls")
	fwait=$(grep -Ec '^futex\(.*FUTEX_WAIT,' "$d/calls")
	fwaitp=$(grep -Ec '^futex\(.*FUTEX_WAIT_PRIVATE,' "$d/calls")
	fwake=$(grep -Ec '^futex\(.*FUTEX_WAKE(_PRIVATE)?,' "$d/calls")
	spair=$(grep -Ec '^socketpair\(AF_UNIX, SOCK_STREAM' "$d/calls")
	efd=$(grep -Ec '^eventfd2\(' "$d/calls")
	ncalls="r4=$r4 w4=$w4 r8=$r8 w8=$w8 wait=$fwait wait_private=$fwaitp wake=$fwake"
}
# near COUNT WANT: within 2 of WANT (the round trip in flight at the stop)
near() { [ "$1" -ge $(($2 - 2)) ] && [ "$1" -le $(($2 + 2)) ]; }

for mode in processes threads; do
	flag=""
	[ "$mode" = threads ] && flag=--threads
	trace pipe-$mode pingpong $flag
	if [ "$RC" = 0 ] && [ "${ops:-0}" -gt 10 ] && near "$r4" $((2 * ops)) && near "$w4" $((2 * ops)) &&
		[ "$r8" = 0 ] && [ "$w8" = 0 ] && [ "$spair" = 0 ] && [ "$efd" = 0 ] &&
		[ "$fwait" -lt 20 ] && [ "$fwaitp" -lt 20 ]; then
		ok 0 "default ($mode): per round trip 2 reads and 2 writes of 4 bytes, nothing else ($ops ops, $ncalls)"
	else
		ok 1 "default ($mode): per round trip 2 reads and 2 writes of 4 bytes, nothing else"
		diag "rc=$RC ops=$ops $ncalls spair=$spair efd=$efd"
	fi

	trace eventfd-$mode pingpong --channel eventfd $flag
	if [ "$RC" = 0 ] && [ "${ops:-0}" -gt 10 ] && near "$r8" $((2 * ops)) && near "$w8" $((2 * ops)) &&
		[ "$r4" = 0 ] && [ "$w4" = 0 ] && [ "$efd" = 2 ]; then
		ok 0 "eventfd ($mode): two eventfds, 8-byte reads and writes ($ops ops, $ncalls)"
	else
		ok 1 "eventfd ($mode): two eventfds, 8-byte reads and writes"
		diag "rc=$RC ops=$ops $ncalls efd=$efd"
	fi

	trace unix-$mode pingpong --channel unix $flag
	if [ "$RC" = 0 ] && [ "${ops:-0}" -gt 10 ] && near "$r4" $((2 * ops)) && near "$w4" $((2 * ops)) &&
		[ "$spair" = 2 ]; then
		ok 0 "unix ($mode): two socketpairs, 4-byte reads and writes ($ops ops, $ncalls)"
	else
		ok 1 "unix ($mode): two socketpairs, 4-byte reads and writes"
		diag "rc=$RC ops=$ops $ncalls spair=$spair"
	fi

	# a futex wait per round trip at most per task, a wake only for a sleeper
	trace futex-$mode pingpong --channel futex $flag
	if [ "$mode" = processes ]; then waits=$fwait others=$fwaitp; else waits=$fwaitp others=0; fi
	if [ "$RC" = 0 ] && [ "${ops:-0}" -gt 10 ] && [ "$r4" = 0 ] && [ "$w4" = 0 ] &&
		[ "$r8" = 0 ] && [ "$waits" -gt 0 ] && [ "$waits" -le $((2 * ops + 20)) ] &&
		[ "$fwake" -le $((2 * ops + 20)) ] && [ "$others" -lt 20 ]; then
		ok 0 "futex ($mode): futex calls only, $( [ "$mode" = processes ] && echo shared || echo private) ($ops ops, $ncalls)"
	else
		ok 1 "futex ($mode): futex calls only, shared between processes, private between threads"
		diag "rc=$RC ops=$ops $ncalls"
	fi
done

# ring at N = 2: the same calls per hop as pingpong per half round trip, as lat_ctx's
trace ring-pipe ring -N 2
# (the overhead loop before the window is a write and a read each time too)
if [ "$RC" = 0 ] && [ "${ops:-0}" -gt 10 ] && [ "$r4" -ge "$ops" ] && near "$w4" "$r4" &&
	[ "$r8" = 0 ] && [ "$fwait" -lt 20 ]; then
	ok 0 "ring -N 2 over pipes: a 4-byte write and read per hop, plus the overhead loop ($ops hops, $ncalls)"
else
	ok 1 "ring -N 2 over pipes: a 4-byte write and read per hop"
	diag "rc=$RC ops=$ops $ncalls"
fi
done_testing
