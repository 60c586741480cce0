"""The `compile` verb: one @triton.jit kernel compiled for a GPU architecture
without a GPU, the cubin (and with `stages` each IR) written to OUTDIR, and
what Triton's metadata says about the launch."""
import contextlib
import io
import os
import time

from ..common.kernel_file import load_module
from .kernel import def_line, find_kernel
from .signature import build_signature, entry_params


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
