#!/bin/sh
# vm --arch arm64: boot Debian's 6.12 arm64-16k kernel (the Raspberry Pi 5's
# 16 KiB pages) under qemu-system-aarch64 TCG (virt, cortex-a76) with the
# arm64 cross-build of wakebench in the initramfs, run a short `run pipe`
# inside, and find the guest's experiment in the host store with
# kernel.arch aarch64, mem.page_size 16 KiB, the CPU qemu presents and the
# vm.* keys. The guest architecture comes from the image; bad --arch,
# --accel kvm for a foreign guest and a missing guest wakebench are refused.
#
# Needs the arm64 build (make CROSS_COMPILE=aarch64-linux-gnu-; make
# check-arm64 builds it) and `scripts/deps.sh arm64`; the kernel package is
# downloaded once into a cache outside the source tree (scripts/fetch-kernel.sh).
# One boot takes about 5 s of wall time on a 2-vCPU x86-64 host.
. "$(dirname "$0")/lib.sh"

[ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] ||
	skip_all "this test boots an arm64 guest from an x86-64 host"
command -v qemu-system-aarch64 >/dev/null 2>&1 || skip_all "qemu-system-arm is not installed"
guest="$WAKEBENCH_SRC/build-aarch64/wakebench"
[ -x "$guest" ] || skip_all "no arm64 build at '$guest' (make CROSS_COMPILE=aarch64-linux-gnu-)"
sysroot=$(sh "$WAKEBENCH_SRC/scripts/arm64-sysroot.sh" --path)
[ -x "$sysroot/bin/busybox" ] || skip_all "no arm64 sysroot at '$sysroot' (scripts/deps.sh arm64)"
image=$(sh "$WAKEBENCH_SRC/scripts/fetch-kernel.sh" 6.12 arm64-16k 2>"$TMP/fetch.err") ||
	skip_all "cannot download Debian's 6.12 arm64-16k kernel: $(tail -n 1 "$TMP/fetch.err")"
release=$(basename "$image" | sed 's/^vmlinuz-//')
release_re=$(printf '%s' "$release" | sed 's/[.+]/\\&/g')
diag "kernel image $image ($release)"
export TMPDIR="$TMP/tmp"
mkdir -p "$TMPDIR"

# Usage errors first (nothing boots).
run_cmd wb vm --kernel "$image" --arch sparc -- run pipe
is "$RC" 2 "an unknown --arch exits 2"
like "$ERR" "option '--arch': invalid value 'sparc', allowed x86-64\\|arm64" "and names the allowed values"
run_cmd wb vm --kernel "$image" --arch x86-64 -- run pipe
is "$RC" 2 "an arm64 image with --arch x86-64 exits 2"
like "$ERR" "an arm64 kernel image, the guest is x86-64" "and says why"
run_cmd wb vm --kernel "$image" --accel kvm -- run pipe
is "$RC" 2 "--accel kvm for an arm64 guest on x86-64 exits 2"
like "$ERR" "can only be emulated" "and says why"
run_cmd wb vm --kernel "$image" --guest-wakebench "$TMP/nothere" -- run pipe -t 100ms -n 1
is "$RC" 1 "a missing guest wakebench exits 1"
like "$ERR" "arm64 guest: cannot read '$TMP/nothere'" "and names it"
run_cmd wb vm --kernel "$image" --guest-wakebench "$WAKEBENCH" -- run pipe
is "$RC" 1 "an x86-64 wakebench for an arm64 guest exits 1"
like "$ERR" "is an x86-64 binary, the guest is arm64" "and says why"

# The boot: the arch from the image, the arm64 wakebench found beside this one.
start=$(date +%s)
run_cmd wb vm --kernel "$image" --cpus 1 --timeout 20m -- run pipe -t 500ms -n 2 -j 1 --warmup 0
diag "arm64 boot and run took $(($(date +%s) - start)) s"
is "$RC" 0 "vm run pipe in an arm64 guest exits 0"
[ "$RC" = 0 ] || printf '%s\n' "$ERR" | tail -n 30 | sed 's/^/# /'
like "$OUT" "environment: kernel $release_re" "the guest's run output is printed"
like "$ERR" "round 1/1: kernel $release_re, subcommand exit 0, 1 experiment imported" "one experiment imported"

json=$(wb export --format json)
is "$(printf '%s' "$json" | jq -r '.experiments | length')" 1 "the host store holds one experiment"
is "$(printf '%s' "$json" | jq -r '.experiments[0].kernel')" "$release" "its kernel is the guest's"
ok "[ $(printf '%s' "$json" | jq '[.experiments[0].samples[] | select(.status == "ok" and .ops > 0)] | length') -ge 1 ]" \
	"its samples have ops > 0"
env_key() { printf '%s' "$json" | jq -r ".experiments[0].env.start[] | select(.key == \"$1\") | .value"; }
is "$(env_key kernel.arch)" aarch64 "kernel.arch aarch64"
like "$(env_key mem.page_size)" "^16 KiB" "mem.page_size 16 KiB"
is "$(env_key cpu.model)" "ARM Cortex-A76" "the CPU qemu presents"
is "$(env_key vm.accel)" tcg "vm.accel tcg"
is "$(env_key vm.guest_cpus)" 1 "vm.guest_cpus stored"
is "$(env_key vm.kernel_sha256)" "$(sha256sum "$image" | cut -d' ' -f1)" "the image's sha256 stored"
like "$(env_key vm.qemu_version)" "^QEMU emulator version" "the qemu version stored"
is "$(ls "$TMPDIR")" "" "temporary files removed"

done_testing
