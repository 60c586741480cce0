"""The user's kernel file, as the helpers load it: imported under a private
name with its folder first on sys.path, or, when an import of host code fails
(torch absent where TileScope compiles), reduced to its Triton functions; and a
config's constexpr values as the kernel sees them. Used by the Triton and the
TileLang helper."""
import ast
import importlib.util
import os
import re
import sys


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


def constexpr_value(value):
    """JSON value -> the Python value Triton sees; "tl.float16" names a Triton dtype."""
    import triton.language as tl
    if isinstance(value, str) and value.startswith("tl.") and hasattr(tl, value[3:]):
        return getattr(tl, value[3:])
    return value
