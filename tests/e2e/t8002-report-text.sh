#!/bin/sh
# report --format email: plain ASCII, no line longer than 72 columns, no
# tabs, whatever the stored text; the "Kernel | ops/s | vs 6.6" table with
# both intervals and the verdicts, the evidence that moved, environment
# differences, reproducers, the version. --format markdown: GFM tables
# whose rows all have the header's cells, stored pipes escaped.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v jq >/dev/null || skip_all "jq not installed"
S() { "$SYNTH" --synth "$WAKEBENCH_DB" "$@" >/dev/null; }

S 3 8 6.6 r host 2487746 kernel.preempt=voluntary
S 3 8 6.12.75 r host 1651427 kernel.preempt=voluntary
S 1 8 7.0-rc1-a-very-long-local-version-string r host 1660000 kernel.preempt=lazy \
	"cpu.model=Caf$(printf '\303\251') $(printf '\t')Model with a very long name that goes on and on past any column limit:2"
S 2 8 6.6 "ab|c" host 2400000 kernel.preempt=voluntary ab=DELAY_DEQUEUE

# 8 bit, tab, or longer than 72 columns: the number of such lines
bad_lines() { LC_ALL=C awk 'length($0) > 72 || /\t/ || /[^ -~]/ { n++ } END { print n + 0 }'; }

run_cmd wb report --format email --label r
is "$RC" 0 "email exits 0"
is "$(printf '%s\n' "$OUT" | bad_lines)" 0 "every line ASCII, no tab, at most 72 columns"
like "$OUT" "^Kernel +ops/s +95% CI +vs 6\\.6 +95% CI$" "the table's header: Kernel | ops/s | vs 6.6"
like "$OUT" "^6\\.12\\.75 +1 6[0-9]{2} [0-9]{3} +\\[1 [0-9]{3} [0-9]{3}, 1 [0-9]{3} [0-9]{3}\\] +-3[0-9]\\.[0-9]% +\\[-3[0-9]\\.[0-9]%, -3[0-9]\\.[0-9]%\\]$" \
	"a row: median with its CI (as compare prints them), change with its CI"
verdict=$(wb compare --label r --format json | jq -r '.groups[] | select(.value == "6.12.75") | .verdict_text')
like "$OUT" "^  = $verdict \\(p" "its verdict as compare gives it, with the p-value"
like "$OUT" "^7\\.0-rc1-a-very-long-local-version-string$" "a long group name on a line of its own"
like "$OUT" "Environment differences vs 6\\.6 \\(strongest first\\):" "environment differences"
like "$OUT" "^    strong   kernel\\.preempt: voluntary -> lazy$" "strongest first"
like "$OUT" "^    weak     cpu\\.model: \\(absent\\) -> Caf\\?\\? +Model with a very long name$" \
	"non-ASCII shown as ?, a long value wrapped"
like "$OUT" "^  # experiments 1, 2, 3, 4, 5, 6, 7: run pipe on 6\\.6, 6\\.12\\.75,$" \
	"one reproducer for the experiments with one command line"
like "$OUT" "^  wakebench --synth$" "with that command line, the program wakebench"
like "$OUT" "^  # this report:$" "and this report's own"
like "$OUT" "^-- $" "a signature separator"
like "$OUT" "^wakebench [0-9][^ ]*, report made [0-9]{4}-[0-9]{2}-[0-9]{2} " "the version"

# the ab: evidence that moved (half the context switches in one arm)
ab=$(sqlite3 "$WAKEBENCH_DB" "SELECT group_concat(id, ' ') FROM experiments WHERE kind = 'ab'")
run_cmd wb report --format email $ab
is "$RC" 0 "email of two ab experiments"
is "$(printf '%s\n' "$OUT" | bad_lines)" 0 "still ASCII and narrow"
like "$OUT" "^wakebench report: pipe, DELAY_DEQUEUE=on \\(A\\) vs\\. DELAY_DEQUEUE=off \\(B\\),$" \
	"titled by the feature's arms"
like "$OUT" "^\\[[a-z ]+\\] NO_DELAY_DEQUEUE: [-+][0-9.]+% bogo ops/s \\(real time\\) \\[" "a headline per effect"
like "$OUT" "^Evidence that moved" "the evidence that moved"
like "$OUT" "^    ctxsw/op +1\\.99[0-9] +-> +1\\.00[0-9] +-(49|50)\\.[0-9]% \\[" "ctxsw/op halved"
like "$OUT" "label ab\\|c" "the label with its pipe"
# a long command line wraps as a shell continuation, outside quotes
run_cmd wb report --format email --label r --baseline 6.12.75 --margin 5% --pool --by kernel --no-data
is "$(printf '%s\n' "$OUT" | bad_lines)" 0 "a long command line wraps"
cmd=$(printf '%s\n' "$OUT" | sed -n '/^  # this report:$/,/^$/p' | sed '1d;$d')
like "$cmd" " \\\\$" "broken lines end in a backslash"
# the program is named as typed elsewhere: wakebench, not this machine's path
joined=$(printf '%s\n' "$cmd" | sed 's/ *\\$//' | tr -s ' \n' '  ' | sed 's/^ //; s/ $//')
is "${joined%% *}" "wakebench" "the command names wakebench, not its path here"
is "${joined#* }" "report --format email --label r --baseline 6.12.75 --margin 5% --pool --by kernel --no-data" \
	"and join back into the command"

like "$OUT" "^Baseline machine: kernel 6\\.12\\.75; preemption voluntary; host host$" \
	"the machine of the baseline (--baseline 6.12.75) from its stored fingerprint"

# a real run: its reproducer is the command without this machine's store,
# output and verbosity, and stress-ng's own command is the same measurement
R="$TMP/real.db"
wb run pipe -q -j 1 -t 1s -n 1 --warmup 0 --db "$R" --format json >/dev/null
run_cmd wb report --db "$R" --format email
like "$OUT" "^  wakebench run pipe -j 1 -t 1s -n 1 --warmup 0$" "the run's command as typed elsewhere"
unlike "$OUT" "real\\.db|--format json| -q |^  /" "  without --db, --format, -q or a path"
like "$OUT" "^  # the same with stress-ng 0\\.15\\.06, one run per sample$" "the stress-ng equivalent is said exact"
like "$OUT" "^  stress-ng --pipe 1 --timeout 1s --metrics-brief$" "  and printed"
like "$(printf '%s' "$OUT" | tr -s ' \n' '  ')" "Baseline machine: .* kernel $(uname -r); preemption [a-z]+;" \
	"this machine is the baseline's"
run_cmd wb report --db "$R" --format markdown
like "$OUT" "^stress-ng --pipe 1 --timeout 1s --metrics-brief$" "Markdown has it too"

run_cmd wb report --format markdown --label r
is "$RC" 0 "markdown exits 0"
table=$(printf '%s\n' "$OUT" | awk '/^\| Kernel/ { t = 1 } t && !/^\|/ { exit } t')
like "$table" "^\\| Kernel \\| n \\| boots \\| bogo ops/s \\(real time\\) \\| 95% CI of median \\| vs\\. 6\\.6 \\| 95% CI of change \\| p \\| verdict \\|" \
	"a GFM header row"
like "$table" "^\\|:---\\|---:\\|---:\\|---:\\|:---\\|---:\\|:---\\|---:\\|:---\\|$" "its alignment row"
cells() { sed 's/\\|//g' | awk -F'|' '{ print NF }' | sort -u | tr '\n' ' '; }
is "$(printf '%s\n' "$table" | cells)" "11 " "every row has the header's cells"
is "$(printf '%s\n' "$table" | wc -l | tr -d ' ')" 5 "a row per group"
like "$table" "^\\| 6\\.12\\.75 \\| 24 \\| 1 \\| 1 6[0-9]{2} [0-9]{3} \\| \\[1 [0-9 ]+, 1 [0-9 ]+\\] \\| -3[0-9]\\.[0-9]% \\|" \
	"compare's numbers in full"
like "$OUT" "^### Environment differences vs\\. 6\\.6 \\(strongest first\\)" "environment table"
like "$OUT" "^### To reproduce" "reproducers"
like "$OUT" "^\`\`\`\`sh$" "in a fenced block"
run_cmd wb report --format markdown --by label
like "$OUT" "^\\| ab\\\\\\|c" "a pipe in a cell is escaped"
is "$(printf '%s\n' "$OUT" | awk '/^\| Label/ { t = 1 } t && !/^\|/ { exit } t' | cells)" "11 " \
	"and the row keeps its cells"
done_testing
