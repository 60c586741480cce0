#!/usr/bin/env python3
"""Runs `tilescope-run diagnose` on every zoo bug variant and measures (docs/measurements.md, "Diagnose"):
the share for which the first finding is the planted bug (with a location), and
the share for which the tree walk ends at the right fix.
Usage: bench/diagnose_zoo.py TILESCOPE_RUN OUT_DIR [--hidden] [CONFIG_SUBSTRING...]
(substrings pick a subset; each row prints as soon as its diagnose ends).
--hidden runs the variants whose bug the config's sizes or inputs hide instead
(their baseline passes): how many of them diagnose's experiments uncover.
--clean runs the correct kernels: how many come out without an error finding
(anything else is a false alarm)."""
import json
import os
import subprocess
import sys
import time

# config -> (planted finding categories accepted first, tree leaves that are the right fix)
PLANTED = {
    "gemm/gemm_bug_no_mask": ({"oob_write", "oob_read"}, {"fault.oob_write", "fault.oob_read", "fault.illegal_address.mask", "wrong.mismatch.tail_tiles"}),
    "gemm/gemm_bug_no_mask_aligned": ({"oob_write", "oob_read", "mismatch", "nan_inf"}, {"fault.oob_write", "fault.oob_read", "fault.illegal_address.mask", "wrong.mismatch.tail_tiles"}),
    "gemm/gemm_bug_misaligned": ({"misaligned_access"}, {"fault.misaligned_access.vector_width", "fault.misaligned_access.allocation_offset"}),
    "gemm/gemm_bug_misaligned_k1024": ({"misaligned_access"}, {"fault.misaligned_access.vector_width", "fault.misaligned_access.allocation_offset"}),
    "gemm/gemm_bug_no_sync": ({"race"}, {"fault.race.missing_barrier"}),
    "gemm/gemm_bug_no_init": ({"uninitialized_read"}, {"wrong.uninitialized_read", "wrong.all_zero.uninitialized_accumulator"}),
    "gemm/gemm_bug_fp16_acc": ({"accumulator_overflow"}, {"wrong.accumulator_overflow", "wrong.nan_inf.fp16_accumulation"}),
    "gemm/gemm_bug_int32_index_large": ({"int_overflow"}, {"wrong.int_overflow"}),
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

# Variants whose baseline passes: the bug is there but hidden (kernels/README.md).
HIDDEN = {
    "gemm/gemm_bug_no_init_zeroed": ({"uninitialized_read"}, {"wrong.uninitialized_read"}),
    "gemm/gemm_bug_int32_index_small": ({"int_overflow"}, {"wrong.int_overflow"}),
    "attention/flash_attn_bug_misaligned_pad8": ({"misaligned_access"}, {"fault.misaligned_access.vector_width", "fault.misaligned_access.allocation_offset"}),
    "attention/flash_attn_bug_no_mask_aligned": ({"oob_read"}, {"fault.oob_read", "fault.illegal_address.mask"}),
    "softmax/softmax_bug_no_max_small": ({"nan_inf"}, {"wrong.nan_inf.softmax_max"}),
}

# Correct kernels: diagnose must raise no error finding on them.
CLEAN = ["gemm/gemm_tiled_f16", "gemm/gemm_tiled_f32out", "gemm/gemm_tiled_tail", "attention/flash_attn_fwd_d64",
         "attention/flash_attn_fwd_d128", "attention/flash_attn_fwd_tail", "softmax/softmax_row_f16",
         "softmax/softmax_row_f32", "gate/highway_gate"]


def diagnose(exe, out, cfg):
    """(report or None, seconds); prints why when there is no report."""
    rep_path = os.path.join(out, cfg.replace("/", "_") + ".diagnose.json")
    t0 = time.time()
    proc = subprocess.run([exe, "diagnose", os.path.join("kernels", cfg + ".tscfg.json"), "-o", rep_path],
                          capture_output=True, text=True)
    wall = time.time() - t0
    try:
        return json.load(open(rep_path)), wall
    except Exception:
        print(f"{cfg:40} no report (exit {proc.returncode}): {proc.stderr.strip()[-200:]}", flush=True)
        return None, wall


def clean(exe, out, picks):
    todo = [c for c in CLEAN if not picks or any(p in c for p in picks)]
    quiet = 0
    for cfg in todo:
        rep, wall = diagnose(exe, out, cfg)
        if rep is None:
            continue
        errors = [f["category"] + "/" + f.get("detail", "") for f in rep["findings"] if f["severity"] == "error"]
        quiet += not errors
        exps = len(rep.get("extra", {}).get("diagnose", {}).get("experiments", []))
        print(f"{cfg:40} verdict {rep['verdict']:10} runs {exps:2} errors {', '.join(errors) or '-':40} {wall:6.1f}",
              flush=True)
    print(f"correct kernels without an error finding: {quiet}/{len(todo)}")


def main():
    exe, out = sys.argv[1], sys.argv[2]
    picks = sys.argv[3:]
    table = PLANTED
    if "--clean" in picks:
        picks.remove("--clean")
        os.makedirs(out, exist_ok=True)
        return clean(exe, out, picks)
    if "--hidden" in picks:
        picks.remove("--hidden")
        table = HIDDEN
    os.makedirs(out, exist_ok=True)
    todo = {c: v for c, v in table.items() if not picks or any(p in c for p in picks)}
    named, fixed = 0, 0
    print(f"{'config':40} {'first finding':28} {'experiment':22} {'tree leaf':40} {'s':>6}", flush=True)
    for cfg, (cats, leaves) in todo.items():
        rep, wall = diagnose(exe, out, cfg)
        if rep is None:
            continue
        first = rep["findings"][0] if rep["findings"] else {}
        ok_first = first.get("category") in cats and bool(first.get("location"))
        if cfg.endswith("transposed"):
            ok_first = ok_first and first.get("detail") == "transposed"
        leaf = rep["tree_path"][-1] if rep.get("tree_path") else ""
        ok_leaf = leaf in leaves
        named += ok_first
        fixed += ok_leaf
        cat = first.get("category", "-") + ("/" + first["detail"] if first.get("detail") else "")
        exp = first.get("experiment", "")
        print(f"{cfg:40} {cat[:27]:28} {exp[:21]:22} {leaf[:39]:40} {wall:6.1f} "
              f"{'Y' if ok_first else 'n'}{'Y' if ok_leaf else 'n'}", flush=True)
    n = len(todo)
    if table is HIDDEN:
        print(f"hidden bug uncovered and named first: {named}/{n}; walk ends at the fix: {fixed}/{n}")
        return
    print(f"planted bug named first (with location): {named}/{n} = {100*named/max(n,1):.0f}%")
    print(f"walk ends at the right fix: {fixed}/{n} = {100*fixed/max(n,1):.0f}%")

main()
