#!/bin/sh
# compare with boots as units: a group's boots are counted and its change is
# judged on the median of each boot; one boot per group is never decided
# (boot-to-boot variation unknown, the interval said to cover within-boot
# noise only, a hint for more boots); a boot is the stored boot id (the
# experiments of one boot or vm round are one unit), else the experiment;
# two groups in the same boot are compared with experiments as units.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed"
S() { "$SYNTH" --synth "$WAKEBENCH_DB" "$@" >/dev/null; }
SQL() { sqlite3 "$WAKEBENCH_DB" "$1"; }

# Each experiment its own boot, as four vm rounds of each kernel would be:
# 6.1.0's boots spread about 7%, 6.12.0's boots are the same kernel speed,
# 7.0 is 30% slower. Samples within a boot vary by 1%.
for ops in 2000000 2170000 1850000 2080000; do S 1 8 6.1.0 boots host $ops; done
for ops in 2050000 1900000 2200000 1950000; do S 1 8 6.12.0 boots host $ops; done
for ops in 1400000 1500000 1330000 1450000; do S 1 8 7.0 boots host $ops; done
S 1 8 6.6.0 boots host 2170000
# The machine fact: boot 4 of one kernel against boot 1, 8.5% apart.
S 1 8 6.1.0 pair host 2000000
S 1 8 6.1.1 pair host 2170000
SQL "UPDATE experiments SET owner_boot_id = 'boot-' || id"

run_cmd wb compare --label boots
is "$RC" 0 "compare exits 0"
like "$OUT" "^Kernel +n +boots +bogo ops/s \(real time\)" "the table has a boots column"
like "$OUT" "^6\\.1\\.0 +32 +4 .*baseline" "baseline: 32 samples in 4 boots"
like "$OUT" "^7\\.0 +32 +4 .* -(29|3[0-9])\\.[0-9]% .*regression" "4 boots vs 4, 30% slower: a regression"
like "$OUT" "^  7\\.0: 4 boots vs 4: t on each boot's median of log bogo ops/s \\(real time\\), 6 df, between-boot sd [0-9.]+%$" \
	"the inference names the unit, the boots and the spread"
verdict=$(printf '%s\n' "$OUT" | awk '$1 == "6.12.0" { print }')
unlike "$verdict" "regression|improvement|no change" \
	"same speed, boots 7% apart: not decided (samples as units would call it)"
like "$OUT" "^  6\\.6\\.0: 1 boot vs 4: .*3 df, between-boot sd [0-9.]+% from the 4 boots of 6\\.1\\.0$" \
	"one boot against four: the spread comes from the other group's boots, as stated"
like "$OUT" "^Evidence per op .*CI on the units of the group's change: exploratory" "evidence intervals say their unit"
like "$OUT" "^  7\\.0 \\(boots\\)$" "  7.0's evidence has boots as units, as its change has"

run_cmd wb compare --label pair
is "$RC" 0 "one boot per kernel"
like "$OUT" "^6\\.1\\.1 +8 +1 .*\\+8\\.[0-9]% +\\[\\+[0-9.]+%, \\+[0-9.]+%\\] +- +inconclusive at a 2% margin \\(one boot per group: boot-to-boot variation unknown\\)$" \
	"one boot each, 8.5% apart: inconclusive, no p-value"
like "$OUT" "^  6\\.1\\.1: one boot each \\(boot-to-boot variation unknown\\): the interval \\[.*\\] covers only the noise within a boot; more boots: wakebench vm --rounds N, or rerun after a reboot" \
	"says what the interval covers and how to get more boots"

run_cmd wb compare --label pair --format json
is "$(printf '%s' "$OUT" | jq -r '.unit_of_inference')" "boot" "json: the unit of inference"
is "$(printf '%s' "$OUT" | jq -r '.groups[1] | "\(.n) \(.boots) \(.verdict)"')" "8 1 inconclusive" \
	"json: samples, boots, verdict"
is "$(printf '%s' "$OUT" | jq -r '.groups[1].inference | "\(.unit) \(.level) \(.decidable) \(.interval_covers)"')" \
	"boot one-boot false within-boot noise only" "json: the level and what the interval covers"
run_cmd wb compare --label boots --format json
is "$(printf '%s' "$OUT" | jq -r '.groups[] | select(.value == "7.0") | .inference | "\(.unit) \(.level) \(.baseline_units) \(.units) \(.df) \(.between_unit_sd > 0)"')" \
	"boot boots 4 4 6 true" "json: boots as units, their numbers and df"
run_cmd wb compare --label boots --format csv
is "$(printf '%s\n' "$OUT" | head -1 | cut -d, -f12-)" "verdict,boots,unit,level,metric,better,posted" "csv: boots, unit and level columns"
is "$(printf '%s\n' "$OUT" | awk -F, '$1 == "7.0" { print $4, $12, $13, $14, $15 }')" \
	"32 regression 4 boot boots" "csv: the 7.0 row"

# Experiments of one boot (one vm round, or runs without a reboot) are one unit.
SQL "UPDATE experiments SET owner_boot_id = 'round-1' WHERE id IN (1, 2)"
run_cmd wb compare --label boots --format json
is "$(printf '%s' "$OUT" | jq -r '.groups[] | select(.value == "6.1.0") | "\(.n) \(.boots) \(.experiments | length)"')" \
	"32 3 4" "two experiments of one boot count as one boot"
is "$(printf '%s' "$OUT" | jq -r '.groups[] | select(.value == "7.0") | .inference.baseline_units')" "3" \
	"and the inference has 3 units for it"
# No stored boot id (a JSON import, an old store): each experiment is its own boot.
SQL "UPDATE experiments SET owner_boot_id = NULL"
run_cmd wb compare --label boots --format json
is "$(printf '%s' "$OUT" | jq -r '[.groups[].boots] | join(",")')" "4,1,4,4" "unknown boot ids: experiments"

# Two labels run in this same boot: experiments are the units, two of each.
RUN="run pipe -t 100ms -n 4 --warmup 0 -j 1"
for l in x y x y; do
	run_cmd wb $RUN --label "$l"
	is "$RC" 0 "run --label $l"
done
run_cmd wb compare --by label --kernel "$(uname -r)"
is "$RC" 0 "compare --by label over two real runs each"
like "$OUT" "^x +8 +1 " "label x: 8 samples, one boot"
like "$OUT" "^  y: same boot as the baseline, so experiments are the units: 2 experiments vs 2: t on each experiment's median" \
	"two labels in one boot: experiments as units"
done_testing
