#!/bin/sh
# campaign start, step, status, abort, with the reboots simulated: a Debian
# tree with GRUB (tests/e2e/boottree.sh) stands in for the machine
# (WAKEBENCH_ROOT), a "boot" writes its kernel release and a new boot id
# into it, and stand-ins for grub-reboot, grub-editenv and systemctl record
# what they were asked. The experiment itself is real (pipe, tiny). Checked:
# the plan, the one-shot entries chosen in its order, the unit installed and
# removed, a boot taken twice, a wrong kernel recorded and not measured, a
# run killed mid-sample found interrupted at the next boot, one campaign at a
# time, abort, and the end with the verdict and compare's table.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/boottree.sh"

command -v setsid >/dev/null || skip_all "setsid is not installed"
command -v ps >/dev/null || skip_all "ps is not installed"
sqlite3 :memory: "SELECT json('[]')" >/dev/null 2>&1 || skip_all "sqlite3 (with JSON) is not installed"

r=$TMP/m
boot_debian "$r"
mkdir -p "$r/run/systemd/system" "$r/etc/systemd/system" "$r/proc/sys/kernel/random"
export WAKEBENCH_ROOT="$r"
A=6.1.0-18-amd64
B=6.12.12-amd64
sub="gnulinux-advanced-$uuid>gnulinux-6.1.0-18-amd64-advanced-$uuid"
unit=$r/etc/systemd/system/wakebench-campaign.service
boot() {
	echo "$1" >"$r/proc/sys/kernel/osrelease"
	echo "$2" >"$r/proc/sys/kernel/random/boot_id"
}
# The kernel the running campaign chose for the next boot (its boot in state booting).
chosen() { wb campaign status | awk '$1 == "boot" && $4 == "booting" { print $3 }'; }
calls() { cat "$TMP/calls"; : >"$TMP/calls"; }
RUN="run pipe -j 1 -t 30ms -n 3 --warmup 0 -q"

# bad input: one line, exit 2, nothing stored
# shellcheck disable=SC2086
run_cmd wb campaign start --kernel $A --settle 0 -- $RUN
is "$RC" 2 "one kernel: exit 2"
like "$ERR" "option '--kernel': 1 given, start needs two kernels or more" "and says so"
# shellcheck disable=SC2086
run_cmd wb campaign start --kernel $A --kernel 6.99.0-amd64 --settle 0 -- $RUN
is "$RC" 2 "a kernel not installed: exit 2"
like "$ERR" "'6.99.0-amd64' is not installed in /boot" "and names it"
run_cmd wb campaign start --kernel $A --kernel $A --settle 0 -- $RUN
is "$RC:$ERR" "2:wakebench: error: campaign: option '--kernel': '$A' is given twice" "a kernel twice: exit 2, one line"
run_cmd wb campaign start --kernel $A --kernel $B
is "$RC" 2 "no experiment after --: exit 2"
run_cmd wb campaign start --kernel $A --kernel $B --settle 0 -- run pipe -j 0
is "$RC" 2 "an experiment the run refuses: exit 2 (it is tried once, unstored, at start)"
like "$ERR" "^wakebench: error: run: option '--instances' \\(-j\\): .*'0'" "the run's own line names the option"
is "$(printf '%s\n' "$ERR" | wc -l)" 1 "one line"
ok "[ ! -e '$WAKEBENCH_DB' ]" "nothing stored"
is "$(calls)" "" "no boot tool was run"

# start: the plan, the unit, boot 1's kernel once, the reboot
# shellcheck disable=SC2086
run_cmd wb campaign start --kernel $A --kernel $B --boots 2 --max-boots 6 --settle 0 -- $RUN
is "$RC" 0 "start: exit 0"
like "$OUT" "backend grub" "start: grub is the backend"
like "$OUT" "rebooting into $A \\(once\\)" "start: says it reboots into the first kernel"
is "$(calls)" "$(printf 'systemctl daemon-reload\nsystemctl enable wakebench-campaign.service\ngrub-reboot %s\nsystemctl reboot' "$sub")" \
	"start: the unit enabled, grub-reboot with the kernel's entry, the reboot"
like "$(cat "$unit")" "ExecStart=.* campaign step --db $WAKEBENCH_DB" "start: the unit runs the step on this store"
if command -v systemd-analyze >/dev/null 2>&1; then
	run_cmd systemd-analyze verify "$unit"
	is "$RC:$ERR" "0:" "start: systemd-analyze verify finds nothing wrong with the unit"
else
	skip "systemd-analyze is not installed"
fi
# shellcheck disable=SC2086
run_cmd wb campaign start --kernel $A --kernel $B --settle 0 -- $RUN
is "$RC" 1 "a second campaign while one runs: exit 1"
like "$ERR" "is running .*one at a time" "and says why"
: >"$TMP/calls"

# boot 1: the planned kernel is measured, boot 2's chosen; the boot's
# state ("measuring") is on the disk before the run starts, so that a crash
# of the kernel during the run leaves it behind (t6020 crashes a guest): the
# step's store syncs its commits (fsync or fdatasync) before it executes the
# run, where a store that only survives a killed process (SQLite's WAL with
# synchronous NORMAL) would leave the last commit in the page cache
boot $A boot-1
if command -v strace >/dev/null 2>&1; then
	# (LeakSanitizer refuses to run under ptrace: a sanitized build's exit
	# status would be its, not the step's)
	run_cmd env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -y -o "$TMP/step.trace" -e trace=pwrite64,write,fsync,fdatasync,execve \
		"$WAKEBENCH" campaign step
	# (-y: a descriptor with its path; a write to the store or its WAL
	# makes it dirty, a sync of it clean)
	is "$(awk '/execve\(.*"run", "pipe"/ { print (dirty ? "written after the last sync" : "synced"); exit }
		/ (pwrite64|write)\([0-9]+<[^>]*results\.db/ { dirty = 1 }
		/ f(data)?sync\([0-9]+<[^>]*results\.db/ { dirty = 0 }' "$TMP/step.trace")" synced \
		"boot 1: what the step wrote to the store is synced before the run starts"
else
	run_cmd wb campaign step
	skip "strace is not installed (the state synced before the run)"
fi
is "$RC" 0 "boot 1: step exits 0"
like "$OUT" "boot 1: $A measured, experiment [0-9a-f]{8}" "boot 1: measured"
is "$(chosen)" "$B" "boot 1: the next boot is $B's (balanced: A B, then B A)"
like "$(wb campaign status)" "3 boots left; the time left is known after two boots" "status: the boots left"
like "$(calls)" "grub-reboot gnulinux-simple-$uuid" "boot 1: grub-reboot with $B's entry"
run_cmd wb campaign step
is "$RC" 0 "the same boot again: exit 0"
like "$OUT" "this boot \\(boot-1\\) was already taken" "the same boot again: nothing measured twice"
is "$(calls)" "" "the same boot again: no reboot"

# boot 2: A came up instead of B (the loader fell back): recorded, not measured
boot $A boot-2
run_cmd wb campaign step
is "$RC" 0 "a wrong kernel: exit 0"
like "$OUT" "boot 2: booted $A instead of $B" "a wrong kernel: said"
like "$(wb campaign status)" "boot 2 +$B +wrong-kernel" "a wrong kernel: stored as such"
: >"$TMP/calls"

# the next boot: a run killed mid-sample (power lost) is found interrupted
k=$(chosen)
boot "$k" boot-3
# shellcheck disable=SC2086
sqlite3 "$WAKEBENCH_DB" "UPDATE campaigns SET plan = json_set(plan, '\$.run', json('[\"run\",\"pipe\",\"-j\",\"1\",\"-t\",\"30s\",\"-n\",\"1\",\"--warmup\",\"0\",\"-q\"]'))"
setsid "$WAKEBENCH" campaign step >"$TMP/step.out" 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null && ! wb campaign status | grep -q "measuring"; do sleep 0.05; done
like "$(wb campaign status)" "boot 3 .* measuring" "the run is under way"
pg=$(ps -o pgid= -p $pid | tr -d ' ')
kill -KILL -"$pg"
{ wait $pid; } 2>/dev/null
# shellcheck disable=SC2086
sqlite3 "$WAKEBENCH_DB" "UPDATE campaigns SET plan = json_set(plan, '\$.run', json('[\"run\",\"pipe\",\"-j\",\"1\",\"-t\",\"30ms\",\"-n\",\"3\",\"--warmup\",\"0\",\"-q\"]'))"
boot $A boot-4
run_cmd wb campaign step
is "$RC" 0 "after the kill: exit 0"
like "$(wb campaign status)" "boot 3 .* failed +interrupted: the machine went down during the run" \
	"after the kill: boot 3 is recorded as interrupted"
like "$OUT" "was not chosen by the campaign" "after the kill: this boot was not planned, the next is chosen"

# the remaining boots, each into the kernel chosen, to the end
i=5
while [ $i -le 12 ] && wb campaign status | grep -q ": running,"; do
	k=$(chosen)
	boot "$k" "boot-$i"
	run_cmd wb campaign step
	[ "$RC" = 0 ] || break
	i=$((i + 1))
done
is "$RC" 0 "every step exits 0"
st=$(wb campaign status)
like "$st" ": (decided|exhausted), backend grub" "the campaign ended, decided or after its 6 boots"
like "$OUT" "ended: (decided|exhausted); the boot loader's one-shot choice and the unit are undone" \
	"the last step says so"
like "$OUT" "verdict:" "the last step gives the verdict"
ok "[ ! -e '$unit' ]" "the unit file is removed"
like "$(calls)" "systemctl disable wakebench-campaign.service" "the unit is disabled"
is "$(printf '%s\n' "$st" | grep -c ' measured ')" \
	"$(wb campaign status | awk '$1 == "boot" && $4 == "measured"' | wc -l)" "status lists the measured boots"
run_cmd wb compare --by kernel
is "$RC" 0 "compare --by kernel over the campaign's experiments"
like "$OUT" "$A" "compare: $A"
like "$OUT" "$B" "compare: $B"
run_cmd wb campaign report -- --format markdown
is "$RC" 0 "campaign report: exit 0"
like "$OUT" "$A" "campaign report: the report names $A"
like "$OUT" "$B" "campaign report: and $B"
run_cmd wb campaign step
is "$RC" 0 "a step after the end: exit 0"
like "$OUT" "no campaign is running" "a step after the end: nothing to do"

# abort: the one-shot choice and the unit undone
# shellcheck disable=SC2086
run_cmd wb campaign start --kernel $B --kernel $A --boots 2 --settle 0 --no-reboot -- $RUN
is "$RC" 0 "a new campaign (--no-reboot)"
like "$OUT" "next: $B is chosen for the next boot, once: reboot now" "--no-reboot: says to reboot"
unlike "$(calls)" "systemctl reboot" "--no-reboot: no reboot"
run_cmd wb campaign abort
is "$RC" 0 "abort: exit 0"
like "$OUT" ": aborted," "abort: the campaign is aborted"
like "$(calls)" "grub-editenv /boot/grub/grubenv unset next_entry" "abort: the one-shot entry is unset"
ok "[ ! -e '$unit' ]" "abort: the unit file is removed"

# --on-fail stop: a boot of the wrong kernel ends the campaign
# shellcheck disable=SC2086
run_cmd wb campaign start --kernel $A --kernel $B --boots 1 --settle 0 --no-reboot --on-fail stop -- $RUN
is "$RC" 0 "--on-fail stop: a new campaign"
boot $B stop-1
run_cmd wb campaign step
is "$RC" 1 "--on-fail stop: a wrong kernel: exit 1"
like "$ERR" "stopped \\(--on-fail stop\\): boot 1: booted $B instead of $A" "--on-fail stop: says why, one line"
like "$(wb campaign status)" ": failed, backend grub" "--on-fail stop: the campaign failed"
ok "[ ! -e '$unit' ]" "--on-fail stop: the unit file is removed"
like "$(calls)" "grub-editenv /boot/grub/grubenv unset next_entry" "--on-fail stop: the one-shot entry is unset"

# a full disk: the campaign stops at the next boot, nothing rebooted
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	mkdir "$TMP/small"
	unshare -m sh -c '
		mount --make-rprivate / 2>/dev/null
		mount -t tmpfs -o size=8m tmpfs "$1" || exit 99
		shift
		export WAKEBENCH_DB="$1/r.db"
		"$@"
	' sh "$TMP/small" sh -c '
		db=$WAKEBENCH_DB
		wb() { "$WAKEBENCH" "$@"; }
		wb campaign start --kernel '"$A"' --kernel '"$B"' --boots 1 --settle 0 --no-reboot -- '"$RUN"' >/dev/null 2>&1 || exit 98
		echo '"$A"' >"'"$r"'/proc/sys/kernel/osrelease"
		echo full-1 >"'"$r"'/proc/sys/kernel/random/boot_id"
		dd if=/dev/zero of="$(dirname "$db")/fill" bs=4k 2>/dev/null
		wb campaign step >"'"$TMP"'/full.out" 2>"'"$TMP"'/full.err"
		echo $? >"'"$TMP"'/full.rc"
		rm -f "$(dirname "$db")/fill"
		wb campaign status >"'"$TMP"'/full.status" 2>&1
	'
	if [ -e "$TMP/full.rc" ]; then
		is "$(cat "$TMP/full.rc")" 1 "a full disk: the step exits 1"
		like "$(cat "$TMP/full.err")" "stopped at boot 1: the disk is full that holds '.*r.db'" "a full disk: says so"
		unlike "$(calls)" "reboot" "a full disk: no reboot"
		ok "[ ! -e '$unit' ]" "a full disk: the unit file is removed"
	else
		skip "the private tmpfs could not be set up"
	fi
else
	skip "a full disk needs root and a private mount namespace"
fi
done_testing
