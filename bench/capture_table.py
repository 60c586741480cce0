"""One row of bench/gpu_capture_programs.sh's table: a capture folder's
launches, configs, bit-exact replays and the error findings of `diagnose` on
its healthy kernels (docs/capture.md).

Usage: capture_table.py RUN_EXE CAPTURE_DIR NAME [--jobs N] [--diagnose]
       [--faulty REGEX] [--diagnose-only REGEX] [--diagnose-budget SECONDS]

Every config is replayed with `tilescope-run run CONFIG --allow-commands`
(the program's own kernels); a replay is bit-exact when its verdict is ok and
every compared output has 0 mismatches at tolerance 0. With --diagnose each
config whose kernel does not match --faulty (the program's planted bugs) is
diagnosed, and every error finding is counted as a false one. Prints one
summary line and writes NAME.table.json into CAPTURE_DIR's parent.
"""

import argparse
import collections
import concurrent.futures
import json
import pathlib
import re
import subprocess
import time


def errors(point):
    return [f for f in point.get("findings", []) if f.get("severity", "error") == "error"]


def replay(run_exe, cfg):
    rep = cfg.with_suffix("").with_suffix(".run.json")
    t0 = time.time()
    subprocess.run([run_exe, "run", str(cfg), "--allow-commands", "-o", str(rep)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    try:
        r = json.loads(rep.read_text())
    except (OSError, ValueError) as e:
        return {"config": cfg.name, "verdict": "no report", "why": str(e), "seconds": time.time() - t0}
    p = r["points"][0]
    checks = [c for c in (p.get("correctness_all") or [p.get("correctness") or {}]) if c]
    ok = r.get("verdict") == "ok"
    exact = ok and bool(checks) and all(c.get("checked") and c.get("mismatches") == 0 for c in checks)
    # A launch that changed no byte has no output to compare: replayed, not proven.
    return {"config": cfg.name, "verdict": r.get("verdict"), "exact": exact, "unchanged": ok and not checks,
            "errors": [f"{f.get('category')}: {f.get('message', '')[:200]}" for f in errors(p)],
            "seconds": round(time.time() - t0, 2)}


def diagnose(run_exe, cfg):
    rep = cfg.with_suffix("").with_suffix(".diagnose.json")
    t0 = time.time()
    subprocess.run([run_exe, "diagnose", str(cfg), "--allow-commands", "-o", str(rep)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    try:
        r = json.loads(rep.read_text())
    except (OSError, ValueError) as e:
        return {"config": cfg.name, "verdict": "no report", "errors": [f"no report: {e}"],
                "seconds": time.time() - t0}
    found = [f for f in r.get("findings", []) if f.get("severity", "error") == "error"]
    return {"config": cfg.name, "verdict": r.get("verdict"),
            "errors": [f"{f.get('category')}: {f.get('message', '')[:200]}" for f in found],
            "seconds": round(time.time() - t0, 2)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run_exe")
    ap.add_argument("capture_dir", type=pathlib.Path)
    ap.add_argument("name")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--diagnose", action="store_true")
    ap.add_argument("--faulty", default="")
    ap.add_argument("--diagnose-only", default="", help="diagnose only the healthy kernels whose name matches")
    ap.add_argument("--diagnose-budget", type=float, default=300)
    a = ap.parse_args()
    info = json.loads((a.capture_dir / "capture.json").read_text())
    launches = info.get("launches", [])
    reasons = collections.Counter(l["reason"][:120] for l in launches if "config" not in l and l.get("reason"))
    configs = [a.capture_dir / l["config"] for l in launches if "config" in l]
    faulty = re.compile(a.faulty) if a.faulty else None
    only = re.compile(a.diagnose_only) if a.diagnose_only else None
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        replays = list(pool.map(lambda c: replay(a.run_exe, c), configs))
    exact = sum(1 for r in replays if r.get("exact"))
    unchanged = sum(1 for r in replays if r.get("unchanged"))
    row = {"program": a.name, "launches": len(launches), "configs": len(configs), "bit_exact": exact,
           "unchanged": unchanged,
           "not_exact": [r for r in replays if not r.get("exact") and not r.get("unchanged")],
           "no_config": dict(reasons),
           "exit": info.get("exit", {})}
    if a.diagnose:
        healthy = [c for c, l in zip(configs, [l for l in launches if "config" in l])
                   if not (faulty and faulty.search(l.get("kernel", "")))
                   and (not only or only.search(l.get("kernel", "")))]
        t0, diags = time.time(), []
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            futures = [pool.submit(diagnose, a.run_exe, c) for c in healthy]
            for f in futures:
                left = a.diagnose_budget - (time.time() - t0)
                try:
                    diags.append(f.result(timeout=max(left, 0.1)))
                except concurrent.futures.TimeoutError:
                    f.cancel()
        row["healthy"] = len(healthy)
        row["diagnosed"] = len(diags)
        row["diagnose_errors"] = [d for d in diags if d["errors"]]
        row["diagnose_seconds"] = [d["seconds"] for d in diags]
    (a.capture_dir.parent / f"{a.name}.table.json").write_text(json.dumps(row, indent=1))
    line = (f"{a.name}: {len(launches)} launches, {len(configs)} configs, {exact} bit-exact replays, "
            f"{unchanged} ok with no output changed (nothing to compare)")
    if a.diagnose:
        bad = sum(1 for d in row["diagnose_errors"])
        line += f"; diagnose: {row['diagnosed']} of {row['healthy']} healthy configs, {bad} with error findings"
    print(line)
    for r in row["not_exact"][:6]:
        print(f"    not exact: {r['config']}: {r.get('verdict')} {'; '.join(r.get('errors', []))[:300]}")
    for why, n in reasons.most_common(4):
        print(f"    no config ({n}): {why}")
    for d in row.get("diagnose_errors", [])[:8]:
        print(f"    diagnose error: {d['config']}: {'; '.join(d['errors'])[:300]}")


if __name__ == "__main__":
    main()
