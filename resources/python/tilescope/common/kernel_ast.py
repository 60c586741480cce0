"""Which parameters a @triton.jit kernel stores through, read from its source
(no compile): the pointer operand of tl.store / tl.atomic_* traced back through
assignments and additive pointer arithmetic to parameter names.

An output the launch rewrote with the bytes it already held (a buffer reused
at the same address) is still an output: the capture's config must expect it.
The capture's recorder and the Triton helper's `signature` verb both read
kernels with it.
"""
import ast

_STORES = {"store", "atomic_add", "atomic_max", "atomic_min", "atomic_xchg", "atomic_cas", "atomic_and",
           "atomic_or", "atomic_xor"}


class PointerRoots(ast.NodeVisitor):
    """Follows a kernel body's assignments so that a pointer expression can be
    traced back to the names it was built from (the Triton helper's signature
    reader extends it too)."""

    def __init__(self):
        self.assign = {}

    def visit_Assign(self, node):
        for t in node.targets:
            if isinstance(t, ast.Name):
                self.assign.setdefault(t.id, []).append(node.value)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        if isinstance(node.target, ast.Name):
            self.assign.setdefault(node.target.id, []).append(node.value)
        self.generic_visit(node)

    def roots(self, expr, depth=0):
        """Names entering `expr` as additive terms (a base pointer), not as factors."""
        if depth > 32:
            return set()
        if isinstance(expr, ast.Name):
            out = {expr.id}
            for value in self.assign.get(expr.id, []):
                out |= self.roots(value, depth + 1)
            return out
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
            return self.roots(expr.left, depth + 1) | self.roots(expr.right, depth + 1)
        if isinstance(expr, ast.Subscript):
            return self.roots(expr.value, depth + 1)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in ("to", "advance"):
            return self.roots(expr.func.value, depth + 1)
        return set()


def call_name(node):
    """`tl.store(...)` -> "store", `store(...)` -> "store"."""
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else (f.id if isinstance(f, ast.Name) else "")


class _Stores(PointerRoots):
    def __init__(self):
        super().__init__()
        self.targets = []

    def visit_Call(self, node):
        if call_name(node) in _STORES:
            first = node.args[0] if node.args else next(
                (k.value for k in node.keywords if k.arg in ("pointer", "ptr")), None)
            if first is not None:
                self.targets.append(first)
        self.generic_visit(node)


def stored_params(source):
    """Parameter-or-local names that reach a store's pointer operand; empty when
    the source does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, TypeError):
        return set()
    v = _Stores()
    v.visit(tree)
    out = set()
    for t in v.targets:
        out |= v.roots(t)
    return out
