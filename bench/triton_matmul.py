#!/usr/bin/env python3
"""Timing fidelity of a Triton kernel, and the Triton matmul against cuBLAS.

On a GPU host with Triton and PyTorch (no TileScope Python package needed):

    python3 bench/triton_matmul.py BUILD/app/tilescope-run [--config C] [--out DIR]

1. `tilescope-run run CONFIG`: TileScope's CUPTI median of the kernel as the
   Triton helper compiled and launched it, and the cuBLAS baseline's median.
2. Oracle 1, triton.testing.do_bench (median) of the same kernel launched by
   Triton's own JIT, with the config's constexprs, num_warps and num_stages.
3. Oracle 2, ncu's gpu__time_duration of the same JIT launches (median of 20;
   --clock-control none and --cache-control none, as TileScope's launches run).
4. cuBLAS through torch.matmul, do_bench median, for the ratio.

Prints a table and writes DIR/triton_matmul.json. Exit 0 when TileScope's
median is within --tolerance (3%) of both oracles, 1 otherwise, 2 on errors.
"""
import argparse
import csv
import io
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def load_config(path):
    with open(path) as f:
        cfg = json.load(f)
    k = cfg["kernel"]
    p = cfg["params"]
    return cfg, k, (p["M"], p["N"], p["K"])


def jit_launcher(cfg_path):
    """A function that launches the config's matmul through Triton's JIT."""
    import torch
    import triton
    cfg, k, (M, N, K) = load_config(cfg_path)
    sys.path.insert(0, os.path.dirname(os.path.abspath(cfg_path)))
    module = __import__(os.path.splitext(k["source"])[0])
    kernel = getattr(module, k["entry"])
    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    ce = k.get("constexprs", {})
    grid = (triton.cdiv(M, ce["BLOCK_M"]) * triton.cdiv(N, ce["BLOCK_N"]),)

    def launch():
        kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                     num_warps=k.get("num_warps", 4), num_stages=k.get("num_stages", 3), **ce)
    return launch, a, b


def ncu_child(cfg_path, reps):
    launch, _, _ = jit_launcher(cfg_path)
    import torch
    for _ in range(reps):
        launch()
    torch.cuda.synchronize()


def run_ncu(cfg_path, entry, reps):
    cmd = ["ncu", "--clock-control", "none", "--cache-control", "none", "--metrics", "gpu__time_duration.sum",
           "-k", "regex:" + entry, "--csv", sys.executable, os.path.abspath(__file__), "--ncu-child", cfg_path,
           "--reps", str(reps)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    rows = [row for row in csv.reader(io.StringIO(r.stdout)) if len(row) > 3 and row[-3] == "gpu__time_duration.sum"]
    vals = []
    for row in rows:
        unit, value = row[-2], float(row[-1].replace(",", ""))
        vals.append(value * {"nsecond": 1, "usecond": 1e3, "msecond": 1e6}.get(unit, 1))
    if not vals:
        raise RuntimeError("ncu measured nothing:\n" + r.stdout[-2000:] + r.stderr[-2000:])
    return vals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tilescope_run", nargs="?")
    ap.add_argument("--config", default=os.path.join(ROOT, "kernels/triton/matmul_4096.tscfg.json"))
    ap.add_argument("--out", default=".")
    ap.add_argument("--tolerance", type=float, default=0.03)
    ap.add_argument("--ncu-child", metavar="CONFIG")
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    if args.ncu_child:
        ncu_child(args.ncu_child, args.reps)
        return 0
    if not args.tilescope_run:
        ap.error("TILESCOPE_RUN is required")
    os.makedirs(args.out, exist_ok=True)
    cfg, k, (M, N, K) = load_config(args.config)
    report = os.path.join(args.out, "triton_matmul_run.json")
    # The zoo's Triton file is ours: consent, so that a GPU host without
    # bubblewrap compiles it (docs/security.md).
    r = subprocess.run([args.tilescope_run, "run", args.config, "--allow-commands", "-o", report],
                       capture_output=True, text=True)
    if r.returncode not in (0, 1) or not os.path.exists(report):
        print(r.stderr[-3000:], file=sys.stderr)
        return 2
    rep = json.load(open(report))
    point = rep["points"][0]
    ours = point["timing"]["kernel_ns"]["median"]
    cublas_ts = point["baseline"].get("kernel_ns", {}).get("median", 0)

    import torch
    import triton
    from triton.testing import do_bench
    launch, a, b = jit_launcher(args.config)
    dob = do_bench(launch, warmup=100, rep=500, return_mode="median") * 1e6
    cublas_dob = do_bench(lambda: torch.matmul(a, b), warmup=100, rep=500, return_mode="median") * 1e6
    ncu = statistics.median(run_ncu(args.config, k["entry"], args.reps))

    flop = 2.0 * M * N * K
    res = {
        "device": rep["device"]["name"], "config": os.path.relpath(args.config, ROOT), "triton": triton.__version__,
        "torch": torch.__version__, "verdict": rep["verdict"],
        "tilescope_median_ns": ours, "do_bench_median_ns": dob, "ncu_median_ns": ncu,
        "tilescope_vs_do_bench": ours / dob - 1, "tilescope_vs_ncu": ours / ncu - 1,
        "cublas_tilescope_median_ns": cublas_ts, "cublas_do_bench_median_ns": cublas_dob,
        "triton_over_cublas": ours / cublas_ts if cublas_ts else None,
        "triton_tflops": flop / ours / 1e3, "cublas_tflops": flop / cublas_ts / 1e3 if cublas_ts else None,
        "shared_bytes": point["launch"]["shared_bytes"], "regs": point["compile"]["regs"],
    }
    with open(os.path.join(args.out, "triton_matmul.json"), "w") as f:
        json.dump(res, f, indent=1)
    print("Triton matmul %dx%dx%d f16 on %s (Triton %s)" % (M, N, K, res["device"], res["triton"]))
    print("  TileScope (CUPTI) median  %9.1f us  %6.1f TFLOP/s" % (ours / 1e3, res["triton_tflops"]))
    print("  do_bench median           %9.1f us  (%+.2f%%)" % (dob / 1e3, 100 * res["tilescope_vs_do_bench"]))
    print("  ncu gpu__time_duration    %9.1f us  (%+.2f%%)" % (ncu / 1e3, 100 * res["tilescope_vs_ncu"]))
    if cublas_ts:
        print("  cuBLAS (TileScope)        %9.1f us  %6.1f TFLOP/s;  Triton / cuBLAS = %.2fx" %
              (cublas_ts / 1e3, res["cublas_tflops"], res["triton_over_cublas"]))
    print("  cuBLAS (torch, do_bench)  %9.1f us" % (cublas_dob / 1e3))
    ok = abs(res["tilescope_vs_do_bench"]) <= args.tolerance and abs(res["tilescope_vs_ncu"]) <= args.tolerance
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
