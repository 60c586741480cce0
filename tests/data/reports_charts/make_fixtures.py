#!/usr/bin/env python3
"""Writes the chart/export fixture reports (tilescope.report/1, docs/report.md).

Occupancy numbers follow NVIDIA's rules for an H100 (64 warps, 32 blocks, 64 Ki registers
allocated per warp in units of 256, 228 KiB shared memory per SM, 1 KiB reserved per block),
so the curves are the ones the occupancy calculator draws. Run: python3 make_fixtures.py
"""
import json
import math
import os

H100 = dict(warps=64, blocks=32, regs=65536, smem=233472, reserved=1024, optin=232448)

def occupancy(threads, regs, smem):
    w = math.ceil(threads / 32)
    per_warp = math.ceil(regs * 32 / 256) * 256
    lim = {
        "warps": H100["warps"] // w,
        "registers": H100["regs"] // (per_warp * w) if regs > 0 else 10**9,
        "shared_memory": H100["smem"] // (smem + H100["reserved"]),
        "blocks": H100["blocks"],
    }
    limiter = min(lim, key=lambda k: lim[k])
    b = lim[limiter]
    return b, b * w, limiter, lim

def occ_block(threads, regs, smem):
    b, warps, limiter, lim = occupancy(threads, regs, smem)
    curves = {
        "block_size": [[t, occupancy(t, regs, smem)[1] / 64] for t in range(32, 1025, 32)],
        "registers": [[r, occupancy(threads, r, smem)[1] / 64] for r in range(1, 256)],
        "shared_memory": [[s, occupancy(threads, regs, s)[1] / 64] for s in range(0, 227 * 1024 + 1, 1024)],
        "current": {"block_size": threads, "registers": regs, "shared_memory": smem, "occupancy": warps / 64},
    }
    return {"computed": True, "theoretical": warps / 64, "limiter": limiter, "blocks_per_sm": b,
            "warps_per_sm": warps, "max_warps_per_sm": 64, "limits": lim,
            "smem_per_block": smem + H100["reserved"], "regs_per_thread": regs,
            "threads_per_block": threads, "curves": curves}

def stats(median, spread, n=50):
    return {"median": median, "p10": median - spread, "p90": median + 2 * spread, "min": median - 1.5 * spread,
            "max": median + 5 * spread, "mean": median + 0.3 * spread, "n": n}

def cov_map(bad):
    rows, cols = 8, 8
    states = [0] * (rows * cols)
    for r, c, code in bad:
        states[r * cols + c] = code
    return {"rows": rows, "cols": cols, "cell": [32, 32], "states": states}

def point(i, bm, bn, warps, regs, smem, k_ns, b_ns, verdict, findings, bad=()):
    threads = warps * 32
    cov_states = cov_map(bad)
    unwritten = sum(1 for s in cov_states["states"] if s == 2) * 32 * 32
    return {
        "index": i, "trial": 0, "label": f"BLOCK_M={bm},BLOCK_N={bn}",
        "defines": {"BLOCK_M": bm, "BLOCK_N": bn, "NUM_WARPS": warps},
        "params": {"M": 256, "N": 256, "K": 512}, "verdict": verdict, "findings": findings,
        "compile": {"attempted": True, "ok": True, "compiler": "nvrtc", "arch": "sm_90", "log": "",
                    "seconds": 0.41, "cached": False, "regs": regs, "smem_static": 0, "local_bytes": 0},
        "launch": {"grid": [256 // bn, 256 // bm, 1], "block": [threads, 1, 1], "shared_bytes": smem,
                   "attempted": True, "ok": True, "error": ""},
        "timing": {"measured": True, "kernel_ns": stats(k_ns, k_ns * 0.01), "cv": 0.012 * (i + 1),
                   "event_ns": stats(k_ns * 1.05, k_ns * 0.02), "regs": regs, "smem_static": 0,
                   "smem_dynamic": smem, "local_per_thread": 0,
                   "sm_clock_mhz": {"before": 1980, "after": 1980}, "throttled": False, "note": ""},
        "baseline": {"name": "cublas", "measured": True, "kernel_ns": stats(b_ns, b_ns * 0.005), "kernels": 1},
        "speedup": b_ns / k_ns,
        "correctness": {"checked": True, "reference": "gemm(cublas)", "tensor": "C", "max_abs_err": 0.004 if not bad else 3.5,
                        "max_rel_err": 0.002 if not bad else 1.0, "mismatches": 0 if not bad else 1024, "nan": 0,
                        "inf": 0, "elements": 65536, "first_mismatch": [-1, -1] if not bad else [224, 0],
                        "rtol": 0.01, "atol": 0.01},
        "coverage": {"C": {"tensor": "C", "shape": [256, 256], "elements": 65536,
                           "declared": {"covered": 65536, "uncovered": 0, "overlapped": 0, "tile": [bm, bn],
                                        "tiles": (256 // bm) * (256 // bn), "tiles_crossing": 0},
                           "measured": True, "written": 65536 - unwritten, "unwritten": unwritten, "map": cov_states}},
        "occupancy": occ_block(threads, regs, smem), "wall_s": 1.2,
    }

gap = {"category": "coverage_gap", "severity": "error",
       "message": "1024 elements of C were never written (rows 224..255 & cols 0..31) <no CTA>",
       "tensor": "C", "location": {"tile": [3, 0], "elements": {"first": [224, 0], "last": [255, 31]}, "cta": [0, 3, 0]},
       "evidence": {"unwritten": 1024}, "tree_node": "output.coverage"}
slow = {"category": "slow_vs_baseline", "severity": "warning",
        "message": "2.10x slower than cublas (threshold 1.5x)", "evidence": {"speedup": 0.476},
        "tree_node": "perf.baseline"}

points = [
    point(0, 64, 64, 4, 96, 16384, 812000.0, 650000.0, "ok", []),
    point(1, 128, 64, 8, 64, 32768, 1365000.0, 650000.0, "slow", [slow]),
    point(2, 128, 128, 8, 40, 65536, 702000.0, 650000.0, "incorrect", [gap], bad=[(7, 0, 2), (7, 1, 1), (6, 0, 3)]),
]
report = {
    "schema": "tilescope.report/1", "tool_version": "0.1.0", "created_at": "2026-11-21T10:00:00Z",
    "host": "fixture", "verb": "sweep",
    "device": {"name": "NVIDIA H100 80GB HBM3", "key": "h100", "cc": "9.0", "sm_count": 132,
               "smem_per_block": 49152, "smem_per_block_optin": 232448, "smem_per_sm": 233472, "live": False},
    "config": {"schema": "tilescope.config/1", "name": "gemm_tiled_sweep",
               "kernel": {"source": "gemm_tiled.cu", "entry": "gemm_tiled", "compiler": "nvrtc",
                          "defines": {"BLOCK_M": 64, "BLOCK_N": 64, "NUM_WARPS": 4}},
               "params": {"M": 256, "N": 256, "K": 512},
               "launch": {"grid": ["ceil_div(N, BLOCK_N)", "ceil_div(M, BLOCK_M)", 1],
                          "block": ["NUM_WARPS * 32", 1, 1], "shared_bytes": "BLOCK_M * BLOCK_N * 4"},
               "baseline": "cublas",
               "sweep": {"BLOCK_M": [64, 128], "BLOCK_N": [64, 128]}},
    "points": points, "verdict": "incorrect", "findings": [gap, slow],
    "tree_path": ["start", "output.correct", "output.coverage"],
    "tree_steps": [{"node": "output.coverage", "question": "Did every output element get written?",
                    "answer": "no", "evidence": {"unwritten": 1024}, "automatic": True}],
    "matrix": {"points": [p["label"] for p in points], "trials": 1, "verdicts": [["ok"], ["slow"], ["incorrect"]]},
}
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "sweep_h100.json"), "w") as f:
    json.dump(report, f, indent=1)
    f.write("\n")
single = dict(report, verb="run", points=[points[0]], verdict="ok", findings=[], tree_path=[], tree_steps=[], matrix=None)
del single["matrix"]
with open(os.path.join(here, "run_h100.json"), "w") as f:
    json.dump(single, f, indent=1)
    f.write("\n")
