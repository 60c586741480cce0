"""What a launch is, in JSON terms: the kernel's compile-time facts and each
argument's kind, type and shape.  No device access and no triton import: it
reads the attributes of Triton's CompiledKernel / ASTSource / JITFunction (or
of test fakes with the same attributes)."""
import math
import os
import re
import sys

from ..common import kernel_ast
from . import tensors

_DEF_LINE = re.compile(r"^\s*(async\s+)?def\s")


def jsonable(v):
    """A JSON value for a constexpr or scalar: tl.dtype and torch.dtype as their
    strings, tl.constexpr unwrapped, functions by name, NaN/inf as strings (a
    strict JSON reader rejects them as numbers)."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else repr(v)
    cls = type(v).__name__
    if cls == "constexpr" and hasattr(v, "value"):
        return jsonable(v.value)
    if cls.endswith("dtype"):
        return str(v)
    if isinstance(v, (tuple, list)):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if hasattr(v, "item") and callable(v.item):          # numpy / 0-d scalars
        try:
            return jsonable(v.item())
        except Exception:
            pass
    if hasattr(v, "__name__"):                             # JITFunction, functions
        return v.__name__
    return repr(v)[:200]


def scalar_type(v):
    """Triton's name for a Python scalar's type (for parameters the JIT turned
    into constants, whose signature entry then only says 'constexpr')."""
    if isinstance(v, bool):
        return "u1"
    if isinstance(v, int):
        if -2 ** 31 <= v < 2 ** 31:
            return "i32"
        return "i64" if -2 ** 63 <= v < 2 ** 63 else "u64"
    if isinstance(v, float):
        return "fp32"
    return type(v).__name__


def path_name(names, path):
    """A constants/attrs key (a tuple path such as (3,) or (2, 1)) as a name."""
    if not isinstance(path, tuple):
        path = (path,)
    head = path[0]
    name = names[head] if isinstance(head, int) and head < len(names) else str(head)
    return name + "".join("[%s]" % p for p in path[1:])


def source_info(jitfn, fallback_file=None):
    """{"file", "function", "def_line"} of the @triton.jit function.  Inductor
    drops `fn.fn` when it pickles a kernel out of a compile worker, so the file
    falls back to the module's and then to the caller's (the autotuner's
    generated-file path)."""
    pyfn = getattr(jitfn, "fn", None)
    path = getattr(getattr(pyfn, "__code__", None), "co_filename", None)
    if not path or path.startswith("<"):
        module = sys.modules.get(getattr(jitfn, "__module__", None) or "")
        path = getattr(module, "__file__", None) or fallback_file
    info = {"function": getattr(jitfn, "__name__", None)}
    if path:
        info["file"] = os.path.abspath(path)
    start = getattr(jitfn, "starting_line_number", None)
    if isinstance(start, int):
        # starting_line_number is the first decorator's line; the def follows.
        offset = 0
        for i, line in enumerate(getattr(jitfn, "raw_src", None) or []):
            if _DEF_LINE.match(line):
                offset = i
                break
        info["def_line"] = start + offset
    return info


class KernelInfo:
    """A CompiledKernel's facts that do not change from launch to launch."""

    def __init__(self, kernel):
        md = kernel.metadata
        src = kernel.src
        self.jitfn = getattr(src, "fn", None)
        self.symbol = getattr(md, "name", None) or getattr(kernel, "name", None)
        self.name = getattr(self.jitfn, "__name__", None) or self.symbol
        language = str(getattr(src, "language", "triton")).lower()
        self.language = "gluon" if "gluon" in language else "triton"
        params = list(getattr(self.jitfn, "params", None) or [])
        self.arg_names = list(getattr(self.jitfn, "arg_names", None) or [p.name for p in params])
        self.declared = {i for i, p in enumerate(params) if getattr(p, "is_constexpr", False)}
        signature = dict(getattr(src, "signature", None) or {})
        if not self.arg_names:   # an IRSource: no Python function behind it
            self.arg_names = [str(k) for k in signature]
        self.signature = {str(k): jsonable(v) for k, v in signature.items()}
        constants = dict(getattr(src, "constants", None) or {})
        self.constexprs = {}
        self.specialized = {}
        for path, value in constants.items():
            if isinstance(path, str):
                path = (self.arg_names.index(path),) if path in self.arg_names else (path,)
            name = path_name(self.arg_names, path)
            if len(path) == 1 and path[0] in self.declared:
                self.constexprs[name] = jsonable(value)
            elif value is not None:
                # The JIT specialised it (an int equal to 1 becomes a constant).
                self.specialized[name] = jsonable(value)
        self.attrs = {path_name(self.arg_names, p): jsonable(v)
                      for p, v in dict(getattr(src, "attrs", None) or {}).items()}
        self.num_warps = int(getattr(md, "num_warps", 4))
        self.num_stages = getattr(md, "num_stages", None)
        self.num_ctas = int(getattr(md, "num_ctas", 1) or 1)
        self.warp_size = int(getattr(md, "warp_size", 32) or 32)
        self.shared = int(getattr(md, "shared", 0) or 0)
        cluster = getattr(md, "cluster_dims", None)
        self.cluster = [int(x) for x in cluster] if cluster else [self.num_ctas, 1, 1]
        self.global_scratch = int(getattr(md, "global_scratch_size", 0) or 0)
        self.profile_scratch = int(getattr(md, "profile_scratch_size", 0) or 0)
        self.hash = getattr(kernel, "hash", None) or getattr(md, "hash", None)
        # Parameters the kernel stores through (outputs even when unchanged).
        self.stored = kernel_ast.stored_params(getattr(self.jitfn, "src", None) or "") & set(self.arg_names)

    def triton_section(self, version):
        return {"version": version, "num_warps": self.num_warps, "num_stages": self.num_stages,
                "num_ctas": self.num_ctas, "constexprs": dict(self.constexprs),
                "signature": dict(self.signature), "specialized": dict(self.specialized),
                "attrs": dict(self.attrs), "hash": self.hash,
                "global_scratch_size": self.global_scratch,
                "profile_scratch_size": self.profile_scratch,
                "autotuned": False}


def bind_args(info, args):
    """(name, value) for every parameter, in order.  Triton's JIT and Inductor
    (with Triton >= 3.3) pass every parameter, constexprs included; a launcher
    that passes only the runtime ones gets the constexprs filled from the
    kernel's constants."""
    names = info.arg_names
    args = list(args)
    if len(args) == len(names) or not names:
        return list(zip(names or ["arg%d" % i for i in range(len(args))], args)), None
    runtime = [i for i in range(len(names)) if i not in info.declared]
    if len(args) == len(runtime):
        by_index = dict(zip(runtime, args))
        return [(n, by_index[i] if i in by_index else info.constexprs.get(n))
                for i, n in enumerate(names)], None
    note = "%d arguments for %d parameters: names may be misaligned" % (len(args), len(names))
    return list(zip(names, args)), note


def safe_label(name):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name.replace("[", ".").replace("]", ""))


def tensor_entry(name, t):
    """A tensor argument's metadata (no bytes); the recorder adds before/after."""
    entry = {"name": name, "kind": "tensor", "torch_dtype": str(t.dtype)}
    info = tensors.dtype_info(t.dtype)
    shape, strides = tensors.shape_of(t), tensors.strides_of(t)
    span = tensors.span_elements(shape, strides)
    if info is not None:
        entry["dtype"] = info[0]
    entry.update({"shape": shape, "strides": strides,
                  "storage_offset": int(t.storage_offset()) if hasattr(t, "storage_offset") else 0,
                  "data_ptr": int(t.data_ptr()), "device": str(getattr(t, "device", "unknown"))})
    itemsize = _itemsize(t, info)
    entry["nbytes_span"] = span * itemsize
    if info is None:
        entry["unsupported"] = "dtype %s is not saved (TileScope reads f32, f16, bf16, f64, " \
                               "i32, i64, u8, i8, bool and float8)" % t.dtype
    return entry, span, info


def _itemsize(t, info):
    if info is not None:
        return int(info[1][2:])
    try:
        return int(t.element_size())
    except Exception:
        return 0


def describe_args(info, pairs):
    """Argument entries in order, and the tensors to save as
    (label, tensor, entry, span_elements, dtype_info)."""
    entries, found = [], []
    for i, (name, value) in enumerate(pairs):
        entries.append(_describe(info, i, name, value, found))
    return entries, found


def _describe(info, i, name, value, found):
    sig = info.signature.get(name)
    if value is None:
        return {"name": name, "kind": "none"}
    if i in info.declared:
        return {"name": name, "kind": "constexpr", "value": jsonable(value)}
    if tensors.is_tensor(value):
        entry, span, dinfo = tensor_entry(name, value)
        if name in getattr(info, "stored", ()):
            entry["stored"] = True
        found.append((safe_label(name), value, entry, span, dinfo))
        return entry
    if isinstance(value, (tuple, list)):
        items = [_describe(info, -1, "%s[%d]" % (name, j), v, found) for j, v in enumerate(value)]
        return {"name": name, "kind": "tuple", "items": items}
    base = getattr(value, "base", None)
    if base is not None and hasattr(value, "block_shape") and tensors.is_tensor(base):
        # A host-side TensorDescriptor (TMA): its base tensor is the data.
        entry, span, dinfo = tensor_entry(name + ".base", base)
        found.append((safe_label(name + ".base"), base, entry, span, dinfo))
        return {"name": name, "kind": "tensordesc", "type": sig,
                "block_shape": jsonable(list(value.block_shape)), "base": entry}
    if isinstance(value, (bool, int, float)) or type(value).__module__ == "numpy":
        entry = {"name": name, "kind": "scalar",
                 "type": sig if sig and sig != "constexpr" else scalar_type(jsonable(value)),
                 "value": jsonable(value)}
        if sig == "constexpr":
            entry["specialized"] = True
        return entry
    return {"name": name, "kind": "other", "type": sig, "repr": repr(value)[:200]}


def aliases(entries):
    """Groups of tensor argument names that share a data_ptr."""
    groups = {}

    def walk(items):
        for e in items:
            if e.get("kind") == "tensor" and e.get("data_ptr"):
                groups.setdefault(e["data_ptr"], []).append(e["name"])
            elif e.get("kind") == "tuple":
                walk(e["items"])
            elif e.get("kind") == "tensordesc":
                walk([e["base"]])
    walk(entries)
    return [names for names in groups.values() if len(names) > 1]


def distinct_key(info_hash, name, args):
    """The default-mode key: the compiled kernel's hash plus every tensor
    argument's shape and strides.  The hash covers constexprs, num_warps,
    num_stages, every argument's type (a pointer's dtype included) and the
    JIT's specialisation, so dtypes need no reading here.  This runs on every
    matching launch: it only reads attributes (about 1 us for three tensors)."""
    parts = [name, info_hash]
    for a in args:
        if a is None or isinstance(a, (int, float, bool, str)):
            continue
        stride = getattr(a, "stride", None)
        if stride is not None and hasattr(a, "data_ptr"):
            # torch.Size and the stride tuple hash as they are: no copies.
            parts.append((a.shape, stride()))
        elif isinstance(a, tuple):
            parts.append(distinct_key(None, "", a))
    return tuple(parts)
