"""A KernelBench-style problem: the reference module (class Model,
get_inputs(), get_init_inputs()) and the candidate module (class ModelNew),
loaded from their files, and the shapes the runner tries (docs/triage.md,
"Shapes").  Imports nothing heavy: torch is whatever the modules import.
"""
import importlib.util
import os
import sys

# The problem's size globals: module-level ints that get_inputs() uses and that
# neither get_init_inputs() nor Model's methods use (changing those would change
# the model, not the problem's size).
_MAX_BOUNDARY_SIZE = 1 << 24


def load_module(path, name):
    """Imports a file as a module of its own name (Triton needs the source file:
    the JIT reads each kernel's source through inspect)."""
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _names(fn):
    code = getattr(fn, "__code__", None)
    if code is None:
        return set()
    names = set(code.co_names)
    for c in code.co_consts:  # nested functions and comprehensions
        if hasattr(c, "co_names"):
            names |= set(c.co_names)
    return names


def size_globals(ref):
    """The names of the reference module's size globals, in definition order.
    A problem may list them itself: TRIAGE = {"size_globals": [...]}."""
    declared = getattr(ref, "TRIAGE", {}).get("size_globals") if isinstance(getattr(ref, "TRIAGE", None), dict) else None
    if declared is not None:
        return [n for n in declared if isinstance(getattr(ref, n, None), int)]
    used = _names(getattr(ref, "get_inputs", None))
    fixed = _names(getattr(ref, "get_init_inputs", None))
    model = getattr(ref, "Model", None)
    if model is not None:
        for attr in vars(model).values():
            fixed |= _names(attr)
    out = []
    for n, v in vars(ref).items():
        if isinstance(v, bool) or not isinstance(v, int) or n.startswith("_"):
            continue
        if n in used and n not in fixed and v > 0:
            out.append(n)
    return out


def variants(ref):
    """[(label, {global: value})]: the problem's own shape, a boundary shape (each
    size + 1: sizes that are no longer multiples of a block), and a scaled shape
    (the first size doubled: twice the work, for the timing trap)."""
    names = size_globals(ref)
    base = {n: getattr(ref, n) for n in names}
    out = [("base", base)]
    if names:
        boundary = {n: v + 1 for n, v in base.items() if v + 1 <= _MAX_BOUNDARY_SIZE}
        if boundary:
            out.append(("boundary", dict(base, **boundary)))
        first = names[0]
        out.append(("scaled", dict(base, **{first: base[first] * 2})))
    return out


class Shape:
    """Sets the size globals for the duration of a `with`, so get_inputs() builds
    the inputs of that shape."""

    def __init__(self, ref, values):
        self.ref, self.values, self.saved = ref, values, {}

    def __enter__(self):
        for n, v in self.values.items():
            self.saved[n] = getattr(self.ref, n)
            setattr(self.ref, n, v)
        return self

    def __exit__(self, *exc):
        for n, v in self.saved.items():
            setattr(self.ref, n, v)
        return False


def shape_label(label, values):
    if not values:
        return label
    return label + " " + " ".join("%s=%s" % (k, v) for k, v in values.items())


def tolerances(ref, default_rtol, default_atol):
    t = getattr(ref, "TRIAGE", None)
    if isinstance(t, dict):
        return float(t.get("rtol", default_rtol)), float(t.get("atol", default_atol))
    return default_rtol, default_atol
