#!/usr/bin/env python3
"""The GPU triage bench's tables (bench/gpu_triage_bench.sh): the taxonomy of a
triage, how many entries name the manifest's category (and line), wall time per
entry, and the scaling between a --jobs 1 and a --jobs N run.

    summarize.py MANIFEST TRIAGE_N.json [--jobs1 TRIAGE_1.json] [--json OUT.json]

check(), integrity() and scaling() are pure (tests/python/test_triage_bench.py runs them on a
hand-made triage).
"""
import argparse
import json
import os
import statistics
import sys


def _entry_for(problem, entries):
    cand = os.path.basename(problem["candidate"])
    for e in entries:
        inputs = e.get("inputs") or []
        if inputs and os.path.basename(inputs[-1]) == cand:
            return e
    return None


def key(e):
    """The triage's taxonomy key (core's taxonomyKey)."""
    status = e.get("status", "pending")
    if status != "done":
        return status
    if e.get("category"):
        return e["category"]
    return "checked" if (e.get("extra") or {}).get("no_gpu") else "ok"


def check(manifest, triage):
    """Per problem: expected and found category/line, and whether they agree."""
    rows = []
    for p in manifest["problems"]:
        e = _entry_for(p, triage.get("entries", []))
        got = key(e) if e else "missing"
        row = {"name": p["name"], "expected": p["category"], "detail": p.get("detail"), "got": got,
               "got_detail": (e or {}).get("detail", ""), "line": p.get("line"), "got_line": (e or {}).get("line"),
               "seconds": (e or {}).get("seconds"), "level": (e or {}).get("level", "")}
        row["category_ok"] = got in p["category"]
        row["line_ok"] = None if p.get("line") is None else (row["category_ok"] and row["got_line"] == p["line"])
        want = p.get("detail")
        if want is None or p["category"] == ["ok"]:
            row["detail_ok"] = None
        else:
            row["detail_ok"] = row["category_ok"] and row["got_detail"] in (want if isinstance(want, list) else [want])
        row["pattern"] = p.get("pattern")
        rows.append(row)
    return rows


def integrity(rows):
    """The problems that exercise a way to fool an evaluator (the manifest's
    `pattern`): caught when the category and the sub-category (where one is
    expected) are the manifest's; per pattern, caught when all its problems are."""
    tagged = [r for r in rows if r.get("pattern")]
    caught = [r for r in tagged if r["category_ok"] and r.get("detail_ok") is not False]
    patterns = sorted({r["pattern"] for r in tagged})
    missed = sorted({r["pattern"] for r in tagged if r not in caught})
    return {"problems": len(tagged), "caught": len(caught), "patterns": len(patterns),
            "patterns_caught": len(patterns) - len(missed), "patterns_missed": missed}


def accuracy(rows):
    judged = [r for r in rows if r["got"] not in ("missing", "pending", "not_run")]
    located = [r for r in rows if r["line"] is not None]
    return {"problems": len(rows), "judged": len(judged),
            "right_category": sum(r["category_ok"] for r in rows),
            "located_problems": len(located),
            "right_category_and_line": sum(bool(r["line_ok"]) for r in located),
            "right_both_overall": sum(r["category_ok"] and r["line_ok"] is not False for r in rows)}


def run_stats(triage):
    done = [e for e in triage.get("entries", []) if e.get("status") in ("done", "not_run")]
    secs = [e.get("seconds", 0) for e in done]
    wall = triage.get("seconds", 0)
    return {"entries": len(done), "wall_s": wall, "jobs": (triage.get("options") or {}).get("jobs"),
            "per_entry_mean_s": statistics.mean(secs) if secs else 0,
            "per_entry_median_s": statistics.median(secs) if secs else 0,
            "wall_per_entry_s": wall / len(done) if done else 0,
            "entries_per_min": 60.0 * len(done) / wall if wall else 0}


def phase_stats(triage):
    """Seconds per phase of the problem entries (`extra.phase_seconds`), summed and per entry."""
    sums, counts = {}, {}
    for e in triage.get("entries", []):
        for name, sec in ((e.get("extra") or {}).get("phase_seconds") or {}).items():
            sums[name] = sums.get(name, 0.0) + sec
            counts[name] = counts.get(name, 0) + 1
    return {name: {"entries": counts[name], "total_s": sums[name], "mean_s": sums[name] / counts[name]}
            for name in sums}


def scaling(run_n, run_1):
    """Throughput of the N-job run over the 1-job run's (entries per second)."""
    a, b = run_stats(run_n), run_stats(run_1)
    if not a["wall_s"] or not b["wall_s"] or not a["entries"] or not b["entries"]:
        return None
    return (a["entries"] / a["wall_s"]) / (b["entries"] / b["wall_s"])


def print_tables(manifest, triage, triage1=None, out=sys.stdout):
    w = out.write
    rows = check(manifest, triage)
    w("\n## Against the manifest\n\n| problem | expected | got | line exp/got | ok | s |\n| --- | --- | --- | --- | --- | --- |\n")
    for r in rows:
        right = r["category_ok"] and r["line_ok"] is not False and r.get("detail_ok") is not False
        ok = "yes" if right else ("category" if r["category_ok"] else "no")
        got = r["got"] + ("/" + r["got_detail"] if r["got_detail"] else "")
        want = r["detail"] if not isinstance(r["detail"], list) else "|".join(r["detail"])
        exp = "|".join(r["expected"]) + ("/" + want if want else "")
        w("| %s | %s | %s | %s/%s | %s | %s |\n" % (r["name"], exp, got, r["line"], r["got_line"],
                                                   ok, "%.1f" % r["seconds"] if r["seconds"] is not None else "-"))
    w("\n## Taxonomy (%d entries, --jobs %s)\n\n| category | entries | %% |\n| --- | --- | --- |\n"
      % (len(triage.get("entries", [])), (triage.get("options") or {}).get("jobs")))
    for t in triage.get("taxonomy", []):
        name = t["category"] if "detail" not in t else "  " + t["detail"]
        w("| %s | %d | %.1f |\n" % (name, t["count"], t["percent"]))
    a = accuracy(rows)
    w("\nright category: %d/%d; located problems with the right category and line: %d/%d; judged: %d/%d\n"
      % (a["right_category"], a["problems"], a["right_category_and_line"], a["located_problems"], a["judged"],
         a["problems"]))
    g = integrity(rows)
    if g["problems"]:
        w("integrity traps caught (category and sub-category): %d/%d problems, %d/%d patterns%s\n"
          % (g["caught"], g["problems"], g["patterns_caught"], g["patterns"],
             "; missed: " + ", ".join(str(p) for p in g["patterns_missed"]) if g["patterns_missed"] else ""))
    w("\n## Time\n\n| run | jobs | entries | wall s | wall/entry s | mean entry s | median entry s | entries/min |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- |\n")
    runs = [("N", triage)] + ([("1", triage1)] if triage1 else [])
    for label, t in runs:
        s = run_stats(t)
        w("| %s | %s | %d | %.1f | %.2f | %.2f | %.2f | %.1f |\n" % (label, s["jobs"], s["entries"], s["wall_s"],
                                                                    s["wall_per_entry_s"], s["per_entry_mean_s"],
                                                                    s["per_entry_median_s"], s["entries_per_min"]))
    for label, t in runs:
        ph = phase_stats(t)
        if ph:
            w("\nphases of run %s (entry-seconds, summed over the slots): %s\n" % (label, "; ".join(
                "%s %.1f s over %d entries (%.2f s each)" % (n, v["total_s"], v["entries"], v["mean_s"])
                for n, v in ph.items())))
    if triage1:
        sc = scaling(triage, triage1)
        w("\nscaling (throughput --jobs N / --jobs 1): %s\n" % ("%.2fx" % sc if sc else "n/a"))
    return a


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("manifest")
    p.add_argument("triage")
    p.add_argument("--jobs1")
    p.add_argument("--json")
    a = p.parse_args(argv)
    manifest = json.load(open(a.manifest))
    triage = json.load(open(a.triage))
    triage1 = json.load(open(a.jobs1)) if a.jobs1 and os.path.exists(a.jobs1) else None
    acc = print_tables(manifest, triage, triage1)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"accuracy": acc, "integrity": integrity(check(manifest, triage)),
                       "rows": check(manifest, triage), "run_n": run_stats(triage), "phases_n": phase_stats(triage),
                       "run_1": run_stats(triage1) if triage1 else None,
                       "scaling": scaling(triage, triage1) if triage1 else None}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
