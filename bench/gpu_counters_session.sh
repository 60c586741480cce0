#!/usr/bin/env bash
# On the GPU host: build, check the profiling pass against Nsight Compute
# (tests/gpu/test_counters.cpp), record the counter sample reports and time the
# pass against ncu (bench/counters_vs_ncu.py). Everything lands in $OUT (or
# ./gpu-out); each step goes on after a failure.
#   STEPS="probe tests zoo sample bench"  (default: all)   REPS=3 (bench repetitions)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out/reports"
steps=${STEPS:-probe tests zoo sample bench}
export LD_LIBRARY_PATH=$PWD/.device-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/gpu.txt"
(command -v ncu || ls /usr/local/cuda/bin/ncu) && ncu --version | tail -1
t0=$(date +%s)
bash scripts/gpu-build.sh tilescope-run tilescope_gpu_tests tilescope_cuda_tests > "$out/build.log" 2>&1 \
  || { tail -40 "$out/build.log"; exit 1; }
echo "build ok in $(( $(date +%s) - t0 )) s"
run=build-gpu/app/tilescope-run
has() { [[ " $steps " == *" $1 "* ]]; }

if has probe; then
  $run run kernels/transpose/transpose_bank_conflicts.tscfg.json -o "$out/reports/probe.json" > "$out/probe.log" 2>&1
  echo "probe exit $?"; tail -5 "$out/probe.log"
  # CUPTI loads libnvperf_host/target at run time; say so if the loader could not find them.
  if grep -q "nvperf\|cannot open shared object" "$out/probe.log" "$out/reports/probe.json" 2>/dev/null; then
    echo "nvperf not found by the loader: retrying with /usr/local/cuda/lib64 on LD_LIBRARY_PATH"
    export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
    $run run kernels/transpose/transpose_bank_conflicts.tscfg.json -o "$out/reports/probe.json" > "$out/probe.log" 2>&1
  fi
  python3 - "$out/reports/probe.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); p = r["points"][0]; c = p.get("counters", {})
print("collected", c.get("collected"), "| note", c.get("note"), "| chip", c.get("chip"), "| passes", c.get("passes"),
      "| s", c.get("seconds"), c.get("seconds_kernel"), c.get("seconds_pc_sampling"))
for k, v in list(c.get("kernel", {}).get("metrics", {}).items()):
    print("   %-66s %s" % (k, v))
pc = c.get("pc_sampling", {})
print("pc", pc.get("collected"), pc.get("note"), pc.get("total_samples"), pc.get("stalls", [])[:4], pc.get("lines", [])[:3])
for f in p["findings"]:
    print("finding", f["category"], f.get("detail"), f["message"])
PY
fi
if has tests; then
  build-gpu/tests/tilescope_cuda_tests --gtest_filter='LineTableCupti*:ProfilerHost*' 2>&1 | tail -4
  TILESCOPE_ZOO_REPORT_DIR=$out/reports build-gpu/tests/tilescope_gpu_tests \
    --gtest_filter='*Counters*' > "$out/counters_tests.log" 2>&1
  grep -E "^\[  |Failure|Expected|ours .* ncu|under ncu|which is|Value of" "$out/counters_tests.log" | head -150
fi
if has zoo; then
  TILESCOPE_ZOO_REPORT_DIR=$out/reports build-gpu/tests/tilescope_gpu_tests \
    --gtest_filter="${ZOO_FILTER:-Kernels/*transpose*:Kernels/*gemm_tiled_f16*:Kernels/*flash_attn_fwd_d64*:Kernels/*gate_highway_gate:*WorkerProtocol*:ZooTable*}" \
    > "$out/zoo.log" 2>&1
  grep -E "^\[  |Failure" "$out/zoo.log" | tail -30
fi
if has sample; then
  for c in gemm/gemm_tiled_f16 transpose/transpose_bank_conflicts; do
    $run run "kernels/$c.tscfg.json" -o "$out/reports/raw_$(basename $c).json" > /dev/null 2>&1
    python3 tools/shrink_report.py "$out/reports/raw_$(basename $c).json" "$out/counters_$(basename $c).json" 96
  done
fi
if has bench; then
  python3 bench/counters_vs_ncu.py $run "$out/bench" 2>&1 | tail -12
fi
tar czf "$out/reports.tgz" -C "$out" reports bench 2>/dev/null
rm -rf "$out/reports" "$out/bench"
