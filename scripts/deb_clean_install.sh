#!/usr/bin/env bash
# Installs the toposcope .deb on a clean Debian 12 and runs its demo there.
#   scripts/deb_clean_install.sh [BUILD_DIR] [ROOT_DIR]
# Builds the .deb with CPack from BUILD_DIR (default build), makes a minimal Debian 12 (bookworm)
# root with debootstrap in ROOT_DIR (default a temporary directory; an existing one is reused, so a
# second run skips the download), installs the package there with apt-get (which pulls in the
# dependencies the .deb names, and nothing else), and runs `toposcope demo` inside it with chroot.
# It needs root, debootstrap and network access to a Debian mirror (TOPOSCOPE_DEBIAN_MIRROR,
# default http://deb.debian.org/debian), so it is not part of the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:-build}" && pwd)
root=${2:-}
mirror=${TOPOSCOPE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
fail() { echo "deb_clean_install: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap and chroot)"
command -v debootstrap > /dev/null || fail "debootstrap is not installed (apt-get install debootstrap)"
[ -f "$build/CPackConfig.cmake" ] || fail "$build has no CPackConfig.cmake: build toposcope first (scripts/setup.sh)"

work=$(mktemp -d)
cleanup() {
  if [ -n "$root" ] && mountpoint -q "$root/proc"; then umount "$root/proc"; fi
  rm -rf "$work"
  if [ -n "${made_root:-}" ]; then rm -rf "$made_root"; fi
}
trap cleanup EXIT
if [ -z "$root" ]; then
  root=$(mktemp -d /var/tmp/toposcope-debian12.XXXXXX)
  made_root=$root
fi

echo "== building the .deb"
(cd "$work" && cpack --config "$build/CPackConfig.cmake" -B "$work/deb" > "$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack failed"; }
deb=$(ls "$work"/deb/toposcope_*_amd64.deb)
echo "   $(basename "$deb") ($(du -h "$deb" | cut -f1))"

if [ ! -x "$root/usr/bin/apt-get" ]; then
  echo "== debootstrap --variant=minbase bookworm $root"
  debootstrap --variant=minbase bookworm "$root" "$mirror" > "$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log"; fail "debootstrap failed"; }
fi
grep -q '^12' "$root/etc/debian_version" || fail "$root is not Debian 12 ($(cat "$root/etc/debian_version"))"
echo "   Debian $(cat "$root/etc/debian_version"), $(chroot "$root" dpkg-query -W -f='.\n' | wc -l) packages before"

mount -t proc proc "$root/proc"
cp "$deb" "$root/tmp/"
pkg=/tmp/$(basename "$deb")
echo "== apt-get install $pkg (inside the clean root)"
chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get update -qq > "$work/apt.log" 2>&1 ||
  { cat "$work/apt.log"; fail "apt-get update failed"; }
chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" \
  >> "$work/apt.log" 2>&1 || { tail -30 "$work/apt.log"; fail "apt-get could not install the .deb"; }
chroot "$root" dpkg-query -W -f='${Status}\n' toposcope | grep -q "install ok installed" ||
  fail "dpkg does not list toposcope as installed"
echo "   $(chroot "$root" dpkg-query -W -f='.\n' | wc -l) packages after; $(chroot "$root" toposcope --version)"
[ -e "$root/usr/share/man/man1/toposcope.1" ] || [ -e "$root/usr/share/man/man1/toposcope.1.gz" ] ||
  fail "the man page was not installed"

echo "== toposcope demo (inside the clean root)"
start=$(date +%s)
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  toposcope demo --out /tmp/toposcope-demo > "$work/demo.log" 2>&1 || { tail -30 "$work/demo.log"; fail "the demo failed"; }
grep -q "demo finished" "$work/demo.log" || { tail -30 "$work/demo.log"; fail "the demo did not finish"; }
[ -s "$root/tmp/toposcope-demo/report.html" ] || fail "the demo wrote no report.html"
chroot "$root" dpkg -r toposcope > /dev/null 2>&1 || fail "dpkg -r toposcope failed"
[ ! -e "$root/usr/bin/toposcope" ] || fail "dpkg -r left /usr/bin/toposcope behind"
echo "deb_clean_install: ok (installed, demo finished in $(( $(date +%s) - start )) s, removed cleanly)"
