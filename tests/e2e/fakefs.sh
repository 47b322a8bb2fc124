# fakefs.sh: start and stop wakebench-fakefs, the FUSE stand-in for the
# kernel's sched debugfs files (sourced after lib.sh).
#
#   fakefs_start DIR [fakefs options]   mount at $TMP/DIR, wait until mounted;
#                                        unmounted on every exit path (at_exit)
#   fakefs_stop DIR                     unmount now
#   fakefs_features DIR                 the current sched/features line
#
# Options: --features=FILE (default: the 6.18 fixture), --debug=FILE (default:
# the 6.18 sched/debug fixture), --lockdown, --readonly, --absent, --log=FILE.
# The whole test file is skipped (TAP) only when /dev/fuse is missing.

: "${WAKEBENCH_FAKEFS:=$WAKEBENCH_SRC/build/tests/wakebench-fakefs}"

fakefs_require() {
	[ -c /dev/fuse ] || skip_all "/dev/fuse is missing: the FUSE stand-in cannot run here"
	command -v fusermount3 >/dev/null 2>&1 || skip_all "fusermount3 is missing (Debian package fuse3)"
	[ -x "$WAKEBENCH_FAKEFS" ] || { echo "Bail out! $WAKEBENCH_FAKEFS is not built (make build/tests/wakebench-fakefs)"; exit 1; }
}

_fakefs_mounted() {
	awk -v m="$1" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo
}

fakefs_start() {
	_d="$TMP/$1"
	shift
	fakefs_require
	mkdir -p "$_d"
	"$WAKEBENCH_FAKEFS" --features="$FIXTURES/sched-features/v6.18.txt" \
		--debug="$FIXTURES/sched-debug-6.18.txt" "$@" -f "$_d" 2>>"$TMP/fakefs.err" &
	_pid=$!
	eval "_fakefs_pid_$(basename "$_d" | tr -c 'A-Za-z0-9_\n' _)=$_pid"
	at_exit "fakefs_stop $(basename "$_d")"
	# until it is mounted, or the daemon gave up (it exits when it cannot
	# mount); the count only catches a daemon that hangs (5 minutes and more)
	_i=0
	while ! _fakefs_mounted "$_d"; do
		_i=$((_i + 1))
		if ! kill -0 "$_pid" 2>/dev/null || [ "$_i" -gt 6000 ]; then
			_fakefs_mounted "$_d" && break
			echo "Bail out! wakebench-fakefs did not mount at $_d: $(cat "$TMP/fakefs.err")"
			exit 1
		fi
		sleep 0.05
	done
}

fakefs_stop() {
	_d="$TMP/$1"
	_v="_fakefs_pid_$(echo "$1" | tr -c 'A-Za-z0-9_\n' _)"
	eval "_p=\${$_v:-}"
	if _fakefs_mounted "$_d"; then
		fusermount3 -u "$_d" 2>/dev/null || fusermount3 -uz "$_d" 2>/dev/null
	fi
	if [ -n "$_p" ]; then
		# unmounted, it exits by itself; if not, it must not outlive the test
		_fakefs_mounted "$_d" && kill "$_p" 2>/dev/null
		wait "$_p" 2>/dev/null
		eval "$_v="
	fi
	return 0
}

fakefs_features() {
	cat "$TMP/$1/sched/features"
}
