#!/usr/bin/env python3
"""Where a sweep point's time goes (bench/gpu_loop_bench.sh).

Reads OUT/NAME.jsonl (the sweep's --stream, each line prefixed by the time the
bench received it and a tab), OUT/NAME.wall and OUT/NAME.trace/profiler-PID.txt
(TILESCOPE_PROFILER_TRACE's phase lines, a file per worker) for every NAME, and prints:
  - per sweep: wall time, points, per point the wall time beyond its timed
    repetitions (median), and the counters' own seconds (kernel, baseline, PC);
  - per phase (the worker's progress messages, by their first words): the
    median seconds from that event to the point's next one;
  - the speed-up of --jobs N over --jobs 1 for each counter set.
Usage: loop_phases.py OUT
"""
import glob
import json
import os
import re
import statistics
import sys
from collections import defaultdict


def label(ev):
    if ev.get("event") == "phase":
        return "phase " + ev.get("phase", "?")
    if ev.get("event") != "progress":
        return ev.get("event", "?")
    words = re.sub(r"[:,(].*$", "", ev.get("message", "")).split()
    return " ".join(words[:3]) or "?"


def timed_s(p):
    t = 0.0
    for k in (p.get("timing", {}).get("kernel_ns"), p.get("baseline", {}).get("kernel_ns")):
        if k and k.get("n"):
            t += (k["n"] + 3) * k["mean"] / 1e9
    return t


def read_run(out, name):
    events = defaultdict(list)  # (point, trial) -> [(time, label)]
    report = None
    with open(os.path.join(out, name + ".jsonl"), encoding="utf-8", errors="replace") as f:
        for line in f:
            stamp, _, body = line.partition("\t")
            try:
                ev = json.loads(body)
            except ValueError:
                continue
            if ev.get("event") == "report":
                report = ev["report"]
                continue
            if "point_index" not in ev:
                continue
            events[(ev["point_index"], ev.get("trial", 0))].append((float(stamp), label(ev)))
    s, e = map(float, open(os.path.join(out, name + ".wall")).read().split())
    phases = defaultdict(list)
    for seq in events.values():
        seq.sort()
        for (t0, what), (t1, _) in zip(seq, seq[1:]):
            phases[what].append(t1 - t0)
    prof = defaultdict(list)  # "who: phase" -> [(wall, user, sys)] in s
    for path in glob.glob(os.path.join(out, name + ".trace", "profiler-*.txt")):
        for line in open(path, errors="replace"):
            m = re.match(r"(.+?): (\S.*?)\s+([0-9.]+) ms  cpu user\s+([0-9.]+) sys\s+([0-9.]+) ms", line)
            if m:
                prof[m.group(1) + ": " + m.group(2)].append(tuple(float(m.group(i)) / 1e3 for i in (3, 4, 5)))
    return {"wall": e - s, "report": report, "phases": phases, "profiler": prof}


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    out = sys.argv[1]
    names = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(out, "*.wall")))
    runs = {n: read_run(out, n) for n in names}
    for n, r in runs.items():
        rep = r["report"] or {}
        pts = rep.get("points", [])
        beyond = [p["wall_s"] - timed_s(p) for p in pts if "wall_s" in p]
        c = [p.get("counters", {}) for p in pts]
        print(f"{n}: wall {r['wall']:.2f} s, {len(pts)} points, verdict {rep.get('verdict')}, "
              f"beyond timed reps median {med(beyond):.3f} s (min {min(beyond, default=float('nan')):.3f}), "
              f"counters median {med([x.get('seconds', 0) for x in c]):.3f} s (kernel "
              f"{med([x.get('seconds_kernel', 0) for x in c]):.3f}, baseline "
              f"{med([x.get('seconds_baseline', 0) for x in c]):.3f}, PC "
              f"{med([x.get('seconds_pc_sampling', 0) for x in c]):.3f}), passes "
              f"{sorted({x.get('passes') for x in c if x.get('passes')})}, PC sampled "
              f"{sum(1 for x in c if x.get('pc_sampling', {}).get('collected'))}, kernel medians "
              f"{med([p.get('timing', {}).get('kernel_ns', {}).get('median', 0) / 1e3 for p in pts]):.1f} us, "
              f"workers started {rep.get('extra', {}).get('workers', '?')}")
        notes = defaultdict(int)  # a worker replaced between points shows as a longer "device" phase
        for x in c:
            for key in ("note", "baseline_note"):
                if x.get(key):
                    notes[f"{key}: {x[key][:160]}"] += 1
        for note, count in sorted(notes.items()):
            print(f"    {count} x {note}")
        for what, xs in sorted(r["phases"].items(), key=lambda kv: -sum(kv[1])):
            print(f"    {what:<32} median {med(xs):7.3f} s  sum {sum(xs):7.2f} s  n {len(xs)}")
        for what, xs in sorted(r["profiler"].items(), key=lambda kv: -sum(x[0] for x in kv[1])):
            wall, user, sys_ = ([x[i] for x in xs] for i in range(3))
            print(f"    {what:<32} median {med(wall):7.3f} s (cpu user {med(user):.3f}, sys {med(sys_):.3f})"
                  f"  sum {sum(wall):7.2f} s  n {len(xs)}")
    # Scaling: best wall per (set, jobs) over the repetitions.
    best = defaultdict(lambda: float("inf"))
    for n, r in runs.items():
        m = re.match(r"s16_(\w+)_j(\d+)_\d+$", n)
        if m:
            best[(m.group(1), int(m.group(2)))] = min(best[(m.group(1), int(m.group(2)))], r["wall"])
    for (cset, jobs), w in sorted(best.items()):
        one = best.get((cset, 1))
        print(f"16-point sweep, counters {cset}, --jobs {jobs}: best wall {w:.2f} s"
              + (f", {one / w:.2f}x of --jobs 1 ({one / w / jobs:.2f} of ideal)" if one and jobs > 1 else ""))


if __name__ == "__main__":
    main()
