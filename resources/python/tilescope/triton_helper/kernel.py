"""The @triton.jit function a request names, found in the loaded kernel file,
and the file line of its `def`."""
import re


def find_kernel(module, entry):
    """The JITFunction named `entry`, unwrapping @triton.autotune/@triton.heuristics."""
    if not entry:
        kernels = sorted(n for n, v in vars(module).items()
                         if _unwrap(v) is not None and getattr(_unwrap(v), "__module__", None) == module.__name__)
        if len(kernels) != 1:
            raise LookupError("%s defines %s @triton.jit kernels (%s): name one as FILE.py::KERNEL"
                              % (module.__file__, len(kernels), ", ".join(kernels) or "no"))
        entry = kernels[0]
    obj = getattr(module, entry, None)
    if obj is None:
        kernels = sorted(n for n, v in vars(module).items() if _unwrap(v) is not None)
        raise LookupError("no function '%s' in %s; its @triton.jit kernels: %s"
                          % (entry, module.__file__, ", ".join(kernels) or "none"))
    fn = _unwrap(obj)
    if fn is None:
        raise LookupError("'%s' in %s is not a @triton.jit function" % (entry, module.__file__))
    return obj, fn


def _unwrap(obj):
    from triton.runtime.jit import JITFunction
    seen = 0
    while obj is not None and not isinstance(obj, JITFunction) and seen < 8:
        obj = getattr(obj, "fn", None)
        seen += 1
    return obj if isinstance(obj, JITFunction) else None


def def_line(fn):
    """The file line of the kernel's `def` (starting_line_number is the first decorator's)."""
    first = fn.starting_line_number
    for offset, text in enumerate(fn.raw_src):
        if re.match(r"\s*def\s", text):
            return first + offset
    return first
