#!/bin/sh
# bisect step, the verdict for `git bisect run`: every ending has the status
# git expects, never 1 for an error. Good 0, bad 1; skip 125 when the step
# cannot decide, the tree did not build (no image, not a kernel), every boot
# failed, or the environment differs from the references in a strong key;
# 129 for bad input (git's usage status), 128 for wakebench's own failures
# (references not apart, a damaged store, qemu missing), 128 + N for a stop
# signal N (no child left). The candidate's experiments are labelled with
# the commit (git rev-parse HEAD) and carry the step's verdict, which
# `bisect report` shows; and git bisect run itself aborts on 129.
#
# The references are synthetic stores (t-store --synth, one boot each) placed
# around a real measurement of this machine, so that the candidate (a real
# short run here) lands where the test needs it whatever this machine's speed.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed"
SQL() { sqlite3 "$WAKEBENCH_DB" "$1"; }
WL="pipe -t 100ms -n 3 -j 1 --warmup 0"

# This machine's level, from one real run.
run_cmd wb run $WL --label probe
is "$RC" 0 "a probe run"
X=$(SQL "SELECT CAST(avg(ops_per_s) AS INTEGER) FROM samples WHERE status = 'ok'")
ok "[ '${X:-0}' -gt 0 ]" "its ops/s ($X)"

# refs LABEL FACTOR SPREAD: three boots of one synthetic kernel at X * FACTOR,
# spread by SPREAD (0.05: +-5%), with the probe's parameters. Extra args are
# fingerprint keys for every boot.
refs() {
	label=$1 f=$2 s=$3
	shift 3
	for m in 1 "$(echo "1 + $s" | bc -l)" "$(echo "1 - $s" | bc -l)"; do
		"$SYNTH" --synth "$WAKEBENCH_DB" 1 5 "kernel-$label" "$label" host \
			"$(echo "$X * $f * $m" | bc -l | cut -d. -f1)" "$@" >/dev/null
	done
	SQL "UPDATE experiments SET owner_boot_id = 'boot-' || id,
		params = (SELECT params FROM experiments WHERE label = 'probe')
		WHERE label = '$label'"
}
command -v bc >/dev/null || skip_all "bc not installed"
# lo is 100 times slower than this machine's level, so that a candidate slowed
# by other work on a loaded machine (60% below the probe was seen while two
# test suites shared 2 CPUs, at position 0.40 against a lo 10 times slower)
# still lands near hi.
refs hi 1 0.05
refs lo 0.01 0.05
refs wide-hi 4 0.4
refs wide-lo 0.25 0.4
refs gov-hi 1 0.05 cpu.governor=performance
refs gov-lo 0.01 0.05 cpu.governor=performance
refs vm-hi 1 0.05 vm.accel=tcg
refs vm-lo 0.01 0.05 vm.accel=tcg
refs same-a 1 0.05
refs same-b 1.01 0.05

step() { run_cmd wb bisect step "$@"; }

step --good hi --bad lo --label c-good
is "$RC" 0 "closer to the good reference: exit 0"
like "$OUT" "^c-good: good on ops_per_s: position -?0\\.[0-9]+ \\[" "the verdict with its position"
like "$OUT" "1 boot vs 3 good and 3 bad" "boots as units"

step --good lo --bad hi --label c-bad
is "$RC" 1 "closer to the bad reference: exit 1"
like "$OUT" "^c-bad: bad on ops_per_s" "bad is said"

step --good wide-hi --bad wide-lo --label c-mid
is "$RC" 125 "between the references, undecided: skip 125"
like "$OUT" "^c-mid: skip \\(undecided\\)" "undecided is said"

step --good gov-hi --bad gov-lo --label c-env
is "$RC" 125 "a strong key differs from both references: skip 125"
like "$ERR" "environment differs .* cpu\\.governor 'absent[^']*' \\(references 'performance'\\)" \
	"the key and both values are named"

step --good vm-hi --bad vm-lo --label c-vm
is "$RC" 125 "references booted in vm, the candidate not: skip 125"
like "$ERR" "vm\\.accel 'absent' \\(references 'tcg'\\)" "vm.accel named"

# The metric: another one, and one that was not measured.
step --good hi --bad lo --label c-metric --metric ops_per_cpu_s
ok "[ $RC = 0 ] || [ $RC = 1 ] || [ $RC = 125 ]" "--metric ops_per_cpu_s decides or skips ($RC)"
step --good hi --bad lo --label c-nometric --metric no_such_metric
is "$RC" 129 "a metric the references lack: 129"
like "$ERR" "metric 'no_such_metric'" "the metric is named"

# The references: not apart, unknown, different workloads.
step --good same-a --bad same-b --label c-same
is "$RC" 128 "references not apart: 128 (abort)"
like "$ERR" "references are not apart on ops_per_s" "said so"
step --good nosuchlabel --bad lo --label c-x
is "$RC" 129 "an unknown reference: 129"
like "$ERR" "option '--good': no stored label or experiment 'nosuchlabel'" "the option and value named"

# Bad input: every usage error is 129, never 1 or 2.
for args in "--alpha 2" "--alpha x" "--nosuch" "--bad lo --label y" "--good hi --label y" \
	"--good hi --bad lo --label y --kernel /x" "--good hi --bad lo --label y --max-boots 3" \
	"--good hi --bad lo --label y --format json" "--good hi --bad lo --label y extra"; do
	# shellcheck disable=SC2086
	step $args
	is "$RC" 129 "usage error '$args': 129"
	is "$(printf '%s\n' "$ERR" | grep -c .)" 1 "one line for '$args'"
done
step --good hi --bad lo --label c-args -- pipe --instances 0
is "$RC" 129 "workload arguments the run refuses: 129"
step --good hi --bad lo --label c-params -- $WL --placement same-cpu
is "$RC" 129 "other parameters than the references: 129"
like "$ERR" "other workload parameters than the references \\(placement" "the parameter is named"
run_cmd wb bisect stpe --good hi --bad lo
is "$RC" 129 "a mistyped subcommand: 129"
run_cmd wb bisect -h
is "$RC" 0 "bisect -h: 0"
like "$OUT" "^usage: wakebench bisect step" "usage"

# Each subcommand has its own options: another's is refused by name, never ignored.
run_cmd wb bisect report --good foo --kernel /x --max-boots 3
is "$RC" 2 "bisect report with step's and run's options: exit 2"
is "$ERR" "wakebench: error: bisect report: option '--good' is one of bisect step's options, not of bisect report" \
	"one line naming the option and whose it is"
run_cmd wb bisect report --max-boots 3
like "$ERR" "option '--max-boots' is one of bisect step and run's options, not of bisect report" \
	"an option of both step and run"
run_cmd wb bisect run --label x -k a -k b -- pipe
is "$RC" 2 "bisect run --label: exit 2"
like "$ERR" "bisect run: option '--label' is one of bisect step's options" "names it"
step --good hi --bad lo --label y --max-ref-boots 3
is "$RC" 129 "bisect step --max-ref-boots: 129 (step's bad input)"
like "$ERR" "bisect step: option '--max-ref-boots' is one of bisect run's options, not of bisect step" \
	"names it"
run_cmd wb bisect report --id --kernel
unlike "$ERR" "is one of bisect" "a value that looks like an option is a value"
run_cmd wb bisect run -h
like "$OUT" "--kernel IMAGE" "bisect run -h lists run's options"
unlike "$OUT" "^ +--good REF|^ +--id ID" "and not step's or report's"
run_cmd wb bisect report -h
like "$OUT" "--id ID" "bisect report -h lists report's options"
unlike "$OUT" "^ +(-k, )?--kernel|^ +--alpha|^ +--good" "and not step's or run's"

# Build and boot failures are the candidate's: skip.
step --good hi --bad lo --label c-nobuild --vm "$TMP/arch/x86/boot/bzImage"
is "$RC" 125 "no image (the build failed): 125"
like "$ERR" "option '--vm': .*No such file" "the missing image is named"
step --good hi --bad lo --label c-notkernel --vm /etc/passwd
is "$RC" 125 "not a kernel image: 125"
step --good hi --bad lo --label c-noqemu --vm "$TMP/hang.img" --qemu "$TMP/no-qemu" 2>/dev/null
# (hang.img does not exist yet: still the candidate's)
is "$RC" 125 "no image, even with a broken --qemu: 125"

if [ "$(uname -m)" = x86_64 ] && command -v qemu-system-x86_64 >/dev/null 2>&1; then
	# x86 boot-protocol images: "old" (protocol 1.x) qemu refuses to boot with an
	# initrd, at once; "hang" loops forever (t6001-vm-faults.sh has the layout).
	fake_bzimage() {
		head -c 6656 /dev/zero >"$1"
		put() { printf "$2" | dd of="$1" bs=1 seek=$(($3)) conv=notrunc 2>/dev/null; }
		put "$1" '\125\252' 0x1fe
		put "$1" 'HdrS' 0x202
		if [ "$2" = hang ]; then
			put "$1" '\004' 0x1f1
			put "$1" '\353\376' 0x200
			put "$1" '\017\002' 0x206
			put "$1" '\001' 0x211
			put "$1" '\377\377\377\177' 0x22c
			put "$1" '\000\010' 0x238
		fi
	}
	fake_bzimage "$TMP/old.img" old
	fake_bzimage "$TMP/hang.img" hang
	export TMPDIR="$TMP/tmp"
	mkdir -p "$TMPDIR"
	step --good hi --bad lo --label c-noqemu --vm "$TMP/old.img" --qemu "$TMP/no-qemu"
	is "$RC" 128 "qemu missing: 128 (wakebench's, not the candidate's)"
	like "$ERR" "qemu not found" "said so"
	step --good hi --bad lo --label c-boot --vm "$TMP/old.img" --accel tcg --max-boots 2
	is "$RC" 125 "every boot failed: 125"
	like "$OUT" "^c-boot: skip: every boot failed \\(2\\)" "the failed boots are counted"
	step --good hi --bad lo --label c-cpus --vm "$TMP/old.img" --accel tcg --cpus 1024
	is "$RC" 129 "vm refuses its arguments (--cpus above the host's): 129"

	# A stop signal during a boot: 128 + 15, qemu and every child gone.
	"$WAKEBENCH" bisect step --good hi --bad lo --label c-term --vm "$TMP/hang.img" \
		--accel tcg --timeout 60s >"$TMP/term.out" 2>"$TMP/term.err" &
	pid=$!
	booted=$(wait_boot $pid "$TMP/hang.img")
	kids=$(descendants $pid)
	ok "[ -n '$booted' ]" "qemu runs under bisect step"
	kill -TERM $pid
	wait $pid
	is "$?" 143 "SIGTERM: 128 + 15"
	is "$(alive "$kids")" "" "no child left"
	is "$(ls "$TMPDIR")" "" "temporary files removed"
	unset TMPDIR
else
	skip "qemu-system-x86_64 is not installed (boot failures, signals)"
fi

# Damaged store: 128.
printf 'not a database' >"$TMP/bad.db"
run_cmd wb bisect step --db "$TMP/bad.db" --good hi --bad lo --label c-db
is "$RC" 128 "an unreadable store: 128"

# In a git tree the candidate is the commit.
git init -q "$TMP/tree"
(cd "$TMP/tree" && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m one)
head=$(git -C "$TMP/tree" rev-parse HEAD)
(cd "$TMP/tree" && "$WAKEBENCH" bisect step --good hi --bad lo >"$TMP/git.out" 2>"$TMP/git.err")
is "$?" 0 "step in a git tree"
like "$(cat "$TMP/git.out")" "^$head: good" "the verdict names the commit"
is "$(SQL "SELECT count(*) FROM experiments WHERE label = '$head'")" 1 "labelled with git rev-parse HEAD"
is "$(SQL "SELECT value FROM env e JOIN experiments x ON x.id = e.experiment_id
	WHERE x.label = '$head' AND e.key = 'bisect.verdict'")" good "the verdict is stored with it"
run_cmd sh -c "cd '$TMP' && '$WAKEBENCH' bisect step --good hi --bad lo"
is "$RC" 129 "outside a git tree without --label: 129"
like "$ERR" "not in a git tree.*--label" "says to give --label"

# git bisect run aborts on wakebench's errors instead of marking a commit bad.
(
	cd "$TMP/tree" &&
		git -c user.email=t@t -c user.name=t commit -q --allow-empty -m two &&
		git -c user.email=t@t -c user.name=t commit -q --allow-empty -m three &&
		git bisect start -q HEAD HEAD~2 >/dev/null 2>&1 &&
		git bisect run "$WAKEBENCH" bisect step --good hi --bad lo --alpha 7 >"$TMP/gb.out" 2>&1
	echo "rc=$?" >>"$TMP/gb.out"
	git bisect log >"$TMP/gb.log" 2>&1
	git bisect reset -q >/dev/null 2>&1
)
like "$(cat "$TMP/gb.out")" "rc=[1-9]" "git bisect run fails"
unlike "$(cat "$TMP/gb.log")" "# bad:" "and marked no commit bad"

# The report shows the steps with their verdicts and intervals.
run_cmd wb bisect report
is "$RC" 0 "bisect report"
like "$OUT" "^bisection step:hi\\.\\.lo:ops_per_s \\(step\\), metric ops_per_s" "the latest bisection"
like "$OUT" "candidate +$head: good, position -?[0-9.]+ \\[-?[0-9.]+, -?[0-9.]+\\] at 99\\.00%" \
	"the step's verdict and interval"
run_cmd wb bisect report --format json
is "$(printf '%s' "$OUT" | jq -r '.steps[-1].verdict')" good "json: the verdict"
is "$(printf '%s' "$OUT" | jq -r '.steps[-1].boots')" 1 "json: the boots"
run_cmd wb bisect report --id nosuch
is "$RC" 2 "report --id unknown: 2 (report is not for git bisect run)"

# report --bisect renders the same steps: HTML with the position plot, a mail
# body, Markdown
run_cmd wb report --bisect latest -o "$TMP/b.html"
is "$RC" 0 "report --bisect latest"
html=$(cat "$TMP/b.html")
like "$html" "<h1>wakebench bisection step:hi\.\.lo:ops_per_s</h1>" "the HTML names the bisection"
like "$html" "<h2>Each step between the references</h2>" "the position plot"
like "$html" "<title>candidate $head: good, position -?[0-9.]+ \[" \
	"the candidate's point and interval, with its verdict"
like "$html" "<td class=\"cand\">$head</td><td class=\"v-improvement\">good</td>" "the step in the table"
unlike "$html" "<script|https?://" "no script, no link out"
if command -v xmllint >/dev/null; then
	ok "xmllint --noout '$TMP/b.html'" "well-formed (xmllint)"
else
	skip "xmllint not installed (Debian: libxml2-utils)"
fi
run_cmd wb report --bisect step:hi..lo:ops_per_s --format email
is "$RC" 0 "report --bisect PREFIX --format email"
is "$(printf '%s\n' "$OUT" | LC_ALL=C awk 'length($0) > 72 || /\t/ || /[^ -~]/ { n++ } END { print n + 0 }')" 0 \
	"the mail: ASCII, at most 72 columns"
like "$OUT" "^result: none stored \(a git bisection: see git bisect log\)" "a git bisection has no stored result"
like "$(printf '%s\n' "$OUT" | tr -s ' \n' '  ')" "candidate $head: good, position" "the mail's step"
run_cmd wb report --bisect latest --format markdown
like "$OUT" "^\| candidate \| $head \| good, position -?[0-9.]+ \\\\\[" "the Markdown table (its brackets escaped)"
run_cmd wb report --bisect latest 1
is "$RC" 2 "report --bisect with EXP...: 2"
like "$ERR" "option '--bisect': one bisection, not experiments" "said so"
run_cmd wb report --bisect nosuch
is "$RC" 2 "report --bisect unknown: 2"
like "$ERR" "^wakebench: error: report: option '--bisect': no bisection 'nosuch'" "named by its option"
run_cmd wb report --bisect step:
is "$RC" 2 "report --bisect ambiguous: 2"
like "$ERR" "option '--bisect': 'step:' is ambiguous" "said so"

done_testing
