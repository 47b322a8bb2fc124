# lib.sh: TAP helpers for wakebench's end-to-end tests (sourced).
#
#   . "$(dirname "$0")/lib.sh"
#   plan 3             (or no_plan and done_testing at the end)
#   ok "$cond" "name"; is "$got" "$want" "name"; like "$got" "regex" "name"
#   skip_all "reason"  (TAP skip of the whole file; exit 0)
#   with_kernel_mounts (first thing: rerun the file where debugfs and tracefs are mounted)
#
# $WAKEBENCH is the binary under test (make check sets it); every test gets a
# private temporary directory $TMP (removed on exit) and a private store
# $WAKEBENCH_DB inside it, so tests never touch the user's results.

set -u
: "${WAKEBENCH:=$(cd "$(dirname "$0")/../.." && pwd)/build/wakebench}"
: "${WAKEBENCH_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
FIXTURES="$WAKEBENCH_SRC/tests/fixtures"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/wakebench-test.XXXXXX")
export WAKEBENCH_DB="$TMP/results.db"
export WAKEBENCH_STATE_DIR="$TMP/state"
_tap_n=0
_tap_fail=0
_tap_cleanup_hooks=""

at_exit() { _tap_cleanup_hooks="$1; $_tap_cleanup_hooks"; }
_tap_exit() {
	eval "$_tap_cleanup_hooks"
	rm -rf "$TMP"
}
trap _tap_exit EXIT
trap 'exit 130' INT TERM

wb() { "$WAKEBENCH" "$@"; }

# Numbers as wakebench writes them for people (src/util/number.h), for like():
# NUM four significant digits, the whole part grouped by threes with a space,
# no exponent ("1 252 000", "0.1283", "98"); TIME one with its unit ("38.04 ms").
NUM='-?[0-9]{1,3}( [0-9]{3})*(\.[0-9]+)?'
TIME="$NUM (ns|us|ms|s)"

# A test that reads the kernel's debugfs or tracefs prepares them itself: as
# root it reruns in a private mount namespace with both mounted there, so it
# never depends on what the host (or an earlier run) mounted and never
# changes the host's mounts. Not root, or where they cannot be mounted, it
# goes on as it is and the test deals with what is missing. Call it first.
with_kernel_mounts() {
	[ -n "${WB_TEST_KERNEL_MOUNTS:-}" ] && return 0
	[ "$(id -u)" = 0 ] && command -v unshare >/dev/null || return 0
	rm -rf "$TMP"
	trap - EXIT
	WB_TEST_KERNEL_MOUNTS=1 exec unshare -m --propagation private sh -c '
		mountpoint -q /sys/kernel/debug ||
			mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
		mountpoint -q /sys/kernel/tracing ||
			mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
		exec sh "$0"' "$0"
}
plan() { echo "1..$1"; }
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
done_testing() { echo "1..$_tap_n"; [ "$_tap_fail" -eq 0 ]; }

_result() {
	_tap_n=$((_tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $_tap_n - $2"
	else
		_tap_fail=$((_tap_fail + 1))
		echo "not ok $_tap_n - $2"
	fi
}
# Failure details go to stderr, which prove shows even when it is not verbose:
# ok "COMMAND" prints the command that was false, as expanded (its values);
# ok 0/1 is for a result the test computed, which then says why with diag.
ok() { # ok "command string or 0/1" "name"
	if [ "$1" = 0 ] || [ "$1" = 1 ]; then _result "$1" "$2"; return; fi
	if eval "$1" >/dev/null 2>&1; then _result 0 "$2"; else
		_result 1 "$2"; printf '#   false: %s\n' "$1" >&2; fi
}
is() {
	if [ "$1" = "$2" ]; then _result 0 "$3"; else
		_result 1 "$3"; { echo "#   got:  '$1'"; echo "#   want: '$2'"; } >&2; fi
}
like() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then _result 0 "$3"; else
		_result 1 "$3"
		{ printf '%s\n' "$1" | head -20 | sed 's/^/#   got: /'; echo "#   want /$2/"; } >&2
	fi
}
unlike() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		_result 1 "$3"; printf '%s\n' "$1" | head -20 | sed 's/^/#   got: /' >&2
	else _result 0 "$3"; fi
}
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n # SKIP $1"; }
diag() { printf '%s\n' "$*" | sed 's/^/# /' >&2; }

# As an unprivileged user: nobody when the tests run as root (setpriv), the
# user running them otherwise. unprivileged runs a command so; it goes
# through env, so that the command is executed by a process that holds no
# capability (setpriv itself still does when it executes), exactly as that
# user would. A clone under a 0700 directory (root's home, a mktemp -d
# directory) is out of nobody's reach, so unprivileged_setup copies
# $WAKEBENCH into a directory of its own that nobody can reach and sets
# UWAKEBENCH to the copy (removed on exit); where that cannot be done it
# returns 1 with the exact reason in UWHY, for skip or skip_all.
unprivileged() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups env "$@"
	else
		"$@"
	fi
}
unprivileged_setup() {
	UWHY="" UWAKEBENCH=""
	if [ "$(id -u)" != 0 ]; then
		UWAKEBENCH=$WAKEBENCH
		return 0
	fi
	if ! command -v setpriv >/dev/null 2>&1; then
		UWHY="setpriv is not installed (util-linux): root cannot become nobody"
		return 1
	fi
	for _u_base in "${TMPDIR:-/tmp}" /tmp /var/tmp /dev/shm; do
		_u_dir=$(mktemp -d "$_u_base/wakebench-nobody.XXXXXX" 2>/dev/null) || continue
		if chmod 0755 "$_u_dir" && cp "$WAKEBENCH" "$_u_dir/wakebench" &&
			chmod 0755 "$_u_dir/wakebench" &&
			_u_err=$(unprivileged "$_u_dir/wakebench" --version 2>&1 >/dev/null); then
			at_exit "rm -rf '$_u_dir'"
			UWAKEBENCH=$_u_dir/wakebench
			return 0
		fi
		UWHY="${UWHY:+$UWHY; }nobody cannot run a copy of '$WAKEBENCH' in '$_u_dir'${_u_err:+ ($(printf '%s' "$_u_err" | head -n 1))}"
		rm -rf "$_u_dir"
		_u_err=""
	done
	UWHY=${UWHY:-"no temporary directory nobody can reach"}
	return 1
}

# Run a command capturing stdout, stderr and status into OUT, ERR, RC.
run_cmd() {
	"$@" >"$TMP/.out" 2>"$TMP/.err"
	RC=$?
	OUT=$(cat "$TMP/.out")
	ERR=$(cat "$TMP/.err")
}
# Which of the given pids still exist: " pid(comm)" for each. A run's tasks
# are reaped by wakebench (its child subreaper), so a zombie counts too;
# except under qemu-user (WAKEBENCH_EMULATOR, set by make check-arm64),
# which refuses PR_SET_CHILD_SUBREAPER: there wakebench waits until every
# task has exited and init reaps them, so init's zombies do not count.
alive() {
	for k in $1; do
		[ -d /proc/$k ] || continue
		if [ -n "${WAKEBENCH_EMULATOR:-}" ]; then
			st=$(sed 's/.*) //' /proc/$k/stat 2>/dev/null | cut -d' ' -f1,2)
			case "$st" in "Z 1" | "") continue ;; esac
		fi
		printf ' %s(%s)' "$k" "$(cat /proc/$k/comm 2>/dev/null)"
	done
}
# The wakebench processes this test started (their workload tasks included)
# that still exist: those running the binary under test whose environment
# holds this test's own WAKEBENCH_DB, so that the tests running beside it
# (make check's parallel lane) never count.
own_wakebench_pids() {
	_o_exe=$(readlink -f "$WAKEBENCH")
	for _o_p in /proc/[0-9]*; do
		[ "$(readlink "$_o_p/exe" 2>/dev/null)" = "$_o_exe" ] || continue
		tr '\0' '\n' <"$_o_p/environ" 2>/dev/null | grep -qxF "WAKEBENCH_DB=$WAKEBENCH_DB" &&
			echo "${_o_p#/proc/}"
	done
}
# Descendants of a process (pids, children before grandchildren), via /proc
# (no pgrep needed): one snapshot of every task's parent (the 4th field of
# /proc/PID/stat, counted after the ") " that ends the command name, which
# may hold spaces and parentheses), so that it costs two processes however
# many tasks the machine runs. A task that exits meanwhile is left out.
descendants() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$1" '
		{
			i = 0
			while ((j = index(substr($0, i + 1), ") ")) > 0) i += j
			split(substr($0, i + 2), f, " ")
			kids[f[2]] = kids[f[2]] " " $1
		}
		END {
			n = 1; q[1] = root
			for (k = 1; k <= n; k++) {
				m = split(kids[q[k]], c, " ")
				for (x = 1; x <= m; x++) { print c[x]; q[++n] = c[x] }
			}
		}'
}
# wait_running PID OUT PATTERN: wait for events, not for time: until OUT has a
# line matching PATTERN (e.g. '^sample 2/10000') and PID has descendants, or
# PID is gone; prints the descendants (empty when PID ended first).
wait_running() {
	_w_kids=""
	while kill -0 "$1" 2>/dev/null; do
		if grep -q "$3" "$2" 2>/dev/null; then
			_w_kids=$(descendants "$1")
			[ -n "$_w_kids" ] && break
		fi
		sleep 0.1
	done
	printf '%s\n' "$_w_kids"
}
# wait_boot PID IMAGE: wait for the qemu below PID that boots IMAGE (its
# command line has "-kernel IMAGE"; vm's earlier children, qemu -version and
# the loader's --list, do not), or for PID to end; prints that qemu's pid
# (empty when PID ended first).
wait_boot() {
	_b_pid=""
	while [ -z "$_b_pid" ] && kill -0 "$1" 2>/dev/null; do
		for _b_k in $(descendants "$1"); do
			tr '\0' ' ' <"/proc/$_b_k/cmdline" 2>/dev/null | grep -q -- "-kernel $2 " &&
				_b_pid=$_b_k
		done
		[ -n "$_b_pid" ] || sleep 0.1
	done
	printf '%s\n' "$_b_pid"
}
