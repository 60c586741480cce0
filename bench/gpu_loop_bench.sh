#!/usr/bin/env bash
# The speed of the loop on a GPU host (docs/measurements.md, "The loop").
#   1. where a warm point's time goes: a 4-point sweep of the 4096^3 zoo GEMM
#      (warm worker, default counters; twice, and with --jobs 4 on a 4-GPU host), its workers' progress events (each
#      carries the worker's clock) folded into phases, and the profiler's own
#      phases with their CPU time (TILESCOPE_PROFILER_TRACE=FOLDER, a file per
#      worker);
#   2. the 16-point 1024^3 GEMM sweep with --jobs 1, 2, 4 ... up to the host's
#      GPUs, with the default counters and with --counters none, REPS times,
#      with the per-phase medians of each, so that a phase that grows with the
#      number of workers shows which one is serialised.
# Usage: bench/gpu_loop_bench.sh BUILD_DIR OUT_DIR [REPS]
set -uo pipefail
bin=$1/app/tilescope-run; out=$2; reps=${3:-2}
mkdir -p "$out"
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
echo "host: $gpus GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)"
consent=--allow-outside-paths
sweep16=kernels/gemm/gemm_tiled_sweep.tscfg.json
big=$out/gemm_4096_sweep.tscfg.json
python3 - bench/configs/gemm_4096.tscfg.json "$big" "$PWD" <<'PY'
import json, sys, os
c = json.load(open(sys.argv[1]))
c["kernel"]["source"] = os.path.join(sys.argv[3], "kernels/gemm/gemm_tiled.cu")
c["name"] = "gemm_tiled_4096_sweep"
c["sweep"] = {"BLOCK_K": [32, 64], "NUM_WARPS": [4, 8]}
json.dump(c, open(sys.argv[2], "w"), indent=2)
PY
# Prime the compile cache (every point compiled once), with and without
# counters: a profiled point is compiled with -lineinfo, so it is another entry.
"$bin" sweep "$sweep16" -o "$out/prime16.json" --counters none 2>/dev/null
"$bin" sweep "$sweep16" -o "$out/prime16_basic.json" 2>/dev/null
"$bin" sweep "$big" $consent -o "$out/prime4096.json" 2>/dev/null

run() {  # NAME ARGS...: a sweep with --stream, its wall time beside it
  local name=$1; shift
  local s e
  s=$(date +%s.%N)
  mkdir -p "$out/$name.trace"
  TILESCOPE_PROFILER_TRACE="$out/$name.trace" "$bin" sweep "$@" --stream 2>"$out/$name.log" |
    python3 -u -c 'import sys, time
for line in iter(sys.stdin.readline, ""): sys.stdout.write(f"{time.time():.4f}\t{line}")' >"$out/$name.jsonl"
  e=$(date +%s.%N)
  echo "$s $e" >"$out/$name.wall"
}
run big "$big" $consent
run big_2 "$big" $consent
[ "$gpus" -ge 4 ] && run big_j4 "$big" $consent --jobs 4
for i in $(seq 1 "$reps"); do
  for j in 1 2 4 8; do
    [ "$j" -gt "$gpus" ] && [ "$j" -gt 1 ] && continue
    run "s16_basic_j${j}_$i" "$sweep16" --jobs "$j"
    run "s16_none_j${j}_$i" "$sweep16" --jobs "$j" --counters none
  done
done
python3 bench/loop_phases.py "$out"
