"""GPU check of the Triton recorder on a real PyTorch + Triton (not run by CTest:
it needs a GPU).  Runs gpu_capture_program.py four times:

  baseline   without the recorder (timings to compare)
  cold       under the recorder with empty Triton/Inductor caches
  warm       under the recorder reusing the baseline's caches (Inductor then
             loads its kernels from its FX-graph cache)
  all        under the recorder recording every launch (LAUNCH_COUNT=100)

and checks the records of the cold run.  Usage:
  python3 tests/python/gpu_capture_check.py [WORK_DIR]
Prints a JSON summary; exits 1 when a check fails.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SITE = os.path.join(HERE, "..", "..", "resources", "python", "tilescope", "capture", "site")


def run(work, name, capture, caches, **extra):
    env = dict(os.environ, TRITON_CACHE_DIR=os.path.join(caches, "triton"),
               TORCHINDUCTOR_CACHE_DIR=os.path.join(caches, "inductor"), **extra)
    out_dir = os.path.join(work, name)
    if capture:
        env["PYTHONPATH"] = os.pathsep.join([os.path.abspath(SITE), env.get("PYTHONPATH", "")])
        env["TILESCOPE_CAPTURE_DIR"] = out_dir
    p = subprocess.run([sys.executable, os.path.join(HERE, "gpu_capture_program.py")], env=env,
                       capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        raise SystemExit("%s run failed:\n%s" % (name, p.stderr[-4000:]))
    return json.loads(p.stdout.strip().splitlines()[-1]), out_dir


def records(out_dir):
    result = []
    for path in sorted(glob.glob(os.path.join(out_dir, "launches", "*", "launch.json"))):
        with open(path) as f:
            r = json.load(f)
        r["_dir"] = os.path.dirname(path)
        result.append(r)
    return result


def npy(r, arg, when):
    entry = next(a for a in r["args"] if a["name"] == arg)
    return np.load(os.path.join(r["_dir"], entry[when]))


def check(out_dir, failures):
    recs = records(out_dir)
    by = {}
    for r in recs:
        by.setdefault(r["kernel"], []).append(r)

    def expect(cond, what):
        if not cond:
            failures.append(what)

    expect(len(by.get("add_kernel", [])) == 1, "add_kernel recorded once (default: one per configuration)")
    if by.get("add_kernel"):
        r = by["add_kernel"][0]
        out = npy(r, "out_ptr", "after")
        expect(np.allclose(out, npy(r, "x_ptr", "before") + npy(r, "y_ptr", "before")), "add_kernel out = x + y")
        expect([a.get("changed") for a in r["args"][:3]] == [False, False, True], "changed flags")
        expect(r.get("kernel_ns", 0) > 0, "kernel_ns measured")
        expect(r["triton"]["constexprs"] == {"BLOCK": 1024}, "constexprs")
    if by.get("transpose_copy"):
        r = by["transpose_copy"][0]
        src = next(a for a in r["args"] if a["name"] == "src_ptr")
        expect((src["dtype"], src["strides"]) == ("bf16", [1, 40]), "bf16 view described")
        expect(np.array_equal(npy(r, "src_ptr", "before"), npy(r, "dst_ptr", "after")), "view saved logically")
    else:
        failures.append("transpose_copy recorded")
    scale = by.get("scale_kernel", [])
    expect(len(scale) == 1 and scale[0]["triton"]["autotuned"], "scale_kernel: one autotuned record")
    if scale:
        expect(scale[0]["triton"]["config"].get("BLOCK") in (128, 1024), "autotune config recorded")
    inductor = [r for r in recs if "inductor" in r]
    expect(len(inductor) >= 1, "an Inductor kernel recorded")
    for r in inductor:
        expect(os.path.exists(os.path.join(out_dir, r["source"].get("copy", "?"))), "Inductor source copied")
    with open(os.path.join(out_dir, "events.jsonl")) as f:
        events = [json.loads(line) for line in f]
    expect(len([e for e in events if e["event"] == "launch"]) == len(recs), "one launch event per record")
    envs = glob.glob(os.path.join(out_dir, "env-*.json"))
    expect(bool(envs), "env-<pid>.json written")
    return {"records": [(r["kernel"], r["grid"], r["triton"].get("autotuned"), r.get("inductor", {}).get("kernel_name"))
                        for r in recs],
            "notes": [e["message"] for e in events if e["event"] == "note"],
            "env": json.load(open(envs[0])) if envs else None}


def main():
    work = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="tscap-gpu-")
    base_caches = os.path.join(work, "caches-baseline")
    baseline, _ = run(work, "baseline", False, base_caches)
    cold, cold_dir = run(work, "cold", True, os.path.join(work, "caches-cold"))
    warm, warm_dir = run(work, "warm", True, base_caches)
    # Every launch (a count instead of the default one-per-configuration): the
    # autotuners' benchmark runs must still be absent.
    _, all_dir = run(work, "all", True, os.path.join(work, "caches-all"),
                     TILESCOPE_CAPTURE_LAUNCH_COUNT="100", GPU_CAPTURE_NO_TIMING="1")
    all_recs = [(r["seq"], r["kernel"], r["triton"]["autotuned"]) for r in records(all_dir)]
    failures = []
    kinds = [k if not k.startswith("triton_") else "inductor" for _, k, _ in all_recs]
    if kinds != ["add_kernel", "add_kernel", "transpose_copy", "scale_kernel", "inductor"] or \
            [s for s, _, _ in all_recs] != [0, 1, 2, 3, 4]:
        failures.append("every launch recorded, benchmark runs excluded: %r" % all_recs)
    summary = {"timings_us": {"baseline": baseline, "captured_cold": cold, "captured_warm": warm},
               "cold": check(cold_dir, failures),
               "warm_records": [(r["kernel"], "inductor" in r) for r in records(warm_dir)],
               "all_records": all_recs,
               "failures": failures}
    print(json.dumps(summary, indent=1))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
