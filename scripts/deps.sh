#!/bin/sh
# deps.sh: install the Debian packages wakebench needs, if any are missing.
#   deps.sh build   what building needs
#   deps.sh test    what building and every test need
#   deps.sh lava    what the farm tests (t7xxx) need besides 'test', lava-dispatcher included
# As root it runs apt-get; otherwise it prints the exact command and fails.
set -eu

what=${1:-build}
arch=$(dpkg --print-architecture 2>/dev/null || echo unknown)

pkgs="gcc make pkg-config libc6-dev libsqlite3-dev libjson-c-dev uuid-dev libgsl-dev libbpf-dev zlib1g-dev libssl-dev"
if [ "$what" = test ]; then
	pkgs="$pkgs libcmocka-dev libfuse3-dev fuse3 perl jq python3 strace procps util-linux sqlite3 busybox-static cpio"
	case "$arch" in
	amd64) pkgs="$pkgs qemu-system-x86" ;;
	arm64) pkgs="$pkgs qemu-system-arm" ;;
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

missing=""
for p in $pkgs; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

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
