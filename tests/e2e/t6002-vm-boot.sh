#!/bin/sh
# vm: boot Debian's bookworm 6.1 kernel under TCG with 2 CPUs, run a short
# `run pipe` inside, and find the guest's experiment in the host store: its
# kernel release is the guest's, its samples have ops > 0, and it carries
# the virtualisation keys. Then a kernel that panics (no init) fails its
# round with the panic as the reason and imports nothing.
#
# The kernel package is downloaded once with apt-get download into a cache
# outside the source tree (scripts/fetch-kernel.sh); the test is skipped
# only when it cannot be downloaded.
. "$(dirname "$0")/lib.sh"

[ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] ||
	skip_all "this test boots Debian's amd64 kernel"
command -v qemu-system-x86_64 >/dev/null 2>&1 || skip_all "qemu-system-x86 is not installed"
image=$(sh "$WAKEBENCH_SRC/scripts/fetch-kernel.sh" 6.1 2>"$TMP/fetch.err") ||
	skip_all "cannot download Debian's 6.1 kernel: $(tail -n 1 "$TMP/fetch.err")"
release=$(basename "$image" | sed 's/^vmlinuz-//')
diag "kernel image $image ($release)"
export TMPDIR="$TMP/tmp"
mkdir -p "$TMPDIR"

run_cmd wb vm --kernel "$image" --accel tcg --cpus 2 --timeout 4m -- \
	run pipe -t 1s -n 2 -j 1 --warmup 0
is "$RC" 0 "vm run pipe exits 0"
[ "$RC" = 0 ] || printf '%s\n' "$ERR" | tail -n 30 | sed 's/^/# /'
like "$OUT" "environment: kernel $release" "the guest's run output is printed"
like "$ERR" "absolute numbers are emulated" "the TCG warning is printed"
like "$ERR" "round 1/1: kernel $release, subcommand exit 0, 1 experiment imported" "one experiment imported"
like "$ERR" "boot overhead" "the boot overhead is reported"

json=$(wb export --format json)
is "$(printf '%s' "$json" | jq -r '.experiments | length')" 1 "the host store holds one experiment"
is "$(printf '%s' "$json" | jq -r '.experiments[0].kernel')" "$release" "its kernel is the guest's"
like "$(printf '%s' "$json" | jq -r '.experiments[0].kernel')" '^6\.1\.' "a 6.1 kernel"
ok "[ $(printf '%s' "$json" | jq '[.experiments[0].samples[] | select(.status == "ok" and .ops > 0)] | length') -ge 1 ]" \
	"its samples have ops > 0"
env_key() { printf '%s' "$json" | jq -r ".experiments[0].env.start[] | select(.key == \"$1\") | .value"; }
is "$(env_key vm.accel)" tcg "vm.accel stored"
like "$(env_key vm.warning)" "emulated" "the TCG warning is stored"
is "$(env_key vm.guest_cpus)" 2 "vm.guest_cpus stored"
is "$(env_key vm.kernel_sha256)" "$(sha256sum "$image" | cut -d' ' -f1)" "the image's sha256 stored"
like "$(env_key vm.qemu_version)" "^QEMU emulator version" "the qemu version stored"
is "$(env_key kernel.release)" "$release" "the guest's own fingerprint kept"
is "$(ls "$TMPDIR")" "" "temporary files removed"

# The initramfs cache: each archive is named by its own SHA-256.
cache="${XDG_CACHE_HOME:-$HOME/.cache}/wakebench/initramfs"
bad=""
n=0
for f in "$cache"/*.cpio; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	[ "$(sha256sum "$f" | cut -d' ' -f1).cpio" = "$(basename "$f")" ] || bad="$bad $f"
done
ok "[ $n -ge 1 ]" "the initramfs is cached"
is "$bad" "" "cached archives are named by their content"

# No init: the kernel panics; the round fails with the panic as the reason.
run_cmd wb vm --kernel "$image" --accel tcg --cpus 1 --timeout 3m --append "rdinit=/nonexistent" -- \
	run pipe -t 100ms -n 1
is "$RC" 1 "a kernel that panics exits 1"
like "$ERR" "Kernel panic - not syncing" "the panic is the reason"
like "$ERR" "  \\| " "the console tail is printed"
is "$(wb export --format json | jq '.experiments | length')" 1 "nothing more imported"

done_testing
