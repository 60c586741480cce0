#!/usr/bin/env bash
# Warm workers against a fresh worker per capture (docs/measurements.md, "Warm workers"), on a GPU host.
# Runs the 16-point GEMM sweep (kernels/gemm/gemm_tiled_sweep) REPS times each
# way, then prints per way: the sweep's wall time, and per point its wall time
# beyond its timed repetitions (kernel and baseline: (n + 3 warm-ups) × mean),
# and whether both ways agree point by point (verdict, output digest).
# With JOBS > 1, also `--jobs JOBS` warm (spread over the local GPUs). With
# NO_COUNTERS=1 the sweep runs without its profiling pass (run.counters false,
# a copy of the config beside it).
# Usage: [NO_COUNTERS=1] bench/sweep_workers_bench.sh BUILD_DIR OUT_DIR [REPS] [JOBS]
set -uo pipefail
bin=$1/app/tilescope-run; out=$2; reps=${3:-2}; jobs=${4:-1}
mkdir -p "$out"
cfg=kernels/gemm/gemm_tiled_sweep.tscfg.json
if [ "${NO_COUNTERS:-0}" = 1 ]; then
  python3 - "$cfg" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c.setdefault("run", {})["counters"] = False
json.dump(c, open(sys.argv[1].replace(".tscfg.json", "_nocounters.tscfg.json"), "w"), indent=2)
PY
  cfg=kernels/gemm/gemm_tiled_sweep_nocounters.tscfg.json
fi
"$bin" sweep "$cfg" -o "$out/prime.json" 2>/dev/null  # the compile cache holds every point afterwards
ways="warm fresh"; [ "$jobs" -gt 1 ] && ways="$ways jobs$jobs"
for i in $(seq 1 "$reps"); do
  for way in $ways; do
    case $way in
      warm) extra=() ;;
      fresh) extra=(--fresh-workers) ;;
      jobs*) extra=(--jobs "$jobs") ;;
    esac
    s=$(date +%s.%N)
    "$bin" sweep "$cfg" "${extra[@]}" -o "$out/$way$i.json" 2>"$out/$way$i.log"
    e=$(date +%s.%N)
    echo "$s $e" >"$out/$way$i.wall"
  done
done
python3 - "$out" "$reps" $ways <<'PY'
import json, statistics, sys
sys.path.insert(0, "bench")
from loop_phases import timed_s  # a point's timed launches, warm-ups included
out, reps, ways = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
results = {}
for way in ways:
    walls, costs, gpus = [], [], set()
    for i in range(1, reps + 1):
        s, e = map(float, open(f"{out}/{way}{i}.wall").read().split())
        r = json.load(open(f"{out}/{way}{i}.json"))
        walls.append(e - s)
        costs += [p["wall_s"] - timed_s(p) for p in r["points"]]
        gpus |= {(p.get("gpu", {}).get("ordinal"), p.get("gpu", {}).get("uuid", "")) for p in r["points"]}
        results[(way, i)] = r
    print(f"{way:>7}: sweep wall {' '.join(f'{w:.2f}' for w in walls)} s; per point beyond timed repetitions: "
          f"median {statistics.median(costs):.3f} s, max {max(costs):.3f} s (first capture of a worker included); "
          f"GPUs {sorted(gpus)}")
r0 = results[("warm", 1)]
print("device:", r0["device"]["name"], "| points:", len(r0["points"]), "| verdict:", r0["verdict"])
for way in ways:
    for i in range(1, reps + 1):
        r = results[(way, i)]
        same = [(a["verdict"], a.get("extra", {}).get("output_digest")) == (b["verdict"], b.get("extra", {}).get("output_digest"))
                for a, b in zip(r0["points"], r["points"])]
        counted = sum(1 for p in r["points"] if p.get("counters", {}).get("collected"))
        sampled = sum(1 for p in r["points"] if p.get("counters", {}).get("pc_sampling", {}).get("collected"))
        notes = {p.get("counters", {}).get("note", "") for p in r["points"]} - {""}
        print(f"  {way}{i} vs warm1: {sum(same)}/{len(same)} points with the same verdict and output digest; "
              f"counters collected on {counted}, PC samples on {sampled}; workers {r.get('extra', {}).get('workers')}"
              + (f"; counter notes: {sorted(notes)[:2]}" if notes else ""))
PY
