#!/usr/bin/env python3
"""Reduces a tilescope.report/1 to the fields a golden file pins: verdicts, finding
categories/details/severities/tree nodes, declared coverage, launch geometry,
and properties of the compiler's resource usage and the occupancy. Volatile
fields (times, host, compile logs) are dropped.

NVRTC's exact register count changes with the toolkit, so it is not pinned: a
golden holds that registers were reported (> 0), whether the kernel spills, and
the occupancy limits that do not depend on registers (warps, shared memory,
block slots), with a check that the reported occupancy is the one of those
limits and the compiler's registers. test_occupancy checks the numbers against
the hardware."""
import json
import sys


def point(p):
    occ = p.get("occupancy", {})
    out = {
        "label": p.get("label", ""),
        "verdict": p["verdict"],
        "launch": {k: p["launch"][k] for k in ("grid", "block", "shared_bytes")},
        "findings": sorted(
            [f["category"], f.get("detail", ""), f["severity"], f.get("tree_node", "")] for f in p["findings"]
        ),
        "coverage": {
            name: {k: c[k] for k in ("shape", "elements", "declared")} for name, c in p.get("coverage", {}).items()
        },
    }
    c = p.get("compile", {})
    if occ.get("computed"):
        out["occupancy"] = occupancy(occ, c)
    if c.get("attempted"):
        out["compile"] = {
            "ok": c.get("ok"),
            "regs_reported": c.get("regs", -1) > 0,
            "spills": c.get("spill_stores", 0) > 0 or c.get("local_bytes", 0) > 0,
            "smem_static": c.get("smem_static"),
        }
    return out


def occupancy(occ, compile_info):
    """The register-free limits, and whether the rest follows from them and the registers."""
    limits = occ["limits"]
    blocks = occ["blocks_per_sm"]
    warps_per_block = -(-occ["threads_per_block"] // 32)
    problems = []
    if blocks != min(limits.values()):
        problems.append("blocks_per_sm %d is not the tightest limit %s" % (blocks, limits))
    if blocks > 0 and limits.get(occ["limiter"]) != blocks:
        problems.append("limiter %s is not at blocks_per_sm %d" % (occ["limiter"], blocks))
    if occ["warps_per_sm"] != blocks * warps_per_block:
        problems.append("warps_per_sm %d != %d blocks x %d warps" % (occ["warps_per_sm"], blocks, warps_per_block))
    if abs(occ["theoretical"] - occ["warps_per_sm"] / occ["max_warps_per_sm"]) > 1e-9:
        problems.append("theoretical %g != warps_per_sm / max_warps_per_sm" % occ["theoretical"])
    if compile_info.get("ok") and occ["regs_per_thread"] != compile_info.get("regs"):
        problems.append("regs_per_thread %d is not the compiler's %s" % (occ["regs_per_thread"], compile_info.get("regs")))
    return {
        "limits_without_registers": {k: limits[k] for k in ("warps", "shared_memory", "blocks")},
        "consistent": problems or True,
    }


def main():
    rep = json.load(open(sys.argv[1]))
    assert rep["schema"] == "tilescope.report/1", rep.get("schema")
    norm = {
        "verdict": rep["verdict"],
        "device": rep["device"]["key"],
        "points": [point(p) for p in rep["points"]],
    }
    json.dump(norm, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
