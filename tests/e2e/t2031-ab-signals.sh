#!/bin/sh
# Every catchable signal whose default action ends the process, sent to `ab`
# while the feature is toggled: the features are restored as found, the
# journal is removed, no workload process is left, the completed samples are
# stored (the experiment as interrupted), it says which signal, and it exits
# 128 + the signal. SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM and SIGPIPE in full,
# the others (SIGXCPU ... the real-time signals) for the restore and status.
#
# No fixed sleeps: ab is held with SIGSTOP at a moment the stand-in's file
# shows the feature toggled, the signal is queued, then SIGCONT delivers it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

fakefs_start dbg
D="$TMP/dbg"
ORIG=$(cat "$FIXTURES/sched-features/v6.18.txt")
JOURNAL="$WAKEBENCH_STATE_DIR/features.journal"
db="$TMP/signals.db"

# A background job of a non-interactive shell ignores SIGINT and SIGQUIT;
# give the program the default dispositions, as a terminal's Ctrl-\ finds them.
if env --default-signal true 2>/dev/null; then
	launch() { env --default-signal "$WAKEBENCH" "$@" >"$TMP/out" 2>"$TMP/err" & }
	QUIT=QUIT
else
	launch() { "$WAKEBENCH" "$@" >"$TMP/out" 2>"$TMP/err" & }
	QUIT=
	skip "env --default-signal is not available: no SIGQUIT test"
fi
wait_for() { # shell condition, while the ab under test ($pid) runs
	while ! eval "$1" && kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
	eval "$1"
}
toggled() { grep -q ' NO_DELAY_DEQUEUE ' "$D/sched/features" 2>/dev/null; }
stopped() { [ "$(sed 's/.*) //' /proc/$1/stat 2>/dev/null | cut -c1)" = T ]; }
signum() { # NAME -> number (dash's kill -l only maps numbers to names)
	_n=1
	while [ $_n -le 64 ]; do
		[ "$(kill -l $_n 2>/dev/null)" = "$1" ] && { echo $_n; return 0; }
		_n=$((_n + 1))
	done
	return 1
}
# Hold PID stopped at a moment the feature is toggled; 1 if that never happens.
hold_toggled() {
	_t=0
	while [ $_t -lt 600 ]; do
		kill -STOP $1 || return 1
		wait_for "stopped $1" || return 1
		toggled && return 0
		kill -CONT $1
		sleep 0.05
		_t=$((_t + 1))
	done
	return 1
}
last_exp() { sqlite3 "$db" "select $1 from experiments order by id desc limit 1"; }

# signal_ab SIG full|brief
signal_ab() {
	sig=$1
	want=$((128 + $(signum "$sig")))
	launch ab --feature NO_DELAY_DEQUEUE -j 1 -t 100ms --warmup 10ms -n 1000 --debugfs "$D" --db "$db"
	pid=$!
	# one pair is complete (stored), then hold it while B is applied
	wait_for "grep -q '^pair 1/' '$TMP/out'"
	if ! hold_toggled $pid; then
		ok 1 "SIG$sig: ab held while the feature is toggled"
		diag "features: $(cat "$D/sched/features" 2>/dev/null)" "stderr: $(cat "$TMP/err" 2>/dev/null)"
		kill -KILL $pid; wait $pid 2>/dev/null
		return
	fi
	kids=$(descendants $pid)
	kill -s "$sig" $pid
	kill -CONT $pid
	wait $pid
	is "$?" "$want" "SIG$sig: exit status $want"
	is "$(cat "$D/sched/features")" "$ORIG" "SIG$sig: features restored as found"
	ok "[ ! -e '$JOURNAL' ]" "SIG$sig: no journal left"
	[ "$2" = full ] || return
	like "$(cat "$TMP/err")" "stopped by SIG$sig after [0-9]+ complete pair" "SIG$sig: says it was stopped, and by what"
	like "$(cat "$TMP/err")" "scheduler features restored as found" "SIG$sig: says it restored"
	# ab reaps its workload before it exits: nothing to wait for
	is "$(alive "$kids")" "" "SIG$sig: no workload process left"
	if command -v sqlite3 >/dev/null 2>&1; then
		is "$(last_exp status)" interrupted "SIG$sig: stored as interrupted"
		ok "[ $(sqlite3 "$db" "select count(*) from samples where experiment_id = (select max(id) from experiments) and status = 'ok'") -ge 2 ]" \
			"SIG$sig: completed samples stored"
	else
		skip "sqlite3 is not installed"; skip "sqlite3 is not installed"
	fi
}

for sig in $QUIT USR1 USR2 ALRM PIPE; do
	signal_ab $sig full
done
for sig in XCPU XFSZ VTALRM PROF IO PWR SYS ABRT RTMIN RTMIN+1 RTMAX; do
	signal_ab $sig brief
done

# nohup: a hangup that was ignored on entry stays ignored (ab runs on)
( trap '' HUP; exec "$WAKEBENCH" ab --feature NO_DELAY_DEQUEUE -j 1 -t 100ms --warmup 10ms -n 1000 \
	--debugfs "$D" --no-store >"$TMP/out" 2>"$TMP/err" ) &
pid=$!
wait_for "grep -q '^pair 1/' '$TMP/out'"
kill -HUP $pid
# it goes on: two more pairs complete after the hangup
wait_for "grep -q '^pair 3/' '$TMP/out'"
ok "[ -d /proc/$pid ]" "nohup: an ignored SIGHUP does not stop ab"
kill -TERM $pid
wait $pid
is "$?" 143 "nohup: SIGTERM still stops it (exit 143)"
is "$(cat "$D/sched/features")" "$ORIG" "nohup: features restored as found"

# `ab | head -n 1`: the SIGPIPE of a real closed pipe (stdout), not a kill.
( "$WAKEBENCH" ab --feature NO_DELAY_DEQUEUE -j 1 -t 50ms --warmup 10ms -n 50 --debugfs "$D" \
	--no-store 2>"$TMP/err"; echo $? >"$TMP/rc" ) | head -n 1 >/dev/null
is "$(cat "$D/sched/features")" "$ORIG" "closed stdout: features restored as found"
ok "[ ! -e '$JOURNAL' ]" "closed stdout: no journal left"
is "$(cat "$TMP/rc")" 141 "closed stdout: exit 141 (128 + SIGPIPE)"
like "$(cat "$TMP/err")" "stopped by SIGPIPE" "closed stdout: stopped by SIGPIPE, not killed by it"
done_testing
