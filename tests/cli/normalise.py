#!/usr/bin/env python3
"""Reduces a tilescope.report/1 to the fields a golden file pins: verdicts, finding
categories/details/severities/tree nodes, occupancy, declared coverage, launch
geometry and (where compiled) the compiler's resource usage. Volatile fields
(times, host, compile logs) are dropped."""
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
    if occ.get("computed"):
        out["occupancy"] = {k: occ[k] for k in ("theoretical", "limiter", "blocks_per_sm", "warps_per_sm")}
    c = p.get("compile", {})
    if c.get("attempted"):
        out["compile"] = {k: c.get(k) for k in ("ok", "regs", "smem_static", "local_bytes")}
    return out


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
