#!/usr/bin/env python3
"""TileScope's Triton helper: compiles one @triton.jit kernel for a GPU
architecture without a GPU, and describes a kernel's signature.

TileScope runs it as a child process with a time limit (docs/triton.md):

  tilescope_triton.py version
      prints {"python": ..., "triton": "3.6.0"} (triton null when missing)
  tilescope_triton.py compile REQUEST.json OUTDIR
      writes OUTDIR/result.json and, when it compiled, OUTDIR/kernel.cubin
  tilescope_triton.py signature FILE.py KERNEL
      prints the kernel's parameters and what its body does with them
  tilescope_triton.py tilelang REQUEST.json OUTDIR
      TileLang: writes OUTDIR/kernel.cu (TileLang's CUDA) and OUTDIR/result.json

The request (written by core/cuda/src/compile/compile_triton.cpp):
  {"source": "/abs/k.py", "entry": "add_kernel", "arch": 90,
   "args": [{"kind": "pointer", "dtype": "fp16", "aligned": true},
            {"kind": "int", "value": 1000}, {"kind": "float", "type": "fp32"}],
   "constexprs": {"BLOCK": 1024, "ACT": "relu", "DTYPE": "tl.float16"},
   "options": {"num_warps": 4, "num_stages": 3, "num_ctas": 1}}

`args` are the kernel's parameters that are not tl.constexpr, in order. They
are specialised as Triton's JIT specialises the same Python call: an integer
equal to 1 becomes a constexpr, integers divisible by 16 and 16-byte aligned
pointers get tt.divisibility=16, unless the kernel says do_not_specialize.
The result lists the final signature, so the caller passes exactly the
parameters the cubin has (plus the scratch pointers newer Triton appends).

Exit status: 0 when result.json was written (compiled or not), 2 on a bad
request. A crash inside the compiler (an MLIR assertion) ends the process by
a signal; the caller reports its stderr.
"""
import ast
import contextlib
import importlib.util
import io
import json
import os
import re
import sys
import time
import traceback


def fail_usage(message):
    sys.stderr.write("tilescope_triton.py: " + message + "\n")
    sys.exit(2)


# --- loading the kernel -------------------------------------------------------

def _kernel_only_source(path):
    """The module reduced to its imports of triton/math and its functions: a
    kernel file that also imports torch (absent where TileScope compiles) still
    yields its @triton.jit functions, at their original line numbers."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    keep = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if all(n.split(".")[0] in ("triton", "math", "typing") for n in names):
                keep.append(node)
        elif isinstance(node, ast.FunctionDef):
            keep.append(node)
        elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            keep.append(node)  # module constants (tl.constexpr globals)
    tree.body = keep
    return compile(tree, path, "exec")


def load_module(path):
    """Imports FILE.py under a private name; returns (module, note)."""
    name = "tilescope_kernel_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        return module, ""
    except ImportError as e:
        # Retry with the kernels alone: the import that failed belongs to host code.
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        exec(_kernel_only_source(path), module.__dict__)
        return module, "note: %s; loaded the file's Triton functions only" % e


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


# --- compiling -----------------------------------------------------------------

def constexpr_value(value):
    """JSON value -> the Python value Triton sees; "tl.float16" names a Triton dtype."""
    import triton.language as tl
    if isinstance(value, str) and value.startswith("tl.") and hasattr(tl, value[3:]):
        return getattr(tl, value[3:])
    return value


def int_type(value):
    """Triton's JIT type for a Python int (runtime/jit.py specialisation)."""
    if -2 ** 31 <= value < 2 ** 31:
        return "i32"
    if 0 <= value < 2 ** 64 and value >= 2 ** 63:
        return "u64"
    return "i64"


def build_signature(fn, request):
    """(signature, constexprs, attrs, described) as the JIT would build them for this call."""
    args = list(request.get("args", []))
    constexprs_in = dict(request.get("constexprs", {}))
    runtime = [p for p in fn.params if not p.is_constexpr]
    if len(runtime) != len(args):
        raise ValueError("args: kernel %s takes %d arguments besides its constexprs (%s); the config gives %d"
                         % (fn.__name__, len(runtime), ", ".join(p.name for p in runtime) or "none", len(args)))
    for name in constexprs_in:
        p = next((p for p in fn.params if p.name == name), None)
        if p is None:
            raise ValueError("kernel.constexprs.%s: kernel %s has no parameter %s (its parameters: %s)"
                             % (name, fn.__name__, name, ", ".join(q.name for q in fn.params)))
        if not p.is_constexpr:
            raise ValueError("kernel.constexprs.%s: parameter %s of %s is not a tl.constexpr; give it in args"
                             % (name, name, fn.__name__))
    signature, constexprs, attrs, described = {}, {}, {}, []
    it = iter(args)
    for i, p in enumerate(fn.params):
        if p.is_constexpr:
            if p.name in constexprs_in:
                value = constexpr_value(constexprs_in[p.name])
            elif p.has_default:
                value = p.default
            else:
                raise ValueError("kernel.constexprs: constexpr %s of %s has no value and no default; add it"
                                 % (p.name, fn.__name__))
            signature[p.name] = "constexpr"
            constexprs[(i,)] = value
            described.append({"name": p.name, "type": "constexpr", "value": _jsonable(value)})
            continue
        a = next(it)
        specialize = not p.do_not_specialize
        align = not p.do_not_specialize_on_alignment
        kind = a.get("kind")
        attr = []
        if kind == "pointer":
            ty = "*" + a["dtype"]
            if specialize and align and a.get("aligned", True):
                attr = [["tt.divisibility", 16]]
        elif kind == "int":
            value = int(a["value"])
            ty = p.annotation_type or int_type(value)
            if specialize and value == 1 and not p.annotation_type:
                signature[p.name] = "constexpr"
                constexprs[(i,)] = 1
                described.append({"name": p.name, "type": "constexpr", "value": 1, "specialized": True})
                continue
            if specialize and align and value % 16 == 0:
                attr = [["tt.divisibility", 16]]
        elif kind == "float":
            ty = p.annotation_type or a.get("type", "fp32")
        else:
            raise ValueError("args[%d]: unknown argument kind %r" % (len(described), kind))
        signature[p.name] = ty
        if attr:
            attrs[(i,)] = attr
        described.append({"name": p.name, "type": ty, "divisible16": bool(attr)})
    return signature, constexprs, attrs, described


def _jsonable(value):
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return str(value)


def entry_params(ptx, name):
    """Byte sizes of the parameters of `.entry name(...)` in the PTX (None if not found):
    `.param .u64 .ptr ... p0` is 8, `.param .u32 p3` 4, `.param .align 64 .b8 p[128]` 128."""
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\((.*?)\)", ptx, re.S)
    if not m:
        return None
    sizes = []
    for decl in re.findall(r"\.param\b([^,]*)", m.group(1)):
        array = re.search(r"\.b8\s+\w+\[(\d+)\]", decl)
        width = re.search(r"\.[busf](\d+)\b", decl)
        sizes.append(int(array.group(1)) if array else int(width.group(1)) // 8 if width else 0)
    return sizes


def compile_kernel(request, outdir):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton import knobs

    # Our own cache decides when to compile; line info must stay on (the .py
    # lines of traced accesses come from the cubin's .debug_line).
    knobs.compilation.always_compile = True
    knobs.compilation.disable_line_info = False
    knobs.nvidia.dump_ptxas_log = True

    path = os.path.abspath(request["source"])
    module, note = load_module(path)
    obj, fn = find_kernel(module, request["entry"])
    signature, constexprs, attrs, described = build_signature(fn, request)
    opts = request.get("options", {})
    options = {k: int(opts[k]) for k in ("num_warps", "num_stages", "num_ctas") if k in opts}
    src = ASTSource(fn, signature, constexprs, attrs)
    target = GPUTarget("cuda", int(request["arch"]), 32)
    ptxas_log = io.StringIO()
    t0 = time.time()
    with contextlib.redirect_stdout(ptxas_log):
        kernel = triton.compile(src, target=target, options=options)
    md = kernel.metadata._asdict()
    name = md["name"]
    kept = sum(1 for d in described if d["type"] != "constexpr")
    ptx_params = entry_params(kernel.asm.get("ptx", ""), name)
    total = len(ptx_params) if ptx_params is not None else -1
    with open(os.path.join(outdir, "kernel.cubin"), "wb") as f:
        f.write(kernel.asm["cubin"])
    if request.get("stages"):
        # The compiler stages (check --stages): each IR as Triton printed it, #loc lines included.
        for key in ("ttir", "ttgir", "llir", "ptx"):
            text = kernel.asm.get(key)
            if isinstance(text, str):
                with open(os.path.join(outdir, "kernel." + key), "w") as f:
                    f.write(text)
    cluster = md.get("cluster_dims") or [md.get("num_ctas", 1), 1, 1]
    return {
        "ok": True,
        "triton_version": triton.__version__,
        "name": name,
        "shared": int(md.get("shared", 0)),
        "num_warps": int(md.get("num_warps", options.get("num_warps", 4))),
        "num_stages": int(md.get("num_stages", options.get("num_stages", 3))),
        "num_ctas": int(md.get("num_ctas", 1)),
        "cluster_dims": [int(c) for c in cluster],
        "global_scratch_size": int(md.get("global_scratch_size", 0) or 0),
        "global_scratch_align": int(md.get("global_scratch_align", 1) or 1),
        "profile_scratch_size": int(md.get("profile_scratch_size", 0) or 0),
        "profile_scratch_align": int(md.get("profile_scratch_align", 1) or 1),
        "launch_cooperative_grid": bool(md.get("launch_cooperative_grid", False)),
        "launch_pdl": bool(md.get("launch_pdl", False)),
        "scratch_params": max(total - kept, 0) if total >= 0 else 0,
        "ptx_params": ptx_params or [],
        "signature": described,
        "def_line": def_line(fn),
        "file": path,
        "ptxas_log": ptxas_log.getvalue(),
        "note": note,
        "seconds": round(time.time() - t0, 3),
    }


# --- TileLang --------------------------------------------------------------------

def compile_tilelang(request, outdir):
    """TileLang's CUDA for `entry(**constexprs)` (a function returning a T.prim_func),
    written to OUTDIR/kernel.cu, with the launch TileLang decided. TMA descriptors and
    warp specialisation are turned off: their host-side setup cannot come from a config."""
    import tilelang
    path = os.path.abspath(request["source"])
    module, note = load_module(path)
    builder = getattr(module, request["entry"], None)
    if builder is None or not callable(builder):
        raise LookupError("no function '%s' in %s" % (request["entry"], path))
    kwargs = {k: constexpr_value(v) for k, v in request.get("constexprs", {}).items()}
    program = builder(**kwargs)
    arch = int(request["arch"])
    t0 = time.time()
    tilelang.disable_cache()  # a kernel from TileLang's cache has no device module to read the launch from
    kernel = tilelang.compile(program, out_idx=None, target={"kind": "cuda", "arch": "sm_%d" % arch},
                              pass_configs={"tl.disable_tma_lower": True, "tl.disable_warp_specialized": True})
    source = kernel.get_kernel_source()
    with open(os.path.join(outdir, "kernel.cu"), "w") as f:
        f.write("// Generated by TileLang %s from %s: %s(%s)\n" % (
            tilelang.__version__, path, request["entry"], ", ".join("%s=%r" % kv for kv in kwargs.items())))
        f.write(source)
    functions = list(kernel.adapter.device_mod.functions.items())
    if len(functions) != 1:
        raise ValueError("TileLang made %d kernels; TileScope launches programs of one kernel" % len(functions))
    attrs = functions[0][1].attrs
    extent = {str(k): int(v) for k, v in dict(attrs["thread_extent"]).items()}
    params = []
    for p in kernel.prim_func.params:
        buf = kernel.prim_func.buffer_map.get(p)
        params.append({"name": str(p.name), "dtype": str(buf.dtype) if buf is not None else str(p.dtype),
                       "shape": [str(d) for d in buf.shape] if buf is not None else []})
    return {"ok": True, "tilelang_version": tilelang.__version__, "name": str(attrs["global_symbol"]),
            "grid": [extent.get("blockIdx." + a, 1) for a in "xyz"],
            "block": [extent.get("threadIdx." + a, 1) for a in "xyz"],
            "shared": int(attrs["dyn_shared_memory_buf"]) if "dyn_shared_memory_buf" in attrs else 0,
            "params": params, "note": note, "seconds": round(time.time() - t0, 3)}


# --- errors --------------------------------------------------------------------

def _innermost_compilation_error(exc):
    from triton.compiler.errors import CompilationError
    found, seen = None, 0
    while exc is not None and seen < 16:
        if isinstance(exc, CompilationError) and hasattr(getattr(exc, "node", None), "lineno"):
            found = exc
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return found


def _file_line_of(src, node_line, path):
    """Maps line `node_line` of a function's source (1 = its def) to the file: the
    def line is found by its text, so callee functions map too."""
    if not src:
        return 0
    first = src.split("\n", 1)[0].rstrip()
    try:
        with open(path) as f:
            lines = f.read().split("\n")
    except OSError:
        return 0
    matches = [i for i, text in enumerate(lines) if text.strip() == first.strip()]
    if len(matches) != 1:
        return 0
    return matches[0] + node_line


def error_result(exc, path):
    message = str(exc).strip() or type(exc).__name__
    result = {"ok": False, "error_type": type(exc).__name__,
              "log": "%s.%s: %s" % (type(exc).__module__, type(exc).__name__, message),
              "message": message.split("\n")[-1], "file": path, "line": 0, "column": 0}
    ce = _innermost_compilation_error(exc)
    if ce is not None:
        result["message"] = (ce.error_message or message).strip().split("\n")[-1]
        line = _file_line_of(ce.src, ce.node.lineno, path)
        if line > 0:
            result["line"] = line
            result["column"] = ce.node.col_offset + 1
            with open(path) as f:
                lines = f.read().split("\n")
            result["source_line"] = lines[line - 1] if line <= len(lines) else ""
    elif isinstance(exc, SyntaxError) and exc.lineno:
        result.update(line=exc.lineno, column=exc.offset or 0, source_line=(exc.text or "").rstrip("\n"),
                      message="SyntaxError: " + str(exc.msg))
    else:
        # A Python error in the kernel file itself (NameError at import, ...): its frame in FILE.py.
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if os.path.abspath(f.filename) == path]
        if frames:
            result.update(line=frames[-1].lineno, source_line=frames[-1].line or "")
        tail = traceback.format_exception_only(type(exc), exc)
        result["log"] = "".join(traceback.format_tb(exc.__traceback__)[-3:]) + "".join(tail)
    return result


# --- describing a signature (init-triton) --------------------------------------

def _load_kernel_ast():
    """The capture's reader of pointer arithmetic (one copy of it), loaded by its
    path: no folder goes on sys.path ahead of the kernel's own imports."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tilescope", "common", "kernel_ast.py")
    spec = importlib.util.spec_from_file_location("tilescope_kernel_ast", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_kernel_ast = _load_kernel_ast()


class _Uses(_kernel_ast.PointerRoots):
    """What a kernel body does with its parameters: which reach the pointer
    operand of a load/store (through additive pointer arithmetic), which are
    stored to, which are compared (sizes), and which program_id axes it uses."""

    MEMORY = {"load": 0, "store": 0, "atomic_add": 0, "atomic_max": 0, "atomic_min": 0, "atomic_xchg": 0,
              "atomic_cas": 0, "atomic_and": 0, "atomic_or": 0, "atomic_xor": 0, "make_block_ptr": 0,
              "make_tensor_descriptor": 0}

    def __init__(self):
        super().__init__()
        self.pointer_exprs, self.store_exprs = [], []
        self.compared, self.axes = set(), set()

    def visit_Compare(self, node):
        for side in [node.left] + list(node.comparators):
            for n in ast.walk(side):
                if isinstance(n, ast.Name):
                    self.compared.add(n.id)
        self.generic_visit(node)

    def visit_Call(self, node):
        name = _kernel_ast.call_name(node)
        if name in self.MEMORY:
            first = node.args[0] if node.args else next((k.value for k in node.keywords
                                                         if k.arg in ("pointer", "base")), None)
            if first is not None:
                self.pointer_exprs.append(first)
                if name != "load" and not name.startswith("make_"):
                    self.store_exprs.append(first)
        if name == "program_id":
            axis = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "axis"), None)
            if isinstance(axis, ast.Constant) and isinstance(axis.value, int):
                self.axes.add(axis.value)
        self.generic_visit(node)


def describe_signature(path, entry):
    module, note = load_module(os.path.abspath(path))
    obj, fn = find_kernel(module, entry)
    tree = ast.parse(fn.src)
    uses = _Uses()
    uses.visit(tree)
    pointers, stored = set(), set()
    for e in uses.pointer_exprs:
        pointers |= uses.roots(e)
    for e in uses.store_exprs:
        stored |= uses.roots(e)
    params = []
    for p in fn.params:
        entry_ = {"name": p.name, "constexpr": bool(p.is_constexpr), "annotation": p.annotation or ""}
        if p.has_default:
            entry_["default"] = _jsonable(p.default)
        if not p.is_constexpr:
            is_ptr = p.annotation.startswith("*") or (p.name in pointers and p.name not in uses.compared) \
                or re.search(r"(^|_)ptrs?$|Ptr$", p.name) is not None
            entry_["kind"] = "pointer" if is_ptr else "scalar"
            entry_["stored"] = p.name in stored
        params.append(entry_)
    configs = []
    for c in getattr(obj, "configs", []) or []:
        configs.append({"kwargs": {k: _jsonable(v) for k, v in c.kwargs.items()}, "num_warps": c.num_warps,
                        "num_stages": c.num_stages, "num_ctas": getattr(c, "num_ctas", 1)})
    return {"ok": True, "name": fn.__name__, "file": os.path.abspath(path), "def_line": def_line(fn),
            "params": params, "program_id_axes": sorted(uses.axes), "autotune_configs": configs, "note": note}


# --- main ------------------------------------------------------------------------

def confine_file_sizes():
    """Under TileScope's sandbox (docs/security.md) the kernel file's own code may
    write only in a private folder; this bounds how large a file it can make
    there. A hard limit: the code cannot raise it again."""
    if os.environ.get("TILESCOPE_CONFINED"):
        import resource
        limit = 256 << 20
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def main(argv):
    confine_file_sizes()
    if len(argv) < 2:
        fail_usage("usage: tilescope_triton.py version | compile REQUEST OUTDIR | signature FILE.py KERNEL"
                   " | tilelang REQUEST OUTDIR")
    verb = argv[1]
    if verb == "version":
        try:
            import importlib.metadata as md
            version = md.version("triton")
        except Exception:
            version = None
        print(json.dumps({"python": sys.version.split()[0], "executable": sys.executable, "triton": version}))
        return 0
    if verb in ("compile", "tilelang") and len(argv) == 4:
        with open(argv[2]) as f:
            request = json.load(f)
        outdir = argv[3]
        path = os.path.abspath(request.get("source", ""))
        try:
            result = (compile_kernel if verb == "compile" else compile_tilelang)(request, outdir)
        except Exception as exc:  # every compiler error becomes a result, not a crash
            result = error_result(exc, path)
        with open(os.path.join(outdir, "result.json"), "w") as f:
            json.dump(result, f)
        return 0
    if verb == "signature" and len(argv) == 4:
        try:
            result = describe_signature(argv[2], argv[3])
        except Exception as exc:
            result = error_result(exc, os.path.abspath(argv[2]))
        print(json.dumps(result))
        return 0
    fail_usage("unknown verb or wrong arguments: " + " ".join(argv[1:]))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
