#!/bin/sh
# ab sizes: a paired verdict needs at least 6 pairs (9 blocks with two
# features) at the sequential engine's levels. Smaller -n or --max-samples
# is refused up front (exit 2, the option, the value and the minimum named;
# nothing run, stored or written to the features file); the minimum itself
# runs and gives an interval. -h says that -n counts pairs and that without
# it ab runs until decided. A run cut short by --max-time says so, and its
# verdict names the minimum.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

command -v jq >/dev/null || skip_all "jq is not installed"
fakefs_start dbg --log="$TMP/writes.log"
D="$TMP/dbg"
ORIG=$(cat "$FIXTURES/sched-features/v6.18.txt")
JOURNAL="$WAKEBENCH_STATE_DIR/features.journal"
db="$TMP/sizes.db"
AB="ab -j 1 -t 10ms --warmup 0 --debugfs $D --db $db"

# refused "OPTIONS" "the option as named" value minimum unit
refused() {
	# shellcheck disable=SC2086
	run_cmd wb $AB $1
	is "$RC" 2 "$1: exit 2"
	is "$ERR" "wakebench: error: ab: option $2: value '$3' is below the minimum of $4 $5 a paired verdict $6needs" \
		"$1: one line naming the option, the value and the minimum"
	is "$OUT" "" "$1: nothing on stdout"
}
refused "--feature NO_DELAY_DEQUEUE -n 3" "'--samples' (-n)" 3 6 pairs ""
refused "--feature NO_DELAY_DEQUEUE --samples 5" "'--samples' (-n)" 5 6 pairs ""
refused "--feature NO_DELAY_DEQUEUE --max-samples 2" "'--max-samples'" 2 6 pairs ""
refused "--feature NO_DELAY_DEQUEUE --max-samples 5 --max-time 1s" "'--max-samples'" 5 6 pairs ""
refused "--feature NO_DELAY_DEQUEUE --feature NO_PREEMPT_SHORT -n 8" "'--samples' (-n)" 8 9 blocks "of two features "
refused "--feature NO_DELAY_DEQUEUE --feature NO_PREEMPT_SHORT --max-samples 6" "'--max-samples'" 6 9 blocks "of two features "
ok "[ ! -s '$TMP/writes.log' ]" "refused sizes write nothing to the features file"
ok "[ ! -e '$db' ]" "refused sizes store nothing (no store is even created)"
ok "[ ! -e '$JOURNAL' ]" "refused sizes leave no journal"
is "$(fakefs_features dbg)" "$ORIG" "the features are untouched"

# The minimum runs, and its interval exists.
# shellcheck disable=SC2086
run_cmd wb $AB --feature NO_DELAY_DEQUEUE -n 6 --no-store --format json
is "$RC" 0 "-n 6: runs"
is "$(printf '%s' "$OUT" | jq -r '[(.units | length), .effects[0].valid] | join(" ")')" "6 true" \
	"-n 6: six pairs, and the effect has its interval"
# shellcheck disable=SC2086
run_cmd wb $AB --feature NO_DELAY_DEQUEUE --max-samples 6 --no-store --format json
is "$RC:$(printf '%s' "$OUT" | jq -r '.sequential.until_decided')" "0:true" "--max-samples 6: runs until decided"
ok "[ \"\$(printf '%s' \"\$OUT\" | jq -r '.units | length')\" -le 6 ]" "  within 6 pairs"
# shellcheck disable=SC2086
run_cmd wb $AB --feature NO_DELAY_DEQUEUE --feature NO_PREEMPT_SHORT -n 9 --no-store --format json
is "$RC" 0 "two features, -n 9: runs"
is "$(printf '%s' "$OUT" | jq -r '[.effects[] | .valid] | join(" ")')" "true true true" \
	"two features, -n 9: both main effects and the interaction have their interval"
is "$(fakefs_features dbg)" "$ORIG" "restored after the runs"

# -h: -n counts pairs, the default runs until decided, the minimum is the one refused.
run_cmd wb ab -h
like "$OUT" "^  -n, --samples N +a fixed length: exactly N pairs \\(blocks of four with two features\\), at least 6 \\(9 blocks\\); 0: pairs until the verdict is decided, at most --max-samples \\(default 0;" \
	"ab -h: -n counts pairs, at least 6 (9 blocks), and by default runs until decided"
unlike "$OUT" "measured samples" "ab -h: not run's wording"
like "$OUT" "^      --max-samples N +until decided: at most N pairs \\(blocks\\), the last look; at least 6 \\(9 blocks\\) \\(default 64;" \
	"ab -h: --max-samples names the minimum too"
like "$OUT" "^      --warmup DURATION +length of the discarded warm-up sample after every toggle" "ab -h: the warm-up follows every toggle"
run_cmd wb run -h
like "$OUT" "^  -n, --samples N +measured samples \\(default 10; 1\\.\\.100000\\)" "run -h keeps its own -n"

# -n 0 is the default: until decided (and so with --until-decided or --max-samples)
# shellcheck disable=SC2086
run_cmd wb $AB --feature NO_DELAY_DEQUEUE -n 0 --until-decided --max-samples 6 --no-store --format json
is "$RC:$(printf '%s' "$OUT" | jq -r '.sequential.until_decided')" "0:true" "-n 0 --until-decided: until decided"

# A budget the clock cuts below the minimum: said at once, and the verdict names the minimum.
# shellcheck disable=SC2086
run_cmd wb $AB --feature NO_DELAY_DEQUEUE --max-time 1ms --no-store
is "$RC" 0 "--max-time 1ms: runs (one pair)"
like "$ERR" "only 1 pair fit in --max-time 1ms, fewer than the 6 a paired verdict needs" "--max-time 1ms: says the verdict cannot be reached"
like "$(printf '%s\n' "$OUT" | tail -n 1)" "^NO_DELAY_DEQUEUE: bogo ops/s \\(real time\\) n/a, insufficient samples \\(1 complete pair; a paired verdict needs at least 6\\)$" \
	"--max-time 1ms: the verdict line names the minimum"
done_testing
