"""The Triton recorder: what runs at each launch's enter and exit hooks.

Triton's launcher (CompiledKernel.run -> the generated C `launch`) calls
knobs.runtime.launch_enter_hook(md) right before cuLaunchKernelEx and
launch_exit_hook(md) right after, with the same LazyDict `md` that
CompiledKernel.launch_metadata returned.  hooks.py wraps launch_metadata so
that `md` also carries (kernel, grid, stream, args); the hooks here read it
back from that very object, so the launch and its arguments cannot be mismatched
the way a thread-local could be after a launch that raised.

Every hook body is wrapped: an exception inside the recorder becomes a note in
events.jsonl and the program's launch goes ahead untouched.
"""
import itertools
import os
import sys
import threading
import time
import traceback

from ..common.constants import LAUNCH_SCHEMA
from . import describe, tensors
from .output import Output, env_facts, dumps
from .selection import Selector, format_bytes


class _Local(threading.local):
    def __init__(self):
        self.bench = 0        # > 0 while an autotuner benchmarks configs on this thread
        self.tuners = []      # [(kind, autotuner)] whose run() is on this thread's stack
        self.open = None      # the record between this thread's enter and exit hooks


class _Record:
    """One selected launch between its enter and exit hooks."""

    def __init__(self, rid, tmp, record, saving, name):
        self.rid, self.tmp, self.record, self.saving, self.name = rid, tmp, record, saving, name
        self.timer = None


def grid3(grid):
    g = list(grid) if isinstance(grid, (tuple, list)) else [grid]
    return [int(x) for x in g[:3]] + [1] * (3 - min(len(g), 3))


class Recorder:

    def __init__(self, settings, device=None, injection=None):
        self.settings = settings
        self.out = Output(settings.out_dir)
        self.device = device if device is not None else tensors.TorchDevice()
        self.injection = injection
        self.selector = Selector(settings.kernel_pattern, settings.skip, settings.count)
        self.local = _Local()
        self._lock = threading.Lock()
        self._seq = itertools.count()       # Triton launches seen (benchmark runs excluded)
        self._records = itertools.count()   # records started by this process
        self._env_written = False
        self._infos = {}       # id(CompiledKernel) -> (kernel, KernelInfo)
        self._open = set()     # records between enter and exit, all threads (close())
        if self.selector.error:
            self.note(self.selector.error)

    # --- the hooks Triton calls ---------------------------------------------------

    def enter_hook(self, md):
        launch = getattr(md, "_tilescope_launch", None)
        if launch is None:
            return
        try:
            self.on_enter(md, *launch)
        except Exception as e:
            self._failed("enter", e)

    def exit_hook(self, md):
        rec = getattr(md, "_tilescope_record", None)
        if rec is None:
            return
        try:
            self.on_exit(md, rec)
        except Exception as e:
            self._open.discard(rec)
            Output.abort(rec.tmp)
            self._failed("exit", e)

    # --- enter ----------------------------------------------------------------------

    def on_enter(self, md, kernel, grid, stream, args):
        local = self.local
        handle = getattr(kernel, "function", None)
        if local.bench:
            # An autotuner timing a config: not one of the program's launches.
            self._claim(handle)
            return
        seq = next(self._seq)          # itertools.count: atomic under the GIL, no lock
        if local.open is not None:
            self._abandon(local.open)
        if not self._env_written:
            self._write_env()
        jitfn = getattr(kernel.src, "fn", None)
        name = getattr(jitfn, "__name__", None) or getattr(kernel, "name", "?")

        def key():
            return describe.distinct_key(getattr(kernel, "hash", None), name, args)
        if not self._decide(name, key):
            self._claim(handle)
            return
        if self.device.capturing():
            # Asked only for selected launches: it costs a call into torch.
            self.selector.forget(name, key)
            self.note("launches of Triton kernels during CUDA graph capture are not recorded "
                      "(copying or synchronising would break the capture)")
            self._claim(handle)
            return
        rec = self._start(kernel, grid, stream, args, seq, name)
        try:
            md._tilescope_record = rec
        except Exception:
            Output.abort(rec.tmp)
            raise
        local.open = rec
        self._open.add(rec)

    def _start(self, kernel, grid, stream, args, seq, name):
        n = next(self._records)
        pid = os.getpid()
        rid = "t%d-%04d" % (pid, n)
        now = time.time_ns()
        info = self._info(kernel)
        tmp = self.out.begin(rid)
        try:
            rec = self._prepare(kernel, info, grid, args, seq, name, rid, tmp, pid, now)
            self._save_tensors(rec, tmp, "before")
            index = self.injection.next_index() if self.injection is not None else None
            if index is not None:
                rec.record["index"] = int(index)
            rec.timer = self.device.timer_start(stream)
            # Last: from here the CUDA recorder leaves this launch to us.  Had
            # anything above failed, it would still record it as a plain launch.
            self._claim(getattr(kernel, "function", None))
            return rec
        except BaseException:
            Output.abort(tmp)
            raise

    def _prepare(self, kernel, info, grid, args, seq, name, rid, tmp, pid, now):
        pairs, bind_note = describe.bind_args(info, args)
        entries, found = describe.describe_args(info, pairs)
        notes = [bind_note] if bind_note else []
        g = grid3(grid)
        triton_mod = sys.modules.get("triton")
        tri = info.triton_section(getattr(triton_mod, "__version__", None))
        for i, (pname, value) in enumerate(pairs):
            if i in info.declared and pname not in tri["constexprs"]:
                tri["constexprs"][pname] = describe.jsonable(value)   # as launched
        record = {"schema": LAUNCH_SCHEMA, "recorder": "triton", "language": info.language,
                  "id": rid, "pid": pid, "seq": seq, "time_unix_ns": now,
                  "kernel": name, "symbol": info.symbol}
        ctx = self._tuner_context(name)
        fallback_file = None
        if ctx is not None:
            tri["autotuned"] = ctx["autotuned"]
            tri["config"] = ctx["config"]
            if "inductor" in ctx:
                record["inductor"] = ctx["inductor"]
                fallback_file = ctx["inductor"].get("file")
        source = describe.source_info(info.jitfn, fallback_file) if info.jitfn is not None else {}
        if source.get("file"):
            copy = self.out.copy_source(source["file"])
            if copy:
                source["copy"] = copy
            else:
                notes.append("kernel source %s could not be read: not copied" % source["file"])
        record["source"] = source
        record["grid"] = g
        if info.num_ctas != 1:
            record["cuda_grid"] = [g[0] * info.num_ctas, g[1], g[2]]
        record.update({"block": [info.warp_size * info.num_warps, 1, 1], "shared_bytes": info.shared,
                       "cluster": info.cluster, "triton": tri})
        cubin = _binary(kernel)
        if cubin:
            with open(os.path.join(tmp, "kernel.cubin"), "wb") as f:
                f.write(cubin)
            record["cubin"] = "kernel.cubin"
        else:
            notes.append("no cubin in the compiled kernel (not a CUDA target)")
        if info.global_scratch or info.profile_scratch:
            notes.append("the kernel takes Triton's scratch buffers (global %d B, profile %d B per "
                         "program), allocated at launch and appended after its parameters"
                         % (info.global_scratch, info.profile_scratch))
        record["args"] = entries
        record["aliases"] = describe.aliases(entries)
        skipped, saving = [], []
        for label, t, entry, span, dinfo in found:
            if dinfo is None:
                continue
            itemsize = int(dinfo[1][2:])
            numel = 1
            for d in entry["shape"]:
                numel *= d
            size = max(span, numel) * itemsize
            if size > self.settings.max_bytes:
                skipped.append({"arg": entry["name"], "reason": "%s above --max-bytes (%s): not saved"
                                % (format_bytes(size), format_bytes(self.settings.max_bytes))})
                continue
            if dinfo[2] and dinfo[2] not in notes:
                notes.append(dinfo[2])
            saving.append([label, t, entry, span, dinfo, None])
        record["notes"] = notes
        record["skipped"] = skipped
        return _Record(rid, tmp, record, saving, name)

    def _save_tensors(self, rec, tmp, when):
        """Copies every tensor to be saved and writes <label>.<when>.npy.  A
        tensor that cannot be copied is described, noted and left out."""
        live = [item for item in rec.saving if item[5] is not False]
        if not live:
            return
        try:
            import numpy as np
        except ImportError:
            for item in live:
                item[5] = False
            rec.record["notes"].append("numpy is not importable here: tensor bytes not saved")
            return
        self.device.synchronize([item[1] for item in live])
        for item in live:
            label, t, entry, span, dinfo, before = item
            try:
                host = self.device.copy_span(t, span, dinfo[1])
                values = tensors.logical_view(host, entry["shape"], entry["strides"])
                fname = "%s.%s.npy" % (label, when)
                np.save(os.path.join(tmp, fname), values, allow_pickle=False)
            except Exception as e:
                rec.record["notes"].append("%s: could not copy the %s values to the host: %s"
                                           % (entry["name"], when, _short(e)))
                if when == "before":
                    entry["unsupported"] = "could not copy to the host: %s" % _short(e)
                    item[5] = False
                continue
            entry[when] = fname
            d = tensors.digest(values)
            if when == "before":
                item[5] = d
            else:
                entry["changed"] = d != before

    # --- exit -----------------------------------------------------------------------

    def on_exit(self, md, rec):
        md._tilescope_record = None
        if self.local.open is rec:
            self.local.open = None
        self._open.discard(rec)
        ns = self.device.timer_stop(rec.timer)
        if ns is not None:
            rec.record["kernel_ns"] = float(ns)
        self._save_tensors(rec, rec.tmp, "after")
        with open(os.path.join(rec.tmp, "launch.json"), "w") as f:
            f.write(dumps(rec.record, indent=1) + "\n")
        self.out.commit(rec.tmp, rec.rid)
        event = {"event": "launch", "recorder": "triton", "id": rec.rid, "pid": rec.record["pid"],
                 "kernel": rec.name, "grid": rec.record["grid"]}
        if "index" in rec.record:
            event["index"] = rec.record["index"]
        self.out.event(event)

    # --- helpers ----------------------------------------------------------------------

    def _info(self, kernel):
        hit = self._infos.get(id(kernel))
        if hit is not None and hit[0] is kernel:
            return hit[1]
        info = describe.KernelInfo(kernel)
        self._infos[id(kernel)] = (kernel, info)
        return info

    def _tuner_context(self, name):
        """autotuned/config for a launch made by an autotuner's run() for this
        kernel (the innermost one on this thread), else None."""
        for kind, tuner in reversed(self.local.tuners):
            if kind == "triton":
                base = getattr(tuner, "base_fn", None)
                if getattr(base, "__name__", None) != name:
                    continue
                cfg = getattr(tuner, "best_config", None)
                config = cfg.all_kwargs() if cfg is not None else {}
                return {"autotuned": True, "config": describe.jsonable(config)}
            fn = getattr(tuner, "fn", None)
            if getattr(fn, "__name__", None) != name:
                continue
            launchers = getattr(tuner, "launchers", None) or []
            cfg = getattr(launchers[0], "config", None) if len(launchers) == 1 else None
            config = {}
            if cfg is not None:
                config = dict(getattr(cfg, "kwargs", {}) or {})
                config.update(num_warps=getattr(cfg, "num_warps", None), num_stages=getattr(cfg, "num_stages", None))
            tuned = len(getattr(tuner, "compile_results", None) or []) > 1 or \
                bool(getattr(cfg, "found_by_coordesc", False))
            meta = getattr(tuner, "inductor_meta", None) or {}
            return {"autotuned": tuned, "config": describe.jsonable(config),
                    "inductor": {"kernel_name": meta.get("kernel_name"),
                                 "file": getattr(tuner, "filename", None),
                                 "heuristic": str(getattr(tuner, "heuristic_type", ""))}}
        return None

    def _decide(self, name, key):
        """A skip/count window is the CUDA recorder's when it is loaded (one
        count over every matching launch of the process); otherwise, and for the
        one-per-configuration default, this recorder's own selector decides."""
        select = getattr(self.injection, "select", None)
        if self.selector.ranged and select is not None and self.selector.matches(name):
            chosen = select(name)
            if chosen is not None:
                return chosen
        return self.selector.decide(name, key)

    def _claim(self, handle):
        if self.injection is not None and handle:
            self.injection.claim(handle)

    def _write_env(self):
        with self._lock:
            if self._env_written:
                return
            self._env_written = True
        try:
            self.out.write_env(env_facts(self.device))
        except Exception as e:
            self._failed("env", e)

    def _abandon(self, rec):
        self.local.open = None
        self._open.discard(rec)
        Output.abort(rec.tmp)
        self.note("launch %s of %s never reached its exit hook (the launch raised?): not recorded"
                  % (rec.rid, rec.name))

    def _failed(self, where, e):
        self.note("triton recorder: the %s step failed (%s); the program continues"
                  % (where, _short(e, frames=True)))

    def note(self, message):
        try:
            self.out.note(message)
        except Exception:
            pass           # nowhere left to report to: stay silent, never raise

    def close(self):
        """At exit: a launch still between its hooks leaves no .tmp- folder."""
        for rec in list(self._open):
            self._abandon(rec)

    def after_fork(self):
        """In a forked child: its own counters, ids and env file."""
        self._lock = threading.Lock()
        self._seq = itertools.count()
        self._records = itertools.count()
        self._env_written = False
        self.local = _Local()
        self._open = set()
        self.selector.reset()


def _binary(kernel):
    asm = getattr(kernel, "asm", None) or {}
    try:
        return asm["cubin"] if "cubin" in asm else None
    except Exception:
        return None


def _short(e, frames=False):
    text = "%s: %s" % (type(e).__name__, e)
    if frames and e.__traceback__ is not None:
        last = traceback.extract_tb(e.__traceback__)[-1]
        text += " at %s:%d" % (os.path.basename(last.filename), last.lineno)
    return text[:500]
