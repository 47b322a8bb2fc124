#!/bin/sh
# wakebench ab when things go wrong: SIGKILL while a feature is toggled (the
# next command restores it and says so); SIGINT, SIGTERM and SIGHUP in the
# warm-up, in a sample and at any moment (features restored, no workload
# process left, completed samples stored); two ab at once (the second
# refuses; run meanwhile warns); SIGKILL then run or env (they restore
# first and say so); an unsafe state directory (refused); kernel lockdown (exit 77 with the lockdown message). The other
# stop signals, and `ab | head`, are t2031's.
. "$(dirname "$0")/lib.sh"
with_kernel_mounts
. "$(dirname "$0")/fakefs.sh"

fakefs_start dbg
D="$TMP/dbg"
ORIG=$(cat "$FIXTURES/sched-features/v6.18.txt")
JOURNAL="$WAKEBENCH_STATE_DIR/features.journal"
db="$TMP/faults.db"

# A background job of a non-interactive shell ignores SIGINT; give the
# program the default disposition, as an interactive Ctrl-C would find it.
# SIGHUP too: under nohup it is ignored, and wakebench keeps it so.
if env --default-signal=INT,HUP true 2>/dev/null; then
	launch() { env --default-signal=INT,HUP "$WAKEBENCH" "$@" >"$TMP/out" 2>"$TMP/err" & }
else
	launch() { "$WAKEBENCH" "$@" >"$TMP/out" 2>"$TMP/err" & }
fi
wait_for() { # shell condition, while the ab under test ($pid, or $2) runs
	while ! eval "$1" && kill -0 "${2:-$pid}" 2>/dev/null; do sleep 0.05; done
	eval "$1"
}
toggled() { grep -q ' NO_DELAY_DEQUEUE ' "$D/sched/features" 2>/dev/null; }

# the orphaned workload processes of a SIGKILLed ab (forked: same command line, with this test's $D)
kill_orphans() {
	for c in /proc/[0-9]*/cmdline; do
		k=${c#/proc/}; k=${k%/cmdline}
		[ "$k" != $$ ] && tr '\0' ' ' 2>/dev/null <"$c" | grep -q -- "--debugfs $D " && kill -KILL "$k" 2>/dev/null
	done
}

# interrupt NAME SIGNAL STATUS SLEEP ab-options...: signal once the feature is toggled
interrupt() {
	name=$1 sig=$2 want=$3 nap=$4
	shift 4
	launch ab --feature NO_DELAY_DEQUEUE -j 1 "$@" --debugfs "$D" --db "$db"
	pid=$!
	ok "wait_for toggled" "$name: the feature gets toggled"
	sleep "$nap"
	kids=$(descendants $pid)
	kill -"$sig" $pid
	wait $pid
	is "$?" "$want" "$name: exit status $want"
	is "$(cat "$D/sched/features")" "$ORIG" "$name: features restored as found"
	ok "[ ! -e '$JOURNAL' ]" "$name: no journal left"
	like "$(cat "$TMP/err")" "stopped by SIG$sig" "$name: says it was stopped"
	sleep 0.5
	is "$(alive "$kids")" "" "$name: no workload process left"
	if command -v sqlite3 >/dev/null 2>&1; then
		is "$(sqlite3 "$db" "select status from experiments order by id desc limit 1")" interrupted \
			"$name: stored as interrupted"
		ok "[ $(sqlite3 "$db" "select count(*) from samples where experiment_id = (select max(id) from experiments) and status = 'ok'") -ge 1 ]" \
			"$name: completed samples stored"
	else
		skip "sqlite3 is not installed"; skip "sqlite3 is not installed"
	fi
}

interrupt "INT in the warm-up" INT 130 0.3 -t 100ms --warmup 3s -n 50
interrupt "TERM in a sample" TERM 143 0.5 -t 3s --warmup 10ms -n 50
interrupt "HUP at any moment" HUP 129 0.37 -t 30ms --warmup 20ms -n 1000

# SIGKILL while toggled: the journal stays; the next command restores.
launch ab --feature NO_DELAY_DEQUEUE -j 1 -t 3s --warmup 10ms -n 50 --debugfs "$D" --db "$db"
pid=$!
ok "wait_for toggled" "SIGKILL: the feature gets toggled"
kill -KILL $pid
wait $pid 2>/dev/null
kill_orphans
ok "[ -e '$JOURNAL' ]" "SIGKILL: the journal is left behind"
like "$(cat "$D/sched/features")" " NO_DELAY_DEQUEUE " "SIGKILL: the feature is still toggled"
run_cmd wb features show --debugfs "$D"
is "$RC" 0 "after SIGKILL: features show exits 0"
like "$ERR" "restored the scheduler features that wakebench pid $pid .*no longer running" "after SIGKILL: says it restored"
is "$OUT" "$ORIG" "after SIGKILL: shows the original"
is "$(cat "$D/sched/features")" "$ORIG" "after SIGKILL: the file holds the original"
ok "[ ! -e '$JOURNAL' ]" "after SIGKILL: the journal is gone"

# SIGKILL, then a command that measures: `run` restores first, says so, and
# measures with the features as the user had them (its fingerprint says so).
launch ab --feature NO_DELAY_DEQUEUE -j 1 -t 3s --warmup 10ms -n 50 --debugfs "$D" --db "$db"
pid=$!
ok "wait_for toggled" "SIGKILL before run: the feature gets toggled"
kill -KILL $pid
wait $pid 2>/dev/null
kill_orphans
ok "[ -e '$JOURNAL' ]" "SIGKILL before run: the journal is left behind"
run_cmd wb run pipe -j 1 -t 50ms -n 1 --warmup 0 --debugfs "$D" --db "$db" --format json
is "$RC" 0 "run after SIGKILL exits 0"
like "$ERR" "restored the scheduler features that wakebench pid $pid .*no longer running" "run after SIGKILL: says it restored first"
is "$(cat "$D/sched/features")" "$ORIG" "run after SIGKILL: the file holds the original"
ok "[ ! -e '$JOURNAL' ]" "run after SIGKILL: the journal is gone"
is "$(printf '%s' "$OUT" | jq -r '.environment.start["sched.features"].value' | sed 's/ *$//')" \
	"$(printf '%s' "$ORIG" | sed 's/ *$//')" "run after SIGKILL: measured with the original features"
# the same for env, which reads them
launch ab --feature NO_DELAY_DEQUEUE -j 1 -t 3s --warmup 10ms -n 50 --debugfs "$D" --no-store
pid=$!
ok "wait_for toggled" "SIGKILL before env: the feature gets toggled"
kill -KILL $pid
wait $pid 2>/dev/null
kill_orphans
run_cmd wb env --debugfs "$D" --format json
is "$RC" 0 "env after SIGKILL exits 0"
like "$ERR" "restored the scheduler features that wakebench pid $pid .*no longer running" "env after SIGKILL: says it restored first"
is "$(printf '%s' "$OUT" | jq -r '.keys[] | select(.key == "sched.features") | .value' | sed 's/ *$//')" \
	"$(printf '%s' "$ORIG" | sed 's/ *$//')" "env after SIGKILL: shows the original features"
ok "[ ! -e '$JOURNAL' ]" "env after SIGKILL: the journal is gone"

# Two ab at once: the second refuses; the first is undisturbed.
launch ab --feature NO_DELAY_DEQUEUE -j 1 -t 1s --warmup 10ms -n 50 --debugfs "$D" --no-store
first=$!
ok "wait_for '[ -e $JOURNAL ]' $first" "the first ab holds the journal"
run_cmd wb ab --feature NO_PREEMPT_SHORT -j 1 -t 50ms -n 6 --debugfs "$D" --no-store
is "$RC" 1 "the second ab exits 1"
like "$ERR" "another wakebench \(pid $first, started .*\) is changing the scheduler features; refusing to interleave toggles" "and says why"
like "$(cat "$D/sched/features")" " PREEMPT_SHORT " "the second ab toggled nothing"
is "$(sed -n 's/^pid=//p' "$JOURNAL")" "$first" "the journal still belongs to the first"
# run meanwhile: it measures, and says whose toggles are under way
run_cmd wb run pipe -j 1 -t 50ms -n 1 --warmup 0 --debugfs "$D" --no-store
is "$RC" 0 "run while an ab toggles: exits 0"
like "$ERR" "run: wakebench pid $first is changing the scheduler features right now" "run while an ab toggles: says so"
is "$(sed -n 's/^pid=//p' "$JOURNAL")" "$first" "run leaves the live owner's journal alone"
kill -TERM $first
wait $first
is "$(cat "$D/sched/features")" "$ORIG" "the first restores on SIGTERM"

# A state directory that is a symbolic link, or writable by others, is
# refused before anything is written, and never chmod'ed (nor its target).
mkdir "$TMP/target" && chmod 755 "$TMP/target" && ln -s "$TMP/target" "$TMP/link"
run_cmd env WAKEBENCH_STATE_DIR="$TMP/link" "$WAKEBENCH" ab --feature NO_DELAY_DEQUEUE -j 1 -t 50ms -n 6 --debugfs "$D" --no-store
is "$RC" 1 "state dir symlink: ab exits 1"
like "$ERR" "refusing state directory '$TMP/link': it is a symbolic link" "state dir symlink: says why"
is "$(stat -c %a "$TMP/target")" 755 "state dir symlink: the target keeps its mode"
ok "[ -z \"\$(ls -A '$TMP/target')\" ]" "state dir symlink: nothing created in the target"
is "$(cat "$D/sched/features")" "$ORIG" "state dir symlink: nothing toggled"
mkdir "$TMP/shared" && chmod 1777 "$TMP/shared"
run_cmd env WAKEBENCH_STATE_DIR="$TMP/shared" "$WAKEBENCH" features set NO_DELAY_DEQUEUE --debugfs "$D"
is "$RC" 1 "state dir 1777: features set exits 1"
like "$ERR" "refusing state directory '$TMP/shared': it is writable by others \(mode 1777" "state dir 1777: says why"
is "$(stat -c %a "$TMP/shared")" 1777 "state dir 1777: its mode is kept"
is "$(cat "$D/sched/features")" "$ORIG" "state dir 1777: nothing toggled"

# Lockdown: nothing runs, the message says lockdown, exit 77.
fakefs_start locked --lockdown
run_cmd wb ab --feature NO_DELAY_DEQUEUE -j 1 -t 50ms -n 6 --debugfs "$TMP/locked" --no-store
is "$RC" 77 "lockdown: ab exits 77"
like "$ERR" "kernel lockdown prevents" "lockdown: says kernel lockdown"
is "$(printf '%s\n' "$ERR" | wc -l | tr -d ' ')" 1 "lockdown: one line"
like "$ERR" "no scheduler feature can be changed on this kernel, but in a VM they can: wakebench vm --kernel IMAGE -- ab --feature NO_DELAY_DEQUEUE \[OPTIONS\]" \
	"lockdown: and what works: the same ab in a VM"
unlike "$ERR" "Permission denied" "lockdown: never says not root"
ok "[ ! -e '$JOURNAL' ]" "lockdown: no journal"
# Readable but not writable (not root, debugfs mounted with a loose mode):
# refused before anything is measured, exit 77, no journal.
fakefs_start ro --readonly
run_cmd wb ab --feature NO_DELAY_DEQUEUE -j 1 -t 50ms --warmup 0 -n 6 --debugfs "$TMP/ro" --no-store
is "$RC" 77 "read-only: ab exits 77"
like "$ERR" "Permission denied \(scheduler features need root\)" "read-only: says it needs root"
unlike "$OUT" "summary" "read-only: nothing measured"
ok "[ ! -e '$JOURNAL' ]" "read-only: no journal"
if [ -e /sys/kernel/debug/sched/features ] && cat /sys/kernel/debug/sched/features 2>&1 | grep -q 'not permitted'; then
	run_cmd wb ab --feature NO_DELAY_DEQUEUE -j 1 -t 50ms -n 6 --no-store
	is "$RC" 77 "this machine's lockdown: ab exits 77"
	like "$ERR" "kernel lockdown" "this machine's lockdown: says kernel lockdown"
	is "$(printf '%s\n' "$ERR" | wc -l | tr -d ' ')" 1 "this machine's lockdown: one line"
	run_cmd wb ab --feature DELAY_DEQUEU -j 1 -t 50ms -n 6 --no-store
	is "$RC" 2 "this machine's lockdown: a misspelling is still exit 2 (names from BTF)"
else
	skip "the real features file is not under lockdown here"; skip "idem"; skip "idem"; skip "idem"
fi
done_testing
