#!/usr/bin/env bash
# What a bare GPU host lacks beyond ../shared/tools/device-deps.sh: RE2 (every
# regular expression of core, docs/security.md "Denial of service") and bubblewrap (the sandbox of Python
# kernels and of triage problems), unpacked into DIR/extra (default
# .device-deps/extra) with a relocatable re2.pc. They stay out of DIR/usr on
# purpose: a package's include folder there would also put that folder's
# nlohmann-json ahead of the host's for the targets that use it, and objects of
# two json versions do not link. scripts/gpu-build.sh finds them there.
# Usage: scripts/device-extra-deps.sh [DIR]
set -euo pipefail
dir=${1:-.device-deps}/extra
mkdir -p "$dir/debs"
(cd "$dir/debs" && apt-get download libre2-dev libre2-9 bubblewrap >/dev/null 2>&1) || {
  apt-get update >/dev/null 2>&1; (cd "$dir/debs" && apt-get download libre2-dev libre2-9 bubblewrap >/dev/null)
}
for d in "$dir"/debs/*.deb; do dpkg-deb -x "$d" "$dir"; done
rm -rf "$dir/debs" "$dir/usr/share/doc" "$dir/usr/share/man"
pc="$dir/usr/lib/x86_64-linux-gnu/pkgconfig/re2.pc"
sed -i -e 's|^includedir=.*|includedir=${pcfiledir}/../../../include|' \
  -e 's|^libdir=.*|libdir=${pcfiledir}/..|' "$pc"
du -sh "$dir" | sed 's/^/device extra deps: /'
