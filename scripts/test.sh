#!/usr/bin/env bash
# Sets up, builds both configurations (workbench with GUI; GPU server without Qt)
# and runs every test. GPU tests (ctest label gpu) skip cleanly without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
cmake --preset dev >/dev/null
cmake --build --preset dev -j "$jobs"
ctest --preset dev -j "$jobs" --timeout 600
# The server configuration: core + core/cuda + tilescope-run, no Qt.
cmake --preset server >/dev/null
cmake --build --preset server -j "$jobs"
ctest --preset server -j "$jobs" --timeout 600
