#!/bin/sh
# Ctrl-C (SIGINT) and SIGTERM at scale: `run pipe -j 200` (400 tasks) is
# stopped mid-sample; wakebench exits 130 / 143, every one of its 400 tasks
# is gone within a second of its exit (it reaps them before, so they are
# gone at once), and the samples completed before the signal are stored.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 is not installed"
env --default-signal true 2>/dev/null || skip_all "env --default-signal is not available"
# 400 tasks and wakebench: room under the process limit (root is not held to it)
if [ "$(id -u)" != 0 ]; then
	# RLIMIT_NPROC's soft limit from /proc (dash's ulimit has no -u)
	lim=$(awk '/^Max processes/ { print $3 }' /proc/self/limits)
	[ "$lim" = unlimited ] || [ "${lim:-0}" -gt 1000 ] ||
		skip_all "ulimit -u ${lim:-unknown} is too low for 400 tasks"
fi

# The tasks of a run: its instances (children of wakebench) and theirs, as
# "pid:starttime" (a pid alone could be reused). Few processes, whatever the
# load: one read of each list and one of the tasks' stat files.
tree() {
	inst=$(cat "/proc/$1/task/$1/children" 2>/dev/null)
	[ -n "$inst" ] || return 0
	all="$inst $(cd /proc && cat $(printf '%s/task/%s/children\n' $(echo $inst | tr ' ' '\n' | sed 'p')) 2>/dev/null)"
	(cd /proc && cat $(printf '%s/stat\n' $all) 2>/dev/null) |
		awk '{ pid = $1; sub(/.*\) /, ""); print pid ":" $20 }'
}
# Under user-mode emulation (no child subreaper) a task killed with its
# instance goes to init, which may never reap it: a zombie of init is not
# left, as in lib.sh's alive().
alive() { # pid:starttime...: those still there
	[ $# -gt 0 ] || return 0
	(cd /proc && cat $(printf '%s\n' "$@" | sed 's,:.*,/stat,') 2>/dev/null) |
		awk -v emu="${WAKEBENCH_EMULATOR:-}" '{
			pid = $1; sub(/.*\) /, "")
			if (emu != "" && $1 == "Z" && $2 == 1) next
			print pid ":" $20
		}' | grep -Fx -e "$(printf '%s\n' "$@")"
}

# With two CPUs or more the workload goes on the first one, so that this
# script (which walks /proc) is not starved by 400 busy tasks.
allowed=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
first=$(echo "$allowed" | sed 's/[-,].*//')
pin=""
[ "$allowed" != "$first" ] && pin="--placement same-cpu --cpus $first"

db="$TMP/scale.db"
stop() { # SIGNAL STATUS
	env --default-signal "$WAKEBENCH" run pipe -j 200 -t 8s -n 100 --warmup 0 $pin --db "$db" \
		>"$TMP/out" 2>"$TMP/err" &
	pid=$!
	# a completed sample, then all 400 tasks of the next one (bounded by the
	# run: by sample 3 the wait has had a whole sample to see them)
	tasks=""
	while kill -0 $pid 2>/dev/null && ! grep -q '^sample 3/100' "$TMP/out"; do
		if grep -q '^sample 1/100' "$TMP/out" 2>/dev/null; then
			tasks=$(tree $pid)
			[ "$(echo "$tasks" | grep -c .)" -eq 400 ] && break
		fi
		sleep 0.05
	done
	is "$(echo "$tasks" | grep -c .)" 400 "$1: 400 tasks running before the signal"
	t0=$(date +%s%N)
	kill -"$1" $pid
	wait $pid
	rc=$?
	t1=$(date +%s%N)
	is "$rc" "$2" "$1: exit status $2"
	diag "$1: wakebench exited $(((t1 - t0) / 1000000)) ms after the signal"
	# gone within a second of the exit (in fact at once: wakebench reaps them)
	left=$(alive $tasks)
	i=0
	while [ -n "$left" ] && [ $i -lt 100 ]; do
		sleep 0.01
		left=$(alive $left)
		i=$((i + 1))
	done
	is "$(echo "$left" | grep -c .)" 0 "$1: none of the 400 tasks is left a second after the exit"
	like "$(cat "$TMP/err")" "stopped by SIG$1" "$1: says it was stopped"
	printed=$(grep -Ec "^sample [0-9]+/100: bogo ops/s \(real time\) $NUM  " "$TMP/out")
	stored=$(sqlite3 "$db" "select count(*) from samples s join experiments e on s.experiment_id = e.id where e.id = (select max(id) from experiments) and s.status = 'ok'")
	ok "[ $printed -ge 1 ] && [ '$stored' = '$printed' ]" \
		"$1: the $printed completed samples are stored ($stored)"
	is "$(sqlite3 "$db" "select status from experiments where id = (select max(id) from experiments)")" \
		interrupted "$1: the experiment is stored as interrupted"
}

stop INT 130
stop TERM 143
done_testing
