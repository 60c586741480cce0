#!/usr/bin/env python3
"""The layering test (ctest -R layering): reads every #include of core/, core/cuda/,
ui/ and app/, and every import of the Python package resources/python/tilescope/,
and fails on an edge the tables below do not allow. One line per layer; a layer
may always include itself. The tables hold the edges in use, no more: a layer
that starts to need another gets its edge here (and, for core, in the DEPS of
core/CMakeLists.txt, which the layer_link_* targets link). In the Python package
a module-level import cycle is an error too (an import inside a function, done
when it runs, is not one). docs/architecture.md explains the layers.

Usage: check_layers.py [SOURCE_DIR] [--edges]   (--edges: print the edges in use
and the allowed ones unused)"""
import ast
import os
import re
import sys
from collections import defaultdict

# core: layer -> the layers below it that it may include.
CORE = {
    "base":     [],
    "config":   ["base"],
    "model":    ["base"],
    "analysis": ["base", "config", "model"],
    "logs":     ["base", "model"],
    "trace":    ["model"],
    "counters": ["base", "model", "trace"],
    "run":      ["base", "config", "model", "logs"],
    "capture":  ["base", "config", "model"],
    "diagnose": ["base", "config", "model", "logs", "counters", "run"],
    "export":   ["base", "config", "model", "analysis", "counters", "diagnose"],
    "triage":   ["base", "config", "model", "logs", "capture", "diagnose", "export"],
}
# core/cuda/src: folder -> the folders it may include (and every core header).
CUDA = {
    "compile":   [],
    "driver":    ["compile"],
    "timing":    ["driver"],
    "profile":   ["timing"],
    "reference": ["driver"],
    "trace":     ["compile", "driver"],
    "measure":   ["compile", "driver", "timing", "profile", "reference", "trace"],
    "inject":    ["compile"],  # libtilescope_inject.so: CUPTI, the driver and the cubin reader, in the user's program
}
# core/cuda's own headers (include/ and internal/tilescope/cuda/) by folder.
CUDA_HEADERS = {
    "compile": "compile", "driver": "driver", "module": "driver", "nvml_clock": "driver",
    "tensors": "driver", "device_tensor_view": "driver", "live_device": "driver", "launch": "driver",
    "cupti_collector": "timing", "cupti_errors": "timing", "timing": "timing",
    "pc_sampling": "profile", "profiler": "profile", "profiler_host": "profile",
    "reference": "reference", "tracer": "trace", "measure": "measure",
}
# resources/python/tilescope: subpackage -> the subpackages it may import
# (tilescope/__init__.py describes them). The package's own __init__.py imports nothing.
PYTHON = {
    "common":          [],
    "capture":         ["common"],
    "triage":          ["common"],
    "tilelang_helper": ["common"],
    "triton_helper":   ["common", "tilelang_helper"],  # its command line serves TileLang's verb
}
PY_ROOT = os.path.join("resources", "python")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
CUDA_SYSTEM = re.compile(r"^<(cuda|cupti|nvrtc|nvml|cublas|cudnn|sanitizer)[a-z_]*\.h$|^<cudnn_frontend")
QT = re.compile(r"^<Q[A-Za-z]+")


def sources(root, top):
    for d, _, files in os.walk(os.path.join(root, top)):
        for f in files:
            if f.endswith((".h", ".cpp", ".cu", ".cuh", ".hpp")):
                yield os.path.relpath(os.path.join(d, f), root)


def python_modules(root):
    """{"tilescope.triage.run": path relative to root} for every .py under resources/python."""
    out = {}
    for d, _, files in os.walk(os.path.join(root, PY_ROOT)):
        for f in sorted(files):
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(d, f), os.path.join(root, PY_ROOT))
                name = rel[:-3].replace(os.sep, ".")
                out[name[:-len(".__init__")] if name.endswith(".__init__") else name] = os.path.join(PY_ROOT, rel)
    return out


def python_imports(tree, module, is_package):
    """(imported module, at module level?) for each import of ours (tilescope.*) in the tree."""
    package = module if is_package else module.rpartition(".")[0]
    found = []

    def walk(nodes, top):
        for node in nodes:
            if isinstance(node, ast.Import):
                found.extend((a.name, top) for a in node.names if a.name.split(".")[0] == "tilescope")
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
                if base.split(".")[0] == "tilescope":
                    found.extend((base + "." + a.name, top) for a in node.names)
            inner = not top or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            for field in ("body", "orelse", "finalbody", "handlers"):
                walk(getattr(node, field, []) or [], top and not inner)

    walk(tree.body, True)
    return found


def check_python(root, errors, show):
    """The Python package's imports against PYTHON, and its module-level import cycles."""
    modules = python_modules(root)
    edges, graph = defaultdict(int), defaultdict(set)
    for name, rel in sorted(modules.items()):
        parts = name.split(".")
        if parts[0] != "tilescope":
            errors.append(f"{rel}: a Python file outside the package resources/python/tilescope/")
            continue
        sub = parts[1] if len(parts) > 1 else ""
        if sub and sub not in PYTHON:
            errors.append(f"{rel}: in a subpackage the PYTHON table does not list ({sub})")
            continue
        with open(os.path.join(root, rel), encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), rel)
        for target, top in python_imports(tree, name, rel.endswith("__init__.py")):
            while target not in modules and "." in target:  # `from .x import f` names f, a function of x
                target = target.rpartition(".")[0]
            tparts = target.split(".")
            tsub = tparts[1] if len(tparts) > 1 else ""
            if top and target != name:
                graph[name].add(target)
            if target not in modules:
                errors.append(f"{rel}: imports {target}, which the package does not have")
            elif not sub:
                errors.append(f"{rel}: the package's __init__.py imports {target}: it imports nothing")
            elif tsub != sub:
                edges[(sub, tsub)] += 1
                if tsub not in PYTHON[sub]:
                    errors.append(f"{rel}: {sub} imports {target} ({tsub}), which the PYTHON table does not allow")
    cycles = import_cycles(graph)
    for c in cycles:
        errors.append("resources/python: a module-level import cycle: " + " -> ".join(c + [c[0]]))
    if show:
        for (a, b), n in sorted(edges.items()):
            print(f"py/{a} -> py/{b}: {n}")
        for a, targets in PYTHON.items():
            for b in targets:
                if (a, b) not in edges:
                    print(f"py/{a} -> py/{b}: allowed, unused")
    print(f"layering (python): {len(modules)} modules, {sum(len(v) for v in PYTHON.values())} allowed subpackage "
          f"edges, {len(edges)} in use, {len(cycles)} import cycles")


def import_cycles(graph):
    """Each strongly connected group of more than one module, as a list (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), "..", ".."))
    show = "--edges" in sys.argv
    errors, edges = [], defaultdict(int)

    core_headers = {}  # "tilescope/<layer>/x.h" -> (layer, public?)
    for side in ("include", "internal"):
        base = os.path.join(root, "core", side, "tilescope")
        for layer in sorted(os.listdir(base)):
            if layer == "cuda":
                continue
            if layer not in CORE:
                errors.append(f"core/{side}/tilescope/{layer}/: a folder the layer table does not list")
                continue
            for f in os.listdir(os.path.join(base, layer)):
                core_headers[f"tilescope/{layer}/{f}"] = (layer, side == "include")

    def includes(path):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as fh:
            # <cuda.h> is the toolkit's; "tilescope/..." and <tilescope/...> are ours.
            return [("<" if b == "<" and not inc.startswith("tilescope/") else "") + inc
                    for b, inc in INCLUDE_RE.findall(fh.read())]

    def core_layer_of(path):
        parts = path.split("/")
        return parts[3] if parts[1] in ("include", "internal") else parts[2]

    # core
    for path in sources(root, "core"):
        if path.startswith("core/cuda/"):
            continue
        layer = core_layer_of(path)
        if layer not in CORE:
            errors.append(f"{path}: in a folder the layer table does not list ({layer})")
            continue
        public = path.startswith("core/include/")
        for inc in includes(path):
            if inc.startswith("tilescope/cuda/") or CUDA_SYSTEM.match(inc) or QT.match(inc):
                errors.append(f"{path}: includes {inc}: core is free of CUDA and Qt")
            elif inc.startswith("tilescope/"):
                if inc not in core_headers:
                    errors.append(f"{path}: includes {inc}, which is not a header of core")
                    continue
                target, target_public = core_headers[inc]
                if public and not target_public:
                    errors.append(f"{path}: a public header includes the engine-only {inc}")
                if target != layer:
                    edges[(f"core/{layer}", f"core/{target}")] += 1
                    if target not in CORE[layer]:
                        errors.append(f"{path}: {layer} includes {inc} ({target}), which the table does not allow")

    # core/cuda
    for path in sources(root, "core/cuda"):
        parts = path.split("/")
        if parts[2] == "src":
            folder = parts[3]
        else:
            stem = os.path.splitext(parts[-1])[0]
            folder = CUDA_HEADERS.get(stem)
            if folder is None:
                errors.append(f"{path}: a core/cuda header the folder table does not list")
                continue
        if folder not in CUDA:
            errors.append(f"{path}: in a folder the table does not list ({folder})")
            continue
        for inc in includes(path):
            target = None
            if inc.startswith("tilescope/cuda/"):
                target = CUDA_HEADERS.get(os.path.splitext(inc.split("/")[-1])[0])
                if target is None:
                    errors.append(f"{path}: includes {inc}, which the folder table does not list")
                    continue
            elif "/" in inc and inc.split("/")[0] in CUDA:
                target = inc.split("/")[0]
            elif QT.match(inc):
                errors.append(f"{path}: includes {inc}: core/cuda is free of Qt")
            if target and target != folder:
                edges[(f"cuda/{folder}", f"cuda/{target}")] += 1
                if target not in CUDA[folder]:
                    errors.append(f"{path}: {folder} includes {inc} ({target}), which the table does not allow")

    # ui/ and app/: core's public headers only; the GUI never includes CUDA.
    for top in ("ui", "app"):
        for path in sources(root, top):
            models = path.startswith(("ui/models/", "ui/style/colors."))
            for inc in includes(path):
                if inc in core_headers and not core_headers[inc][1]:
                    errors.append(f"{path}: includes the engine-only {inc}")
                if top == "ui" or path.startswith("app/gui/"):
                    if inc.startswith("tilescope/cuda/") or CUDA_SYSTEM.match(inc):
                        errors.append(f"{path}: includes {inc}: the GUI never links CUDA")
                if models and not inc.startswith(("<", "tilescope/", "models/", "style/colors.h")):
                    errors.append(f"{path}: ui/models includes {inc}: models depend on core and Qt Core/Gui only")
                if inc in core_headers:
                    edges[(top, f"core/{core_headers[inc][0]}")] += 1
                elif inc.startswith("tilescope/cuda/"):
                    edges[(top, "cuda")] += 1

    if show:
        for (a, b), n in sorted(edges.items()):
            print(f"{a} -> {b}: {n}")
        for side, table in (("core", CORE), ("cuda", CUDA)):
            for a, targets in table.items():
                for b in targets:
                    if (f"{side}/{a}", f"{side}/{b}") not in edges:
                        print(f"{side}/{a} -> {side}/{b}: allowed, unused")
    check_python(root, errors, show)
    allowed = sum(len(v) for v in CORE.values()) + sum(len(v) for v in CUDA.values())
    used = sum(1 for (a, b) in edges if not a.startswith(("ui", "app")))
    print(f"layering: {len(core_headers)} core headers, {allowed} allowed layer edges, {used} in use, "
          f"{len(errors)} violations")
    for e in errors:
        print("  " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
