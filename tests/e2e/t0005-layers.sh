#!/bin/sh
# The folders of src/ depend on each other one way only (scripts/check-layers.sh
# holds the table): the tree passes, and an include planted the wrong way in a
# copy of it fails, naming the file, the line and what the folder may include.
# Functions have at most 100 lines and command files at most 400
# (scripts/check-lengths.sh, with its list of files still over): the tree
# passes, and a planted long function and a planted long command fail.
. "$(dirname "$0")/lib.sh"

check="$WAKEBENCH_SRC/scripts/check-layers.sh"
run_cmd sh "$check" "$WAKEBENCH_SRC/src"
is "$RC" 0 "src/ includes only down the layers"
[ "$RC" = 0 ] && [ -z "$OUT" ] || diag "$OUT"

cp -r "$WAKEBENCH_SRC/src" "$TMP/src"
# a statistics file that reaches up into a command
sed -i '0,/^#include "stats\/stats.h"/s//#include "stats\/stats.h"\n#include "cli\/cli.h"/' \
	"$TMP/src/stats/summary.c"
line=$(grep -n '^#include "cli/cli.h"' "$TMP/src/stats/summary.c" | cut -d: -f1)
ok "[ -n '$line' ]" "the wrong-way include is planted"
run_cmd sh "$check" "$TMP/src"
is "$RC" 1 "a planted wrong-way include fails the check"
is "$OUT" "check-layers: src/stats/summary.c:$line: stats may not include cli/cli.h (stats may include: core util)" \
	"naming the file, the line and what the folder may include"

# a workload that reaches into the runner, and a new folder the table lacks
cp -r "$WAKEBENCH_SRC/src" "$TMP/src2"
printf '#include "runner/runner.h"\n' >>"$TMP/src2/workloads/pipe.c"
mkdir "$TMP/src2/extra"
printf '#include "util/util.h"\n' >"$TMP/src2/extra/x.c"
run_cmd sh "$check" "$TMP/src2"
is "$RC" 1 "workloads including the runner fails"
like "$OUT" "src/workloads/pipe.c:[0-9]+: workloads may not include runner/runner.h" "named"
like "$OUT" "src/extra/x.c: folder 'extra' is not in the layer table" "an unknown folder is named"

lengths="$WAKEBENCH_SRC/scripts/check-lengths.sh"
run_cmd sh "$lengths" "$WAKEBENCH_SRC/src"
is "$RC" 0 "no function over 100 lines, no command file over 400 (but those listed)"
[ "$RC" = 0 ] && [ -z "$OUT" ] || diag "$OUT"
cp -r "$WAKEBENCH_SRC/src" "$TMP/src3"
{
	printf '\nint planted_long(int x)\n{\n'
	i=0
	while [ $i -lt 101 ]; do
		printf '\tx += %d; /* { not a brace */\n' $i
		i=$((i + 1))
	done
	printf '\treturn x;\n}\n'
} >>"$TMP/src3/util/parse.c"
line=$(grep -n '^int planted_long' "$TMP/src3/util/parse.c" | cut -d: -f1)
i=0
while [ $i -lt 420 ]; do echo "/* padding */"; i=$((i + 1)); done >>"$TMP/src3/cli/cmd-show.c"
run_cmd sh "$lengths" "$TMP/src3"
is "$RC" 1 "a planted long function and a long command file fail"
like "$OUT" "src/util/parse.c:$line: planted_long\(\) has 105 lines, at most 100" "  the function named with its line and length"
like "$OUT" "src/cli/cmd-show.c: [0-9]+ lines, a command file has at most 400" "  the command file named"
done_testing
