"""What the runner watches so that a candidate cannot fool it (docs/triage.md,
"Integrity"): the harness's own functions (Tamper), the threads the candidate
starts (Threads), the exceptions it swallows (Swallowed), PyTorch's precision
switches, the persisting-L2 settings (DriverL2), its outputs' storage and its
inputs' contents, and the kernels of one forward as CUPTI saw them (the
profiler's trace, read by parse_trace).  traps.py turns the facts into findings.

Tamper, Swallowed, parse_trace and the flag readers need no PyTorch (the unit
tests run them on plain modules); the rest take the torch module as an argument.
"""
import ctypes
import json
import os
import struct
import sys
import threading
import traceback
import warnings

# ---------------------------------------------------------------- the harness's functions


class Tamper:
    """Identities of the functions, classes and modules the harness relies on,
    taken before the candidate is imported; changed() names those that are no
    longer the same object, restore() puts the originals back."""

    def __init__(self):
        self.watched = {}   # name -> (owner, attribute, original)
        self.probes = {}    # name -> (getter, original value, restore(value) or None)
        self.reported = set()

    def watch(self, owner, attrs, prefix):
        for a in attrs:
            if self._has(owner, a):
                self.watched[prefix + "." + a] = (owner, a, self._current(owner, a), self._own(owner, a))

    @staticmethod
    def _own(owner, attr):
        """The attribute is the owner's own (not inherited from a base class)."""
        return not isinstance(owner, type) or attr in vars(owner)

    @staticmethod
    def _has(owner, attr):
        try:
            getattr(owner, attr)
            return True
        except Exception:
            return False

    def watch_module(self, mod, prefix=None):
        """Every public function and class of `mod`, and the methods of its classes."""
        prefix = prefix or mod.__name__
        for a, v in list(vars(mod).items()):
            if a.startswith("__"):
                continue
            if callable(v) and getattr(v, "__module__", None) == mod.__name__:
                self.watched[prefix + "." + a] = (mod, a, v, True)
                if isinstance(v, type):
                    for m, mv in list(vars(v).items()):
                        if callable(mv) or isinstance(mv, (staticmethod, classmethod, property)):
                            self.watched[prefix + "." + a + "." + m] = (v, m, mv, True)

    def watch_modules(self, names):
        """The modules themselves, as sys.modules holds them (one replaced there is tampering too)."""
        for n in names:
            if n in sys.modules:
                self.probe("sys.modules[%s]" % n, lambda n=n: sys.modules.get(n),
                           lambda v, n=n: sys.modules.__setitem__(n, v))

    def probe(self, name, getter, restore=None):
        try:
            self.probes[name] = (getter, getter(), restore)
        except Exception:
            pass

    @staticmethod
    def _current(owner, attr):
        # A class's own attribute as stored (a staticmethod object, not the function it wraps).
        if isinstance(owner, type) and attr in vars(owner):
            return vars(owner)[attr]
        return getattr(owner, attr, None)

    def changed(self):
        out = []
        for name, (owner, attr, orig, _) in self.watched.items():
            if self._current(owner, attr) is not orig:
                out.append(name)
        for name, (getter, orig, _) in self.probes.items():
            try:
                now = getter()
            except Exception:
                now = None
            if now is not orig and now != orig:
                out.append(name)
        return out

    def restore(self, names):
        for name in names:
            if name in self.watched:
                owner, attr, orig, own = self.watched[name]
                try:
                    if own:
                        setattr(owner, attr, orig)
                    elif attr in vars(owner):
                        delattr(owner, attr)  # the base class's again
                except (AttributeError, TypeError):
                    pass
            elif name in self.probes and self.probes[name][2] is not None:
                try:
                    self.probes[name][2](self.probes[name][1])
                except Exception:
                    pass

    def check(self):
        """The names changed since the snapshot and not reported before; restored."""
        changed = self.changed()
        self.restore(changed)
        new = [n for n in changed if n not in self.reported]
        self.reported.update(new)
        return new


_TORCH_WATCH = (
    ("", ("allclose", "equal", "isclose", "no_grad", "manual_seed", "empty", "empty_like", "zeros", "zeros_like",
          "ones_like", "full_like", "from_numpy", "as_tensor", "tensor")),
    ("Tensor", ("cpu", "numpy", "float", "detach", "clone", "copy_", "equal", "allclose", "to", "contiguous",
                "data_ptr", "untyped_storage", "view", "numel", "element_size", "__eq__", "__ne__", "new_empty",
                "new_zeros", "fill_", "zero_", "reshape")),
    ("cuda", ("synchronize", "Event", "current_stream", "Stream", "ExternalStream", "stream", "mem_get_info",
              "memory_snapshot", "get_device_properties")),
    ("cuda.Event", ("record", "elapsed_time", "synchronize", "query")),
    ("testing", ("assert_close",)),
)


def watch_harness(tamper, torch, numpy, runner_modules):
    """The snapshot the runner takes before it imports the candidate."""
    import json as _json
    import statistics
    import time
    for path, attrs in _TORCH_WATCH:
        owner = torch
        for part in [p for p in path.split(".") if p]:
            owner = getattr(owner, part, None)
        if owner is not None:
            tamper.watch(owner, attrs, "torch" + ("." + path if path else ""))
    tamper.watch(numpy, ("asarray", "allclose", "isclose", "array_equal", "abs", "isfinite", "isnan", "where",
                         "maximum", "argmax", "unravel_index", "errstate"), "numpy")
    tamper.watch(time, ("perf_counter", "perf_counter_ns", "time", "time_ns", "monotonic", "monotonic_ns", "sleep"),
                 "time")
    tamper.watch(statistics, ("median",), "statistics")
    tamper.watch(_json, ("dump", "dumps", "load"), "json")
    tamper.watch(os, ("replace", "getpid", "_exit"), "os")
    import builtins
    tamper.watch(builtins, ("open", "print", "len", "isinstance", "sum", "min", "max", "abs", "float", "int",
                            "range", "sorted", "any", "all", "type", "getattr", "setattr"), "builtins")
    for m in runner_modules:
        tamper.watch_module(m)
    tamper.watch_modules([m.__name__ for m in runner_modules])
    tamper.probe("sys.gettrace", sys.gettrace)
    tamper.probe("sys.getprofile", sys.getprofile)


# ---------------------------------------------------------------- precision switches

PRECISION_FLAGS = (
    "backends.cuda.matmul.allow_tf32",
    "backends.cudnn.allow_tf32",
    "backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
    "backends.cuda.matmul.allow_bf16_reduced_precision_reduction",
    "backends.cuda.matmul.fp32_precision",
    "backends.cudnn.fp32_precision",
    "backends.cudnn.conv.fp32_precision",
    "backends.fp32_precision",
)


def _resolve(root, dotted):
    parts = dotted.split(".")
    owner = root
    for p in parts[:-1]:
        owner = getattr(owner, p)
    return owner, parts[-1]


def read_flags(torch):
    """{flag: value} of the precision switches this PyTorch has, and
    float32_matmul_precision."""
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for f in PRECISION_FLAGS:
            try:
                owner, attr = _resolve(torch, f)
                v = getattr(owner, attr)
            except Exception:
                continue
            if isinstance(v, (bool, int, float, str)):
                out[f] = v
        try:
            out["float32_matmul_precision"] = torch.get_float32_matmul_precision()
        except Exception:
            pass
    return out


def write_flags(torch, values):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for f, v in values.items():
            try:
                if f == "float32_matmul_precision":
                    torch.set_float32_matmul_precision(v)
                else:
                    owner, attr = _resolve(torch, f)
                    setattr(owner, attr, v)
            except Exception:
                pass


# ---------------------------------------------------------------- threads and exceptions


def _realpath_cache():
    cache = {}

    def real(p):
        r = cache.get(p)
        if r is None:
            r = cache[p] = os.path.realpath(p)
        return r
    return real


class Threads:
    """Threads started while a frame of the candidate's file is on the stack
    (directly or through an executor), with the line that started them."""

    def __init__(self, candidate):
        self.candidate = os.path.realpath(candidate)
        self.started = []   # (thread, line, text)
        self.reported = set()

    def _site(self):
        for f in reversed(traceback.extract_stack()):
            if os.path.realpath(f.filename) == self.candidate:
                return f.lineno, (f.line or "").strip()
        return None, ""

    def install(self):
        watcher = self
        orig = threading.Thread.start

        def start(thread, *a, **kw):
            line, text = watcher._site()
            if line is not None:
                watcher.started.append((thread, line, text))
            return orig(thread, *a, **kw)
        start.__wrapped__ = orig
        threading.Thread.start = start

    def alive(self):
        """[{name, file, line, source_line}] of the candidate's threads alive now, not reported before."""
        out = []
        for t, line, text in self.started:
            if t.is_alive() and id(t) not in self.reported:
                self.reported.add(id(t))
                out.append({"name": t.name, "file": self.candidate, "line": line, "source_line": text})
        return out


_IGNORED_EXCEPTIONS = ("StopIteration", "StopAsyncIteration", "GeneratorExit")


class Swallowed:
    """Exceptions raised in or through a frame of the candidate's file while the
    `with` lasts (sys.settrace, the candidate's frames only).  A forward that
    returned normally after one caught it."""

    def __init__(self, candidate):
        self.candidate = os.path.realpath(candidate)
        self.seen = []
        self._real = _realpath_cache()
        self._prev = None

    def _global(self, frame, event, arg):
        if event == "call" and self._real(frame.f_code.co_filename) == self.candidate:
            return self._local
        return None

    def _local(self, frame, event, arg):
        if event == "exception" and len(self.seen) < 8:
            exc_type, value = arg[0], arg[1]
            name = getattr(exc_type, "__name__", str(exc_type))
            if name not in _IGNORED_EXCEPTIONS and not any(s["id"] == id(value) for s in self.seen):
                self.seen.append({"id": id(value), "type": name, "message": str(value).split("\n")[0][:300],
                                  "file": self.candidate, "line": frame.f_lineno})
        return self._local

    def __enter__(self):
        self._prev = sys.gettrace()
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc):
        sys.settrace(self._prev)
        return False

    def exceptions(self):
        return [{k: v for k, v in s.items() if k != "id"} for s in self.seen]


# ---------------------------------------------------------------- storage and contents


def storage_range(torch, t):
    """(start, end) of the bytes of t's storage, or None."""
    if not isinstance(t, torch.Tensor):
        return None
    try:
        s = t.untyped_storage()
        n = s.nbytes()
        return (s.data_ptr(), s.data_ptr() + n) if n else None
    except Exception:
        return None


def changed_elements(torch, before, after):
    """{"elements": n, "first": [index]} of the elements that differ (NaN equal to NaN), or None."""
    if not isinstance(before, torch.Tensor) or not isinstance(after, torch.Tensor) or before.shape != after.shape:
        return None
    a, b = before.detach(), after.detach()
    diff = a != b
    if a.is_floating_point() or a.is_complex():
        diff &= ~(torch.isnan(a) & torch.isnan(b))
    n = int(diff.sum())
    if not n:
        return None
    flat = int(diff.reshape(-1).nonzero()[0])
    idx, rest = [], flat
    for d in reversed(a.shape):
        idx.append(rest % d)
        rest //= d
    return {"elements": n, "first": list(reversed(idx))}


def type_name(x):
    t = type(x)
    return t.__module__ + "." + t.__qualname__ if t.__module__ not in ("builtins",) else t.__qualname__


# ---------------------------------------------------------------- the driver's persisting L2

_CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06
_CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW = 1


class DriverL2:
    """The context's persisting-L2 limit and a stream's access-policy window,
    through the CUDA driver (libcuda), which the candidate cannot hide from."""

    def __init__(self):
        try:
            self.lib = ctypes.CDLL("libcuda.so.1")
        except OSError:
            self.lib = None

    def limit(self):
        if self.lib is None:
            return None
        v = ctypes.c_size_t(0)
        return v.value if self.lib.cuCtxGetLimit(ctypes.byref(v), _CU_LIMIT_PERSISTING_L2_CACHE_SIZE) == 0 else None

    def set_limit(self, value):
        if self.lib is not None and value is not None:
            self.lib.cuCtxSetLimit(_CU_LIMIT_PERSISTING_L2_CACHE_SIZE, ctypes.c_size_t(value))
            self.lib.cuCtxResetPersistingL2Cache()

    def window(self, stream):
        """num_bytes of the stream's access-policy window (0: none), or None."""
        if self.lib is None:
            return None
        buf = (ctypes.c_ubyte * 64)()
        rc = self.lib.cuStreamGetAttribute(ctypes.c_void_p(stream), _CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, buf)
        return struct.unpack_from("Q", bytes(buf), 8)[0] if rc == 0 else None

    def clear_window(self, stream):
        if self.lib is not None:
            buf = (ctypes.c_ubyte * 64)()
            self.lib.cuStreamSetAttribute(ctypes.c_void_p(stream), _CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, buf)


# ---------------------------------------------------------------- CUPTI's view of one forward


def parse_trace(doc):
    """The kernels of a chrome trace (torch.profiler's export): [{name, stream,
    start, end, dur, correlation}] in ns, in launch order (correlation id)."""
    out = []
    for e in doc.get("traceEvents", []) if isinstance(doc, dict) else []:
        if e.get("cat") != "kernel" or e.get("ph") != "X":
            continue
        args = e.get("args") or {}
        ts, dur = float(e.get("ts", 0)) * 1e3, float(e.get("dur", 0)) * 1e3
        out.append({"name": str(e.get("name", "")), "stream": args.get("stream"), "start": ts, "end": ts + dur,
                    "dur": dur, "correlation": args.get("correlation", 0)})
    out.sort(key=lambda k: (k["correlation"] or 0, k["start"]))
    return out


MARKER = "spin_kernel"  # torch.cuda._sleep's kernel: the runner's markers, no candidate launches it


def split_forwards(kernels, marker=MARKER):
    """A trace of forwards each between two markers the runner launched on the
    caller's stream: [(caller stream, when its end marker started, the forward's
    kernels)], in order.  Kernels outside a pair (the L2 flush) belong to none."""
    out, inside, start = [], None, None
    for k in kernels:
        if marker in k["name"]:
            if inside is None:
                inside, start = [], k
            else:
                out.append((start["stream"], k["start"], inside))
                inside = None
        elif inside is not None:
            inside.append(k)
    return out


def profile_forward(torch, fn, xs, folder, before=None, repeats=3):
    """The kernels of `repeats` calls fn(*xs) as CUPTI records them, each call
    between two markers on the caller's stream (split_forwards reads them);
    None when the profiler cannot run."""
    T = torch
    try:
        from torch.profiler import ProfilerActivity, profile
    except Exception:
        return None
    path = os.path.join(folder, "tilescope_profile_%d.json" % os.getpid())
    try:
        T.cuda.synchronize()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(repeats):
                    if before:
                        before()
                    T.cuda._sleep(1000)
                    with T.no_grad():
                        fn(*xs)
                    T.cuda._sleep(1000)
                T.cuda.synchronize()
            prof.export_chrome_trace(path)
        with open(path) as f:
            return parse_trace(json.load(f))
    except Exception:
        return None
    finally:
        try:
            os.remove(path)
        except OSError:
            pass


# ---------------------------------------------------------------- guard pages


class _Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _AllocFlags(ctypes.Structure):
    _fields_ = [("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class _AllocationProp(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int), ("location", _Location),
                ("win32HandleMetaData", ctypes.c_void_p), ("allocFlags", _AllocFlags)]


class _AccessDesc(ctypes.Structure):
    _fields_ = [("location", _Location), ("flags", ctypes.c_int)]


class _Interface:
    """A device buffer as __cuda_array_interface__ (bytes), for torch.as_tensor."""

    def __init__(self, ptr, nbytes):
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (ptr, False), "version": 3,
                                         "strides": None}


def guard_page_start(map_start, map_size, nbytes, align=16):
    """Where a buffer of nbytes starts so that it ends as close to the mapping's
    end as `align` allows (the first unmapped byte at most align - 1 past it)."""
    return (map_start + map_size - nbytes) // align * align


class GuardPages:
    """Copies of tensors that end where their device mapping ends, one granule
    of reserved, unmapped address space after each (the CUDA driver's virtual
    memory management): a load past the end faults instead of reading whatever
    lies there.  The fault is sticky: the runner uses them last."""

    def __init__(self, torch, device=0):
        self.torch, self.device = torch, device
        self.lib = ctypes.CDLL("libcuda.so.1")
        for name in ("cuMemAddressReserve", "cuMemCreate", "cuMemMap", "cuMemSetAccess",
                     "cuMemGetAllocationGranularity"):
            getattr(self.lib, name)  # an older driver: AttributeError, no guard pages
        self.keep = []

    def _call(self, name, *args):
        rc = getattr(self.lib, name)(*args)
        if rc != 0:
            raise RuntimeError("%s failed (CUresult %d)" % (name, rc))

    def copy(self, x):
        T = self.torch
        nbytes = x.numel() * x.element_size()
        prop = _AllocationProp(type=1, requestedHandleTypes=0, location=_Location(1, self.device))
        gran = ctypes.c_size_t(0)
        self._call("cuMemGetAllocationGranularity", ctypes.byref(gran), ctypes.byref(prop), 0)
        g = gran.value
        size = (nbytes + g - 1) // g * g
        ptr = ctypes.c_uint64(0)
        self._call("cuMemAddressReserve", ctypes.byref(ptr), ctypes.c_size_t(size + g), ctypes.c_size_t(0),
                   ctypes.c_uint64(0), ctypes.c_ulonglong(0))
        handle = ctypes.c_uint64(0)
        self._call("cuMemCreate", ctypes.byref(handle), ctypes.c_size_t(size), ctypes.byref(prop),
                   ctypes.c_ulonglong(0))
        self._call("cuMemMap", ctypes.c_uint64(ptr.value), ctypes.c_size_t(size), ctypes.c_size_t(0),
                   ctypes.c_uint64(handle.value), ctypes.c_ulonglong(0))
        desc = _AccessDesc(_Location(1, self.device), 3)  # CU_MEM_ACCESS_FLAGS_PROT_READWRITE
        self._call("cuMemSetAccess", ctypes.c_uint64(ptr.value), ctypes.c_size_t(size), ctypes.byref(desc),
                   ctypes.c_size_t(1))
        start = guard_page_start(ptr.value, size, nbytes)
        raw = T.as_tensor(_Interface(start, nbytes), device="cuda")
        t = raw.view(x.dtype).view(x.shape)
        t.copy_(x)
        self.keep.append((raw, ptr.value, size, g, handle.value))
        return t
