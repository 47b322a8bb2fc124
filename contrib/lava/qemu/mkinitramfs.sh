#!/bin/sh
# mkinitramfs.sh WAKEBENCH OUT.cpio: the initramfs of a LAVA qemu job:
# wakebench's guest archive (wakebench vm --emit-initramfs: busybox,
# wakebench and its libraries) with this directory's /init instead of vm's.
# One uncompressed cpio newc archive (run as root, for its device nodes):
# LAVA unpacks it with cpio to add its overlay and packs it again, which
# would keep only the first of concatenated archives.
set -eu
wb=${1:?usage: mkinitramfs.sh WAKEBENCH OUT.cpio}
out=${2:?usage: mkinitramfs.sh WAKEBENCH OUT.cpio}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$wb" vm --emit-initramfs "$tmp/base.cpio"
mkdir "$tmp/root"
(cd "$tmp/root" && cpio --quiet -id <"$tmp/base.cpio")
cp "$here/init" "$tmp/root/init"
chmod 0755 "$tmp/root/init"
(cd "$tmp/root" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) >"$out.tmp"
mv "$out.tmp" "$out"
