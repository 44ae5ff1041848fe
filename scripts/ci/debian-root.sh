#!/usr/bin/env bash
# debian-root.sh: print the path of a tarball holding a minimal Debian root
# (debootstrap --variant=minbase) from the mirror and suite this machine's apt
# uses. The .debs of the libasound2 runtime library are downloaded into its apt
# cache but not installed, so a run can add them later without the network.
# The tarball is cached under $VOX_CI_CACHE/roots, keyed by a hash of this
# script, the mirror, the suite and debootstrap's version: it is built again
# only when one of them changes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${VOX_CI_CACHE:-/var/cache/vox-ci}/roots
read -r mirror suite < <(node "$here/apt-source.mjs")
dbver=$(dpkg-query -W -f='${Version}' debootstrap)
key=$( { cat "$0"; echo "$mirror $suite $dbver"; } | sha256sum | cut -c1-16)
tarball="$cache/debian-$suite-$key.tar"
if [ -s "$tarball" ]; then
  echo "debian-root: cached $tarball ($suite from $mirror)" >&2
  echo "$tarball"
  exit 0
fi

mkdir -p "$cache"
build=$(mktemp -d "$cache/.build.XXXXXX")
cleanup() {
  for m in dev/pts dev sys proc; do
    mountpoint -q "$build/root/$m" 2>/dev/null && umount -l "$build/root/$m"
  done
  if findmnt -rn -o TARGET | grep -q "^$build/"; then
    echo "debian-root: mounts remain under $build; not deleting it" >&2
  else
    rm -rf --one-file-system "$build"
  fi
}
trap cleanup EXIT
echo "debian-root: debootstrap --variant=minbase $suite from $mirror" >&2
debootstrap --variant=minbase --components=main "$suite" "$build/root" "$mirror" >"$build/debootstrap.log" 2>&1 || {
  tail -30 "$build/debootstrap.log" >&2
  exit 1
}
# Fetch (only) the libasound2 runtime library's packages for the run that has it.
cp /etc/resolv.conf "$build/root/etc/resolv.conf"
mount -t proc proc "$build/root/proc"
chroot "$build/root" apt-get update -qq
chroot "$build/root" apt-get install -y -qq --download-only --no-install-recommends libasound2 >/dev/null
umount "$build/root/proc"
ls "$build/root/var/cache/apt/archives/"libasound2*.deb >&2
tar --numeric-owner -C "$build/root" -cf "$build/root.tar" .
mv "$build/root.tar" "$tarball"
# Older roots of this suite are stale now.
find "$cache" -maxdepth 1 -name "debian-$suite-*.tar" ! -name "$(basename "$tarball")" -delete
echo "$tarball"
