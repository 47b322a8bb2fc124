#!/bin/sh
# vm: boot Debian's bookworm 6.1 kernel under TCG with 2 CPUs, run a short
# `run pipe` inside, and find the guest's experiment in the host store: its
# kernel release is the guest's, its samples have ops > 0, and it carries
# the virtualisation keys. Then a kernel that panics (no init) fails its
# round with the panic as the reason and imports nothing; and Ctrl-C during
# a second round keeps the first round's import.
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

run_cmd wb vm --kernel "$image" --accel tcg --cpus 2 --timeout 15m -- \
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
run_cmd wb vm --kernel "$image" --accel tcg --cpus 1 --timeout 15m --append "rdinit=/nonexistent" -- \
	run pipe -t 100ms -n 1
is "$RC" 1 "a kernel that panics exits 1"
like "$ERR" "Kernel panic - not syncing" "the panic is the reason"
like "$ERR" "  \\| " "the console tail is printed"
is "$(wb export --format json | jq '.experiments | length')" 1 "nothing more imported"

# Ctrl-C in round 2 (a kernel that hangs) keeps round 1's import.
head -c 6656 /dev/zero >"$TMP/hang.img"
put() { printf "$2" | dd of="$1" bs=1 seek=$(($3)) conv=notrunc 2>/dev/null; }
put "$TMP/hang.img" '\004' 0x1f1
put "$TMP/hang.img" '\125\252' 0x1fe
put "$TMP/hang.img" '\353\376' 0x200
put "$TMP/hang.img" 'HdrS' 0x202
put "$TMP/hang.img" '\017\002' 0x206
put "$TMP/hang.img" '\001' 0x211
put "$TMP/hang.img" '\377\377\377\177' 0x22c
put "$TMP/hang.img" '\000\010' 0x238
"$WAKEBENCH" vm --kernel "$image" --kernel "$TMP/hang.img" --accel tcg --cpus 1 --timeout 15m -- \
	run pipe -t 100ms -n 1 -j 1 --warmup 0 >"$TMP/int.out" 2>"$TMP/int.err" &
pid=$!
while kill -0 $pid 2>/dev/null && ! grep -q "round 2/2: booting" "$TMP/int.err" 2>/dev/null; do
	sleep 0.5
done
sleep 1
kill -INT $pid
wait $pid
is "$?" 1 "Ctrl-C in round 2 exits 1"
like "$(cat "$TMP/int.err")" "interrupted by Interrupt: 1 of 2 rounds completed and kept \\(1 experiments imported\\)" \
	"Ctrl-C reports the kept round"
is "$(wb export --format json | jq '.experiments | length')" 2 "round 1's experiment stays in the store"
is "$(ls "$TMPDIR")" "" "temporary files removed after Ctrl-C"

done_testing
