"""The `signature` verb (init-triton): a kernel's parameters and what its body
does with them, read from its source with the capture's reader of pointer
arithmetic (tilescope.common.kernel_ast)."""
import ast
import os
import re

from ..common import kernel_ast
from ..common.kernel_file import load_module
from .kernel import def_line, find_kernel
from .signature import jsonable


class _Uses(kernel_ast.PointerRoots):
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
        name = kernel_ast.call_name(node)
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
            entry_["default"] = jsonable(p.default)
        if not p.is_constexpr:
            is_ptr = p.annotation.startswith("*") or (p.name in pointers and p.name not in uses.compared) \
                or re.search(r"(^|_)ptrs?$|Ptr$", p.name) is not None
            entry_["kind"] = "pointer" if is_ptr else "scalar"
            entry_["stored"] = p.name in stored
        params.append(entry_)
    configs = []
    for c in getattr(obj, "configs", []) or []:
        configs.append({"kwargs": {k: jsonable(v) for k, v in c.kwargs.items()}, "num_warps": c.num_warps,
                        "num_stages": c.num_stages, "num_ctas": getattr(c, "num_ctas", 1)})
    return {"ok": True, "name": fn.__name__, "file": os.path.abspath(path), "def_line": def_line(fn),
            "params": params, "program_id_axes": sorted(uses.axes), "autotune_configs": configs, "note": note}
