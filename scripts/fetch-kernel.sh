#!/bin/sh
# fetch-kernel.sh: get a Debian kernel image to boot with `wakebench vm`,
# without installing it: `apt-get download` the linux-image-*-unsigned
# package from the configured Debian sources and unpack only its /boot into a
# cache outside the source tree. Prints the path of the kernel image.
#
#   scripts/fetch-kernel.sh 6.1     newest linux-image-6.1.<...>-ARCH-unsigned known to apt
#   scripts/fetch-kernel.sh 6.12    the same for 6.12 (bookworm-backports must be enabled)
#   scripts/fetch-kernel.sh linux-image-6.1.0-57-amd64-unsigned    exactly this package
#
# Cache: $WAKEBENCH_KERNEL_CACHE, default ${XDG_CACHE_HOME:-$HOME/.cache}/wakebench/kernels.
# Exit status: 0 and the image path on stdout; 1 when no package matches or
# the download fails (the reason on stderr).
set -eu

want=${1:?usage: fetch-kernel.sh VERSION|PACKAGE}
cache=${WAKEBENCH_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wakebench/kernels}
arch=$(dpkg --print-architecture)

case "$want" in
linux-image-*) pkg=$want ;;
*)
	# Version prefix: the plain flavour of this architecture (not -cloud or -rt).
	re=$(printf '%s' "$want" | sed 's/\./\\./g')
	pkg=$(apt-cache search --names-only "^linux-image-${re}[.][0-9][^ ]*-${arch}-unsigned\$" 2>/dev/null |
		awk '{print $1}' | grep -v -e '-cloud-' -e '-rt-' | sort -V | tail -n 1)
	if [ -z "$pkg" ]; then
		echo "fetch-kernel: no linux-image-${want}.*-${arch}-unsigned package known to apt" >&2
		echo "fetch-kernel: run 'apt-get update'; for 6.12 on bookworm add bookworm-backports to the Suites of the Debian source entry" >&2
		exit 1
	fi
	;;
esac

dir="$cache/$pkg"
image=$(ls "$dir"/boot/vmlinuz-* 2>/dev/null | head -n 1 || true)
if [ -n "$image" ] && [ -s "$image" ]; then
	echo "$image"
	exit 0
fi

mkdir -p "$cache/debs"
tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
# apt-get download writes into the current directory.
if ! (cd "$tmp" && apt-get download -q "$pkg" >&2); then
	echo "fetch-kernel: cannot download '$pkg'" >&2
	exit 1
fi
deb=$(ls "$tmp"/*.deb | head -n 1)
mkdir -p "$tmp/x"
# Only /boot: the image and its config (dpkg -x would unpack every module too).
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/x" ./boot
mv "$deb" "$cache/debs/"
rm -rf "$dir"
mkdir -p "$dir"
mv "$tmp/x/boot" "$dir/boot"
ls "$dir"/boot/vmlinuz-* | head -n 1
