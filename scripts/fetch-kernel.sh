#!/bin/sh
# fetch-kernel.sh: get a Debian kernel image to boot with `wakebench vm`,
# without installing it: `apt-get download` the linux-image-*-unsigned
# package from the configured Debian sources and unpack only its /boot into a
# cache outside the source tree. Prints the path of the kernel image.
#
#   scripts/fetch-kernel.sh 6.1              newest linux-image-6.1.<...>-ARCH-unsigned known to apt
#   scripts/fetch-kernel.sh 6.12             the same for 6.12 (from bookworm-backports)
#   scripts/fetch-kernel.sh 6.1 arm64        another flavour: amd64, arm64, arm64-16k
#   scripts/fetch-kernel.sh 6.12 arm64-16k   (the Pi 5's 16 KiB pages)
#   scripts/fetch-kernel.sh linux-image-6.1.0-57-amd64-unsigned    exactly this package
#
# The flavour defaults to this machine's architecture; an arm64 flavour on
# another machine needs dpkg's arm64 architecture (scripts/deps.sh arm64).
# 6.12 is in bookworm-backports: when no configured source has that suite
# and we are root, a source file for it is added once
# (/etc/apt/sources.list.d/wakebench-backports.sources, the same mirror
# and key as the bookworm entry) and the lists are updated.
#
# Cache: $WAKEBENCH_KERNEL_CACHE, default ${XDG_CACHE_HOME:-$HOME/.cache}/wakebench/kernels.
# Exit status: 0 and the image path on stdout; 1 when no package matches or
# the download fails (the reason on stderr).
set -eu

want=${1:?usage: fetch-kernel.sh VERSION [FLAVOUR] | PACKAGE}
flavour=${2:-$(dpkg --print-architecture)}
cache=${WAKEBENCH_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wakebench/kernels}

case "$flavour" in
amd64) arch=amd64 ;;
arm64 | arm64-16k) arch=arm64 ;;
*)
	echo "fetch-kernel: flavour '$flavour' is not one of amd64, arm64, arm64-16k" >&2
	exit 1
	;;
esac
case "$want" in
linux-image-*-arm64*) arch=arm64 ;;
linux-image-*-amd64*) arch=amd64 ;;
esac
if [ "$arch" != "$(dpkg --print-architecture)" ]; then
	case " $(dpkg --print-foreign-architectures | tr '\n' ' ') " in
	*" $arch "*) ;;
	*)
		echo "fetch-kernel: dpkg has no $arch architecture: run 'scripts/deps.sh arm64'" >&2
		exit 1
		;;
	esac
fi

# bookworm-backports, once, beside the bookworm entry (deb822 or one-line).
have_backports() {
	grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/
}
add_backports() {
	have_backports && return 0
	[ "$(id -u)" -eq 0 ] || return 1
	uri=$(grep -rhs '^URIs:.*debian' /etc/apt/sources.list.d/*.sources | grep -v security |
		head -n 1 | awk '{print $2}')
	[ -n "$uri" ] || uri=$(grep -hs '^deb .*debian.* bookworm ' /etc/apt/sources.list |
		head -n 1 | awk '{print $2}')
	[ -n "$uri" ] || uri=http://deb.debian.org/debian
	echo "fetch-kernel: adding bookworm-backports ($uri) to the apt sources" >&2
	cat >/etc/apt/sources.list.d/wakebench-backports.sources <<EOF
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	apt-get update -q >&2
}

find_pkg() {
	re=$(printf '%s' "$want" | sed 's/\./\\./g')
	# The plain flavour (not -cloud or -rt); the +deb12 backports name too.
	apt-cache search --names-only "^linux-image-${re}[.][0-9][^ ]*-${flavour}-unsigned\$" 2>/dev/null |
		awk '{print $1}' | grep -v -e '-cloud-' -e '-rt-' | sort -V | tail -n 1
}

case "$want" in
linux-image-*) pkg=$want ;;
*)
	pkg=$(find_pkg)
	if [ -z "$pkg" ] && ! have_backports; then
		add_backports || true
		pkg=$(find_pkg)
	fi
	if [ -z "$pkg" ]; then
		echo "fetch-kernel: no linux-image-${want}.*-${flavour}-unsigned package known to apt" >&2
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
chmod 0755 "$tmp"
# apt-get download writes into the current directory.
if ! (cd "$tmp" && apt-get download -q "$pkg:$arch" >&2); then
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
