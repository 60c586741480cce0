"""A KernelBench-style evaluator over bench/triage, the anchor that triage is measured against.

    python3 bench/triage/kernelbench_loop.py bench/triage/manifest.json [--json OUT] [--timeout S]

Each problem is judged as KernelBench's `eval_kernel_against_ref` judges a sample, in a
process of its own (as its batch evaluation does): the reference `Model` and the
candidate `ModelNew` are built from `get_init_inputs()` under one seed, five correctness
trials run each on fresh `get_inputs()` (seeded) and compare shapes and
`torch.allclose(atol=1e-2, rtol=1e-2)`, and a correct candidate is timed with CUDA
events (3 warm-up calls, 100 timed). An exception while loading is a compile error, one
while running a runtime error, a process past the timeout a hang. It reads no line, no
kernel and no integrity evidence: that is the point of the comparison. Like
KernelBench, it imports the problems' files unconfined: run it only on problems
you trust (`tilescope-run triage` confines them, docs/security.md).

The table names, per problem, the manifest's expected category and the loop's verdict;
the totals are the pass/fail verdicts that agree with the manifest (a healthy problem
passes, every other fails), the false passes (a planted failure or trap that passed),
the false failures, and the wall time.
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time

TRIALS = 5
ATOL = RTOL = 1e-2


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _to_cuda(xs):
    import torch

    return [x.cuda() if isinstance(x, torch.Tensor) else x for x in xs]


def judge_one(ref_path, cand_path):
    """KernelBench's judgement of one sample; returns a JSON-able dict."""
    import torch

    out = {"compiled": False, "correct": False, "error": None, "runtime_ms": None}
    try:
        ref = _load(ref_path, "kb_ref")
        cand = _load(cand_path, "kb_cand")
        torch.manual_seed(42)
        init = ref.get_init_inputs()
        model = ref.Model(*init).cuda()
        torch.manual_seed(42)
        new = cand.ModelNew(*init).cuda()
        torch.cuda.synchronize()
        out["compiled"] = True
    except Exception as ex:  # noqa: BLE001 - KernelBench records any failure to build
        out["error"] = "compile: %s: %s" % (type(ex).__name__, str(ex).splitlines()[0] if str(ex) else "")
        return out
    try:
        gen = torch.Generator().manual_seed(42)
        for _ in range(TRIALS):
            seed = int(torch.randint(0, 2**32 - 1, (1,), generator=gen))
            torch.manual_seed(seed)
            inputs = _to_cuda(ref.get_inputs())
            with torch.no_grad():
                want = model(*inputs)
                torch.manual_seed(seed)
                got = new(*inputs)
            torch.cuda.synchronize()
            if got.shape != want.shape:
                out["error"] = "output shape %s, expected %s" % (tuple(got.shape), tuple(want.shape))
                return out
            if not torch.allclose(got, want, atol=ATOL, rtol=RTOL):
                out["error"] = "output mismatch (max abs diff %.3g)" % float((got - want).abs().max())
                return out
        out["correct"] = True
        inputs = _to_cuda(ref.get_inputs())
        with torch.no_grad():
            for _ in range(3):
                new(*inputs)
            torch.cuda.synchronize()
            times = []
            for _ in range(100):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                new(*inputs)
                b.record()
                torch.cuda.synchronize()
                times.append(a.elapsed_time(b))
        out["runtime_ms"] = sum(times) / len(times)
    except Exception as ex:  # noqa: BLE001 - a runtime error is KernelBench's "incorrect"
        out["error"] = "runtime: %s: %s" % (type(ex).__name__, str(ex).splitlines()[0] if str(ex) else "")
    return out


def run_all(manifest_path, problems, timeout_s, python):
    here = os.path.dirname(os.path.abspath(manifest_path))
    rows = []
    for p in problems:
        ref, cand = os.path.join(here, p["reference"]), os.path.join(here, p["candidate"])
        t0 = time.monotonic()
        try:
            c = subprocess.run([python, os.path.abspath(__file__), "--one", ref, cand], capture_output=True,
                               text=True, timeout=timeout_s, cwd=os.path.dirname(cand))
            lines = [x for x in c.stdout.splitlines() if x.startswith("{")]
            res = json.loads(lines[-1]) if lines else {
                "compiled": False, "correct": False, "runtime_ms": None,
                "error": "process exited %d: %s" % (c.returncode, (c.stderr.strip().splitlines() or [""])[-1])}
        except subprocess.TimeoutExpired:
            res = {"compiled": True, "correct": False, "runtime_ms": None, "error": "timeout"}
        res["seconds"] = time.monotonic() - t0
        res["name"] = p["name"]
        res["expected"] = p["category"]
        res["should_pass"] = p["category"] == ["ok"]
        rows.append(res)
        print("%-40s %-8s %6.1f s  %s" % (p["name"], "pass" if res["correct"] else "fail", res["seconds"],
                                          res["error"] or ""), file=sys.stderr, flush=True)
    return rows


def summarize(rows, wall):
    agree = sum(r["correct"] == r["should_pass"] for r in rows)
    false_pass = [r["name"] for r in rows if r["correct"] and not r["should_pass"]]
    false_fail = [r["name"] for r in rows if not r["correct"] and r["should_pass"]]
    return {"problems": len(rows), "verdict_right": agree, "false_passes": false_pass,
            "false_failures": false_fail, "wall_s": wall, "lines": 0}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("manifest", nargs="?")
    ap.add_argument("--one", nargs=2, metavar=("REF", "CAND"))
    ap.add_argument("--json")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--python", default=sys.executable)
    a = ap.parse_args(argv)
    if a.one:
        print(json.dumps(judge_one(*a.one)), flush=True)
        return 0
    if not a.manifest:
        ap.error("a manifest (bench/triage/manifest.json) or --one REF CAND")
    try:
        problems = json.load(open(a.manifest))["problems"]
    except (OSError, ValueError, KeyError, TypeError) as ex:
        ap.error("%s: not a triage manifest (bench/triage/manifest.json): %s" % (a.manifest, ex))
    probe = subprocess.run([a.python, "-c", "import torch; assert torch.cuda.is_available(), 'no CUDA device'"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        ap.error("%s has no PyTorch with a GPU (%s): the loop runs the problems on one"
                 % (a.python, (probe.stderr.strip().splitlines() or ["?"])[-1]))
    t0 = time.monotonic()
    rows = run_all(a.manifest, problems, a.timeout, a.python)
    s = summarize(rows, time.monotonic() - t0)
    print("\n## KernelBench-style loop\n\n| problem | expected | verdict | s | error |\n| --- | --- | --- | --- | --- |")
    for r in rows:
        print("| %s | %s | %s | %.1f | %s |" % (r["name"], "|".join(r["expected"]), "pass" if r["correct"] else "fail",
                                              r["seconds"], (r["error"] or "").replace("|", "/")[:80]))
    print("\nverdict right: %d/%d; false passes %d (%s); false failures %d (%s); lines named: 0; wall %.1f s"
          % (s["verdict_right"], s["problems"], len(s["false_passes"]), ", ".join(s["false_passes"]),
             len(s["false_failures"]), ", ".join(s["false_failures"]), s["wall_s"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"summary": s, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
