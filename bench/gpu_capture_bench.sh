#!/usr/bin/env bash
# Capture benchmarks on a GPU host (docs/measurements.md). Prints a table.
#   timing fidelity: `run` median of the 4096^3 GEMM vs ncu's gpu__time_duration
#   repeatability:   five `run`s of the same config
#   capture cost:    wall time of one `run` beyond its timed repetitions
#   sweep:           wall time of the 16-point GEMM sweep
# Usage: bench/gpu_capture_bench.sh BUILD_DIR OUT_DIR
set -uo pipefail
bin=$1/app/tilescope-run; out=$2; mkdir -p "$out"
cfg=bench/configs/gemm_4096.tscfg.json
# The bench's configs use the zoo's kernels from outside their folder: consent.
consent=--allow-outside-paths
"$bin" run "$cfg" $consent -o "$out/warm.json" 2>/dev/null   # warm the compile cache
for i in 1 2 3 4 5; do
  s=$(date +%s.%N); "$bin" run "$cfg" $consent -o "$out/run$i.json" 2>/dev/null; e=$(date +%s.%N)
  echo "$s $e" > "$out/run$i.wall"
done
# The same point with the full counter set, for the difference.
s=$(date +%s.%N); "$bin" run "$cfg" $consent --counters full -o "$out/full.json" 2>/dev/null; e=$(date +%s.%N)
echo "$s $e" > "$out/full.wall"
if command -v ncu >/dev/null; then
  ncu --clock-control none --metrics gpu__time_duration.sum -k regex:gemm_tiled -c 3 --csv \
    "$bin" worker "$PWD/$cfg" --no-timing $consent > "$out/ncu.csv" 2>"$out/ncu.err"
fi
s=$(date +%s.%N); "$bin" sweep kernels/gemm/gemm_tiled_sweep.tscfg.json -o "$out/sweep.json" 2>"$out/sweep.log"; e=$(date +%s.%N)
echo "$s $e" > "$out/sweep.wall"
python3 - "$out" <<'PY'
import csv, glob, json, os, statistics, sys
out = sys.argv[1]
meds, base, costs = [], [], []
for i in range(1, 6):
    r = json.load(open(f"{out}/run{i}.json")); p = r["points"][0]
    s, e = map(float, open(f"{out}/run{i}.wall").read().split())
    t = p["timing"]; k = t["kernel_ns"]
    meds.append(k["median"]); base.append(p["baseline"].get("kernel_ns", {}).get("median", 0))
    timed_s = (k["n"] + 3) * k["mean"] / 1e9 + (p["baseline"]["kernel_ns"]["n"] + 3) * p["baseline"]["kernel_ns"]["mean"] / 1e9
    costs.append((e - s) - timed_s)
print("gemm_tiled 4096^3 on", r["device"]["name"])
print("  run medians (us):", " ".join(f"{m/1e3:.1f}" for m in meds),
      f" spread {100*(max(meds)-min(meds))/min(meds):.2f}%")
print("  cuBLAS medians (us):", " ".join(f"{m/1e3:.1f}" for m in base))
print("  wall beyond timed repetitions (s):", " ".join(f"{c:.2f}" for c in costs))
def counters(path):
    c = json.load(open(path))["points"][0].get("counters", {})
    return (f"{c.get('passes')} passes, pass {c.get('seconds', 0):.2f} s (kernel {c.get('seconds_kernel', 0):.2f}, "
            f"baseline {c.get('seconds_baseline', 0):.2f}, PC sampling {c.get('seconds_pc_sampling', 0):.2f})")
print("  basic counters (run 5):", counters(f"{out}/run5.json"))
try:
    s, e = map(float, open(f"{out}/full.wall").read().split())
    print(f"  --counters full: {e - s:.2f} s whole run;", counters(f"{out}/full.json"))
except Exception as ex:
    print("  --counters full: no report", ex)
try:
    rows = [row for row in csv.reader(open(f"{out}/ncu.csv")) if len(row) > 10 and row[-3] == "gpu__time_duration.sum"]
    vals = [float(r[-1].replace(",", "")) for r in rows]
    unit = rows[0][-2] if rows else ""
    print("  ncu gpu__time_duration.sum:", vals, unit)
    if vals:
        v = statistics.median(vals) * (1e3 if unit in ("usecond", "us") else 1e6 if unit in ("msecond", "ms") else 1)
        print(f"  run median vs ncu: {100*(statistics.median(meds)-v)/v:+.2f}%")
except Exception as ex:
    print("  ncu: unavailable", ex, open(f"{out}/ncu.err").read()[-500:])
s, e = map(float, open(f"{out}/sweep.wall").read().split())
sw = json.load(open(f"{out}/sweep.json"))
print(f"  16-point sweep: {e-s:.1f} s wall, {len(sw['points'])} points, verdict {sw['verdict']}")
PY
