#!/usr/bin/env bash
# bench/profiler_sessions.cu on a GPU host: alone on GPU 0, then one process on
# every GPU at once (what a sweep with --jobs N does), so a phase that waits on
# another GPU's profiler shows as a longer median. Usage: bench/profiler_sessions.sh OUT [REPS]
# PB_DEVICES=1 builds and runs bench/profiler_devices.cu instead: every way of
# profiling on 1, 2, 4, ... GPUs at once, a thread or a process per GPU.
set -uo pipefail
out=${1:?OUT}; reps=${2:-8}
mkdir -p "$out"
if [ -n "${PB_DEVICES:-}" ]; then
  nvcc -O2 -std=c++17 -arch=native -o "$out/profiler_devices" "$(dirname "$0")/profiler_devices.cu" -lcuda -lcupti || exit 1
  nvidia-smi -L
  "$out/profiler_devices" "$reps" 2>&1 | tee "$out/devices.txt"
  exit "${PIPESTATUS[0]}"
fi
nvcc -O2 -std=c++17 -arch=native -o "$out/profiler_sessions" "$(dirname "$0")/profiler_sessions.cu" -lcuda -lcupti || exit 1
gpus=$(nvidia-smi -L | wc -l)
if [ -n "${PB_CHURN:-}" ]; then  # the churn modes only, a process each (a crash ends one)
  for m in churn_stream churn_unload churn_none churn_free churn_both; do
    CUDA_VISIBLE_DEVICES=0 PB_MODES=$m "$out/profiler_sessions" "$reps" 2>&1 | tee "$out/$m.txt"
    echo "$m: exit ${PIPESTATUS[0]}"
  done
  exit 0
fi
echo "== alone (GPU 0 of $gpus)"
CUDA_VISIBLE_DEVICES=0 "$out/profiler_sessions" "$reps" | tee "$out/alone.txt"
if [ "$gpus" -gt 1 ]; then
  echo "== $gpus processes, one per GPU, at once"
  for g in $(seq 0 $((gpus - 1))); do
    CUDA_VISIBLE_DEVICES=$g "$out/profiler_sessions" "$reps" >"$out/gpu$g.txt" 2>&1 &
  done
  wait
  for g in $(seq 0 $((gpus - 1))); do echo "-- GPU $g"; cat "$out/gpu$g.txt"; done
fi
