#!/bin/sh
# What ab and features say when the features cannot be changed here, and
# what works instead. Kernel lockdown (the stand-in's --lockdown): ab exits
# 77 in one line that names the same ab in a VM (`wakebench vm --kernel
# IMAGE -- ab --feature ...`), `features set` exits 77, while `features`
# (only reading) prints the decoded state and a note and exits 0. Not root
# (nobody): ab and `features set` say they need root to write the file,
# never how to mount debugfs, and ab names the VM too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

fakefs_start locked --lockdown --log="$TMP/writes.log"
L="$TMP/locked"
db="$TMP/g.db"
JOURNAL="$WAKEBENCH_STATE_DIR/features.journal"
VM="wakebench vm --kernel IMAGE -- ab"

run_cmd wb ab --feature NO_DELAY_DEQUEUE -n 6 -j 1 -t 10ms --debugfs "$L" --db "$db"
is "$RC" 77 "lockdown: ab exits 77"
is "$(printf '%s\n' "$ERR" | wc -l | tr -d ' ')" 1 "lockdown: one line"
like "$ERR" "^wakebench: error: ab: kernel lockdown prevents reading '$L/sched/features' \\(Operation not permitted even for root" \
	"lockdown: says why"
like "$ERR" "; no scheduler feature can be changed on this kernel, but in a VM they can: $VM --feature NO_DELAY_DEQUEUE \\[OPTIONS\\] \\(IMAGE: a kernel image of your choice, booted with qemu; doc/vm.md\\)$" \
	"lockdown: and what works: the same ab in a VM"
is "$OUT" "" "lockdown: nothing printed on stdout"
ok "[ ! -e '$db' ]" "lockdown: nothing stored"
ok "[ ! -e '$JOURNAL' ]" "lockdown: no journal"
ok "[ ! -s '$TMP/writes.log' ]" "lockdown: nothing written"

run_cmd wb ab --feature NO_DELAY_DEQUEUE --feature PREEMPT_SHORT -n 9 --debugfs "$L" --no-store
is "$RC" 77 "lockdown, two features: exit 77"
like "$ERR" "$VM --feature NO_DELAY_DEQUEUE --feature PREEMPT_SHORT \\[OPTIONS\\]" \
	"lockdown, two features: the VM command has both tokens"

# Reading under lockdown is not a failure: the state, a note, exit 0 (or 77
# where not even the read-only view can be decoded: no BTF).
run_cmd wb features --debugfs "$L"
if [ -n "$OUT" ]; then
	is "$RC" 0 "features under lockdown: exit 0"
	like "$OUT" "^PLACE_LAG .*DELAY_DEQUEUE" "  the decoded state"
	like "$ERR" "^wakebench: features: read-only view: kernel lockdown prevents reading" "  a note saying it is read-only, and why"
	unlike "$ERR" "error:" "  not an error"
else
	is "$RC" 77 "features under lockdown without BTF: nothing read, exit 77"
	skip "no BTF"; skip "no BTF"; skip "no BTF"
fi
run_cmd wb features set NO_DELAY_DEQUEUE --debugfs "$L"
is "$RC" 77 "features set under lockdown: exit 77 (asked to change, impossible)"
like "$ERR" "^wakebench: error: features set: kernel lockdown prevents .*; no scheduler feature can be changed on this kernel$" \
	"  says nothing can be changed"

# Not root: as nobody (the tests run as root), else not at all.
if [ "$(id -u)" != 0 ] || ! unprivileged_setup; then
	skip "${UWHY:-not root: cannot become nobody}"
	done_testing
	exit $?
fi
fakefs_start dbg
cd /
for d in "" "$TMP/dbg"; do
	where=${d:-/sys/kernel/debug}
	run_cmd unprivileged "$UWAKEBENCH" ab --feature NO_DELAY_DEQUEUE -n 6 -j 1 -t 10ms --no-store ${d:+--debugfs "$d"}
	is "$RC" 77 "nobody, $where: ab exits 77"
	is "$ERR" "wakebench: error: ab needs root to write '$where/sched/features' (running as uid $(id -u nobody)): run it as root, or without root in a VM: $VM --feature NO_DELAY_DEQUEUE [OPTIONS] (IMAGE: a kernel image of your choice, booted with qemu; doc/vm.md)" \
		"nobody, $where: ab needs root, or a VM"
	unlike "$ERR" "mount" "nobody, $where: no advice on mounting debugfs"
done
run_cmd unprivileged "$UWAKEBENCH" features set NO_DELAY_DEQUEUE
is "$RC" 77 "nobody: features set exits 77"
like "$ERR" "^wakebench: error: features set needs root to write '/sys/kernel/debug/sched/features'" "nobody: features set needs root"
done_testing
