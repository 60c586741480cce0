#!/usr/bin/env python3
"""Shrinks a tilescope.report/1 for shipping (the bundled sample session): state
maps are downsampled to at most MAX x MAX cells (a cell keeps the worst state of
the cells it merges, codes as in core/internal/tilescope/analysis/compare.h), error maps
keep the maximum, long tile lists are capped, worker stderr is trimmed. Numbers
that are not maps are left exactly as measured.
Usage: tools/shrink_report.py IN.json OUT.json [MAX=96]"""
import json
import sys

# Worst-first order of the state codes: oob 5, nan_inf 3, unwritten 2, mismatch 1, overlapped 4, ok 0.
SEVERITY = {0: 0, 4: 1, 1: 2, 2: 3, 3: 4, 5: 5}


def factor(n, limit):
    return max(1, -(-n // limit))


def shrink_grid(m, key, limit, merge):
    rows, cols = m["rows"], m["cols"]
    fr, fc = factor(rows, limit), factor(cols, limit)
    if fr == 1 and fc == 1:
        return m
    vals = m[key]
    nr, nc = -(-rows // fr), -(-cols // fc)
    out = [None] * (nr * nc)
    for r in range(rows):
        base = r * cols
        orow = (r // fr) * nc
        for c in range(cols):
            v = vals[base + c]
            i = orow + c // fc
            out[i] = v if out[i] is None else merge(out[i], v)
    m = dict(m)
    m.update(rows=nr, cols=nc, cell=[m["cell"][0] * fr, m["cell"][1] * fc])
    m[key] = out
    return m


def worst_state(a, b):
    return a if SEVERITY.get(a, 0) >= SEVERITY.get(b, 0) else b


def worst_err(a, b):
    if a == -1 or b == -1:  # -1: not finite
        return -1
    return max(a, b)


def shrink_point(p, limit):
    for cov in p.get("coverage", {}).values():
        if isinstance(cov.get("map"), dict) and "states" in cov["map"]:
            cov["map"] = shrink_grid(cov["map"], "states", limit, worst_state)
        ex = cov.get("extra")
        if isinstance(ex, dict):
            for k in ("crossing_tiles", "gap_regions", "overlap_regions"):
                if isinstance(ex.get(k), list) and len(ex[k]) > 64:
                    ex[k] = ex[k][:64]
                    ex[k + "_capped"] = True
    corr = [p["correctness"]] if isinstance(p.get("correctness"), dict) else []
    corr += p.get("correctness_all", [])
    for c in corr:
        em = c.get("error_map")
        if isinstance(em, dict) and "max_abs" in em:
            c["error_map"] = shrink_grid(em, "max_abs", limit, worst_err)
        tiles = c.get("tiles")
        if isinstance(tiles, dict) and isinstance(tiles.get("bad"), list) and len(tiles["bad"]) > 256:
            tiles["bad"] = tiles["bad"][:256]
            tiles["capped"] = True
    if len(p.get("worker_stderr", "")) > 4000:
        p["worker_stderr"] = p["worker_stderr"][:4000] + "\n[trimmed]"


def main():
    src, dst = sys.argv[1], sys.argv[2]
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 96
    rep = json.load(open(src))
    assert rep.get("schema") == "tilescope.report/1", src
    for p in rep.get("points", []):
        shrink_point(p, limit)
    rep.setdefault("extra", {})["shrunk_for_sample"] = {"max_cells": limit}
    with open(dst, "w") as f:
        json.dump(rep, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
