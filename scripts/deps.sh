#!/bin/sh
# deps.sh: install the Debian packages wakebench needs, if any are missing.
#   deps.sh build   what building needs
#   deps.sh test    what building and every test need
#   deps.sh fuzz    what building and `make fuzz` need (clang with libFuzzer and the
#                   sanitizer runtimes, which Debian packages apart from clang)
#   deps.sh arm64   what the arm64 cross-build (make CROSS_COMPILE=aarch64-linux-gnu-),
#                   its tests under qemu-user (make check-arm64) and arm64 guests
#                   in `vm` need: adds dpkg's arm64 architecture, then the sysroot
#                   of scripts/arm64-sysroot.sh
#   deps.sh lava    what the farm tests (t7xxx) need besides 'test', lava-dispatcher included
#   deps.sh format  clang-format, for make format-check
#   deps.sh deb     what make deb needs besides 'build': debhelper, lintian, and
#                   for scripts/deb.sh check mmdebstrap and autopkgtest
#   deps.sh deb-arm64  'arm64' plus the arm64 runtime libraries that the arm64
#                   package's dependencies are computed from (dpkg-shlibdeps)
# As root it runs apt-get; otherwise it prints the exact command and fails.
set -eu

what=${1:-build}
arch=$(dpkg --print-architecture 2>/dev/null || echo unknown)

pkgs="gcc make pkg-config libc6-dev libsqlite3-dev libjson-c-dev libyajl-dev libyaml-dev uuid-dev libgsl-dev libbpf-dev zlib1g-dev libssl-dev"
# the BPF tracer's object (clang's BPF target, llvm) and its skeleton (bpftool),
# host tools for native and cross builds alike
pkgs="$pkgs clang llvm bpftool"
if [ "$what" = test ]; then
	pkgs="$pkgs libcmocka-dev libfuse3-dev fuse3 perl jq python3 strace procps util-linux sqlite3 busybox-static cpio"
	# report's tests: xmllint parses its HTML (t8001), headless Chromium renders it (t8004)
	pkgs="$pkgs libxml2-utils chromium"
	# the shell completion's test (t0007) with bash-completion's word splitting
	pkgs="$pkgs bash-completion"
	case "$arch" in
	amd64) pkgs="$pkgs qemu-system-x86" ;;
	arm64) pkgs="$pkgs qemu-system-arm" ;;
	esac
	# the campaign guest's reboots (t6020) and its disk (mkfs.ext4 -d, debugfs)
	pkgs="$pkgs kexec-tools e2fsprogs"
fi
if [ "$what" = fuzz ]; then
	pkgs="$pkgs clang libclang-rt-dev"
fi
# deps.sh format: only clang-format (make format-check), nothing to build
if [ "$what" = format ]; then
	pkgs="clang-format"
fi

if [ "$what" = deb ]; then
	pkgs="$pkgs dpkg-dev debhelper lintian mmdebstrap autopkgtest uidmap"
fi
# deb-arm64 is arm64 and GSL's arm64 runtime, which the sysroot holds but dpkg does not
if [ "$what" = deb-arm64 ]; then
	what=arm64
	pkgs="$pkgs libgsl27:arm64 libgslcblas0:arm64"
fi

# arm64: the cross toolchain, qemu-user to run its binaries here, qemu-system
# for arm64 guests, and the arm64 libraries from Debian's multiarch (what it
# cannot co-install comes from scripts/arm64-sysroot.sh, below).
if [ "$what" = arm64 ]; then
	pkgs="$pkgs gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static qemu-system-arm"
	pkgs="$pkgs perl cpio busybox-static libc6:arm64 libsqlite3-dev:arm64 libjson-c-dev:arm64 libyajl-dev:arm64 libyaml-dev:arm64"
	pkgs="$pkgs uuid-dev:arm64 libbpf-dev:arm64 zlib1g-dev:arm64 libssl-dev:arm64"
	# cmocka's runtime for the arm64 unit tests (its -dev is in the sysroot)
	pkgs="$pkgs libcmocka0:arm64"
	case " $(dpkg --print-foreign-architectures 2>/dev/null | tr '\n' ' ') " in
	*" arm64 "*) ;;
	*)
		if [ "$(id -u)" -ne 0 ]; then
			echo "wakebench: dpkg has no arm64 architecture" >&2
			echo "wakebench: run: sudo dpkg --add-architecture arm64 && sudo apt-get update" >&2
			exit 1
		fi
		echo "wakebench: adding dpkg's arm64 architecture" >&2
		dpkg --add-architecture arm64
		apt-get update -q >&2
		;;
	esac
fi

# deps.sh lava: what the farm tests need besides 'test' (run both): the KCIDB
# schema check (t7001) and a real LAVA job run offline by lava-run (t7004;
# lava-dispatcher is about 210 MB with its dependencies; lava-run is root only).
if [ "$what" = lava ]; then
	pkgs="$pkgs python3 python3-yaml python3-jsonschema busybox-static cpio git lava-dispatcher"
	case "$arch" in
	amd64) pkgs="$pkgs qemu-system-x86" ;;
	esac
fi

# A name without ":ARCH" is wanted for this machine's architecture (or "all"):
# a foreign one of the same name (libcmocka-dev:arm64, say) does not count.
missing=""
for p in $pkgs; do
	case "$p" in
	*:*) want=any ;;
	*) want=$arch ;;
	esac
	found=$(dpkg-query -W -f='${Status} ${Architecture}\n' "$p" 2>/dev/null |
		awk -v w="$want" '/install ok installed/ && (w == "any" || $NF == w || $NF == "all") { print "y" }')
	[ -n "$found" ] || missing="$missing $p"
done
arm64_sysroot() {
	[ "$what" = arm64 ] || return 0
	sh "$(dirname "$0")/arm64-sysroot.sh" >/dev/null
}
if [ -z "$missing" ]; then
	arm64_sysroot
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "wakebench: missing Debian packages:$missing" >&2
	echo "wakebench: run: sudo apt-get update && sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "wakebench: installing missing Debian packages:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >&2
arm64_sysroot
