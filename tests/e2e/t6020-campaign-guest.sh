#!/bin/sh
# A real campaign inside a qemu guest, rebooting by kexec: Debian's bookworm
# 6.1 and 6.12 cloud kernels (fetched once, scripts/fetch-kernel.sh), two
# boots each, the store and /boot on an NVMe disk (ext4; both built into the
# cloud kernels) that survives the reboots. The guest's /init mounts the
# disk, runs `campaign start` at its first boot and `campaign step` at every
# later one (the role systemd's unit plays on a real machine), and powers
# off when the campaign has ended. A machine reset (the guest rebooting or
# panicking ends qemu here, -no-reboot) boots the default kernel (6.1)
# again, as a firmware would. The guests run with oops=panic: Debian's
# 6.12.118 oopses now and then under the pipe experiment (doc/campaign.md),
# and a crash is then a reset whose boot the campaign must record as
# interrupted, not a guest hung until qemu's time is up. Then the same with
# a planned kernel that cannot come up (6.12's image with an initramfs that
# is not one: it panics): its boot is recorded as the wrong kernel, the
# campaign goes on.
# Read back: the states of the boots, the verdict, compare --by kernel.
. "$(dirname "$0")/lib.sh"

[ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] ||
	skip_all "this test boots Debian's amd64 kernels"
[ "$(id -u)" = 0 ] || skip_all "needs root (the guest's device nodes)"
for c in qemu-system-x86_64 kexec mkfs.ext4 cpio busybox ldd; do
	command -v $c >/dev/null 2>&1 || skip_all "$c is not installed"
done
busybox --list | grep -qx sh || skip_all "busybox has no sh"
fetch() { sh "$WAKEBENCH_SRC/scripts/fetch-kernel.sh" "$@" 2>>"$TMP/fetch.err"; }
pkg() { basename "$(dirname "$(dirname "$1")")" | sed 's/-amd64-unsigned$/-cloud-amd64-unsigned/'; }
k61=$(fetch 6.1) || skip_all "cannot download Debian's 6.1 kernel: $(tail -n 1 "$TMP/fetch.err")"
k612=$(fetch 6.12) || skip_all "cannot download Debian's 6.12 kernel: $(tail -n 1 "$TMP/fetch.err")"
A_IMG=$(fetch "$(pkg "$k61")") || skip_all "cannot download $(pkg "$k61")"
B_IMG=$(fetch "$(pkg "$k612")") || skip_all "cannot download $(pkg "$k612")"
A=$(basename "$A_IMG" | sed 's/^vmlinuz-//')
B=$(basename "$B_IMG" | sed 's/^vmlinuz-//')
re() { printf '%s' "$1" | sed 's/[.+]/\\&/g'; }
Are=$(re "$A")
Bre=$(re "$B")
diag "kernels $A and $B"

# The guest's root file system: busybox, wakebench and kexec with their
# libraries, /init.
g=$TMP/guest
mkdir -p "$g/bin" "$g/sbin" "$g/dev" "$g/proc" "$g/sys" "$g/tmp" "$g/run" "$g/boot" "$g/disk"
cp "$(command -v busybox)" "$g/bin/busybox"
for a in $(busybox --list); do [ -e "$g/bin/$a" ] || ln -s busybox "$g/bin/$a"; done
cp "$WAKEBENCH" "$g/bin/wakebench"
cp "$(command -v kexec)" "$g/sbin/kexec"
for b in "$WAKEBENCH" "$(command -v kexec)"; do
	ldd "$b" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' | while read -r lib; do
		mkdir -p "$g$(dirname "$lib")"
		cp -L "$lib" "$g$lib"
	done
done
mknod "$g/dev/console" c 5 1
cat >"$g/init" <<EOF
#!/bin/sh
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
# the disk comes when the kernel has probed it, however slow the emulation
# (the host's timeout bounds the whole qemu run)
while [ ! -b /dev/nvme0n1 ]; do sleep 0.1; done
mount -t ext4 /dev/nvme0n1 /disk || { echo "guest: no disk"; poweroff -f; }
mount --bind /disk/boot /boot
echo "guest: up, kernel \$(uname -r), boot \$(cat /proc/sys/kernel/random/boot_id)"
db=/disk/results.db
if [ ! -e /disk/started ]; then
	touch /disk/started
	sync
	wakebench campaign start --db \$db \$(cat /disk/plan) --settle 0 --backend kexec -- \
		run pipe -j 1 -t 200ms -n 3 --warmup 0 -q
else
	wakebench campaign step --db \$db
fi
echo "guest: step exited \$?"
wakebench campaign status --db \$db | sed 's/^/guest: status: /'
sync
umount /boot
umount /disk
poweroff -f
EOF
chmod 755 "$g/init"
(cd "$g" && find . | cpio -o -H newc --quiet) >"$TMP/guest.cpio"

# campaign NAME PLAN...: the disk (/boot: the kernels and the guest's
# initramfs as each one's), qemu booting the default kernel until the guest
# says the campaign ended (at most 12 resets), the disk's store copied out.
campaign() {
	name=$1
	shift
	d=$TMP/$name
	mkdir -p "$d/fs/boot"
	printf '%s\n' "$*" >"$d/fs/plan"
	cp "$A_IMG" "$d/fs/boot/vmlinuz-$A"
	cp "$TMP/guest.cpio" "$d/fs/boot/initrd.img-$A"
	cp "$B_IMG" "$d/fs/boot/vmlinuz-$B"
	cp "$TMP/guest.cpio" "$d/fs/boot/initrd.img-$B"
	if [ "$name" = broken ]; then
		cp "$B_IMG" "$d/fs/boot/vmlinuz-$B-broken"
		echo "not an initramfs" >"$d/fs/boot/initrd.img-$B-broken"
	fi
	mkfs.ext4 -q -F -d "$d/fs" "$d/disk.img" 256M >/dev/null 2>&1
	resets=0
	: >"$d/console"
	while [ $resets -lt 12 ]; do
		resets=$((resets + 1))
		q0=$(date +%s)
		qrc=0
		timeout 1800 qemu-system-x86_64 -accel tcg -smp 2 -m 1024 -nographic -no-reboot \
			-kernel "$A_IMG" -initrd "$TMP/guest.cpio" \
			-append "console=ttyS0 panic=1 oops=panic quiet" \
			-drive "file=$d/disk.img,if=none,id=d0,format=raw" -device nvme,serial=wb,drive=d0 \
			</dev/null >>"$d/console" 2>&1 &
		qemu=$!
		wait "$qemu" || qrc=$?
		qemu=""
		echo "host: qemu run $resets ended, exit status $qrc, after $(($(date +%s) - q0)) s" >>"$d/console"
		grep -q "guest: status: ended\|: decided,\|: exhausted,\|: failed,\|: aborted," "$d/console" &&
			grep -q "guest: status: campaign .*: \(decided\|exhausted\|failed\|aborted\)," "$d/console" && break
	done
	echo "$resets" >"$d/resets"
	# the store, read on the host from the disk image
	mkdir -p "$d/out"
	debugfs -R "dump /results.db $d/out/results.db" "$d/disk.img" >/dev/null 2>&1
}

# console_diag NAME FAILS: when a check of campaign NAME failed (the failure
# count grew past FAILS), what its qemu runs printed that explains it: each
# boot and step of the guest, how each qemu run ended, and the kernel's
# complaints, on stderr where a CI log shows it.
console_diag() {
	[ "$_tap_fail" -gt "$2" ] || return 0
	diag "campaign $1: the console, its boots, steps and kernel messages:"
	grep -aE "guest: (up|step|no disk)|host: qemu|Kernel panic|BUG|Oops|kexec|nvme|error|timed out" \
		"$TMP/$1/console" | grep -av "guest: status:" | tail -n 40 | while read -r l; do diag "  $l"; done
}

# A test that is stopped stops its guest (timeout passes the signal on).
qemu=""
at_exit '[ -z "$qemu" ] || kill "$qemu" 2>/dev/null'

t0=$(date +%s)
fails=$_tap_fail
campaign two --kernel "$A" --kernel "$B" --boots 2 --max-boots 4
t1=$(date +%s)
d=$TMP/two
status=$(grep "guest: status:" "$d/console" | tail -n 12 | sed 's/.*guest: status: //')
diag "two kernels: $(($(date +%s) - t0)) s, $(cat "$d/resets") qemu run(s)"
printf '%s\n' "$status" | while read -r l; do diag "$l"; done
like "$status" "campaign [0-9a-f]{8}: (decided|exhausted), backend kexec" "two kernels: the campaign ended"
crashes=$(grep -ac "Kernel panic - not syncing" "$d/console")
if [ "$crashes" = 0 ]; then
	is "$(printf '%s\n' "$status" | grep -c ' measured ')" 4 "two kernels: 4 boots measured"
	is "$(grep -c "guest: up" "$d/console")" 5 "two kernels: 5 boots (the first, then 4 by kexec)"
	is "$(cat "$d/resets")" 1 "two kernels: no reset needed"
else
	# The guest's kernel crashed (oops=panic makes an oops a reset): each
	# crash may cost the boot it hit, which the campaign must have recorded
	# as interrupted (or, before the run began, as the wrong kernel).
	diag "the guest's kernel crashed $crashes time(s):"
	grep -a "RIP: 0010\|Kernel panic\|BUG:" "$d/console" | while read -r l; do diag "  $l"; done
	lost=$(printf '%s\n' "$status" | grep -cE '^ *boot [0-9]+ .* (failed|wrong-kernel) ')
	is "$(cat "$d/resets")" $((1 + crashes)) "two kernels: a reset per kernel crash, no other"
	ok "[ $lost -le $crashes ]" "two kernels: at most a boot lost per crash ($lost)"
	is "$(printf '%s\n' "$status" | grep -c ' measured ')" $((4 - lost)) "two kernels: the other boots measured"
	is "$(printf '%s\n' "$status" | grep -E '^ *boot [0-9]+ .* failed ' | grep -vc 'interrupted: the machine went down')" 0 \
		"two kernels: a boot the crash hit is recorded as interrupted"
fi
like "$(grep 'guest: up' "$d/console" | sed -n 2p)" "kernel $Are" "boot 1 is $A"
like "$(grep 'guest: up' "$d/console" | sed -n 3p)" "kernel $Bre" "boot 2 is $B (kexec)"
ok "[ -s '$d/out/results.db' ]" "the store survived on the disk"
run_cmd wb compare --db "$d/out/results.db" --by kernel
is "$RC" 0 "compare --by kernel on the guest's store"
like "$OUT" "$Are" "compare: $A"
like "$OUT" "$Bre" "compare: $B"
like "$OUT" "2 boots" "compare: boots as units"
console_diag two "$fails"
fails=$_tap_fail

campaign broken --kernel "$A" --kernel "$B-broken" --boots 1 --max-boots 2
d=$TMP/broken
status=$(grep "guest: status:" "$d/console" | tail -n 8 | sed 's/.*guest: status: //')
diag "a kernel that cannot come up: $(($(date +%s) - t1)) s, $(cat "$d/resets") qemu run(s)"
printf '%s\n' "$status" | while read -r l; do diag "$l"; done
like "$status" "campaign [0-9a-f]{8}: (exhausted|failed), backend kexec" "broken: the campaign ended"
like "$status" "boot 2 +$Bre-broken +wrong-kernel +booted $Are instead of $Bre-broken" \
	"broken: the kernel that did not come up is recorded, not measured"
like "$status" "boot 1 +$Are +measured" "broken: the good kernel's boot is measured"
is "$(cat "$d/resets")" 2 "broken: one reset, after the panic"
console_diag broken "$fails"
done_testing
