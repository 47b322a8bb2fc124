#!/bin/sh
# doc-examples.sh: every example in README.md and doc/*.md that shows what a
# command prints is that command's output, run here against a setup that
# gives the same output on every machine, and rewritten by `make docs`;
# `--check` (tests/e2e/t0006) fails when a block differs from what the binary
# prints now. An example is a marked block:
#
#   <!-- example OPTIONS: COMMAND -->          or, several commands, one a line:
#   ```                                        <!-- example OPTIONS:
#   $ COMMAND                                  COMMAND
#   what it printed (stdout and stderr)        COMMAND
#   (exit N)          when N is not 0          -->
#   ```                                        ```
#   <!-- /example -->                          ...
#
# Each command runs with `sh -c` in an empty directory shown as /tmp/doc (a
# path /tmp/doc in the command means that directory, and it is printed as
# /tmp/doc; its home directory is printed as ~), which holds `tests` (this
# tree's tests, for the fixtures), with `wakebench` on PATH, stdout
# line-buffered as on a terminal, TZ=UTC and LC_ALL=C. OPTIONS, none or more:
#
#   store=NAME     WAKEBENCH_DB is a fresh copy of the synthetic store NAME
#                  (scripts/doc-store.sh: made up, and the doc says so)
#   fakefs[=VER]   the FUSE stand-in of the scheduler's debugfs files
#                  (tests/fakefs) is mounted at /tmp/doc/dbg with
#                  tests/fixtures/sched-features/vVER.txt (default 6.18);
#                  needs root, /dev/fuse and fusermount3
#   lockdown       the stand-in refuses to open the features file (EPERM), as
#                  a kernel in lockdown does
#   root           the commands need root
#   needs=X        the commands need the program X, or the file X when it
#                  starts with / (e.g. needs=jq, needs=/sys/kernel/btf/vmlinux)
#   live           the output holds measured numbers: it is compared without
#                  them (normalise() below says what else), and rewritten
#                  only when that comparison fails, so that `make docs`
#                  changes nothing while the binary prints the same shape;
#                  it is run again, up to three times, while it differs (a
#                  sample can fail on a loaded machine)
#
# A block whose setup is missing here (not root, no FUSE, no sqlite3) is left
# as it is, and --check reports it as a skip with the reason.
#
# A transcript that cannot be an example (a guest booted in qemu, tracing as
# root, a benchmark) is kept as it was printed, in a fenced block preceded by
#   <!-- recorded: why it is not regenerated -->
# and the page says where and when it was recorded. --check fails on any other
# fenced block outside an example that starts with a '$ ' command line.
#
#   scripts/doc-examples.sh [--check] BINARY [FILE...]   (default: README.md doc/*.md)
#
# --check prints one line per block, "ok|not ok|skip<TAB>FILE:LINE COMMAND<TAB>reason",
# the differences on stderr, and exits 1 when a block is stale.
set -u

check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
[ $# -ge 1 ] || { echo "usage: $0 [--check] BINARY [FILE...]" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
bindir=$(dirname "$bin")
[ -x "$bin" ] || { echo "$0: '$bin' is not built" >&2; exit 1; }
if [ $# = 0 ]; then
	set -- "$top/README.md" "$top"/doc/*.md
fi
fakefs=${WAKEBENCH_FAKEFS:-$bindir/tests/wakebench-fakefs}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wakebench-docs.XXXXXX")
work="$tmp/doc"
mnt_pid=""

fakefs_stop() {
	if [ -n "$mnt_pid" ]; then
		fusermount3 -u "$work/dbg" 2>/dev/null || fusermount3 -uz "$work/dbg" 2>/dev/null
		wait "$mnt_pid" 2>/dev/null
		mnt_pid=""
	fi
}
trap 'fakefs_stop; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# Why the setup OPTIONS ask for cannot be had here, or nothing.
setup_missing() {
	for o in $1; do
		case $o in
		root | fakefs*)
			[ "$(id -u)" = 0 ] || { echo "needs root"; return; } ;;
		esac
		case $o in
		fakefs*)
			[ -c /dev/fuse ] || { echo "no /dev/fuse"; return; }
			command -v fusermount3 >/dev/null || { echo "no fusermount3 (Debian: fuse3)"; return; }
			[ -x "$fakefs" ] || { echo "$fakefs is not built"; return; } ;;
		store=*)
			[ -x "$bindir/tests/t-store" ] || { echo "$bindir/tests/t-store is not built"; return; }
			command -v sqlite3 >/dev/null || { echo "no sqlite3"; return; } ;;
		needs=/*)
			[ -e "${o#needs=}" ] || { echo "no ${o#needs=}"; return; } ;;
		needs=*)
			command -v "${o#needs=}" >/dev/null || { echo "no ${o#needs=}"; return; } ;;
		live | root | lockdown) ;;
		*) echo "unknown option '$o'"; return ;;
		esac
	done
}

# Mount the stand-in at $work/dbg and wait until the mount is there (a
# bounded wait for the event, as tests/e2e/fakefs.sh does).
fakefs_start() {
	mkdir -p "$work/dbg"
	"$fakefs" --features="$top/tests/fixtures/sched-features/v$1.txt" \
		--debug="$top/tests/fixtures/sched-debug-6.18.txt" $2 -f "$work/dbg" 2>>"$tmp/fakefs.err" &
	mnt_pid=$!
	tries=0
	until awk -v m="$work/dbg" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; do
		tries=$((tries + 1))
		if [ $tries -gt 200 ] || ! kill -0 "$mnt_pid" 2>/dev/null; then
			echo "$0: the stand-in did not mount: $(cat "$tmp/fakefs.err")" >&2
			exit 1
		fi
		sleep 0.05
	done
}

# A fresh /tmp/doc for one block, its setup made.
prepare() {
	fakefs_stop
	rm -rf "$work"
	mkdir -p "$work/home" "$work/state"
	ln -s "$top/tests" "$work/tests"
	lockdown=""
	case " $1 " in *" lockdown "*) lockdown=--lockdown ;; esac
	for o in $1; do
		case $o in
		store=*)
			s=${o#store=}
			if [ ! -f "$tmp/stores/$s.db" ]; then
				mkdir -p "$tmp/stores"
				sh "$top/scripts/doc-store.sh" "$s" "$tmp/stores/$s.db" "$bin" ||
					{ echo "$0: cannot build the store '$s'" >&2; exit 1; }
			fi
			cp "$tmp/stores/$s.db" "$work/$s.db" ;;
		fakefs) fakefs_start 6.18 "$lockdown" ;;
		fakefs=*) fakefs_start "${o#fakefs=}" "$lockdown" ;;
		esac
	done
}

# Run a block's commands (file $1, one a line) with options $2; its fenced body on stdout.
run_block() {
	db=""
	for o in $2; do case $o in store=*) db="$work/${o#store=}.db" ;; esac; done
	buf=""
	# stdbuf preloads its library, which ASan (make check SANITIZE=1) wants
	# after its own runtime: tell it that this order is meant
	if command -v stdbuf >/dev/null; then
		buf="stdbuf -oL"
		case ${ASAN_OPTIONS:-} in
		*verify_asan_link_order*) ;;
		*) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" ;;
		esac
	fi
	to=""
	command -v timeout >/dev/null && to="timeout 300"
	echo '```'
	while IFS= read -r c; do
		printf '$ %s\n' "$c"
		cmd=$(printf '%s\n' "$c" | sed "s|/tmp/doc|$work|g")
		(
			cd "$work" || exit 1
			unset WAKEBENCH_DB WAKEBENCH_ROOT XDG_DATA_HOME XDG_CACHE_HOME COLUMNS
			[ -n "$db" ] && export WAKEBENCH_DB="$db"
			PATH="$bindir:$PATH" HOME="$work/home" WAKEBENCH_STATE_DIR="$work/state" \
				TZ=UTC LC_ALL=C $to $buf sh -c "$cmd" </dev/null >"$tmp/out" 2>&1
			rc=$?
			sed -e "s|$work/home|~|g" -e "s|$work|/tmp/doc|g" -e "s|$bindir/wakebench|wakebench|g" \
				"$tmp/out"
			[ -s "$tmp/out" ] && [ "$(tail -c 1 "$tmp/out" | od -An -c | tr -d ' ')" != '\n' ] && echo
			[ $rc = 0 ] || echo "(exit $rc)"
		)
	done <"$1"
	echo '```'
}

# What a live block is compared on: the text without its numbers. Every UUID
# and number becomes U and N, every word made of numbers and signs alone
# (-12.3%, [N, #N,#N, <N, a '-' for no value) one N, runs of N one N, blank
# runs one blank, leading blanks dropped; and what the machine's speed or
# state decides is dropped: warnings (noise, load, too few values), the
# environment line's values, the words of a verdict and of ab's interaction
# line, the values of an evidence line (a line that starts with a metric's
# registry name), the unit a time picked for its size ("1.00 s" or "999 ms": N),
# an arm's "(noisy)", and what follows the first number of
# an effect or verdict line ("NO_DELAY_DEQUEUE: bogo ops/s (real time) ~",
# "ctxsw/op voluntary ~"), as the data decide whether a verdict is
# inconclusive, an arm noisy or an effect n/a.
normalise() {
	sed -E -e 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/U/g' \
		-e 's/[0-9]+([.][0-9]+)?(e[-+]?[0-9]+)?/N/g' \
		-e 's/N (ns|us|ms|s)([^a-zA-Z0-9]|$)/N\2/g' "$1" |
		awk '
		/warning: / { next }
		/^environment: kernel / { print "environment: kernel"; next }
		/^verdict / { sub(/:.*/, ":"); print; next }
		/^interaction \(/ { sub(/\): .*/, "):"); print; next }
		{
			n = split($0, t, /[ \t]+/); out = ""; prev = ""; first = ""
			for (i = 1; i <= n; i++) {
				w = t[i]
				if (w == "") continue
				if (first == "") first = w
				if (w ~ /^[-+#N.,%\/:()<>=~\[\]]+$/ && (w ~ /N/ || w == "-")) w = "N"
				if (w == "N" && prev == "N") continue
				prev = w
				out = out (out == "" ? "" : " ") w
			}
			if (first ~ /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/) out = first " ~"
			gsub(/ \(noisy\)/, "", out)
			# an effect or verdict line: its words after the first number
			if (out ~ /Wilcoxon|n\/a: / || first ~ /^[A-Z][A-Z0-9_]*:$/)
				sub(/ (N|n\/a:) .*/, " ~", out)
			print out
		}'
}

# Split FILE into a skeleton (each block's body replaced by @@EXAMPLE N@@)
# and, per block N, N.opts, N.cmds, N.old (the body as it is) and N.line.
split_file() {
	rm -rf "$tmp/f"
	mkdir -p "$tmp/f"
	awk -v d="$tmp/f" '
	function flush_header() {
		print opts > (d "/" n ".opts"); close(d "/" n ".opts")
		print start > (d "/" n ".line"); close(d "/" n ".line")
		printf "" > (d "/" n ".old")
	}
	state == 0 && /^<!-- example( [^:]*)?:/ {
		n++
		start = NR
		h = $0
		sub(/^<!-- example ?/, "", h)
		opts = substr(h, 1, index(h, ":") - 1)
		rest = substr(h, index(h, ":") + 1)
		sub(/^ +/, "", rest)
		print
		printf "" > (d "/" n ".cmds")
		if (rest ~ /-->$/) {
			sub(/ *-->$/, "", rest)
			print rest > (d "/" n ".cmds")
			flush_header(); state = 2
		} else {
			if (rest != "") print rest > (d "/" n ".cmds")
			state = 1
		}
		next
	}
	state == 1 {
		print
		if ($0 ~ /^-->$/) { flush_header(); state = 2 }
		else print > (d "/" n ".cmds")
		next
	}
	state == 2 && /^<!-- \/example -->$/ {
		close(d "/" n ".cmds"); close(d "/" n ".old")
		print "@@EXAMPLE " n "@@"
		print
		state = 0
		next
	}
	state == 2 { print > (d "/" n ".old"); next }
	{ print }
	END {
		if (state != 0) { print "unterminated example block " n > "/dev/stderr"; exit 1 }
		print n + 0 > (d "/count")
	}' "$1" >"$tmp/f/skel"
}

# --check: transcripts ('$ ' after an opening fence) outside example blocks
# and not marked as recorded, one "not ok" line each.
lint_file() {
	awk -v f="$2" '
	/^<!-- example( [^:]*)?:/ { inex = 1 }
	/^<!-- \/example -->$/ { inex = 0; next }
	inex { next }
	fence && /^\$ / && prev !~ /^<!-- recorded: / {
		printf "not ok\t%s:%d %s\ta transcript outside an example block (make it one, or mark it <!-- recorded: why -->)\n", f, NR - 1, $0
	}
	{ fence = 0 }
	/^```/ { if (!open) { fence = 1; prev = last } open = !open; next }
	NF { last = $0 }' "$1"
}

rc=0
for file in "$@"; do
	if [ $check = 1 ]; then
		lint_file "$file" "${file#"$top"/}" >"$tmp/lint"
		cat "$tmp/lint"
		[ -s "$tmp/lint" ] && rc=1
	fi
	split_file "$file" || { echo "$0: $file: an example block has no <!-- /example -->" >&2; exit 1; }
	count=$(cat "$tmp/f/count")
	[ "$count" -gt 0 ] || continue
	rel=${file#"$top"/}
	i=1
	while [ $i -le "$count" ]; do
		b="$tmp/f/$i"
		opts=$(cat "$b.opts")
		label="$rel:$(cat "$b.line") $(head -n 1 "$b.cmds")"
		cp "$b.old" "$b.use"
		why=$(setup_missing "$opts")
		if [ -n "$why" ]; then
			if [ $check = 1 ]; then
				printf 'skip\t%s\t%s\n' "$label" "$why"
			else
				echo "$0: $label: left as it is: $why" >&2
			fi
			i=$((i + 1))
			continue
		fi
		case " $opts " in
		*" live "*)
			# a measurement can fail on a loaded machine (a sample that does
			# not stop in time): up to three runs before it differs
			normalise "$b.old" >"$b.old.n"
			runs=0 same=1
			while [ $same != 0 ] && [ $runs -lt 3 ]; do
				runs=$((runs + 1))
				prepare "$opts"
				run_block "$b.cmds" "$opts" >"$b.new"
				fakefs_stop
				normalise "$b.new" >"$b.new.n"
				cmp -s "$b.old.n" "$b.new.n"
				same=$?
			done
			old="$b.old.n" new="$b.new.n" ;;
		*)
			prepare "$opts"
			run_block "$b.cmds" "$opts" >"$b.new"
			fakefs_stop
			cmp -s "$b.old" "$b.new"
			same=$? old="$b.old" new="$b.new" ;;
		esac
		if [ $check = 1 ]; then
			if [ $same = 0 ]; then
				printf 'ok\t%s\t\n' "$label"
			else
				printf 'not ok\t%s\tdiffers from what the binary prints (make docs)\n' "$label"
				diff -u "$old" "$new" | sed "s|^|# |" >&2
				rc=1
			fi
		elif [ $same != 0 ]; then
			cp "$b.new" "$b.use"
		fi
		i=$((i + 1))
	done
	if [ $check = 0 ]; then
		awk -v d="$tmp/f" '
		/^@@EXAMPLE [0-9]+@@$/ {
			k = $0
			gsub(/[^0-9]/, "", k)
			f = d "/" k ".use"
			while ((getline l < f) > 0) print l
			close(f)
			next
		}
		{ print }' "$tmp/f/skel" >"$tmp/f/result"
		cmp -s "$tmp/f/result" "$file" || cp "$tmp/f/result" "$file"
	fi
done
exit $rc
