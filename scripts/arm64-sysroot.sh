#!/bin/sh
# arm64-sysroot.sh: the arm64 files that Debian's multiarch cannot install
# beside the amd64 ones, unpacked into a sysroot outside the source tree.
# libgsl-dev and libcmocka-dev are not Multi-Arch: same (their arm64
# packages would remove the amd64 ones that the native build and tests
# need) and busybox-static:arm64 would
# replace the host's busybox, so both come from `apt-get download` and
# `dpkg -x` instead, as scripts/fetch-kernel.sh does for kernels. Everything
# else (libc, sqlite3, json-c, ... :arm64) comes from multiarch
# (`scripts/deps.sh arm64`). Prints the sysroot's path.
#
#   scripts/arm64-sysroot.sh          create it if missing, print its path
#   scripts/arm64-sysroot.sh --path   only print where it is (or would be)
#
# Where: $WAKEBENCH_SYSROOT, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/wakebench/sysroot-arm64. A complete
# sysroot has a .complete stamp naming its packages; a changed list rebuilds it.
# Exit status: 0 and the path on stdout; 1 with the reason on stderr.
set -eu

sysroot=${WAKEBENCH_SYSROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/wakebench/sysroot-arm64}
pkgs="libgsl-dev:arm64 libgsl27:arm64 libgslcblas0:arm64 busybox-static:arm64 libcmocka-dev:arm64 libcmocka0:arm64"

if [ "${1:-}" = --path ]; then
	echo "$sysroot"
	exit 0
fi
if [ -f "$sysroot/.complete" ] && [ "$(cat "$sysroot/.complete")" = "$pkgs" ]; then
	echo "$sysroot"
	exit 0
fi
case " $(dpkg --print-foreign-architectures 2>/dev/null | tr '\n' ' ') " in
*" arm64 "*) ;;
*)
	echo "arm64-sysroot: dpkg has no arm64 architecture: run 'scripts/deps.sh arm64'" >&2
	exit 1
	;;
esac

parent=$(dirname "$sysroot")
mkdir -p "$parent"
tmp=$(mktemp -d "$parent/.sysroot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
# apt-get download writes into the current directory; _apt must be able to.
chmod 0755 "$tmp"
# shellcheck disable=SC2086
if ! (cd "$tmp" && apt-get download -q $pkgs >&2); then
	echo "arm64-sysroot: cannot download$(printf ' %s' $pkgs) (run 'apt-get update'?)" >&2
	exit 1
fi
mkdir "$tmp/root"
for deb in "$tmp"/*.deb; do
	dpkg -x "$deb" "$tmp/root"
done
echo "$pkgs" >"$tmp/root/.complete"
rm -rf "$sysroot"
mv "$tmp/root" "$sysroot"
echo "$sysroot"
