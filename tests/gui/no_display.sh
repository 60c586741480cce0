#!/usr/bin/env bash
# The workbench without a display (a review of the workbench): --help and --version print
# and exit 0; a plain start says what to do in one line and exits 1 instead of
# Qt's abort; --export renders a report without one.
set -uo pipefail
exe=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
nodisplay() { env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM timeout 60 "$exe" "$@"; }
nodisplay --help >"$tmp/help" 2>&1 || { echo "FAIL: --help exited $?"; cat "$tmp/help"; fail=1; }
grep -q "Usage:" "$tmp/help" || { echo "FAIL: --help printed no usage"; fail=1; }
nodisplay --version >"$tmp/version" 2>&1 || { echo "FAIL: --version exited $?"; fail=1; }
nodisplay "$src/resources/sample/session.json" >"$tmp/start" 2>&1
rc=$?
[ "$rc" = 1 ] || { echo "FAIL: a start without a display exited $rc (want 1)"; fail=1; }
grep -q "no display" "$tmp/start" || { echo "FAIL: no message naming the missing display"; cat "$tmp/start"; fail=1; }
grep -qi "abort\|platform plugin" "$tmp/start" && { echo "FAIL: Qt's abort text"; fail=1; }
nodisplay --export "$src/resources/sample/session.json" "$tmp/r.md" >/dev/null 2>&1 \
  || { echo "FAIL: --export without a display"; fail=1; }
[ -s "$tmp/r.md" ] || { echo "FAIL: --export wrote nothing"; fail=1; }
[ "$fail" = 0 ] && echo "no_display: ok"
exit "$fail"
