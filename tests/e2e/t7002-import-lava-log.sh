#!/bin/sh
# export --format lava frames the JSON export as vm's channel in numbered
# base64 console lines; import JOB.log finds the frames in plain console
# text and in LAVA's YAML job log, merges the experiments by UUID with
# lava.job_id, lava.device and lava.lab, and imports nothing from a frame
# that is cut, bit-flipped, corrupted, missing or repeating a line, saying
# what was wrong (exit 1); of a log holding a broken and a whole frame, only
# the whole one is merged.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
A="$TMP/a.db"
"$SYNTH" --synth "$A" 2 3 6.6.78 base hostA 2487746 &&
	"$SYNTH" --synth "$A" 1 3 6.12.75 base hostA 1651427 kernel.preempt=full
is "$?" 0 "synthesised a store with three experiments"

LAVA_JOB_ID=4711 WAKEBENCH_LAVA_DEVICE=rpi5-03 WAKEBENCH_LAVA_LAB=lab_home \
	run_cmd wb export --db "$A" --format lava
is "$RC" 0 "export --format lava exits 0"
printf '%s\n' "$OUT" >"$TMP/frames.txt"
like "$(sed -n 2p "$TMP/frames.txt")" "^WBR1 BEGIN [0-9]+ [0-9]+$" "a BEGIN line with the line and byte counts"
like "$(sed -n 3p "$TMP/frames.txt")" "^WBR1 0 [A-Za-z0-9+/]{64}$" "numbered base64 lines of 48 bytes"
is "$(awk '{ if (length($0) > m) m = length($0) } END { print (m <= 80) }' "$TMP/frames.txt")" 1 \
	"no line is longer than 80 characters"
nlines=$(sed -n 's/^WBR1 BEGIN \([0-9]*\) .*/\1/p' "$TMP/frames.txt")
is "$(tail -1 "$TMP/frames.txt")" "WBR1 END $nlines" "an END line repeating the count"

# what import adds: the three lava keys; everything else as exported
norm() { wb export --db "$1" | jq -S 'del(.experiments[].id) | del(.experiments[].env.start[] | select(.key | startswith("lava.")))'; }
lava_keys() { wb export --db "$1" | jq -r '[.experiments[] | [.env.start[] | select(.key | startswith("lava.")) | "\(.key)=\(.value):\(.impact)"] | join(" ")] | unique | join("|")'; }
count() { if [ -f "$1" ]; then wb export --db "$1" | jq '.experiments | length'; else echo 0; fi; }

run_cmd wb import --db "$TMP/plain.db" "$TMP/frames.txt"
is "$RC" 0 "import of a plain console log exits 0"
like "$OUT" "frames.txt: 3 experiments added, 0 skipped" "  three experiments added"
is "$(lava_keys "$TMP/plain.db")" "lava.device=rpi5-03:identity lava.job_id=4711:identity lava.lab=lab_home:identity" \
	"  lava.job_id, lava.device and lava.lab on every experiment"
norm "$A" >"$TMP/a.json"
norm "$TMP/plain.db" >"$TMP/plain.json"
ok "cmp '$TMP/a.json' '$TMP/plain.json'" "  every experiment, config, sample and key came home unchanged"
run_cmd wb import --db "$TMP/plain.db" "$TMP/frames.txt"
like "$RC:$OUT" "^0:.*0 experiments added, 3 skipped" "  importing again skips them (by UUID)"
run_cmd wb compare --db "$TMP/plain.db" --by kernel
is "$RC" 0 "  compare --by kernel over the imported results"

# LAVA's job log: one YAML flow mapping per line, the console line in "msg",
# amid the dispatcher's own lines and the kernel's console output
python3 - "$TMP/frames.txt" "$TMP/job.yaml" <<'PY'
import sys, yaml
def dump(d):
    return "- " + yaml.dump(d, default_flow_style=True, default_style='"', width=10**6)[:-1]
out = open(sys.argv[2], "w")
print(dump({"dt": "2026-12-01T21:00:00.000000", "lvl": "info", "msg": "start: 0 validate"}), file=out)
print(dump({"dt": "2026-12-01T21:00:01.000000", "lvl": "target", "msg": "[    0.000000] Linux version 6.12.75 (debian-kernel@lists.debian.org)"}), file=out)
print(dump({"dt": "2026-12-01T21:00:02.000000", "lvl": "debug", "msg": {"case": "pipe_ops_per_s", "definition": "0_wakebench", "result": "pass"}}), file=out)
for line in open(sys.argv[1]):
    print(dump({"dt": "2026-12-01T21:00:03.000000", "lvl": "target", "msg": line.rstrip("\n")}), file=out)
print(dump({"dt": "2026-12-01T21:00:04.000000", "lvl": "info", "msg": "Job finished correctly"}), file=out)
PY
run_cmd wb import --db "$TMP/yaml.db" "$TMP/job.yaml"
like "$RC:$OUT" "^0:.*3 experiments added, 0 skipped" "import of a LAVA YAML job log"
norm "$TMP/yaml.db" >"$TMP/yaml.json"
ok "cmp '$TMP/a.json' '$TMP/yaml.json'" "  the same experiments as the plain log"

# broken logs: exit 1, one line naming the frame and the fault, nothing imported
broken() { # name file want-regex
	run_cmd wb import --db "$TMP/$1.db" "$2"
	is "$RC" 1 "$1: exit 1"
	like "$ERR" "$3" "$1: says what was wrong"
	is "$(count "$TMP/$1.db")" 0 "$1: nothing imported"
}
half=$((nlines / 2))
head -n "$half" "$TMP/frames.txt" >"$TMP/cut.txt"
broken cut "$TMP/cut.txt" "'.*cut.txt': results frame 1 \(log line 2\): the log ends after $((half - 2)) of its $nlines lines \(cut\); nothing imported from it"
# a bit flipped inside a base64 character's value: still clean base64, so
# only the channel's CRC can tell
sed '/^WBR1 99 /s/^WBR1 99 \(.\)\(.\)/WBR1 99 \2\1/' "$TMP/frames.txt" >"$TMP/flip.txt"
ok "! cmp -s '$TMP/frames.txt' '$TMP/flip.txt'" "flip: the log was changed"
broken flip "$TMP/flip.txt" "results frame 1 .*CRC mismatch"
sed '/^WBR1 120 /s/^WBR1 120 ./WBR1 120 */' "$TMP/frames.txt" >"$TMP/garbled.txt"
broken garbled "$TMP/garbled.txt" "results frame 1 .*: line 120 \(log line 123\) is corrupted"
sed '/^WBR1 7 /d' "$TMP/frames.txt" >"$TMP/miss.txt"
broken missing "$TMP/miss.txt" "line 7 is missing"
sed '/^WBR1 [0-9]/p' "$TMP/frames.txt" >"$TMP/twice.txt"
broken repeated "$TMP/twice.txt" "line 0 came twice"
sed '/^WBR1 END/d' "$TMP/frames.txt" >"$TMP/noend.txt"
broken no-end "$TMP/noend.txt" "the log ends before its END line \(cut\)"
sed '/^WBR1 BEGIN/d' "$TMP/frames.txt" >"$TMP/nobegin.txt"
broken no-begin "$TMP/nobegin.txt" "a results line outside any frame \(its BEGIN is missing\)"
printf '[    0.000000] Linux version 6.1\nlogin:\n' >"$TMP/empty.log"
run_cmd wb import --db "$TMP/empty.db" "$TMP/empty.log"
is "$RC" 1 "a console log without results: exit 1"

# a doubled log: both frames whole, the second adds nothing
cat "$TMP/frames.txt" "$TMP/frames.txt" >"$TMP/double.txt"
run_cmd wb import --db "$TMP/double.db" "$TMP/double.txt"
like "$RC:$OUT" "^0:.*3 experiments added, 3 skipped" "a doubled log: each experiment once"
# a cut frame followed by a whole one (a job that retried): only the whole one
{ head -n "$half" "$TMP/frames.txt"; cat "$TMP/frames.txt"; } >"$TMP/retry.txt"
run_cmd wb import --db "$TMP/retry.db" "$TMP/retry.txt"
is "$RC" 1 "a cut frame and a whole one: exit 1"
like "$ERR" "results frame 1 \(log line 2\): a second BEGIN at log line $((half + 2)) before its END" "  names the broken frame"
like "$OUT" "3 experiments added" "  the whole frame is merged"
is "$(count "$TMP/retry.db")" 3 "  and only it"

# a real lava-run log (tests/fixtures/lava/README.md): two frames, a run and an ab
gzip -dc "$FIXTURES/lava/lava-run-job.log.gz" >"$TMP/real.log"
run_cmd wb import --db "$TMP/real.db" "$TMP/real.log"
like "$RC:$OUT" "^0:.*2 experiments added" "a real lava-run job log: both experiments"
is "$(lava_keys "$TMP/real.db")" "lava.device=qemu-tcg:identity lava.job_id=130134:identity lava.lab=wakebench_ci:identity" \
	"  with the job's identity"
is "$(wb export --db "$TMP/real.db" | jq -r '[.experiments[] | "\(.kind):\(.label)"] | join(" ")')" \
	"run:lava-ci-run ab:lava-ci-ab" "  the run and the ab"
# cut inside the second frame: the first is whole and merged, the second is named
second=$(grep -n 'WBR1 BEGIN' "$TMP/real.log" | sed -n 2p | cut -d: -f1)
head -n $((second + 40)) "$TMP/real.log" >"$TMP/real-cut.log"
run_cmd wb import --db "$TMP/real-cut.db" "$TMP/real-cut.log"
is "$RC" 1 "a real log cut in its second frame: exit 1"
like "$ERR" "results frame 2 \(log line $second\): the log ends after 40 of its [0-9]+ lines \(cut\)" "  names the cut frame"
is "$(wb export --db "$TMP/real-cut.db" | jq -r '[.experiments[].kind] | join(" ")')" "run" "  only the whole frame is merged"
done_testing
