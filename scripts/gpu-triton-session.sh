#!/usr/bin/env bash
# On the GPU host (python3 with Triton and PyTorch, ncu): build tilescope-run and the
# test binaries, run the Triton and TileLang zoo tests (ctest label gpu|cuda), the
# timing oracles of the Triton matmul (bench/triton_matmul.py: do_bench, ncu, cuBLAS)
# and record the Triton sample session. Logs, figures and reports go to $OUT (or
# ./gpu-out): build.log, ctest.log, triton_matmul.json/.log, triton_session.json,
# reports.tgz. Each step carries on after a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out/reports"
export LD_LIBRARY_PATH=$PWD/.device-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import triton, torch; print("triton", triton.__version__, "torch", torch.__version__)'; } > "$out/gpu.txt" 2>&1
bash scripts/gpu-build.sh tilescope-run tilescope_gpu_tests tilescope_cuda_tests > "$out/build.log" 2>&1 \
  || { tail -40 "$out/build.log"; exit 1; }
echo "build ok"
export TILESCOPE_ZOO_REPORT_DIR=$out/reports
# The zoo's Triton and TileLang configs (several at once: their findings, not their timings, are checked),
# and the CPU tests of the Triton compile path.
( cd build-gpu && ctest -L "gpu|cuda" -R "triton|tilelang|Triton|TileLang" -E "TritonTiming" -j "${JOBS:-4}" \
    --output-on-failure --timeout 300 ) > "$out/ctest.log" 2>&1
# Alone on the GPU: the timing oracles.
( cd build-gpu && ctest -R TritonTiming --output-on-failure --timeout 300 ) >> "$out/ctest.log" 2>&1
grep -E "tests passed|tests failed|\(Failed\)|\(SEGFAULT\)|Timeout|Not Run" "$out/ctest.log" | head -40
cp "$out/reports/triton_matmul.json" "$out/reports/triton_matmul.log" "$out/" 2>/dev/null
cat "$out/triton_matmul.log" 2>/dev/null | grep -v "^ *$" | head -12
# The Triton sample session (resources/sample/triton_session.json).
s=$(date +%s.%N)
build-gpu/app/tilescope-run diagnose kernels/triton/add_bug_store_no_mask.tscfg.json -o "$out/reports/triton_session_full.json" \
  > "$out/reports/diagnose.log" 2>&1
echo "diagnose exit $? in $(python3 -c "print(round($(date +%s.%N) - $s, 1))") s"
python3 tools/shrink_report.py "$out/reports/triton_session_full.json" "$out/triton_session.json" 96
tar czf "$out/reports.tgz" -C "$out" reports && rm -rf "$out/reports"
