#!/usr/bin/env python3
"""A stand-in for `tilescope-run worker` in diagnose's tests (no GPU needed).

    fake_worker.py --scenario NAME worker CONFIG --point N --trial T --gpu G
                   [--align-shift B] [--sentinel-variant V] [--input-scale F] [--no-timing] [--no-counters]
                   [--set K=V]...
    fake_worker.py --scenario NAME worker CONFIG --serve --gpu G ...

With --serve it answers one capture request per stdin line ({"request":
"capture","point":N,"trial":T}) like a warm worker, and ends when stdin closes
or after a fault (a sticky error ends the real one). Every process it runs as
appends a line to $FAKE_WORKER_LOG when that is set, so tests can count them.

It prints tilescope.stream/1 events like the real worker (device, progress,
phase launch/launched, point) and decides the point from the arguments the way
the zoo's planted bugs behave on a GPU:

  clean      always ok
  misaligned 16-byte vector loads: misaligned_access unless the shift is a
             multiple of 16 and K a multiple of 8
  no_mask    oob_write unless M, N, K are multiples of BLOCK_M, BLOCK_N, BLOCK_K
  race       odd trials disagree with even ones
  no_init    the output depends on the sentinel variant
  int32      illegal_address once M * K reaches 2^31
  fp16_acc   inf in the output once K > 2048
  warps      incorrect with NUM_WARPS >= 4
  exp_overflow  NaN in the output unless the inputs are scaled below 1/4
                (a softmax without max subtraction)
  latent_exp NaN in the output once the inputs are scaled by 16 or more (a
             softmax without max subtraction that unit inputs do not expose)
  div_zero   NaN in the output whatever the inputs' scale
  tail_nan   NaN in the output unless M, N, K are multiples of their tiles
             (unmasked loads of partial tiles read the NaN guard zone)
  nogpu      exits 3 (no CUDA device)
  crash      SIGSEGV when shifted by 4 bytes, ok otherwise
  profile_crash
             a correct capture checkpointed (`partial`), then SIGSEGV in the
             profiling pass, as CUPTI's profiler over a library call can
  baseline_profile_crash
             the same, with a second checkpoint carrying the kernel's
             counters before the baseline is profiled
  assert     a device_assert fault, with CUDA's assert lines on stderr
  hang       announces the launch and never finishes
  slow       ok, every launch takes 0.5 s (a large problem: diagnose's budget)
  slow_trace ok, every launch takes 0.5 s and a traced one 30 s
  slow_trace_setup
             ok, every launch takes 0.5 s; a traced run spends 30 s before
             its launch (patching, allocating: outside the launch's watchdog)
  fault_at_1, crash_at_1, hang_at_1
             point 1 faults with a sticky illegal address, dies of SIGSEGV or
             hangs in its launch; every other point is ok
  pass_fails_at_1
             point 1 is ok but its profiling pass failed (PC sampling:
             counters.pass_failed, as the real capture reports it); every
             other point is ok and profiled
  bad_types, bad_verdict, bad_category, bad_utf8, truncated, deep, unknown_event
             a malformed result line (a point whose verdict is a number, an
             unknown verdict or finding category, invalid UTF-8 in the line,
             the line cut short, nesting 1000 deep, an event nobody knows):
             the parent must fault that point, saying why, and go on
  binary     binary on stdout and stderr before a good point
  bad_progress
             a progress message that is a number and a device whose sm_count
             is a string before a good point: the point stands
  bad_partial
             a good checkpoint, then a malformed one, then SIGSEGV in the
             profiling pass: a malformed checkpoint is no checkpoint
"""
import json
import os
import signal
import sys
import time


def emit(event, **body):
    body.update({"schema": "tilescope.stream/1", "event": event})
    print(json.dumps(body), flush=True)


def parse(argv):
    a = {"scenario": "clean", "shift": 0, "variant": 0, "scale": 1.0, "sets": {}, "trial": 0, "point": 0,
         "serve": False, "trace": False}
    i = 0
    while i < len(argv):
        t = argv[i]
        if t == "--scenario":
            a["scenario"] = argv[i + 1]; i += 1
        elif t == "worker":
            a["config"] = argv[i + 1]; i += 1
        elif t == "--point":
            a["point"] = int(argv[i + 1]); i += 1
        elif t == "--trial":
            a["trial"] = int(argv[i + 1]); i += 1
        elif t == "--gpu":
            i += 1
        elif t == "--serve":
            a["serve"] = True
        elif t == "--align-shift":
            a["shift"] = int(argv[i + 1]); i += 1
        elif t == "--sentinel-variant":
            a["variant"] = int(argv[i + 1]); i += 1
        elif t == "--input-scale":
            a["scale"] = float(argv[i + 1]); i += 1
        elif t == "--set":
            k, v = argv[i + 1].split("=", 1)
            a["sets"][k] = int(v); i += 1
        elif t in ("--no-timing", "--no-counters"):
            pass
        elif t == "--trace":
            a["trace"] = True
        else:
            sys.exit("fake_worker: unknown argument " + t)
        i += 1
    return a


def finding(category, message, location=None, tensor="C", detail="", evidence=None):
    return {"category": category, "severity": "error", "message": message, "detail": detail,
            "tensor": tensor, "location": location, "evidence": evidence or {}, "tree_node": ""}


def correctness(elements, mismatches=0, err=0.0, nan=0, inf=0):
    return {"checked": True, "reference": "gemm(cublas)", "tensor": "C", "max_abs_err": err,
            "max_rel_err": err, "mismatches": mismatches, "nan": nan, "inf": inf, "elements": elements,
            "first_mismatch": [0, 0] if mismatches else [-1, -1], "rtol": 0.01, "atol": 0.01}


def decide(s, a, d, p):
    """(verdict, findings, correctness or None) for scenario s."""
    M, N, K = p["M"], p["N"], p["K"]
    el = M * N
    ok = ("ok", [], correctness(el))
    if s == "misaligned":
        if a["shift"] % 16 or K % 8:
            return "fault", [finding("misaligned_access", "the kernel faulted: misaligned address",
                                     {"cta": [0, 0, 0]}, tensor="A")], None
        return ok
    if s == "no_mask":
        if M % d["BLOCK_M"] or N % d["BLOCK_N"] or K % d["BLOCK_K"]:
            loc = {"byte_offset_past_end": [24, 31], "cta": [N // d["BLOCK_N"], M // d["BLOCK_M"], 0]}
            return "fault", [finding("oob_write", "writes past the end of C", loc)], None
        return ok
    if s == "race":
        if a["trial"] % 2:
            return "incorrect", [finding("mismatch", "values differ", {"tiles": [[1, 2]]})], \
                correctness(el, 7 * a["trial"], 3.5)
        return ok
    if s == "no_init":
        err = 1e30 if a["variant"] else 3e38
        return "incorrect", [finding("mismatch", "values differ", {"tiles": [[0, 0]]})], \
            correctness(el, el, err)
    if s == "int32":
        if M * K >= 2 ** 31:
            return "fault", [finding("illegal_address", "the kernel faulted: illegal address", tensor="")], None
        return ok
    if s == "fp16_acc":
        if K > 2048:
            return "incorrect", [finding("nan_inf", "inf in C where the reference is finite")], \
                correctness(el, el, 1e9, 0, el)
        return ok
    if s == "warps":
        if d["NUM_WARPS"] >= 4:
            return "incorrect", [finding("mismatch", "values differ")], correctness(el, 99, 2.0)
        return ok
    nan = ("incorrect", [finding("nan_inf", "NaN in C where the reference is finite", {"tiles": [[0, 0]]},
                                 evidence={"nan": el // 2, "inf": 0})],
           correctness(el, el // 2, 1e30, el // 2, 0))
    if s == "exp_overflow":
        return nan if a["scale"] >= 0.25 else ok
    if s == "latent_exp":
        return nan if a["scale"] >= 16 else ok
    if s == "div_zero":
        return nan
    if s == "tail_nan":
        return nan if M % d["BLOCK_M"] or N % d["BLOCK_N"] or K % d["BLOCK_K"] else ok
    if s == "assert":  # CUDA prints failed asserts on stderr; the finding says only "assert"
        for t in (96, 97):
            print(f"/k/gemm_tiled.cu:171: void gemm_tiled(int): block: [6,15,0], thread: [{t},0,0] "
                  "Assertion `r < M && c < N` failed.", file=sys.stderr)
        return "fault", [finding("device_assert", "the kernel faulted: CUDA_ERROR_ASSERT")], None
    if s == "fault_at_1" and a["point"] == 1:
        return "fault", [finding("illegal_address", "the kernel faulted: an illegal memory access", tensor="")], None
    if s == "crash":
        if a["shift"] == 4:
            os.kill(os.getpid(), signal.SIGSEGV)
        return ok
    return ok


def main():
    a = parse(sys.argv[1:])
    s = a["scenario"]
    if os.environ.get("FAKE_WORKER_LOG"):
        with open(os.environ["FAKE_WORKER_LOG"], "a") as log:
            log.write(f"{os.getpid()} {'serve' if a['serve'] else 'once'}\n")
    if s == "nogpu":
        print("no CUDA device: cuInit failed (CUDA_ERROR_NO_DEVICE)", file=sys.stderr)
        sys.exit(3)
    if not a["serve"]:
        capture(a)
        return
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("request") != "capture":
            sys.exit("fake_worker: not a request: " + line)
        a["point"], a["trial"] = req["point"], req["trial"]
        if capture(a) == "fault" or s in MALFORMED:
            return


def capture(a):
    """Streams one capture's events; returns its verdict."""
    s = a["scenario"]
    t0 = time.time()
    cfg = json.load(open(a["config"]))
    defines = dict(cfg["kernel"].get("defines", {}))
    params = dict(cfg.get("params", {}))
    for k, v in a["sets"].items():
        if k in defines:
            defines[k] = v
        elif k in params:
            params[k] = v
        else:
            print(f"--set: '{k}' is neither a define nor a param", file=sys.stderr)
            sys.exit(2)
    if s == "bad_progress":
        emit("device", device={"name": "Fake GPU", "sm_count": "many"})
        emit("progress", message=42)
    emit("device", device={"name": "Fake GPU", "key": "h100", "cc": "9.0", "sm_count": 132})
    emit("progress", message=f"scenario {s}")
    if s == "slow_trace_setup" and a["trace"]:
        time.sleep(30)
    emit("phase", phase="launch")
    if s == "hang" or (s == "hang_at_1" and a["point"] == 1):
        time.sleep(60)
    if s in ("slow", "slow_trace", "slow_trace_setup"):
        time.sleep(30 if s == "slow_trace" and a["trace"] else 0.5)
    if s == "crash_at_1" and a["point"] == 1:
        os.kill(os.getpid(), signal.SIGSEGV)
    if s == "exit_no_point":  # a worker that fails on its own side: no point, exit 1
        sys.exit(1)
    emit("phase", phase="launched")
    verdict, findings, corr = decide(s, a, defines, params)
    point = {"index": a["point"], "trial": a["trial"], "label": "", "defines": defines, "params": params,
             "verdict": verdict, "findings": findings}
    if verdict == "fault":
        point["extra"] = {"sticky_error": True}
    if s in ("slow", "slow_trace", "slow_trace_setup"):
        point["wall_s"] = time.time() - t0
    if corr is not None:
        point["correctness"] = corr
        point["coverage"] = {"C": {"tensor": "C", "shape": [params["M"], params["N"]],
                                   "elements": params["M"] * params["N"], "measured": True,
                                   "written": params["M"] * params["N"], "unwritten": 0}}
    if s == "pass_fails_at_1":
        point["counters"] = {"collected": True, "chip": "GH100", "passes": 1, "metrics": ["gpu__time_duration.sum"],
                             "kernel": {"name": "gemm", "launches": 1, "metrics": {"gpu__time_duration.sum": 1000.0}}}
        if a["point"] == 1:
            point["counters"]["pass_failed"] = True
            point["counters"]["pc_sampling"] = {"collected": False,
                                                "note": "PC sampling failed: CUPTI_ERROR_UNKNOWN (fake)"}
    if s in MALFORMED:
        MALFORMED[s](point)
        return verdict
    if s in ("profile_crash", "baseline_profile_crash"):
        emit("partial", point=point)
        if s == "baseline_profile_crash":
            point["counters"] = {"collected": True, "chip": "GH100", "passes": 1,
                                 "metrics": ["gpu__time_duration.sum"],
                                 "kernel": {"name": "gemm", "launches": 1,
                                            "metrics": {"gpu__time_duration.sum": 1000.0}}}
            emit("partial", point=point)
        emit("progress", message="profile the baseline: cublas")
        os.kill(os.getpid(), signal.SIGSEGV)
    emit("point", point=point)
    return verdict



def emit_raw(data):
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.flush()


def point_line(point):
    return json.dumps({"schema": "tilescope.stream/1", "event": "point", "point": point}).encode()


def bad_types(point):
    emit("point", point=dict(point, verdict=3))


def bad_verdict(point):
    emit("point", point=dict(point, verdict="great"))


def bad_category(point):
    emit("point", point=dict(point, findings=[finding("oob_wirte", "a misspelt category")]))


def bad_utf8(point):
    emit_raw(point_line(dict(point, label="LABEL")).replace(b"LABEL", b"\xff\xfe"))


def truncated(point):
    emit_raw(point_line(point)[:60])


def deep(point):
    emit_raw(point_line(dict(point, defines="DEEP")).replace(b'"DEEP"', b"[" * 1000 + b"]" * 1000))


def unknown_event(point):
    emit("result", point=point)


def binary(point):
    sys.stderr.buffer.write(bytes(range(256)) + b"\n")
    sys.stderr.flush()
    emit_raw(bytes(range(1, 10)) + bytes(range(11, 256)))
    emit("point", point=point)


def bad_partial(point):
    emit("partial", point=point)
    emit("partial", point=dict(point, verdict="great"))
    os.kill(os.getpid(), signal.SIGSEGV)


MALFORMED = {"bad_types": bad_types, "bad_verdict": bad_verdict, "bad_category": bad_category,
             "bad_utf8": bad_utf8, "truncated": truncated, "deep": deep, "unknown_event": unknown_event,
             "binary": binary, "bad_partial": bad_partial}


if __name__ == "__main__":
    main()
