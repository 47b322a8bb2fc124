#!/bin/sh
# A real LAVA job: lava-run (Debian's lava-dispatcher, offline, no server)
# boots Debian's bookworm 6.1 kernel under TCG with wakebench's initramfs
# (vm --emit-initramfs, contrib/lava/qemu) and runs the in-tree test
# definition twice (a run and an ab); the test cases, their results and
# measurements are asserted from the job log (lava-run exits 0 even when
# no test case ran at all), then the job log is imported into a store and
# the experiments are found there with the job's identity.
#
# Skipped unless root with lava-dispatcher installed (scripts/deps.sh lava)
# and Debian's kernel downloadable (scripts/fetch-kernel.sh).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "lava-run runs as root only"
[ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] || skip_all "this job boots Debian's amd64 kernel"
for p in lava-run qemu-system-x86_64 cpio git python3; do
	command -v "$p" >/dev/null 2>&1 || skip_all "$p is not installed (scripts/deps.sh lava)"
done
python3 -c 'import yaml' 2>/dev/null || skip_all "python3-yaml is not installed"
image=$(sh "$WAKEBENCH_SRC/scripts/fetch-kernel.sh" 6.1 2>"$TMP/fetch.err") ||
	skip_all "cannot download Debian's 6.1 kernel: $(tail -n 1 "$TMP/fetch.err")"
release=$(basename "$image" | sed 's/^vmlinuz-//')
export TMPDIR="$TMP/tmp"
mkdir -p "$TMPDIR"

run_cmd sh "$WAKEBENCH_SRC/contrib/lava/qemu/mkinitramfs.sh" "$WAKEBENCH" "$TMP/ramdisk.cpio"
is "$RC" 0 "the job's initramfs from vm's builder"
[ "$RC" = 0 ] || diag "$ERR"
ok "cpio -it <'$TMP/ramdisk.cpio' 2>/dev/null | grep -qx bin/wakebench" "  it holds wakebench"

# the test definition comes from a git repository, as in a lab
mkdir "$TMP/repo"
cp -R "$WAKEBENCH_SRC/contrib/lava/automated" "$TMP/repo/"
(cd "$TMP/repo" && git init -q && git add -A &&
	git -c user.email=ci@wakebench -c user.name=ci commit -qm "wakebench test definition") ||
	{ echo "Bail out! cannot make the test definition's repository"; exit 1; }

job_id=$(( $$ % 100000 + 100000 ))
sed -e "s|@KERNEL@|$image|" -e "s|@RAMDISK@|$TMP/ramdisk.cpio|" -e "s|@REPO@|$TMP/repo|" \
	-e "s|@RUN_ARGS@|run pipe -t 300ms -n 5 -j 1 --warmup 0|" \
	-e "s|@AB_ARGS@|ab --feature NO_TTWU_QUEUE pipe -t 200ms -n 6 -j 1 --warmup 0|" \
	"$FIXTURES/lava/job.yaml.in" >"$TMP/job.yaml"
mkdir "$TMP/out"
start=$(date +%s)
lava-run --job-id "$job_id" --output-dir "$TMP/out" --device "$FIXTURES/lava/qemu-device.yaml" \
	"$TMP/job.yaml" >"$TMP/job.log" 2>&1 # its log is on stderr here (lava-dispatcher 2023.01)
rc=$?
diag "lava-run: exit $rc after $(( $(date +%s) - start ))s"
is "$rc" 0 "lava-run exits 0 (which alone proves nothing)"

# every test case of the job, from its log of YAML flow mappings (with ! tags)
python3 - "$TMP/job.log" >"$TMP/cases.txt" <<'PY'
import sys, yaml
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("- "):
        line = line[2:]
    if not line.startswith("{"):
        continue
    try:
        rec = yaml.safe_load(line)
    except yaml.YAMLError:
        continue
    if not isinstance(rec, dict) or rec.get("lvl") != "results" or not isinstance(rec.get("msg"), dict):
        continue
    m = rec["msg"]
    print(m.get("definition"), m.get("case"), m.get("result"), m.get("measurement", "-"), m.get("units", "-"))
PY
is "$?" 0 "the job log parses as YAML"
diag "$(grep -v '^lava ' "$TMP/cases.txt")"
case_of() { awk -v d="$1" -v c="$2" '$1 == d && $2 == c { print $3, $4, $5 }' "$TMP/cases.txt"; }
is "$(case_of lava job)" "pass - -" "the job passed"
is "$(case_of lava 0_wakebench)" "pass - -" "the run definition ran"
is "$(case_of lava 1_wakebench-ab)" "pass - -" "the ab definition ran"
is "$(case_of 0_wakebench wakebench-run)" "pass - -" "run: wakebench-run passed"
like "$(case_of 0_wakebench pipe.run.default)" "^pass [0-9.]+ ops/s$" "run: the median with its unit"
is "$(case_of 0_wakebench wakebench-results)" "pass - -" "run: the results were framed"
is "$(case_of 1_wakebench-ab wakebench-ab)" "pass - -" "ab: wakebench-ab passed (features toggled in the guest)"
like "$(case_of 1_wakebench-ab pipe.ab.TTWU_QUEUE_on)" "^pass [0-9.]+ ops/s$" "ab: arm A's median"
like "$(case_of 1_wakebench-ab pipe.ab.TTWU_QUEUE_off)" "^pass [0-9.]+ ops/s$" "ab: arm B's median"
like "$(case_of 1_wakebench-ab pipe.ab.verdict.NO_TTWU_QUEUE)" "^(pass|fail|skip) - -$" "ab: the verdict"
[ "$rc" = 0 ] && [ -s "$TMP/cases.txt" ] || tail -n 30 "$TMP/job.log" | sed 's/^/# /' >&2

# the results come home
run_cmd wb import --db "$TMP/home.db" "$TMP/job.log"
like "$RC:$OUT" "^0:.*2 experiments added" "import of the job log: both experiments"
[ "$RC" = 0 ] || diag "$ERR"
json=$(wb export --db "$TMP/home.db")
is "$(printf '%s' "$json" | jq -r '[.experiments[] | "\(.kind):\(.label):\(.kernel)"] | join(" ")')" \
	"run:lava-ci-run:$release ab:lava-ci-ab:$release" "  the guest's experiments, labels and kernel"
is "$(printf '%s' "$json" | jq -r '[.experiments[] | [.env.start[] | select(.key | startswith("lava.")) | "\(.key)=\(.value)"] | join(",")] | unique | join(" ")')" \
	"lava.device=qemu-tcg,lava.job_id=$job_id,lava.lab=wakebench_ci" "  with the job's id, device and lab"
is "$(wb export --db "$TMP/home.db" --format lava-cases | awk '$1 == "pipe.run.default" { print $3 }')" \
	"$(case_of 0_wakebench pipe.run.default | cut -d' ' -f2)" "  the LAVA measurement is the imported experiment's median"
verdict=$(wb export --db "$TMP/home.db" --format kcidb --origin ci | jq -r '.tests[] | select(.path | test("verdict")) | .status')
is "$(case_of 1_wakebench-ab pipe.ab.verdict.NO_TTWU_QUEUE | cut -d' ' -f1)" \
	"$(printf '%s' "$verdict" | tr 'A-Z' 'a-z')" "  the LAVA verdict case is the imported experiment's verdict ($verdict)"
run_cmd wb compare --db "$TMP/home.db" --by label
is "$RC" 0 "  compare over the imported results"
done_testing
