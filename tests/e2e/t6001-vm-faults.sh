#!/bin/sh
# vm: bad input and broken kernels fail clearly, without a download: no
# --kernel, no subcommand, not a kernel, a kernel of another architecture,
# --cpus above the host's, --db after "--" (exit 2); qemu missing, KVM
# demanded where it is unusable, a kernel qemu refuses, a kernel that hangs
# past --timeout, Ctrl-C during a boot, SIGTERM during its qemu -version probe
# (exit 1). No qemu is left behind, the temporary directory is removed, and
# nothing lands in the store.
. "$(dirname "$0")/lib.sh"

[ "$(uname -m)" = x86_64 ] || skip_all "the fake kernel images here are x86 bzImages"

# A file with the x86 boot-protocol header. "hang": its real-mode entry is a
# jump to itself, so qemu runs it forever; "old": protocol 1.x, which qemu
# refuses to give an initrd.
fake_bzimage() { # FILE hang|old
	head -c 6656 /dev/zero >"$1"
	put() { printf "$2" | dd of="$1" bs=1 seek=$(($3)) conv=notrunc 2>/dev/null; }
	put "$1" '\125\252' 0x1fe
	put "$1" 'HdrS' 0x202
	if [ "$2" = hang ]; then
		put "$1" '\004' 0x1f1
		put "$1" '\353\376' 0x200
		put "$1" '\017\002' 0x206
		put "$1" '\001' 0x211
		put "$1" '\377\377\377\177' 0x22c
		put "$1" '\000\010' 0x238
	fi
}
fake_bzimage "$TMP/hang.img" hang
fake_bzimage "$TMP/old.img" old
head -c 4096 /dev/zero >"$TMP/arm64.img"
printf 'ARMd' | dd of="$TMP/arm64.img" bs=1 seek=56 conv=notrunc 2>/dev/null
export TMPDIR="$TMP/tmp"
mkdir -p "$TMPDIR"
export XDG_CACHE_HOME="$TMP/cache"

run_cmd wb vm -- run pipe
is "$RC" 2 "no --kernel exits 2"
like "$ERR" "option '--kernel' is required" "no --kernel is named"

run_cmd wb vm --kernel "$TMP/hang.img"
is "$RC" 2 "no subcommand exits 2"
like "$ERR" "no subcommand: give one after '--'" "no subcommand is explained"

run_cmd wb vm --kernel "$TMP/hang.img" run pipe
is "$RC" 2 "a subcommand without '--' exits 2"

run_cmd wb vm --kernel /etc/passwd -- run pipe
is "$RC" 2 "not a kernel exits 2"
like "$ERR" "option '--kernel': '/etc/passwd': not a kernel image" "not a kernel is named"

run_cmd wb vm --kernel "$TMP/missing" -- run pipe
is "$RC" 2 "a missing image exits 2"
like "$ERR" "'.*missing': No such file" "a missing image is named"

# The guest's architecture is the first image's (an arm64 guest is t6010's).
run_cmd wb vm --kernel "$TMP/hang.img" --kernel "$TMP/arm64.img" -- run pipe
is "$RC" 2 "a kernel of another architecture exits 2"
like "$ERR" "an arm64 kernel image, the guest is x86-64" "the architecture is named"

cpus=$(getconf _NPROCESSORS_ONLN)
run_cmd wb vm --kernel "$TMP/hang.img" --cpus $((cpus + 1)) -- run pipe
is "$RC" 2 "--cpus above the host's exits 2"
like "$ERR" "option '--cpus': value out of range: '$((cpus + 1))', allowed 1..$cpus" "--cpus names the limit"

run_cmd wb vm --kernel "$TMP/hang.img" -- run pipe --db /tmp/x.db
is "$RC" 2 "--db after '--' exits 2"
run_cmd wb vm --kernel "$TMP/hang.img" -- compare
is "$RC" 2 "a subcommand that cannot run in a guest exits 2"
like "$ERR" "subcommand 'compare' cannot run in the guest, allowed run\\|ab" "allowed subcommands listed"
run_cmd wb vm --kernel "$TMP/hang.img" --timeout 0 -- run pipe
is "$RC" 2 "--timeout 0 exits 2"

run_cmd wb vm --kernel "$TMP/hang.img" --qemu "$TMP/no-qemu" -- run pipe
is "$RC" 1 "missing qemu exits 1"
like "$ERR" "qemu not found" "missing qemu is said"

if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	skip "qemu-system-x86_64 is not installed"
	done_testing
	exit
fi

# KVM demanded: usable or not, a clear answer; here only the refusal is checked.
run_cmd wb vm --kernel "$TMP/old.img" --accel kvm --timeout 5s -- run pipe
if printf '%s' "$ERR" | grep -q "KVM is not usable"; then
	is "$RC" 1 "--accel kvm without usable KVM exits 1"
else
	diag "KVM usable here: $(printf '%s' "$ERR" | head -1)"
fi

run_cmd wb vm --kernel "$TMP/old.img" --accel tcg --timeout 10m -- run pipe -t 100ms -n 1
is "$RC" 1 "a kernel qemu refuses exits 1"
like "$ERR" "round 1/1 .* failed after .*: qemu failed: .*too old" "the reason is qemu's"
like "$ERR" "1 of 1 rounds failed \\(0 experiments imported\\)" "the summary counts the failed round"

run_cmd wb vm --kernel "$TMP/hang.img" --accel tcg --rounds 2 --timeout 2s -- run pipe -t 100ms -n 1
is "$RC" 1 "a hanging kernel exits 1"
like "$ERR" "no result within the deadline of 2s \\(--timeout\\)" "the deadline is the reason"
like "$ERR" "round 2/2" "the next round still runs"
like "$ERR" "console tail" "the console tail is shown"
# each round's own time (from qemu's start to its end): the 2 s deadline, at
# most 2 s of grace between SIGTERM and SIGKILL, and slack for a loaded
# machine; vm's own start (probes, the initramfs) is not the deadline's
walls=$(printf '%s\n' "$ERR" | sed -n 's/.*round [12]\/2 .* failed after \([0-9.]*\)s: .*/\1/p')
ok "[ $(printf '%s\n' "$walls" | awk '$1 < 10 { n++ } END { print n + 0 }') = 2 ]" \
	"the deadline holds: rounds of $(echo $walls | sed 's/ /s and /')s for a deadline of 2s"
is "$(ls "$TMPDIR")" "" "temporary files removed"
ok "[ ! -e '$WAKEBENCH_DB' ]" "nothing imported (and no empty store left: doc/store.md)"

# Ctrl-C while a guest runs: qemu is killed, temporary files go, exit 1.
# The wait is for the round's qemu, not for any child (vm's probes come first).
"$WAKEBENCH" vm --kernel "$TMP/hang.img" --accel tcg --timeout 60s -- run pipe \
	>"$TMP/int.out" 2>"$TMP/int.err" &
pid=$!
booted=$(wait_boot $pid "$TMP/hang.img")
kids=$(descendants $pid)
ok "[ -n '$booted' ]" "qemu runs under vm"
kill -INT $pid
t0=$(date +%s)
wait $pid
rc=$?
t1=$(date +%s)
is "$rc" 1 "Ctrl-C exits 1"
ok "[ $((t1 - t0)) -lt 10 ]" "Ctrl-C is prompt"
like "$(cat "$TMP/int.err")" "interrupted by Interrupt: 0 of 1 rounds completed" "Ctrl-C is reported"
is "$(alive "$kids")" "" "no qemu left after Ctrl-C"
is "$(ls "$TMPDIR")" "" "temporary files removed after Ctrl-C"

# SIGTERM while vm's first child runs (qemu -version, held here on a FIFO
# until the signal was sent): vm lets the probe end, starts no round, and
# exits 1 with the count; a vm killed by the signal would leave the probe.
mkfifo "$TMP/probe.fifo"
{
	echo '#!/bin/sh'
	echo 'if [ "$1" = -version ]; then'
	echo "	echo \$\$ >'$TMP/probe.pid.new' && mv '$TMP/probe.pid.new' '$TMP/probe.pid'"
	echo "	read -r _ <'$TMP/probe.fifo'"
	echo '	echo "QEMU emulator version 0.0.0 (held)"'
	echo '	exit 0'
	echo 'fi'
	echo 'exec qemu-system-x86_64 "$@"'
} >"$TMP/held-qemu"
chmod +x "$TMP/held-qemu"
"$WAKEBENCH" vm --kernel "$TMP/hang.img" --qemu "$TMP/held-qemu" --accel tcg --timeout 60s \
	-- run pipe >"$TMP/probe.out" 2>"$TMP/probe.err" &
pid=$!
while [ ! -s "$TMP/probe.pid" ] && kill -0 $pid 2>/dev/null; do sleep 0.05; done
probe=$(cat "$TMP/probe.pid" 2>/dev/null)
ok "[ -n '$probe' ]" "vm runs qemu -version"
kill -TERM $pid
echo go >"$TMP/probe.fifo"
wait $pid
is "$?" 1 "SIGTERM during the probe: exit 1, not killed by it"
like "$(cat "$TMP/probe.err")" "interrupted by Terminated: 0 of 1 rounds completed" \
	"SIGTERM during the probe is reported"
unlike "$(cat "$TMP/probe.err")" "round 1/1: booting" "no round starts after the signal"
is "$(alive "$probe")" "" "the probe is not left behind"
is "$(ls "$TMPDIR")" "" "temporary files removed after SIGTERM"

done_testing
