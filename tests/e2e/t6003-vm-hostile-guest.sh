#!/bin/sh
# vm: a guest is untrusted input. A stand-in qemu "boots" by sending home a
# crafted store (as a guest that runs what it likes would): a store with a
# trigger is refused and nothing is imported; vm.* keys the guest stored
# are dropped and the host's own are stored in the host store; a sample of
# another experiment's config is refused; the guest's kernel release and
# output are printed with their control characters as escapes.
. "$(dirname "$0")/lib.sh"

[ "$(uname -m)" = x86_64 ] || skip_all "the fake kernel image here is an x86 bzImage"
SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
SEND="$(dirname "$WAKEBENCH")/tests/t-vmchan"
[ -x "$SYNTH" ] && [ -x "$SEND" ] || skip_all "test helpers not built"
command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 is not installed"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
ESC=$(printf '\033')

# a file with the x86 boot-protocol header (never booted here)
head -c 6656 /dev/zero >"$TMP/k.img"
put() { printf "$2" | dd of="$1" bs=1 seek=$(($3)) conv=notrunc 2>/dev/null; }
put "$TMP/k.img" '\125\252' 0x1fe
put "$TMP/k.img" 'HdrS' 0x202
put "$TMP/k.img" '\004' 0x1f1
put "$TMP/k.img" '\017\002' 0x206
put "$TMP/k.img" '\001' 0x211
put "$TMP/k.img" '\377\377\377\177' 0x22c
put "$TMP/k.img" '\000\010' 0x238
sha=$(sha256sum "$TMP/k.img" | cut -d' ' -f1)

# the stand-in qemu: writes a console line and the guest's channel
cat >"$TMP/qemu" <<QEMU
#!/bin/sh
[ "\$1" = -version ] && { echo "QEMU emulator version 7.2.0 (stand-in)"; exit 0; }
for a; do
	case "\$a" in
	file,id=wbchan,path=*) chan=\${a#file,id=wbchan,path=} ;;
	file,id=wbconsole,path=*) con=\${a#file,id=wbconsole,path=} ;;
	esac
done
echo "stand-in boot" >"\$con"
exec "$SEND" --send "\$chan" "\$GUEST_RELEASE" "\$GUEST_DB" "\$GUEST_OUT"
QEMU
chmod +x "$TMP/qemu"
export TMPDIR="$TMP/tmp" XDG_CACHE_HOME="$TMP/cache" GUEST_RELEASE=6.1.0-guest GUEST_OUT="guest says hi"
mkdir -p "$TMPDIR"
command -v busybox >/dev/null 2>&1 || [ -x /bin/busybox ] || skip_all "busybox is not installed (vm builds its initramfs with it)"
guest() { # DB: one round with the stand-in qemu, the guest sending DB
	GUEST_DB=$1 run_cmd wb vm --kernel "$TMP/k.img" --accel tcg --qemu "$TMP/qemu" --timeout 60s \
		-- run pipe -t 100ms -n 2
}
key() { # EXP KEY: a start environment key of an experiment in the host store
	wb export --format json | jq -r ".experiments[$1].env.start[] | select(.key == \"$2\") | .value"
}

"$SYNTH" --synth "$TMP/g.db" 1 2 6.1.0-guest x guesthost 1000 >/dev/null 2>&1

# a trigger that would rewrite the host's keys as they are added
cp "$TMP/g.db" "$TMP/trigger.db"
sqlite3 "$TMP/trigger.db" "CREATE TRIGGER t AFTER INSERT ON env BEGIN
	UPDATE env SET value = 'kvm' WHERE key = 'vm.accel';
	UPDATE env SET value = 'forged' WHERE key = 'vm.kernel_sha256';
	DELETE FROM env WHERE key = 'vm.warning'; END;"
guest "$TMP/trigger.db"
is "$RC" 1 "a guest store with a trigger fails its round"
like "$ERR" "not the one wakebench writes .*trigger t" "the trigger is the reason"
like "$ERR" "round 1/1 .*: nothing imported" "nothing is imported"
ok "[ ! -e '$WAKEBENCH_DB' ]" "the host store was not made (nothing stored in it: doc/store.md)"
is "$(ls "$TMPDIR")" "" "temporary files removed"

# vm.* keys stored by the guest are not the host's word
cp "$TMP/g.db" "$TMP/keys.db"
sqlite3 "$TMP/keys.db" "INSERT INTO env (experiment_id, phase, key, value, impact) VALUES
	(1, 'start', 'vm.accel', 'kvm', 0), (1, 'start', 'vm.kernel_sha256', 'forged', 3),
	(1, 'start', 'vm.extra', 'planted', 0), (1, 'end', 'vm.accel', 'kvm', 0);"
guest "$TMP/keys.db"
is "$RC" 0 "a guest store with vm keys of its own imports"
is "$(key 0 vm.accel)" tcg "vm.accel is the host's"
is "$(key 0 vm.kernel_sha256)" "$sha" "the kernel's SHA-256 is the host's"
like "$(key 0 vm.warning)" "emulated" "the TCG warning is stored"
is "$(key 0 vm.extra)" "" "a vm key the host does not attest is dropped"
is "$(wb export --format json | jq -r '.experiments[0].env.end[] | select(.key == "vm.accel") | .value')" "" \
	"and so are the guest's vm keys at the end"
is "$(key 0 kernel.release)" 6.1.0-guest "the guest's own fingerprint is kept"

# a sample of another experiment's config (the host's experiment 1)
"$SYNTH" --synth "$TMP/cfg.db" 2 2 6.1.0-guest x guesthost 1000 >/dev/null 2>&1
sqlite3 "$TMP/cfg.db" "UPDATE samples SET config_id = 1 WHERE experiment_id = 2"
guest "$TMP/cfg.db"
is "$RC" 1 "a guest sample of another experiment's config fails its round"
like "$ERR" "refers to config 1, which is not one of its experiment's" "and says so"
is "$(wb export --format json | jq '.experiments | length')" 1 "nothing more imported"

# the guest's words are printed harmlessly
GUEST_RELEASE="6.1.0${ESC}]0;pwned$(printf '\007')" GUEST_OUT="out ${ESC}[2J done" guest "$TMP/g.db"
is "$RC" 0 "a guest with escapes in its release and output imports"
ok "! grep -q '$ESC' '$TMP/.err' && ! grep -q '$ESC' '$TMP/.out'" "no escape character is printed"
like "$ERR" 'kernel 6\.1\.0\\x1b\]0;pwned\\x07' "the release shows its escapes"
like "$OUT" 'out \\x1b\[2J done' "the output shows its escapes"
done_testing
