#!/usr/bin/env python3
"""The profiling pass's cost against Nsight Compute's, on the same kernels, in one run.

    python3 bench/counters_vs_ncu.py build-gpu/app/tilescope-run OUT [CONFIG KERNEL]...

For each config (default: the transpose pair, the naive transpose and the tiled
GEMM) it measures, with wall clocks around whole processes:

  worker         `tilescope-run worker CFG --no-timing --no-counters` (no profiling)
  ours           the same worker with the profiling pass; its report splits the
                 pass into kernel counters, baseline counters and PC sampling
  ncu metrics    `ncu --metrics <our list> -k KERNEL -c 1` around the first worker
  ncu default    `ncu -k KERNEL -c 1` (its default sections) around the same worker
  run            `tilescope-run run CFG`: the whole point (timing, baseline,
                 correctness, counters, PC sampling)

ncu's per-kernel cost is its wall time minus the plain worker's. Prints a
Markdown table (docs/measurements.md) and writes OUT/counters_vs_ncu.json.
"""
import json
import os
import shutil
import subprocess
import sys
import time

REPS = int(os.environ.get("REPS", "3"))  # repetitions of each measurement (medians)

DEFAULT = [
    ("kernels/transpose/transpose_bank_conflicts.tscfg.json", "transpose_tiled"),
    ("kernels/transpose/transpose_padded.tscfg.json", "transpose_tiled"),
    ("kernels/transpose/transpose_naive.tscfg.json", "transpose_naive"),
    ("kernels/gemm/gemm_tiled_f16.tscfg.json", "gemm_tiled"),
]


def timed(cmd, out=None, env=None):
    t0 = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=dict(os.environ, **(env or {})))
    dt = time.monotonic() - t0
    if out:
        with open(out, "w") as f:
            f.write(r.stdout)
    return dt, r


def point_of(stream_text):
    for line in stream_text.splitlines():
        if line.startswith("{"):
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("event") == "point":
                return e["point"]
    return None


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    exe, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    pairs = DEFAULT if len(sys.argv) == 3 else list(zip(sys.argv[3::2], sys.argv[4::2]))
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    rows = []
    for cfg, kernel in pairs:
        name = os.path.basename(cfg).split(".")[0]
        worker = [exe, "worker", cfg, "--no-timing"]
        # Warm the compile cache and the driver once; then REPS of each, medians.
        timed(worker + ["--no-counters"])
        plain = median([timed(worker + ["--no-counters"])[0] for _ in range(REPS)])
        # The profiler's phase times go to the log (TILESCOPE_PROFILER_TRACE).
        ours_runs = [timed(worker, os.path.join(out, name + ".ours.log"), {"TILESCOPE_PROFILER_TRACE": "1"})
                     for _ in range(REPS)]
        ours_wall = median([d for d, _ in ours_runs])
        p = point_of(ours_runs[-1][1].stdout) or {}
        c = p.get("counters", {})
        metrics = ",".join(c.get("metrics", []))
        ncu_m = median([timed([ncu, "--metrics", metrics, "--clock-control", "none", "-k", "regex:^%s$" % kernel, "-c", "1"]
                              + worker + ["--no-counters"], os.path.join(out, name + ".ncu_metrics.log"))[0]
                        for _ in range(REPS)])
        ncu_d = median([timed([ncu, "-k", "regex:^%s$" % kernel, "-c", "1"] + worker + ["--no-counters"],
                              os.path.join(out, name + ".ncu_default.log"))[0] for _ in range(REPS)])
        run = median([timed([exe, "run", cfg, "-o", os.path.join(out, name + ".run.json")])[0] for _ in range(REPS)])
        nbase = len(c.get("baseline_kernels", []))
        row = {
            "config": name, "kernel": kernel, "passes": c.get("passes"), "metrics": len(c.get("metrics", [])),
            "collected": c.get("collected"), "note": c.get("note", ""),
            "worker_s": plain, "worker_with_counters_s": ours_wall,
            "ours_kernel_s": c.get("seconds_kernel"), "ours_baseline_s": c.get("seconds_baseline"),
            "baseline_kernels": nbase, "ours_pc_sampling_s": c.get("seconds_pc_sampling"), "ours_total_s": c.get("seconds"),
            "ncu_metrics_s": ncu_m - plain, "ncu_default_s": ncu_d - plain,
            "ncu_metrics_wall_s": ncu_m, "ncu_default_wall_s": ncu_d, "run_s": run,
            "kernel_ns": (p.get("timing", {}).get("kernel_ns") or {}).get("median"),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    with open(os.path.join(out, "counters_vs_ncu.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print()
    print("| kernel | passes | ours: kernel counters | ncu, same metrics (per kernel) | ours: baseline counters (kernels) "
          "| ours: PC sampling | ncu default sections (per kernel) | whole `run` | ncu default, whole process |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        f = lambda v: "—" if v is None else "%.2f s" % v
        print("| %s | %s | %s | %s | %s (%d) | %s | %s | %s | %s |" % (
            r["config"], r["passes"], f(r["ours_kernel_s"]), f(r["ncu_metrics_s"]), f(r["ours_baseline_s"]),
            r["baseline_kernels"], f(r["ours_pc_sampling_s"]), f(r["ncu_default_s"]), f(r["run_s"]),
            f(r["ncu_default_wall_s"])))


if __name__ == "__main__":
    main()
