#!/usr/bin/env bash
# Sets up, builds both configurations (workbench with GUI; GPU server without Qt)
# and runs every test. GPU tests (ctest label gpu) skip cleanly without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
# ccache (when installed) keys on paths relative to the checkout, so a fresh clone
# reuses objects compiled in another one, and the server build reuses the dev build's.
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
# The dev build with warnings as errors and without debug information (the ci
# preset: -g costs about 40 % of the compile time): a warning fails CI.
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$jobs"
ctest --preset ci -j "$jobs" --timeout 600
# The server configuration: core + core/cuda + tilescope-run, no Qt. With the ci
# preset's flags (warnings as errors, no -g) ccache hands it the ci build's
# objects: only the links are new.
cmake --preset server -DCMAKE_COMPILE_WARNING_AS_ERROR=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" >/dev/null
cmake --build --preset server -j "$jobs"
# Its unit tests are the ci build's, object for object: what the server build
# changes is tilescope-run without the GUI beside it (the cli label: the command
# line, exports, the security reproducers) and the GPU tests on a GPU host.
ctest --preset server -j "$jobs" --timeout 600 -L 'cli|gpu'
# The fuzz corpus (seeds and every reproducer) under ASan/UBSan: clang, core and
# the harnesses only (docs/fuzzing.md).
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$jobs"
ctest --preset fuzz -j "$jobs" --timeout 600
