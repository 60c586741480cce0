"""The runner of one problem (docs/triage.md, "The runner"): both models built
with the same init inputs and seed, run on the same inputs (several seeds, the
problem's shape, a boundary shape and a scaled one), compared with KernelBench's
tolerances, the traps checked, both timed; the answer written as
tilescope.triage.runner/1 JSON.  One process per problem: a crash, a hang or a
sticky CUDA error ends only it (the C++ side's watchdog and signal handling).

--replay --case LABEL runs the candidate's forward once on that case's inputs:
what `tilescope-run capture` records.
"""
import argparse
import json
import os
import sys
import time
import traceback

from ..common.constants import DEFAULT_SEEDS, EXIT_NO_GPU, EXIT_USAGE, RUNNER_SCHEMA
from . import limits, locate


class Answer:
    def __init__(self, args):
        self.doc = {"schema": RUNNER_SCHEMA, "status": "ok", "phase": "start",
                    "reference": os.path.abspath(args.reference), "candidate": os.path.abspath(args.candidate),
                    "cases": [], "findings": [], "environment": {"python": sys.version.split()[0]}}
        self.out = args.out
        self.t0 = time.time()
        self.counter = None  # the LaunchCounter, once installed

    def phase(self, p):
        self.doc["phase"] = p
        self.progress()

    def progress(self):
        """What the runner has seen so far, as its answer with status "running":
        the C++ side reads it when a limit (the watchdog, SIGKILL of the OOM
        killer) stops the runner before its answer, and reports the last phase
        and the cases judged."""
        d = dict(self.doc, status="running", seconds=round(time.time() - self.t0, 3))
        tmp = self.out + ".tmp"
        try:
            with open(tmp, "w") as f:
                json.dump(d, f, default=str)
            os.replace(tmp, self.out)
        except OSError:  # a full disk or the file-size limit: the answer decides
            pass

    def add(self, f):
        if f:
            self.doc["findings"].append(f)

    def error(self, why, no_gpu=False):
        """The problem could not be judged here (not the candidate's fault)."""
        self.doc.update(status="error", error=why, no_gpu=no_gpu)
        return self.write(EXIT_NO_GPU if no_gpu else EXIT_USAGE)

    def exception(self, exc, candidate, case=None):
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        rec = {"type": type(exc).__name__, "module": type(exc).__module__, "message": str(exc)[:4000],
               "text": text[-16000:], "case": case, "sticky": _sticky(exc)}
        rec.update(locate.locate(exc, candidate))
        hit = limits.fired(exc, self.doc.get("limits", {}))
        if hit:
            rec["limit"] = hit["limit"]
            rec["message"] = hit["message"] + ": " + rec["message"]
        self.doc["exception"] = rec
        self.doc["status"] = "failed"

    def write(self, code=None):
        d = self.doc
        if self.counter is not None:  # also when an exception ended the judgement
            c = self.counter
            d["launches"] = {"triton": c.triton, "extension": c.extension, "own": c.own(), "names": c.names}
        if d["status"] == "ok" and any(f.get("severity", "error") == "error" for f in d["findings"]):
            d["status"] = "failed"
        d["seconds"] = round(time.time() - self.t0, 3)
        tmp = self.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(d, f, indent=1, default=str)
        os.replace(tmp, self.out)
        return code if code is not None else (0 if d["status"] == "ok" else 1)


def _sticky(exc):
    s = str(exc)
    return "CUDA error" in s or type(exc).__name__ == "AcceleratorError" or "CUDA_ERROR" in s


class LaunchCounter:
    """Kernels of the candidate's own that ran: Triton launches (Triton's own
    launch hook, as the capture's recorder) and calls into C++/CUDA extensions
    that torch.utils.cpp_extension built while the candidate was imported."""

    def __init__(self):
        self.active = False
        self.triton = 0
        self.extension = 0
        self.names = []
        self.streams = set()  # the streams of the Triton launches since the last clear

    def _hook(self, md):
        if not self.active:
            return
        self.triton += 1
        data = getattr(md, "data", {}) if md is not None else {}
        name = data.get("name")
        if name and name not in self.names and len(self.names) < 16:
            self.names.append(name)
        stream = data.get("stream")
        if isinstance(stream, int) and len(self.streams) < 16:
            self.streams.add(stream)

    def installed(self):
        """Triton's launch hook chain still holds ours (a candidate may remove it)."""
        try:
            from triton import knobs
            return self._hook in knobs.runtime.launch_enter_hook.calls
        except Exception:
            return True

    def rehook(self):
        try:
            from triton import knobs
            knobs.runtime.launch_enter_hook.add(self._hook)
        except Exception:
            pass

    def install(self):
        try:
            from triton import knobs
            knobs.runtime.launch_enter_hook.add(self._hook)
        except Exception:
            try:  # Triton before the knobs
                from triton.compiler import CompiledKernel
                CompiledKernel.launch_enter_hook = staticmethod(self._hook)
            except Exception:
                pass
        try:
            import torch.utils.cpp_extension as ext
            for fname in ("load_inline", "load"):
                orig = getattr(ext, fname)
                setattr(ext, fname, self._wrap_loader(orig))
        except Exception:
            pass

    def _wrap_loader(self, orig):
        counter = self

        def load(*a, **kw):
            return _Counted(orig(*a, **kw), counter)
        return load

    def own(self):
        return self.triton + self.extension


class _Counted:
    """An extension module whose functions count their calls."""

    def __init__(self, mod, counter):
        self._mod, self._counter = mod, counter

    def __getattr__(self, name):
        attr = getattr(self._mod, name)
        if not callable(attr):
            return attr
        counter = self._counter

        def call(*a, **kw):
            if counter.active:
                counter.extension += 1
                if name not in counter.names and len(counter.names) < 16:
                    counter.names.append(name)
            return attr(*a, **kw)
        return call


def _parse(argv):
    p = argparse.ArgumentParser(description="judge one reference/candidate problem (docs/triage.md)")
    p.add_argument("--reference", required=True)
    p.add_argument("--candidate", required=True)
    p.add_argument("--out", default="runner.json")
    p.add_argument("--seeds", type=int, default=DEFAULT_SEEDS)
    p.add_argument("--no-timing", action="store_true")
    p.add_argument("--replay", action="store_true", help="run the candidate once on --case (under capture)")
    p.add_argument("--case", default="")
    p.add_argument("--device", default=os.environ.get("TILESCOPE_TRIAGE_DEVICE", "cuda"),
                   help="cuda, or cpu for the runner's own tests (also TILESCOPE_TRIAGE_DEVICE)")
    p.add_argument("--no-guards", action="store_true", help="no guard zones around the candidate's tensors")
    p.add_argument("--max-file-bytes", type=int, default=0, help="RLIMIT_FSIZE (0: unchanged)")
    p.add_argument("--max-cpu-s", type=int, default=0, help="RLIMIT_CPU (0: unchanged)")
    p.add_argument("--max-memory-bytes", type=int, default=0, help="RLIMIT_DATA (0: unchanged)")
    return p.parse_args(argv)


def main(argv=None):
    args = _parse(argv)
    answer = Answer(args)
    # Before anything of the problem is imported: soft and hard, so it cannot raise them.
    answer.doc["limits"] = limits.apply(args.max_file_bytes, args.max_cpu_s, args.max_memory_bytes)
    try:
        import torch
    except ImportError as e:
        return answer.error("PyTorch is not installed for %s (%s)" % (sys.executable, e))
    try:
        import numpy  # the comparisons and traps
    except ImportError as e:
        return answer.error("numpy is not installed for %s (%s)" % (sys.executable, e))
    answer.doc["environment"]["torch"] = torch.__version__
    if args.device == "cuda":
        if not torch.cuda.is_available():
            return answer.error("no CUDA GPU is visible to PyTorch", no_gpu=True)
        answer.doc["environment"]["gpu"] = torch.cuda.get_device_name(0)
    try:
        import triton
        answer.doc["environment"]["triton"] = triton.__version__
    except Exception:
        pass
    counter = LaunchCounter()
    counter.install()
    answer.counter = counter
    from .harness import Problem  # needs numpy (traps.py): imported once numpy is known to be there
    prob = Problem(torch, args, answer, counter)
    if args.device == "cuda" and not args.no_guards:
        from .guards import Guards
        prob.guards = Guards(torch, prob.candidate_path)
        prob.guards.install()  # before the candidate is imported: its own imports of torch.empty see it
    from . import cases, guards, harness, integrity, problem, traps
    prob.threads = integrity.Threads(prob.candidate_path)
    prob.threads.install()
    if not args.replay:
        # What the harness relies on, as it is before the candidate is imported (docs/triage.md, "Integrity").
        prob.tamper = integrity.Tamper()
        integrity.watch_harness(prob.tamper, torch, numpy, [sys.modules[__name__], cases, guards, harness, integrity,
                                                            limits, locate, problem, traps])
    return cases.judge(torch, args, answer, prob)


if __name__ == "__main__":
    sys.exit(main())
