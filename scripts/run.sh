#!/usr/bin/env bash
# Sets up, builds and starts the workbench. With no argument it opens the bundled
# sample session (recorded on a real GPU); pass a config or a report to open it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset dev >/dev/null
cmake --build --preset dev -j "$(nproc)" --target tilescope tilescope-run
exec ./build/dev/app/tilescope "$@"
