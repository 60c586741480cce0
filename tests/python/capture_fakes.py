"""Stand-ins for torch tensors, Triton's CompiledKernel, the device and the CUDA
injection library, for tests/python/test_capture_recorder.py (no GPU, no torch).
"""
import glob
import importlib
import inspect
import itertools
import json
import os
import shutil
import sys
import tempfile
import unittest
from collections import namedtuple
from types import SimpleNamespace

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PYTHON_ROOT = os.path.join(REPO, "resources", "python")
CAPTURE = os.path.join(PYTHON_ROOT, "tilescope", "capture")
SITE = os.path.join(CAPTURE, "site")

try:
    import numpy as np
except ImportError:          # plain python3: the tests needing numpy skip
    np = None


def load_capture():
    """The tilescope.capture package, imported from the package's root as
    sitecustomize does (the root stays on sys.path: the tests import from it)."""
    if "tilescope.capture" in sys.modules:
        return sys.modules["tilescope.capture"]
    if PYTHON_ROOT not in sys.path:
        sys.path.insert(0, PYTHON_ROOT)
    module = importlib.import_module("tilescope.capture")
    for sub in ("selection", "tensors", "describe", "output", "recorder", "hooks"):
        importlib.import_module("tilescope.capture." + sub)
    return module


class FakeTensor:
    """A view (shape, strides in elements, storage offset) into a 1-D numpy
    buffer standing for device memory at address `base`."""

    def __init__(self, buf, shape, strides=None, offset=0, dtype="torch.float32", base=0x7F0000000000):
        self.buf, self.shape, self.offset, self.dtype, self.base = buf, tuple(shape), offset, dtype, base
        if strides is None:
            strides, acc = [], 1
            for n in reversed(self.shape):
                strides.insert(0, acc)
                acc *= n
        self._strides = tuple(strides)
        self.device = "cuda:0"

    def data_ptr(self):
        return self.base + self.offset * self.buf.dtype.itemsize

    def stride(self):
        return self._strides

    def storage_offset(self):
        return self.offset

    def values(self):
        """The logical view as numpy (what before/after.npy must hold)."""
        item = self.buf.dtype.itemsize
        return np.lib.stride_tricks.as_strided(self.buf[self.offset:], self.shape,
                                               [s * item for s in self._strides]).copy()


_ADDRESSES = itertools.count(1)


def tensor(values, dtype="torch.float32", np_dtype=np and np.float32):
    """A fresh contiguous fake tensor at an address of its own."""
    buf = np.array(values, dtype=np_dtype).reshape(-1)
    return FakeTensor(buf, np.shape(values), dtype=dtype, base=0x7F0000000000 + next(_ADDRESSES) * 0x100000)


class FakeDevice:
    """The device side: copies read the fake's buffer; failures on request."""

    def __init__(self):
        self.syncs = 0
        self.copies = 0
        self.fail_sync = False
        self.fail_timer = False

    def capturing(self):
        return False

    def synchronize(self, tensors):
        if self.fail_sync:
            raise RuntimeError("device lost")
        self.syncs += 1

    def copy_span(self, t, span_elems, descr):
        self.copies += 1
        return t.buf[t.offset:t.offset + span_elems].view(np.dtype(descr)).copy()

    def timer_start(self, stream):
        return "timer"

    def timer_stop(self, handle):
        if self.fail_timer:
            raise RuntimeError("event failed")
        return 1234.5

    def describe(self):
        return {"torch": None}


class FakeInjection:
    def __init__(self):
        self.claims = []
        self.index = 100

    def claim(self, function):
        self.claims.append(function)

    def next_index(self):
        self.index += 1
        return self.index - 1


class Md:
    """Triton's LazyDict, as far as the hooks are concerned."""


def _jit(fn):
    return fn


@_jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK):
    pass


Param = namedtuple("Param", "name is_constexpr")
Metadata = namedtuple("KernelMetadata", "name num_warps num_stages num_ctas shared warp_size "
                                        "global_scratch_size profile_scratch_size hash")


def fake_kernel(n_specialized=False, function=0x5A5A):
    """A CompiledKernel of add_kernel above (BLOCK a constexpr; n the JIT's
    constant 1 when n_specialized)."""
    raw, start = inspect.getsourcelines(add_kernel)
    params = [Param("x_ptr", False), Param("y_ptr", False), Param("out_ptr", False),
              Param("n", False), Param("BLOCK", True)]
    jit = SimpleNamespace(fn=add_kernel, params=params, arg_names=[p.name for p in params],
                          __name__="add_kernel", __module__=__name__, raw_src=raw, starting_line_number=start)
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                 "n": "constexpr" if n_specialized else "i32", "BLOCK": "constexpr"}
    constants = {(4,): 256}
    if n_specialized:
        constants[(3,)] = 1
    src = SimpleNamespace(fn=jit, signature=signature, constants=constants,
                          attrs={(0,): [["tt.divisibility", 16]]}, language="Language.TRITON")
    md = Metadata("add_kernel", 4, 3, 1, 1024, 32, 0, 0, "feedbeef")
    return SimpleNamespace(metadata=md, src=src, asm={"cubin": b"\x7fELF-fake-cubin"}, hash="feedbeef",
                           function=function, name="add_kernel")


def launch(recorder, kernel, grid, args, effect=None):
    """What Triton's launcher does: launch_metadata, enter hook, kernel, exit hook."""
    md = Md()
    md._tilescope_launch = (kernel, grid, 7, tuple(args))
    recorder.enter_hook(md)
    if effect is not None:
        effect()
    recorder.exit_hook(md)
    return md


def read_events(root):
    path = os.path.join(root, "events.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f]


def launch_dirs(root):
    return sorted(glob.glob(os.path.join(root, "launches", "*")) +
                  glob.glob(os.path.join(root, "launches", ".tmp-*")))


class RecorderBase(unittest.TestCase):

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="tscap-")
        self.addCleanup(shutil.rmtree, self.root, True)
        self.device = FakeDevice()
        self.inj = FakeInjection()

    def recorder(self, **kw):
        load_capture()
        from tilescope.capture.recorder import Recorder
        from tilescope.capture.selection import Settings
        return Recorder(Settings(self.root, **kw), device=self.device, injection=self.inj)

    def record(self, rid):
        with open(os.path.join(self.root, "launches", rid, "launch.json")) as f:
            return json.load(f)

    def add_launch(self, rec, n=1000, **kw):
        x, y, out = tensor(range(n)), tensor([2.0] * n), tensor([0.0] * n)

        def kernel():
            out.buf[:] = x.buf + y.buf
        launch(rec, kw.pop("kernel", None) or fake_kernel(), (4,), [x, y, out, n, 256], kernel)
        return x, y, out
