#!/bin/sh
# 100,000 samples in one experiment (run -n allows them) import back from
# an export and from a LAVA frame of it, every sample, in time linear in
# samples (the parser streams; bench/import-scale.sh has the figures).
. "$(dirname "$0")/lib.sh"

sh "$(dirname "$0")/export-big.sh" 100000 >"$TMP/big.json"
samples() { wb compare --db "$1" --pool --format csv | sed -n 2p | cut -d, -f4; }
run_cmd wb import --db "$TMP/a.db" "$TMP/big.json"
is "$RC" 0 "an export of 100,000 samples imports"
is "$(samples "$TMP/a.db")" 100000 "  every sample"
LAVA_JOB_ID=7 wb export --db "$TMP/a.db" --format lava >"$TMP/big.log"
run_cmd wb import --db "$TMP/b.db" "$TMP/big.log"
is "$RC" 0 "a LAVA frame of 100,000 samples imports"
is "$(samples "$TMP/b.db")" 100000 "  every sample"
done_testing
