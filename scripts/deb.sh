#!/bin/sh
# deb.sh: the Debian packages of wakebench, built from a clean copy of the tree
# (the files git does not ignore).
#   deb.sh build   build-deb/wakebench_VERSION_ARCH.deb for this machine's
#                  architecture and, on amd64, for arm64 (cross, with the
#                  Makefile's cross support); lintian on each: any tag fails,
#                  pedantic and info included
#   deb.sh check   build, then (as root): the amd64 package built again in
#                  another directory must be byte for byte the same; the arm64
#                  binary's segments and a short run under qemu-user; the amd64
#                  package installed into a fresh Debian root (mmdebstrap) and
#                  its debian/tests (autopkgtest) run there
# Installs what it needs (scripts/deps.sh deb, and deb-arm64 for the cross build).
set -eu
cd "$(dirname "$0")/.."

what=${1:-build}
top=$(pwd)
out=$top/build-deb
arch=$(dpkg --print-architecture)
version=$(dpkg-parsechangelog -SVersion 2>/dev/null || sed -n '1s/.*(\(.*\)).*/\1/p' debian/changelog)

sh scripts/deps.sh deb
[ "$arch" != amd64 ] || sh scripts/deps.sh deb-arm64

# copy DIR: the tree's files (in a git checkout those git does not ignore), nothing built
copy() {
	rm -rf "$1"
	mkdir -p "$1"
	if git rev-parse --git-dir >/dev/null 2>&1; then
		git ls-files -z -co --exclude-standard | tar cf - --null -T - | tar xf - -C "$1"
	else
		tar cf - --exclude='./build*' --exclude=./wakebench . | tar xf - -C "$1"
	fi
}

# package DIR [dpkg-buildpackage options]: build in DIR, the results beside it
package() {
	dir=$1
	shift
	echo "deb.sh: dpkg-buildpackage $* in $dir" >&2
	(cd "$dir" && dpkg-buildpackage -us -uc "$@") >"$dir.log" 2>&1 || {
		tail -40 "$dir.log" >&2
		echo "deb.sh: dpkg-buildpackage $* failed; the whole log: $dir.log" >&2
		exit 1
	}
}

# lint DEB: lintian's tags of every level but experimental; any fails
lint() {
	tags=$(lintian --pedantic --display-info "$1") || [ -n "$tags" ] || {
		echo "deb.sh: lintian could not check $1" >&2
		exit 1
	}
	if [ -n "$tags" ]; then
		printf '%s\n' "$tags" >&2
		echo "deb.sh: lintian has something to say on $1" >&2
		exit 1
	fi
	echo "deb.sh: lintian: nothing on $(basename "$1")" >&2
}

rm -rf "$out"
mkdir -p "$out"
copy "$out/wakebench-$version"
package "$out/wakebench-$version" -b
debs="$out/wakebench_${version}_$arch.deb"
if [ "$arch" = amd64 ]; then
	# -d: the arm64 build dependencies are partly in the cross sysroot, not in dpkg
	copy "$out/arm64/wakebench-$version"
	package "$out/arm64/wakebench-$version" -B -a arm64 -d
	mv "$out/arm64/wakebench_${version}_arm64.deb" "$out/"
	debs="$debs $out/wakebench_${version}_arm64.deb"
fi
for d in $debs; do
	lint "$d"
done

if [ "$what" = check ]; then
	# reproducible: the same source in another directory gives the same bytes
	copy "$out/again/wakebench-$version"
	package "$out/again/wakebench-$version" -b
	a=$(sha256sum <"$out/wakebench_${version}_$arch.deb")
	b=$(sha256sum <"$out/again/wakebench_${version}_$arch.deb")
	if [ "$a" != "$b" ]; then
		echo "deb.sh: two builds differ: $out/wakebench_${version}_$arch.deb and $out/again/" >&2
		exit 1
	fi
	echo "deb.sh: reproducible: two builds in two directories are identical (${a%% *})" >&2
	# the arm64 package's binary: segments aligned for 16 KiB and 64 KiB pages
	# (the Pi 5's kernel), and a short run under qemu-user (GSL from the cross
	# sysroot, the other libraries from multiarch; binfmt_misc is not needed)
	if [ "$arch" = amd64 ]; then
		x=$out/arm64/extracted
		dpkg-deb -x "$out/wakebench_${version}_arm64.deb" "$x"
		align=$(readelf -lW "$x/usr/bin/wakebench" | awk '$1 == "LOAD" { print $NF }' | sort -u)
		for a in $align; do
			[ $((a)) -ge 65536 ] || {
				echo "deb.sh: arm64 LOAD segment aligned to $a, less than 64 KiB" >&2
				exit 1
			}
		done
		WAKEBENCH_DB=$out/arm64/results.db qemu-aarch64-static -L "$(sh scripts/arm64-sysroot.sh --path)" \
			"$x/usr/bin/wakebench" run pipe -j 2 -n 2 -t 200ms --warmup 0 -q >"$out/arm64/run.txt" || {
			cat "$out/arm64/run.txt" >&2
			echo "deb.sh: the arm64 package's wakebench does not run under qemu-user" >&2
			exit 1
		}
		echo "deb.sh: arm64: LOAD segments aligned to $(echo $align), run pipe under qemu-user: ok" >&2
	fi
	# the installed package's tests in a fresh Debian root, with /proc, /sys and
	# /dev mounted into it in a mount namespace of their own (root: mmdebstrap's
	# root mode and chroot)
	if [ "$(id -u)" -ne 0 ]; then
		echo "deb.sh: check needs root (a fresh Debian root and chroot)" >&2
		exit 1
	fi
	mmdebstrap --variant=apt --include=apt-utils --quiet bookworm "$out/root"
	unshare -m --propagation private sh -eu -c '
		root=$1 deb=$2 src=$3 results=$4
		mount -t proc proc "$root/proc"
		mount --rbind /sys "$root/sys"
		mount --rbind /dev "$root/dev"
		autopkgtest -U --output-dir "$results" "$deb" "$src" -- chroot "$root"' _ \
		"$out/root" "$out/wakebench_${version}_$arch.deb" "$out/wakebench-$version" \
		"$out/autopkgtest"
fi
ls -l $debs
