#!/usr/bin/env bash
# On a bare GPU build host (CUDA, CMake, ninja, g++, no Debian -dev packages, no
# network): build the server configuration with the dependencies unpacked by
# ../shared/tools/device-deps.sh into .device-deps and scripts/device-extra-deps.sh
# into .device-deps/extra (RE2, bubblewrap), carried with the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
deps=$PWD/.device-deps
export LD_LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu:$deps/extra/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export PATH=$deps/extra/usr/bin:$PATH
fe=""
for d in "$deps/cudnn-frontend/include" "$deps"/cudnn-frontend/*/include "$PWD/build-deps/cudnn-frontend/include"; do
  [ -f "$d/cudnn_frontend.h" ] && { fe=$d; break; }
done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DTILESCOPE_BUILD_GUI=OFF \
  -DCMAKE_PREFIX_PATH="$deps/usr;$deps/extra/usr" ${fe:+-DTILESCOPE_CUDNN_FRONTEND_INCLUDE=$fe} >/dev/null
ninja -C build-gpu -j"$(nproc)" "$@"
