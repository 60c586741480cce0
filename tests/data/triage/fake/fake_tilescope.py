#!/usr/bin/env python3
"""A stand-in for tilescope-run in the triage orchestration tests
(tests/unit/test_triage_run.cpp): `check`, `run`, `diagnose` and `capture` as
far as `triage` uses them, each answering from the config's "fake" key (or the
candidate's FAKE_* marker), so isolation, hangs, crashes, no GPU and the
capture's launch count are tested without a GPU."""
import json
import os
import signal
import sys
import time


def report(verb, verdict, findings, timing=None):
    point = {"index": 0, "verdict": verdict, "findings": findings}
    if timing:
        point["timing"] = {"measured": True, "kernel_ns": {"median": timing[0]}}
        point["baseline"] = {"name": "cublas", "measured": True, "kernel_ns": {"median": timing[1]}}
        point["speedup"] = timing[1] / timing[0]
    return {"schema": "tilescope.report/1", "tool_version": "fake", "created_at": "2026-01-01T00:00:00Z",
            "host": "fake", "verb": verb, "config": {"name": "fake"}, "points": [point], "verdict": verdict,
            "findings": findings}


def finding(cat, msg, node, **loc):
    f = {"category": cat, "severity": "error", "message": msg, "tree_node": node}
    if loc:
        f["location"] = loc
    return f


def arg(flag):
    a = sys.argv
    return a[a.index(flag) + 1] if flag in a else None


def write(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)


def verb_check(cfg, out):
    fake = json.load(open(cfg)).get("fake", {})
    kind = fake.get("check", "ok")
    if kind == "config_error":
        sys.stderr.write("error: %s: tensors.A.shape: unknown symbol 'Q'\n" % cfg)
        return 2
    if kind == "compile_error":
        write(out, report("check", "compile_error", [finding(
            "compile_error", "k.py:28: arange's arguments must be of type tl.constexpr", "compile.triton.arange_constexpr",
            file="k.py", line=28)]))
        return 1
    write(out, report("check", "ok", []))
    return 0


def verb_diagnose(verb, cfg, out):
    kind = json.load(open(cfg)).get("fake", {}).get("diagnose", "ok")
    if kind == "no_gpu":
        sys.stderr.write("tilescope-run: no GPU or CUDA driver available\n")
        return 3
    if kind == "hang":
        time.sleep(120)
    if kind == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if kind == "oob_write":
        write(out, report(verb, "fault", [finding("oob_write", "out: 64 bytes written past the end", "fault.oob_write",
                                                  file="k.py", line=12)]))
        return 1
    write(out, report(verb, "ok", [], timing=(1000.0, 1500.0)))
    return 0


def verb_capture():
    d = arg("-o")
    os.makedirs(d, exist_ok=True)
    cand = open(arg("--candidate")).read()
    launches = [{"id": "0", "index": 0, "recorder": "cuda", "language": "cuda",
                 "kernel": "void at::native::vectorized_elementwise_kernel<4>", "grid": [1, 1, 1], "block": [128, 1, 1],
                 "reason": "library"}]
    if "FAKE_NO_KERNEL" not in cand:
        # Only the faulting candidate's kernel fails when replayed; the others replay faithfully.
        kind = "oob_write" if "FAKE_FAULT" in cand else "ok"
        write(os.path.join(d, "add_kernel-1.tscfg.json"), {"fake": {"diagnose": kind}})
        launches.append({"id": "1", "index": 1, "recorder": "triton", "language": "triton", "kernel": "add_kernel",
                         "grid": [4, 1, 1], "block": [128, 1, 1], "config": "add_kernel-1.tscfg.json",
                         "fault": "an illegal memory access was encountered"})
    write(os.path.join(d, "capture.json"), {"schema": "tilescope.capture/1", "command": [], "cwd": "/", "host": "fake",
                                            "started_at": "x", "exit": {"status": "exited", "code": 0, "message": "ok"},
                                            "launches": launches})
    return 0


def main():
    verb = sys.argv[1]
    if verb == "check":
        return verb_check(sys.argv[2], arg("-o"))
    if verb in ("run", "diagnose"):
        return verb_diagnose(verb, sys.argv[2], arg("-o"))
    if verb == "capture":
        return verb_capture()
    return 2


if __name__ == "__main__":
    sys.exit(main())
