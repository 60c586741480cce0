#!/usr/bin/env bash
# One GPU session for a round's features, in priority order, each step bounded
# in time so that the whole fits one device call (scripts/gpu-session.sh runs
# every GPU test instead). Logs and summaries go to $OUT (few files: the device
# returns at most 8). Steps: build; capture (bench/gpu_capture_programs.sh on
# the Triton and torch.compile programs); the loop's cost
# (bench/gpu_capture_bench.sh: basic counters); chosen GPU tests, serially;
# triage (bench/gpu_triage_bench.sh) with what time is left.
# Usage: scripts/gpu-round.sh [SECONDS_BUDGET]
set -uo pipefail
cd "$(dirname "$0")/.."
budget=${1:-540}
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start))); }
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.device-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader | tee "$out/summary.txt"
s=$(date +%s)
bash scripts/gpu-build.sh tilescope-run tilescope_inject tilescope_gpu_tests > "$out/build.log" 2>&1 \
  || { tail -30 "$out/build.log"; exit 1; }
echo "build $(($(date +%s) - s)) s" | tee -a "$out/summary.txt"

# Capture: the Python programs and the CUDA C++ one (its overhead beside ncu and
# compute-sanitizer; CuPy's replayed bit-exactly last round).
s=$(date +%s)
CAPTURE_ONLY="triton inductor cuda" CAPTURE_OVERHEAD="cuda" timeout $(($(left) / 4)) bash bench/gpu_capture_programs.sh build-gpu "$out" \
  > "$out/capture.log" 2>&1
echo "capture $(($(date +%s) - s)) s" | tee -a "$out/summary.txt"
tail -8 "$out/capture.log" | tee -a "$out/summary.txt"

# The loop's cost with the basic counter set.
s=$(date +%s)
timeout $(($(left) / 3)) bash bench/gpu_capture_bench.sh build-gpu /tmp/bench > "$out/bench.log" 2>&1
echo "bench $(($(date +%s) - s)) s" | tee -a "$out/summary.txt"
tail -8 "$out/bench.log" | tee -a "$out/summary.txt"

# GPU tests that matter this round, one at a time.
s=$(date +%s)
(cd build-gpu && timeout $(($(left) / 4)) ctest -L gpu --output-on-failure --timeout 60 \
  -R "SharedMemoryAbove48KiB|UnderAnotherProfiler|trace_transpose_bug_no_pad|WorkerProtocol.Run|triton_add_bug") \
  > "$out/ctest.log" 2>&1
echo "ctest $(($(date +%s) - s)) s: $(grep -E 'tests passed' "$out/ctest.log")" | tee -a "$out/summary.txt"
grep -E "\(Failed\)|Timeout" "$out/ctest.log" | tee -a "$out/summary.txt"

# Triage with the time that is left.
if [ -f bench/gpu_triage_bench.sh ] && [ "$(left)" -gt 60 ]; then
  s=$(date +%s)
  TRIAGE_BUDGET_S=$(($(left) - 25)) timeout $(($(left) - 10)) bash bench/gpu_triage_bench.sh build-gpu "$out" \
    > "$out/triage.log" 2>&1
  echo "triage $(($(date +%s) - s)) s" | tee -a "$out/summary.txt"
  tail -30 "$out/triage.log" | tee -a "$out/summary.txt"
fi
