#!/bin/sh
# Shell completion: contrib/completion/wakebench.bash, sourced into bash as
# bash-completion loads it, registers _wakebench for wakebench; completing
# real command lines gives the commands, each command's options exactly as
# its -h lists them (every command, run and ab for every workload), option
# values (choices, profiles, metrics, files), positionals (workloads,
# features' subcommands) and the scheduler features of a kernel (the FUSE
# stand-in's), with and without bash-completion's word splitting at '='.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakefs.sh"

command -v bash >/dev/null 2>&1 || skip_all "bash is not installed"
script="$WAKEBENCH_SRC/contrib/completion/wakebench.bash"
# wakebench found on PATH, as an installed one is
mkdir -p "$TMP/bin"
ln -s "$WAKEBENCH" "$TMP/bin/wakebench"
export PATH="$TMP/bin:$PATH"
bc=/usr/share/bash-completion/bash_completion

# complete [--bc] WORD...: what completing the last word of "wakebench WORD..." offers
complete_line() {
	with=""
	if [ "$1" = --bc ]; then
		with=". $bc"
		shift
	fi
	bash -c "$with
		. '$script'
		COMP_WORDS=(wakebench \"\$@\")
		COMP_CWORD=\$#
		COMP_LINE=\"wakebench \$*\"
		COMP_POINT=\${#COMP_LINE}
		_wakebench wakebench \"\${COMP_WORDS[COMP_CWORD]}\" \"\${COMP_WORDS[COMP_CWORD-1]}\"
		printf '%s\n' \"\${COMPREPLY[@]}\" | sort" _ "$@"
}
lines() { tr '\n' ' ' | sed 's/ $//'; }

is "$(bash -c ". '$script'; complete -p wakebench")" "complete -F _wakebench wakebench" \
	"the script registers _wakebench for wakebench"
is "$(complete_line "" | lines)" \
	"$(wb -h | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' | sort | lines)" \
	"the commands, as wakebench -h lists them"
is "$(complete_line re | lines)" "report reproduce" "a command's prefix"

# Every command's options are exactly those of its -h (run and ab with each workload).
opts_of_help() { "$WAKEBENCH" "$@" -h | grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' | sed 's/.*--/--/' | sort -u; }
drift=""
for cmd in run ab compare env features list log show export import report vm bisect; do
	want=$( (opts_of_help $cmd; echo --help) | sort -u | lines)
	got=$(complete_line $cmd - | sort -u | lines)
	[ "$got" = "$want" ] || drift="$drift $cmd"
done
for w in $(wb list --workloads --format json | jq -r '.workloads[].name'); do
	for cmd in run ab; do
		want=$( (opts_of_help $cmd $w; echo --help) | sort -u | lines)
		got=$(complete_line $cmd $w - | sort -u | lines)
		[ "$got" = "$want" ] || drift="$drift $cmd-$w"
	done
done
is "$drift" "" "each command's options are its -h's (every workload's for run and ab)"

is "$(complete_line run --placement "" | lines)" "any cross-cpu same-cpu spread" \
	"a choice option's values"
is "$(complete_line run --placement s | lines)" "same-cpu spread" "... by prefix"
like "$(complete_line run pipe --profile stress | lines)" \
	"stress-ng-0.15 stress-ng-0.15.07 stress-ng-0.16 stress-ng-0.21.02" "profile names"
like "$(complete_line show --format "" | lines)" "json text" "a command's own formats"
like "$(complete_line bisect --metric ops_per | lines)" "ops_per_s" "metric names"
is "$(complete_line "" | grep -c __complete)" 0 "the completion entry point is not offered"
like "$(complete_line run "" | lines)" "messaging pingpong pipe" "workloads after run"
is "$(complete_line features "" | lines)" "restore set show" "features' subcommands"
is "$(complete_line vm --kernel x -- r | lines)" "report reproduce run" "vm: the subcommand after --"
is "$(complete_line vm --kernel x -- run --place | lines)" "--placement" "vm: the subcommand's options"
is "$(complete_line bisect step --good a --bad b -- pipe --data | lines)" "--data-size" \
	"bisect step: run's options for the workload after --"

# file names where a command takes a file
: >"$TMP/posted-a.txt"
: >"$TMP/posted-b.yaml"
is "$(complete_line import "$TMP/posted-" | lines)" "$TMP/posted-a.txt $TMP/posted-b.yaml" \
	"import completes file names"
is "$(complete_line report -o "$TMP/posted-b" | lines)" "$TMP/posted-b.yaml" \
	"an option taking a FILE completes file names"

# scheduler features of the kernel behind --debugfs (the FUSE stand-in, 6.18's list)
fakefs_start dbg
got=$(complete_line ab --debugfs "$TMP/dbg" --feature DELAY | lines)
is "$got" "DELAY_DEQUEUE DELAY_ZERO" "ab --feature: the kernel's features by prefix"
got=$(complete_line features --debugfs "$TMP/dbg" set NO_DELAY | lines)
is "$got" "NO_DELAY_DEQUEUE NO_DELAY_ZERO" "features set: NO_ forms too"
is "$(complete_line ab --debugfs "$TMP/none" --feature "" | lines)" "" \
	"no features where none can be read, and no error"

# bash-completion's own word splitting keeps --name=value one word
if [ -r "$bc" ]; then
	is "$(complete_line --bc run --placement=s | lines)" "--placement=same-cpu --placement=spread" \
		"with bash-completion: --name=VALUE completes in one word"
	is "$(complete_line --bc run --place | lines)" "--placement" "with bash-completion: options"
else
	skip "bash-completion is not installed ($bc)"
	skip "bash-completion is not installed ($bc)"
fi
done_testing
