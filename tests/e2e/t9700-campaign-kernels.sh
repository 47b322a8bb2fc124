#!/bin/sh
# campaign kernels: the kernels in /boot and how each boot loader would boot
# each one once, read from file trees (WAKEBENCH_ROOT) laid out as the tools
# write them, with stand-ins for their commands in PATH that record any call
# (there must be none: nothing is changed). The formats:
#  - GRUB: grub.cfg as Debian bookworm's grub-mkconfig writes it (00_header's
#    next_entry block, 10_linux's simple entry, its "Advanced options"
#    submenu with $menuentry_id_option ids, a tab after "linux"); the entry
#    named "SUBMENU>ENTRY" as the GRUB manual's "default" variable says;
#  - systemd-boot: Boot Loader Specification type #1 entries
#    (loader/entries/*.conf, keys title, version, linux, initrd) as
#    kernel-install writes them, and the LoaderInfo EFI variable of the Boot
#    Loader Interface (systemd.io/BOOT_LOADER_INTERFACE);
#  - Raspberry Pi: /proc/device-tree/model, the bootloader's tryboot flag in
#    /proc/device-tree/chosen/bootloader (raspberrypi/documentation,
#    configuration/device-tree "Firmware parameters"), config.txt in
#    /boot/firmware (Raspberry Pi OS bookworm);
#  - kexec: /sys/kernel/kexec_loaded, kernel.kexec_load_disabled.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "jq is not installed"

. "$(dirname "$0")/boottree.sh"
ck() {
	_r=$1
	shift
	WAKEBENCH_ROOT=$_r "$WAKEBENCH" campaign kernels "$@"
}
j() { printf '%s\n' "$OUT" | jq -r "$1"; }

# ---- a Debian machine with GRUB and kexec
r=$TMP/debian
boot_debian "$r"
run_cmd ck "$r" --format json
is "$RC" 0 "debian: exit 0"
is "$(j '[.kernels[].release] | join(" ")')" "6.1.0-18-amd64 6.12.12-amd64" "debian: both kernels, oldest first"
is "$(j '.kernels[1].running')" true "debian: the running one is marked"
is "$(j '[.backends[] | select(.usable) | .name] | join(" ")')" "grub kexec" "debian: grub and kexec usable"
is "$(j '.chosen')" grub "debian: a campaign would use grub"
is "$(j '.kernels[0].backends.grub.entry')" "gnulinux-advanced-$uuid>gnulinux-6.1.0-18-amd64-advanced-$uuid" \
	"debian: 6.1 is its submenu entry, not the recovery one"
is "$(j '.kernels[1].backends.grub.entry')" "gnulinux-simple-$uuid" "debian: 6.12 is the first entry that loads it"
is "$(j '.kernels[0].backends.kexec.command')" \
	"kexec -l /boot/vmlinuz-6.1.0-18-amd64 --initrd=/boot/initrd.img-6.1.0-18-amd64 --reuse-cmdline && sync && kexec -e" \
	"debian: kexec loads the image with its initramfs and this boot's command line"
mkdir -p "$r/run/systemd/system"
run_cmd ck "$r" --format json
like "$(j '.kernels[0].backends.kexec.command')" "--reuse-cmdline && systemctl kexec\$" \
	"debian: under systemd, systemctl kexec"
like "$(j '.backends[] | select(.name == "grub") | .note')" "GRUB_DEFAULT=0 is left as it is" \
	"debian: says /etc/default/grub is not changed"
run_cmd ck "$r"
is "$RC" 0 "debian text: exit 0"
like "$OUT" "grub +grub-reboot 'gnulinux-advanced-$uuid>gnulinux-6.1.0-18-amd64-advanced-$uuid' && systemctl reboot" \
	"debian text: the grub-reboot command, quoted for a shell"
like "$OUT" "a campaign would boot with: grub" "debian text: the backend"

# a kernel grub.cfg does not know (installed after update-grub)
boot_kernel 6.12.20-amd64 "$r"
run_cmd ck "$r" --format json
is "$(j '.kernels[2].backends.grub.ok')" false "debian: a kernel missing from grub.cfg cannot be booted by grub"
like "$(j '.kernels[2].backends.grub.why')" "run update-grub" "debian: and says what to do"
is "$(j '.kernels[2].backends.kexec.ok')" true "debian: kexec can still boot it"
# --backend kexec with kexec disabled until reboot: exit 77, one line
echo 1 >"$r/proc/sys/kernel/kexec_load_disabled"
run_cmd ck "$r" --backend kexec
is "$RC" 77 "kexec_load_disabled: --backend kexec exits 77"
is "$ERR" "wakebench: error: campaign: kexec: kexec is disabled until reboot (kernel.kexec_load_disabled = 1)" \
	"kexec_load_disabled: one line with the reason"
# a grub.cfg that never reads next_entry: grub-reboot would do nothing
sed -i 's/next_entry/other_var/g' "$r/boot/grub/grub.cfg"
run_cmd ck "$r" --format json
is "$(j '.backends[] | select(.name == "grub") | .usable')" false "no next_entry block: grub is not usable"
is "$RC" 77 "nothing usable: exit 77"

# ---- systemd-boot, entries as kernel-install writes them
s=$TMP/sdboot
boot_sdboot "$s"
li="$s/sys/firmware/efi/efivars/LoaderInfo-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"
mv "$li" "$TMP/li"
run_cmd ck "$s" --format json
is "$(j '.backends[] | select(.name == "systemd-boot") | .usable')" false \
	"systemd-boot entries but no LoaderInfo: not usable (this boot was not started by it)"
mv "$TMP/li" "$li"
run_cmd ck "$s" --format json
is "$RC" 0 "systemd-boot: exit 0"
is "$(j '.chosen')" systemd-boot "systemd-boot: chosen"
is "$(j '.kernels[0].backends."systemd-boot".command')" "bootctl set-oneshot $mid-6.1.0-18-amd64.conf && reboot" \
	"systemd-boot: set-oneshot with the entry's id"
is "$(j '.kernels[1].backends."systemd-boot".entry')" "$mid-6.12.12-amd64.conf" "systemd-boot: 6.12's entry"

# ---- a Raspberry Pi 5 on Raspberry Pi OS
p=$TMP/pi5
boot_pi5 "$p"
mv "$p/proc/device-tree/chosen/bootloader/tryboot" "$TMP/tryboot"
run_cmd ck "$p" --format json
like "$(j '.backends[] | select(.name == "rpi") | .why')" "no tryboot flag" "pi: no tryboot flag: not usable"
mv "$TMP/tryboot" "$p/proc/device-tree/chosen/bootloader/tryboot"
run_cmd ck "$p" --format json
is "$RC" 0 "pi: exit 0"
is "$(j '.chosen')" rpi "pi: tryboot is chosen"
is "$(j '.kernels[1].release')" "6.12.25+rpt-rpi-2712" "pi: kernels sorted by version"
is "$(j '.kernels[1].backends.rpi.entry')" "kernel=wakebench-6.12.25+rpt-rpi-2712.img" "pi: the tryboot.txt kernel line"
like "$(j '.backends[] | select(.name == "rpi") | .note')" "falls back to config.txt" "pi: says how it falls back"
# the Pi's command, run against the tree (its paths moved under it): the
# kernel and initramfs copied, tryboot.txt is config.txt and the kernel's
# lines, and the reboot asks for tryboot
cmd=$(j '.kernels[1].backends.rpi.command' | sed "s| /boot/| $p/boot/|g; s|>/boot/|>$p/boot/|")
sh -c "$cmd"
is "$?" 0 "pi: the command runs"
ok "cmp -s '$p/boot/vmlinuz-6.12.25+rpt-rpi-2712' '$p/boot/firmware/wakebench-6.12.25+rpt-rpi-2712.img'" "pi: the kernel was copied"
ok "cmp -s '$p/boot/initrd.img-6.12.25+rpt-rpi-2712' '$p/boot/firmware/wakebench-6.12.25+rpt-rpi-2712.initrd'" "pi: the initramfs was copied"
is "$(cat "$p/boot/firmware/tryboot.txt")" "$(printf '[all]\nauto_initramfs=1\ndtparam=audio=on\narm_boost=1\n[all]\nkernel=wakebench-6.12.25+rpt-rpi-2712.img\ninitramfs wakebench-6.12.25+rpt-rpi-2712.initrd followkernel')" \
	"pi: tryboot.txt is config.txt, then the kernel and its initramfs"
is "$(cat "$TMP/calls")" "reboot 0 tryboot" "pi: reboot '0 tryboot'"
: >"$TMP/calls"

# bad input: one line, exit 2
run_cmd ck "$r" --backend lilo
is "$RC" 2 "--backend lilo: exit 2"
like "$ERR" "option '--backend': .*'lilo'.*auto\|rpi\|systemd-boot\|grub\|kexec" "--backend: names the value and what is allowed"
run_cmd ck "$r" start
is "$RC" 2 "an unknown subcommand: exit 2"
is "$(cat "$TMP/calls")" "" "no boot loader command was run"

done_testing
