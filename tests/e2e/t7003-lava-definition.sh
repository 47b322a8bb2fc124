#!/bin/sh
# contrib/lava: the test definition parses and drives its run script; the
# script, run against a real short run and ab on the FUSE stand-in, reports
# each config's median with --measurement and --units and each verdict as
# pass/fail through a recording lava-test-case, writes the same cases to
# output/result.txt without it, stores or not as told, and prints the full
# results framed on the console, which import merges with the LAVA keys.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

DEF="$WAKEBENCH_SRC/contrib/lava/automated/linux/wakebench"
SCRIPT="$DEF/wakebench.sh"

# the definition: Linaro's layout, its parameters, its step
if python3 -c 'import yaml' 2>/dev/null; then
	is "$(python3 -c 'import yaml,sys; d=yaml.safe_load(open(sys.argv[1])); print(d["metadata"]["format"], d["metadata"]["name"], " ".join(sorted(d["params"])))' "$DEF/wakebench.yaml")" \
		"Lava-Test Test Definition 1.0 wakebench DEVICE LAB LABEL STORE WAKEBENCH WAKEBENCH_ARGS" \
		"the definition's format, name and parameters"
	is "$(python3 -c 'import yaml,sys; d=yaml.safe_load(open(sys.argv[1])); print(d["run"]["steps"][0]); print(d["run"]["steps"][1].split()[0])' "$DEF/wakebench.yaml" | tr '\n' ' ')" \
		"cd ./automated/linux/wakebench/ ./wakebench.sh " "its steps run the script from its directory"
else
	skip "python3-yaml is not installed"
	skip "python3-yaml is not installed"
fi

# the console's log level, lowered while the frame is printed: a stand-in
# for /proc/sys/kernel/printk (the host's is never written here)
export WAKEBENCH_PRINTK="$TMP/printk"
printk0=$(printf '4\t4\t1\t7')
printf '%s\n' "$printk0" >"$WAKEBENCH_PRINTK"

fakefs_start dbg
# a lava-test-case that records its arguments, one call per line
mkdir -p "$TMP/bin"
cat >"$TMP/bin/lava-test-case" <<'SH'
#!/bin/sh
printf '%s\n' "$*" >>"$CASES_LOG"
echo "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=$1 RESULT=$3>"
SH
chmod +x "$TMP/bin/lava-test-case"
export CASES_LOG="$TMP/cases.log"
count() { wb export --db "$1" | jq '.experiments | length'; }

# run, with lava-test-case, not stored in the device's store
mkdir "$TMP/w1" && cd "$TMP/w1" || exit 1
LAVA_JOB_ID=101 PATH="$TMP/bin:$PATH" run_cmd sh "$SCRIPT" -a "run pipe -t 50ms -n 5 -j 1 --warmup 0" \
	-l nightly -s false -d qemu-01 -L lab_ci -w "$WAKEBENCH"
is "$RC" 0 "run: the script exits 0"
is "$(cat "$WAKEBENCH_PRINTK")" "$printk0" "run: the console's log levels are as they were"
printf '%s\n' "$OUT" >"$TMP/console1.log"
is "$(cut -d' ' -f1-3 "$CASES_LOG" | tr '\n' ';')" \
	"wakebench-run --result pass;pipe.run.default --result pass;wakebench-results --result pass;" \
	"run: lava-test-case for the command, the config and the results"
like "$(sed -n 2p "$CASES_LOG")" "^pipe\.run\.default --result pass --measurement [0-9.]+(e\+[0-9]+)? --units ops/s$" \
	"run: the median with --measurement and --units"
is "$(cat output/result.txt | cut -d' ' -f1,2,4 | tr '\n' ';')" \
	"wakebench-run pass;pipe.run.default pass ops/s;wakebench-results pass;" "run: the same cases in output/result.txt"
like "$OUT" "wakebench-run.*RESULT=pass" "run: LAVA's signals reach the console"
ok "[ ! -e '$WAKEBENCH_DB' ] && [ -s output/wakebench.db ]" "run: STORE=false leaves the device's store alone"
# the console carries the results home
LAVA_JOB_ID= run_cmd wb import --db "$TMP/home.db" "$TMP/console1.log"
like "$RC:$OUT" "^0:.*1 experiment added" "run: import of the console log"
is "$(wb export --db "$TMP/home.db" | jq -r '.experiments[0] | "\(.label) " + ([.env.start[] | select(.key | startswith("lava.")) | "\(.key)=\(.value)"] | join(" "))')" \
	"nightly lava.device=qemu-01 lava.job_id=101 lava.lab=lab_ci" "run: the label and the job's identity came home"
med=$(sed -n 's/^pipe\.run\.default --result pass --measurement \([^ ]*\) .*/\1/p' "$CASES_LOG")
is "$(wb export --db "$TMP/home.db" --format lava-cases | sed -n 's/^pipe\.run\.default pass \([^ ]*\) .*/\1/p')" "$med" \
	"run: the reported median is the imported experiment's"

# ab, without lava-test-case: result.txt only; stored in the device's store
mkdir "$TMP/w2" && cd "$TMP/w2" || exit 1
: >"$CASES_LOG"
run_cmd sh "$SCRIPT" -a "ab --feature NO_DELAY_DEQUEUE pipe -t 50ms -n 6 -j 1 --warmup 0 --debugfs $TMP/dbg" \
	-s true -w "$WAKEBENCH"
is "$RC" 0 "ab: the script exits 0"
ok "[ ! -s '$CASES_LOG' ]" "ab: no lava-test-case on PATH, none called"
is "$(cut -d' ' -f1 output/result.txt | tr '\n' ' ')" \
	"wakebench-ab pipe.ab.DELAY_DEQUEUE_on pipe.ab.DELAY_DEQUEUE_off pipe.ab.verdict.NO_DELAY_DEQUEUE wakebench-results " \
	"ab: result.txt names the command, both arms and the verdict"
like "$(grep '^pipe.ab.DELAY_DEQUEUE_off ' output/result.txt)" "^pipe\.ab\.DELAY_DEQUEUE_off pass [0-9.e+]+ ops/s$" \
	"ab: an arm's line: NAME pass VALUE UNITS"
verdict=$(wb export --format kcidb --origin t | jq -r '.tests[] | select(.path | test("verdict")) | .misc.verdict')
like "$verdict" "^(regression|improvement|no-change|inconclusive|insufficient)$" "ab: the stored experiment has a verdict"
want=pass; [ "$verdict" = regression ] && want=fail; [ "$verdict" = insufficient ] && want=skip
is "$(sed -n 's/^pipe\.ab\.verdict\.NO_DELAY_DEQUEUE //p' output/result.txt)" "$want" \
	"ab: the verdict ($verdict) is $want"
is "$(count "$WAKEBENCH_DB")" 1 "ab: STORE=true keeps it in the device's store"
is "$(fakefs_features dbg)" "$(cat "$FIXTURES/sched-features/v6.18.txt")" "ab: features restored"

# a verdict that is a regression fails, an arm without samples fails
printf 'pipe.ab.verdict.X fail\n' >"$TMP/regress.txt"
cat >"$TMP/bin/wbfake" <<SH
#!/bin/sh
case "\$1" in
export) case "\$*" in
	*lava-cases*) cat "$TMP/regress.txt" ;;
	*) cat "\$WAKEBENCH_PRINTK" >>"$TMP/during"; [ -n "\${KILL_PARENT:-}" ] && kill -TERM \$PPID
	   echo 'WBR1 BEGIN 0 0'; echo 'WBR1 END 0' ;;
	esac ;;
*) echo "stored: experiment 00000000-0000-4000-8000-000000000001 in x.db"; exit 0 ;;
esac
SH
chmod +x "$TMP/bin/wbfake"
mkdir "$TMP/w3" && cd "$TMP/w3" || exit 1
: >"$CASES_LOG"
PATH="$TMP/bin:$PATH" run_cmd sh "$SCRIPT" -a "ab --feature X" -w "$TMP/bin/wbfake"
like "$(cat "$CASES_LOG")" "pipe.ab.verdict.X --result fail" "a regression is reported as fail"

# the console shows KERN_EMERG only while the frame is printed, then its
# levels are back, also when the script is stopped then
: >"$TMP/during"
run_cmd sh "$SCRIPT" -a "run pipe" -w "$TMP/bin/wbfake"
is "$RC:$(tr '\t' ' ' <"$TMP/during")" "0:1 4 1 7" "frame: the console's level is 1 while it is printed"
is "$(cat "$WAKEBENCH_PRINTK")" "$printk0" "frame: the saved levels are back after it"
is "$(tail -n 1 output/result.txt)" "wakebench-results pass" "frame: its case passes"
: >"$TMP/during"
KILL_PARENT=1 run_cmd sh "$SCRIPT" -a "run pipe" -w "$TMP/bin/wbfake"
is "$RC:$(cut -c1 "$TMP/during")" "143:1" "TERM while the frame is printed: exit 143"
is "$(cat "$WAKEBENCH_PRINTK")" "$printk0" "TERM while the frame is printed: the levels are back"
WAKEBENCH_PRINTK="$TMP/no/such/file" run_cmd sh "$SCRIPT" -a "run pipe" -w "$TMP/bin/wbfake"
is "$RC:$(tail -n 1 output/result.txt)" "0:wakebench-results pass" "a printk file that cannot be written: the frame still goes out"

# a failing command: its case fails, the script says why
mkdir "$TMP/w4" && cd "$TMP/w4" || exit 1
run_cmd sh "$SCRIPT" -a "run pipe -n 0" -w "$WAKEBENCH"
is "$RC" 0 "bad arguments: the script still exits 0 (the cases carry the result)"
is "$(tr '\n' ';' <output/result.txt)" "wakebench-run fail;wakebench-results fail;" "bad arguments: the command and the results fail"
like "$ERR" "option '--samples'" "bad arguments: wakebench's message is on the console"
run_cmd sh "$SCRIPT" -s maybe
is "$RC" 2 "a bad STORE: exit 2"
like "$ERR" "-s \(STORE\): 'maybe' is not true or false" "  says what is allowed"
cd "$TMP" || exit 1
done_testing
