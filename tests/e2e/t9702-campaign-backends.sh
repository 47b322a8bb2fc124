#!/bin/sh
# What campaign start and abort ask of each backend, on the file trees of
# tests/e2e/boottree.sh (formats named in t9700) with recording stand-ins:
#  - rpi: the kernel and its initramfs copied to the boot partition,
#    tryboot.txt written (config.txt, then [all], kernel=, initramfs ...
#    followkernel), `reboot "0 tryboot"`; abort removes all three; config.txt
#    is never changed;
#  - systemd-boot: `bootctl set-oneshot ID.conf`, `systemctl reboot`; abort:
#    `bootctl set-oneshot ""` (bootctl's way to remove the one-shot entry);
#  - kexec: `kexec -l IMAGE --initrd=INITRD --reuse-cmdline`, `systemctl
#    kexec`; abort: `kexec -u`.
# Then a step on the Pi after a tryboot that did not take (the firmware
# booted config.txt's kernel): recorded as the wrong kernel, not measured.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/boottree.sh"

RUN="run pipe -j 1 -t 30ms -n 3 --warmup 0 -q"
calls() { cat "$TMP/calls"; : >"$TMP/calls"; }
start() { # ROOT KERNEL KERNEL [options]
	_r=$1
	shift
	# shellcheck disable=SC2086
	WAKEBENCH_ROOT=$_r run_cmd wb campaign start --kernel "$1" --kernel "$2" --boots 1 --settle 0 \
		"$@" -- $RUN
}

# ---- the Pi: tryboot
p=$TMP/pi5
boot_pi5 "$p"
mkdir -p "$p/run/systemd/system" "$p/etc/systemd/system"
cfg=$(cat "$p/boot/firmware/config.txt")
B=6.12.25+rpt-rpi-2712
A=6.6.51+rpt-rpi-2712
re() { printf '%s' "$1" | sed 's/[.+]/\\&/g'; }
start "$p" "$B" "$A"
is "$RC" 0 "pi: start exits 0"
like "$OUT" "backend rpi" "pi: the backend is rpi"
ok "cmp -s '$p/boot/vmlinuz-$B' '$p/boot/firmware/wakebench-$B.img'" "pi: the kernel is on the boot partition"
ok "cmp -s '$p/boot/initrd.img-$B' '$p/boot/firmware/wakebench-$B.initrd'" "pi: and its initramfs"
is "$(cat "$p/boot/firmware/tryboot.txt")" "$(printf '%s\n[all]\nkernel=wakebench-%s.img\ninitramfs wakebench-%s.initrd followkernel' "$cfg" "$B" "$B")" \
	"pi: tryboot.txt is config.txt and the kernel's lines"
is "$(cat "$p/boot/firmware/config.txt")" "$cfg" "pi: config.txt is unchanged"
is "$(calls)" "$(printf 'systemctl daemon-reload\nsystemctl enable wakebench-campaign.service\nreboot 0 tryboot')" \
	"pi: the unit, then reboot '0 tryboot'"
# the firmware fell back to config.txt's kernel: the wrong kernel, recorded
mkdir -p "$p/proc/sys/kernel/random"
echo pi-boot-1 >"$p/proc/sys/kernel/random/boot_id"
WAKEBENCH_ROOT=$p run_cmd wb campaign step
is "$RC" 0 "pi: a step after a tryboot that did not take exits 0"
like "$OUT" "boot 1: booted $(re "$A") instead of $(re "$B")" "pi: the fallback is recorded, not measured"
like "$(calls)" "reboot 0 tryboot" "pi: and the next boot is tried"
WAKEBENCH_ROOT=$p run_cmd wb campaign abort
is "$RC" 0 "pi: abort exits 0"
ok "[ ! -e '$p/boot/firmware/tryboot.txt' ]" "pi: abort removes tryboot.txt"
is "$(ls "$p/boot/firmware")" "config.txt" "pi: and the copied kernels; config.txt stays"
: >"$TMP/calls"

# ---- systemd-boot
s=$TMP/sdboot
boot_sdboot "$s"
mkdir -p "$s/run/systemd/system" "$s/etc/systemd/system"
start "$s" 6.12.12-amd64 6.1.0-18-amd64
is "$RC" 0 "systemd-boot: start exits 0"
is "$(calls)" "$(printf 'systemctl daemon-reload\nsystemctl enable wakebench-campaign.service\nbootctl set-oneshot %s-6.12.12-amd64.conf\nsystemctl reboot' "$mid")" \
	"systemd-boot: set-oneshot with the entry, then the reboot"
WAKEBENCH_ROOT=$s run_cmd wb campaign abort
is "$RC" 0 "systemd-boot: abort exits 0"
is "$(calls)" "$(printf 'bootctl set-oneshot \nsystemctl disable wakebench-campaign.service\nsystemctl daemon-reload')" \
	"systemd-boot: abort removes the one-shot entry and the unit"

# ---- kexec (a Debian tree without GRUB)
k=$TMP/kexec
boot_debian "$k"
rm -r "$k/boot/grub"
mkdir -p "$k/run/systemd/system" "$k/etc/systemd/system"
start "$k" 6.1.0-18-amd64 6.12.12-amd64
is "$RC" 0 "kexec: start exits 0"
like "$OUT" "backend kexec" "kexec: the backend is kexec"
is "$(calls)" "$(printf 'systemctl daemon-reload\nsystemctl enable wakebench-campaign.service\nkexec -l /boot/vmlinuz-6.1.0-18-amd64 --initrd=/boot/initrd.img-6.1.0-18-amd64 --reuse-cmdline\nsystemctl kexec')" \
	"kexec: the kernel loaded with its initramfs and this boot's command line, then systemctl kexec"
WAKEBENCH_ROOT=$k run_cmd wb campaign abort
is "$RC" 0 "kexec: abort exits 0"
like "$(calls)" "^kexec -u" "kexec: abort unloads the kernel"
# --backend that cannot work here: exit 77, nothing stored
WAKEBENCH_ROOT=$k run_cmd wb campaign start --kernel 6.1.0-18-amd64 --kernel 6.12.12-amd64 \
	--backend grub --settle 0 -- run pipe
is "$RC" 77 "--backend grub without grub.cfg: exit 77"
is "$ERR" "wakebench: error: campaign: no /boot/grub/grub.cfg" "and one line saying why"
done_testing
