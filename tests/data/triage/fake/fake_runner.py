#!/usr/bin/env python3
"""A stand-in for resources/python/tilescope/triage/__main__.py in the orchestration tests:
the candidate's FAKE_* marker decides the answer (or the way it dies)."""
import json
import os
import signal
import sys
import time

SCHEMA = "tilescope.triage.runner/1"


def arg(flag):
    a = sys.argv
    return a[a.index(flag) + 1] if flag in a else None


def main():
    if "--replay" in sys.argv:
        return 0
    cand = open(arg("--candidate")).read()
    doc = {"schema": SCHEMA, "status": "ok", "phase": "forward", "cases": [], "findings": [],
           "environment": {"gpu": "Fake GPU"}, "launches": {"own": 1, "triton": 1, "extension": 0}}
    case = {"label": "base seed 0", "seed": 0, "status": "ok",
            "compare": {"elements": 256, "mismatches": 0, "max_abs_err": 0.0, "rtol": 0.01, "atol": 0.01}}
    doc["cases"].append(case)
    if "FAKE_RUNNER_BUG" in cand:
        raise KeyError("a bug of the runner's own")  # its traceback never names the candidate
    if "FAKE_CRASH" in cand:
        os.kill(os.getpid(), signal.SIGSEGV)
    if "FAKE_HANG" in cand:
        time.sleep(120)
    if "FAKE_NO_TORCH" in cand:
        doc.update(status="error", error="PyTorch is not installed for /usr/bin/python3")
    elif "FAKE_MISMATCH" in cand:
        case["status"] = "failed"
        case["compare"]["mismatches"] = 17
        doc["status"] = "failed"
        doc["findings"].append({"category": "mismatch", "severity": "error", "message": "17 of 256 elements differ",
                                "evidence": {"case": "base seed 0"}})
    elif "FAKE_ARANGE" in cand:
        doc["status"] = "failed"
        doc["cases"] = []
        doc["exception"] = {"type": "CompilationError", "message": "at 3:8:\narange's arguments must be of type tl.constexpr",
                            "text": "triton.compiler.errors.CompilationError: at 3:8:\n    r = tl.arange(0, n)\n        ^\n"
                                    "arange's arguments must be of type tl.constexpr\n",
                            "file": arg("--candidate"), "line": 9, "source_line": "    r = tl.arange(0, n)"}
    elif "FAKE_FAULT" in cand:
        doc["status"] = "failed"
        doc["exception"] = {"type": "AcceleratorError", "message": "CUDA error: an illegal memory access was encountered",
                            "text": "torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n",
                            "sticky": True, "case": "base seed 0"}
    elif "FAKE_NO_KERNEL" in cand:
        doc["launches"] = {"own": 0, "triton": 0, "extension": 0}
        doc["findings"].append({"category": "no_kernel", "severity": "error", "message": "no kernel of the candidate ran"})
        doc["status"] = "failed"
    else:
        doc["timing"] = {"candidate_ns": 10000.0, "reference_ns": 25000.0, "speedup": 2.5, "reps": 20}
    with open(arg("--out"), "w") as f:
        json.dump(doc, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
