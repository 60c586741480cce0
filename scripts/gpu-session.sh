#!/usr/bin/env bash
# On the GPU host: build the server configuration, run the CUDA and GPU tests,
# keep every zoo report (the sample session), and time the benchmarks.
# Logs and reports go to $OUT (or ./gpu-out). Each step carries on after a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out/reports"
export LD_LIBRARY_PATH=$PWD/.device-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
bash scripts/gpu-build.sh tilescope-run tilescope_gpu_tests tilescope_cuda_tests tilescope_unit_tests ${BENCH:-} > "$out/build.log" 2>&1 \
  || { tail -50 "$out/build.log"; exit 1; }
echo "build ok"
export TILESCOPE_ZOO_REPORT_DIR=$out/reports
( cd build-gpu && ctest -L "${LABELS:-gpu|cuda}" ${CTEST_ARGS:-} --output-on-failure --timeout 300 ) > "$out/ctest.log" 2>&1
grep -E "tests passed|tests failed|\(Failed\)|\(SEGFAULT\)|Timeout|\*\*\*" "$out/ctest.log" | head -60
