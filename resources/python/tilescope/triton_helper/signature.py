"""The kernel's signature as Triton's JIT specialises a Python call (pure: the
parameters are read from the JITFunction, nothing is compiled), and the byte
sizes of the parameters of the PTX's entry."""
import re

from ..common.kernel_file import constexpr_value


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
            described.append({"name": p.name, "type": "constexpr", "value": jsonable(value)})
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


def jsonable(value):
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
