#!/bin/sh
# wakebench features show/set/restore against the FUSE stand-in: the kernel's
# format, one token per write(2), validation, the journal (stale owner
# recovered, live owner respected), and every specific failure.
. "$(dirname "$0")/lib.sh"
with_kernel_mounts
. "$(dirname "$0")/fakefs.sh"

fakefs_start dbg --log="$TMP/writes.log"
D="$TMP/dbg"
ORIG=$(cat "$FIXTURES/sched-features/v6.18.txt")
JOURNAL="$WAKEBENCH_STATE_DIR/features.journal"
nwrites() { if [ -f "$TMP/writes.log" ]; then wc -l <"$TMP/writes.log" | tr -d ' '; else echo 0; fi; }

run_cmd wb features --debugfs "$D"
is "$RC" 0 "show exits 0"
is "$OUT" "$ORIG" "show prints the kernel's line unchanged"
run_cmd wb features show --debugfs "$D" --format json
is "$(printf '%s' "$OUT" | jq -r '.features[] | select(.name == "DELAY_DEQUEUE") | .on')" true "json: DELAY_DEQUEUE on"
is "$(printf '%s' "$OUT" | jq -r '.source')" "sched/features" "json: source"

run_cmd wb features set NO_DELAY_DEQUEUE --debugfs "$D"
is "$RC" 0 "set exits 0"
like "$OUT" "DELAY_DEQUEUE: on -> off" "set says what changed"
like "$OUT" "undo with: wakebench features set DELAY_DEQUEUE --debugfs $D" "set prints how to undo"
like "$(fakefs_features dbg)" " NO_DELAY_DEQUEUE " "the change is in the file"
is "$(cat "$TMP/writes.log")" "/sched/features NO_DELAY_DEQUEUE -> ok" "exactly one token in one write"
ok "[ ! -e '$JOURNAL' ]" "set on purpose leaves no journal"

run_cmd wb features set NO_DELAY_DEQUEUE --debugfs "$D"
like "$OUT" "nothing changed" "setting the current state says so"
is "$(nwrites)" 1 "and writes nothing"

run_cmd wb features set DELAY_DEQUEUE NO_PREEMPT_SHORT --debugfs "$D"
is "$RC" 0 "set of two tokens"
is "$(tail -2 "$TMP/writes.log" | tr '\n' '|')" "/sched/features DELAY_DEQUEUE -> ok|/sched/features NO_PREEMPT_SHORT -> ok|" "two tokens, two writes"
wb features set PREEMPT_SHORT --debugfs "$D" >/dev/null
is "$(fakefs_features dbg)" "$ORIG" "back to the original"

run_cmd wb features set DELAY_DEQUEU --debugfs "$D"
is "$RC" 2 "unknown feature exits 2"
like "$ERR" "unknown scheduler feature 'DELAY_DEQUEU'; this kernel has: PLACE_LAG, .*DELAY_DEQUEUE" "and lists this kernel's names"
run_cmd wb features set DELAY_DEQUEUE NO_DELAY_DEQUEUE --debugfs "$D"
is "$RC" 2 "NAME and NO_NAME together exit 2"
run_cmd wb features set --debugfs "$D"
is "$RC" 2 "set without a name exits 2"
run_cmd wb features frob --debugfs "$D"
is "$RC" 2 "unknown subcommand exits 2"

run_cmd wb features restore --debugfs "$D"
is "$RC" 0 "restore without a journal exits 0"
like "$OUT" "nothing to restore" "and says so"

# A journal left by a dead wakebench (as after SIGKILL) is restored first.
sh -c 'exit 0' & DEAD=$!; wait $DEAD
BOOT=$(cat /proc/sys/kernel/random/boot_id)
write_journal() { # pid start_ticks
	mkdir -p "$WAKEBENCH_STATE_DIR"
	printf 'wakebench-features-journal 1\npid=%s\nstart_ticks=%s\nstarted_realtime_ns=%s000000000\nboot_id=%s\ndebugfs=%s\noriginal=%s\n' \
		"$1" "$2" "$(date +%s)" "$BOOT" "$D" "$ORIG" >"$JOURNAL"
}
printf 'NO_DELAY_DEQUEUE' >"$D/sched/features"
printf 'NO_WA_IDLE' >"$D/sched/features"
write_journal "$DEAD" 1
N0=$(nwrites)
run_cmd wb features show --debugfs "$D"
is "$RC" 0 "show after a crash exits 0"
like "$ERR" "restored the scheduler features that wakebench pid $DEAD .*no longer running" "and says it restored"
is "$OUT" "$ORIG" "show prints the restored line"
is "$(fakefs_features dbg)" "$ORIG" "the file holds the original again"
is "$(($(nwrites) - N0))" 2 "only the two differing tokens were written"
ok "[ ! -e '$JOURNAL' ]" "the journal is gone"

printf 'NO_DELAY_DEQUEUE' >"$D/sched/features"
write_journal "$DEAD" 1
run_cmd wb features restore --debugfs "$D"
is "$RC" 0 "features restore after a crash"
is "$(fakefs_features dbg)" "$ORIG" "restore puts the original back"

# A live owner's journal is respected: no toggles interleave.
sleep 100000 & LIVE=$! # alive until killed below, however slow the commands between
at_exit "kill $LIVE 2>/dev/null"
TICKS=$(sed 's/.*) //' /proc/$LIVE/stat | cut -d' ' -f20)
write_journal "$LIVE" "$TICKS"
run_cmd wb features set NO_DELAY_DEQUEUE --debugfs "$D"
is "$RC" 1 "set refuses while another wakebench owns the journal"
like "$ERR" "another wakebench \(pid $LIVE.*refusing to interleave" "and says who"
run_cmd wb features restore --debugfs "$D"
is "$RC" 1 "restore refuses a live owner's journal"
like "$ERR" "kill -TERM $LIVE" "and says how to stop it"
run_cmd wb features show --debugfs "$D"
is "$RC" 0 "show still works"
like "$ERR" "pid $LIVE is changing the scheduler features" "and mentions the owner"
ok "[ -e '$JOURNAL' ]" "the live owner's journal is kept"
kill $LIVE; wait $LIVE 2>/dev/null
rm -f "$JOURNAL"

# Specific failures.
fakefs_start locked --lockdown
run_cmd wb features show --debugfs "$TMP/locked"
like "$ERR" "kernel lockdown prevents reading '$TMP/locked/sched/features'" "lockdown: says kernel lockdown"
unlike "$ERR" "not root|Permission denied" "lockdown: never says not root"
# The fallback decodes the stand-in's bitmask with the running kernel's BTF names:
# it works where that kernel has at least the fixture's 26 features. Reading
# was asked and done: exit 0, with a note (not an error); without BTF, 77.
if [ -r /sys/kernel/btf/vmlinux ] && printf '%s' "$ERR" | grep -q 'read-only view'; then
	is "$RC" 0 "lockdown: show, decoded read-only, exits 0"
	like "$ERR" "decoded from '$TMP/locked/sched/debug'" "lockdown: read-only fallback said"
	unlike "$ERR" "error:" "  as a note, not an error"
	like "$ERR" "nothing can be changed on this kernel .*wakebench vm --kernel IMAGE -- ab" "  with what works: ab in a VM"
	like "$OUT" "^PLACE_LAG " "lockdown: decoded line printed"
	run_cmd wb features show --debugfs "$TMP/locked" -q
	is "$RC:$ERR" "0:" "lockdown: -q keeps only the state"
	run_cmd wb features show --debugfs "$TMP/locked" --format json
	is "$RC:$(printf '%s' "$OUT" | jq -r '.writable')" "0:false" "lockdown: JSON says not writable, exit 0"
else
	is "$RC" 77 "lockdown without BTF: nothing could be read, exit 77"
	skip "no BTF here, or it names fewer features than the stand-in's bitmask"; skip "idem"; skip "idem"
	skip "idem"; skip "idem"; skip "idem"
fi
run_cmd wb features set NO_DELAY_DEQUEUE --debugfs "$TMP/locked"
is "$RC" 77 "lockdown: set exits 77"
like "$ERR" "kernel lockdown" "lockdown: set says kernel lockdown"
like "$ERR" "no scheduler feature can be changed on this kernel" "lockdown: set says nothing can be changed"

fakefs_start ro --readonly
run_cmd wb features set NO_DELAY_DEQUEUE --debugfs "$TMP/ro"
is "$RC" 77 "read-only: set exits 77"
like "$ERR" "Permission denied \(scheduler features need root\)" "read-only: says it needs root"
ok "[ ! -e '$JOURNAL' ]" "read-only: no journal left"

fakefs_start old --absent
run_cmd wb features show --debugfs "$TMP/old"
is "$RC" 77 "absent file exits 77"
like "$ERR" "before 6.15 it needs CONFIG_SCHED_DEBUG" "absent file is explained"

mkdir -p "$TMP/nodebugfs"
run_cmd wb features show --debugfs "$TMP/nodebugfs"
is "$RC" 77 "debugfs not mounted exits 77"
like "$ERR" "mount -t debugfs none $TMP/nodebugfs" "and says how to mount it"

# This machine's real file, when the kernel is in lockdown.
if [ -e /sys/kernel/debug/sched/features ] && ! cat /sys/kernel/debug/sched/features >/dev/null 2>&1 &&
	cat /sys/kernel/debug/sched/features 2>&1 | grep -q 'not permitted'; then
	run_cmd wb features
	if [ -n "$OUT" ]; then
		is "$RC" 0 "real lockdown: the state decoded read-only, exit 0"
	else
		is "$RC" 77 "real lockdown: nothing readable, exit 77"
	fi
	like "$ERR" "kernel lockdown" "real lockdown: says kernel lockdown"
else
	skip "the real features file is not under lockdown here"; skip "idem"
fi
done_testing
