#!/usr/bin/env python3
"""Runs `tilescope-run diagnose` on every zoo bug variant and measures (issue 5):
the share for which the first finding is the planted bug (with a location), and
the share for which the tree walk ends at the right fix.
Usage: bench/diagnose_zoo.py TILESCOPE_RUN OUT_DIR"""
import json, os, subprocess, sys, time

# config -> (planted finding categories accepted first, tree leaves that are the right fix)
PLANTED = {
    "gemm/gemm_bug_no_mask": ({"oob_write", "oob_read"}, {"fault.oob_write", "fault.oob_read", "fault.illegal_address.mask", "wrong.mismatch.tail_tiles"}),
    "gemm/gemm_bug_no_mask_aligned": ({"oob_write", "oob_read", "mismatch", "nan_inf"}, {"fault.oob_write", "fault.oob_read", "fault.illegal_address.mask", "wrong.mismatch.tail_tiles"}),
    "gemm/gemm_bug_misaligned": ({"misaligned_access"}, {"fault.misaligned_access.vector_width", "fault.misaligned_access.allocation_offset"}),
    "gemm/gemm_bug_misaligned_k1024": ({"misaligned_access"}, {"fault.misaligned_access.vector_width", "fault.misaligned_access.allocation_offset"}),
    "gemm/gemm_bug_no_sync": ({"race"}, {"fault.race.missing_barrier"}),
    "gemm/gemm_bug_no_init": ({"uninitialized_read"}, {"wrong.uninitialized_read", "wrong.all_zero.uninitialised_accumulator"}),
    "gemm/gemm_bug_fp16_acc": ({"accumulator_overflow"}, {"wrong.accumulator_overflow", "wrong.nan_inf.fp16_accumulation"}),
    "gemm/gemm_bug_transposed": ({"mismatch"}, {"wrong.mismatch.transposed"}),
    "gemm/gemm_bug_smem_over": ({"smem_exceeded"}, {"launch.smem_exceeded.over_limit"}),
    "attention/flash_attn_bug_no_max": ({"nan_inf"}, {"wrong.nan_inf.softmax_max"}),
    "attention/flash_attn_bug_misaligned": ({"misaligned_access"}, {"fault.misaligned_access.vector_width", "fault.misaligned_access.allocation_offset"}),
    "attention/flash_attn_bug_no_mask": ({"oob_read", "nan_inf"}, {"fault.oob_read", "fault.illegal_address.mask"}),
    "softmax/softmax_bug_no_max": ({"nan_inf"}, {"wrong.nan_inf.softmax_max"}),
    "softmax/softmax_bug_no_sync": ({"race", "mismatch"}, {"fault.race.missing_barrier"}),
    "gate/highway_gate_bug_no_mask": ({"oob_write"}, {"fault.oob_write", "fault.illegal_address.mask"}),
    "gate/highway_gate_bug_floor_grid": ({"coverage_gap"}, {"wrong.coverage_gap.grid"}),
}

def main():
    exe, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    rows, named, fixed = [], 0, 0
    for cfg, (cats, leaves) in PLANTED.items():
        path = os.path.join("kernels", cfg + ".tscfg.json")
        rep_path = os.path.join(out, cfg.replace("/", "_") + ".diagnose.json")
        t0 = time.time()
        proc = subprocess.run([exe, "diagnose", path, "-o", rep_path], capture_output=True, text=True)
        wall = time.time() - t0
        try:
            rep = json.load(open(rep_path))
        except Exception:
            rows.append((cfg, "no report (exit %d)" % proc.returncode, "", "", wall, False, False))
            continue
        first = rep["findings"][0] if rep["findings"] else {}
        ok_first = first.get("category") in cats and bool(first.get("location"))
        if cfg.endswith("transposed"):
            ok_first = ok_first and first.get("detail") == "transposed"
        leaf = rep["tree_path"][-1] if rep.get("tree_path") else ""
        ok_leaf = leaf in leaves
        named += ok_first
        fixed += ok_leaf
        rows.append((cfg, first.get("category", "-") + ("/" + first["detail"] if first.get("detail") else ""),
                     first.get("experiment", ""), leaf, wall, ok_first, ok_leaf))
    print(f"{'config':40} {'first finding':28} {'experiment':22} {'tree leaf':40} {'s':>5}")
    for cfg, cat, exp, leaf, wall, a, b in rows:
        print(f"{cfg:40} {cat[:27]:28} {exp[:21]:22} {leaf[:39]:40} {wall:5.1f} {'Y' if a else 'n'}{'Y' if b else 'n'}")
    n = len(PLANTED)
    print(f"planted bug named first (with location): {named}/{n} = {100*named/n:.0f}%")
    print(f"walk ends at the right fix: {fixed}/{n} = {100*fixed/n:.0f}%")

main()
