#!/bin/sh
# Where the tasks of pipe and pingpong (processes and threads) run, read
# from /proc while a sample is in progress: every placement gives the CPUs
# of the formulas in doc/runner.md (the ones they always had), --cpus LIST
# and --cpus ROLE=LIST apply, and bad --cpus input exits 2 with one line
# naming the option, the value and what is allowed.
. "$(dirname "$0")/lib.sh"

if env --default-signal true 2>/dev/null; then
	launch() { env --default-signal "$WAKEBENCH" "$@" >"$TMP/out" 2>"$TMP/err" & }
else
	skip_all "env --default-signal is not available"
fi
# the allowed CPUs, ascending (as wakebench sees them)
allowed=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
set -f
cpus=$(echo "$allowed" | tr ',' '\n' | awk -F- '{ if (NF == 1) print $1; else for (c = $1; c <= $2; c++) print c }' | tr '\n' ' ')
set +f
ncpu=$(echo $cpus | wc -w)
cpu_at() { echo $cpus | awk -v i="$1" '{ print $(i % NF + 1) }'; }
last=$(cpu_at $((ncpu - 1)))

kids() { # children of a process (forked by its main thread), ascending
	tr ' ' '\n' <"/proc/$1/task/$1/children" 2>/dev/null | grep . | sort -n
}
nvcsw() { awk '/^voluntary_ctxt_switches:/ { print $2 }' "$1/status" 2>/dev/null; }
affinity() { awk '/^Cpus_allowed_list:/ { print $2 }' "$1/status" 2>/dev/null; }

# Start a run of J instances, wait until every task has blocked a few
# times (it placed itself long before), then print one line per task:
# "instance task cpus" (task 1 is the instance's child process, or its
# second thread), and stop the run with SIGINT. The wait is bounded by the
# run's one sample (5 minutes), not by a count of sleeps: at a load average
# of 40 one look at the tasks takes seconds, and a 60 s sample once ended
# before the wait had seen every task blocked.
tasks_of() {
	j=$1
	shift
	launch run "$@" -j "$j" -t 5m -n 1 --warmup 0 --no-store
	pid=$!
	lines=""
	while kill -0 $pid 2>/dev/null; do
		lines=""
		n=0
		idx=0
		for inst in $(kids $pid); do
			t1=$(kids "$inst" | head -1)
			if [ -n "$t1" ]; then
				d1=/proc/$t1
			else
				t1=$(ls /proc/"$inst"/task 2>/dev/null | grep -vx "$inst" | head -1)
				d1=/proc/$inst/task/$t1
			fi
			[ -n "$t1" ] || continue
			[ "$(nvcsw /proc/"$inst")" -ge 3 ] 2>/dev/null || continue
			[ "$(nvcsw "$d1")" -ge 3 ] 2>/dev/null || continue
			lines="$lines$idx 0 $(affinity /proc/"$inst")
$idx 1 $(affinity "$d1")
"
			n=$((n + 1))
			idx=$((idx + 1))
		done
		[ "$n" -eq "$j" ] && break
		sleep 0.05
	done
	kill -INT $pid 2>/dev/null
	wait $pid
	printf '%s' "$lines"
}

# expected CPU of task t of instance i under a placement
want() {
	case $1 in
	any) echo "$allowed" ;;
	same-cpu) cpu_at "$2" ;;
	cross-cpu) cpu_at $(($2 + $3)) ;;
	spread) cpu_at $(($2 * 2 + $3)) ;;
	esac
}

for w in "pipe" "pipe --profile stress-ng-0.16" "pingpong" "pingpong --threads"; do
	for pl in any same-cpu cross-cpu spread; do
		if [ "$pl" = cross-cpu ] && [ "$ncpu" -lt 2 ]; then
			skip "cross-cpu needs two allowed CPUs"
			continue
		fi
		got=$(tasks_of 3 $w --placement $pl)
		exp=""
		for i in 0 1 2; do
			for t in 0 1; do
				exp="$exp$i $t $(want $pl $i $t)
"
			done
		done
		is "$got" "$(printf '%s' "$exp")" "$w --placement $pl: every task on its CPU"
	done
done

# --cpus LIST with same-cpu: both instances on the last allowed CPU
got=$(tasks_of 2 pipe --placement same-cpu --cpus "$last")
is "$got" "0 0 $last
0 1 $last
1 0 $last
1 1 $last" "--cpus $last: the placement uses that CPU only"

# --cpus LIST with any: every task may use the whole list, and nothing else
got=$(tasks_of 1 pingpong --cpus "$last")
is "$got" "0 0 $last
0 1 $last" "any with --cpus $last: pinned to the list"

# --cpus ROLE=LIST: the readers there, the writers keep the placement
got=$(tasks_of 2 pipe --placement same-cpu --cpus "reader=$last")
is "$got" "0 0 $(cpu_at 0)
0 1 $last
1 0 $(cpu_at 1)
1 1 $last" "--cpus reader=$last: the readers on it, the writers same-cpu"

got=$(tasks_of 1 pingpong --threads --cpus "pong=$last")
is "$got" "0 0 $allowed
0 1 $last" "--cpus pong=$last: the pong thread on it, ping unpinned"

# bad input: exit 2, one line naming the option, the value and what is allowed
bad() { # expected-regex args...
	re=$1
	shift
	run_cmd wb run "$@" -t 10ms -n 1 --warmup 0 --no-store
	is "$RC" 2 "run $*: exit 2"
	like "$ERR" "$re" "run $*: says why"
	is "$(printf '%s\n' "$ERR" | wc -l)" 1 "run $*: one line"
	is "$OUT" "" "run $*: nothing measured"
}
bad "option '--cpus': '4096' is not a CPU list, allowed: \[ROLE=\]LIST" pipe --cpus 4096
bad "option '--cpus': 'x-1' is not a CPU list" pipe --cpus x-1
bad "option '--cpus': '1000' names CPU 1000, which this process may not run on; allowed: $allowed" \
	pipe --cpus 1000
bad "option '--cpus': 'pong=0': pipe has no role 'pong', allowed: writer\|reader" pipe --cpus pong=0
bad "option '--cpus': 'reader=$last': the role 'reader' is given twice" \
	pipe --cpus "reader=$last" --cpus "reader=$last"
bad "option '--cpus': '$last' is a second LIST without a role" pipe --cpus "$last" --cpus "$last"
bad "option '--placement': 'cross-cpu' needs two CPUs, --cpus gives only CPU $last" \
	pingpong --placement cross-cpu --cpus "$last"
done_testing
