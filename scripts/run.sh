#!/usr/bin/env bash
# Sets up, builds and starts the workbench. With no argument it opens the bundled
# sample session (recorded on a real GPU); pass a config or a report to open it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# After scripts/test.sh, its build (the ci preset: dev with warnings as errors)
# is reused rather than a second tree built from nothing.
preset=dev
[ -f build/ci/CMakeCache.txt ] && preset=ci
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" --target tilescope tilescope-run
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ -z "${QT_QPA_PLATFORM:-}" ]; then
  echo "no display found: set DISPLAY, or run the workbench in a virtual one with: xvfb-run -a scripts/run.sh" >&2
  echo "(reports render without a display too: ./build/$preset/app/tilescope --export resources/sample/session.json out.html)" >&2
  exit 1
fi
exec "./build/$preset/app/tilescope" "$@"
