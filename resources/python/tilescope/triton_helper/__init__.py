"""TileScope's Triton helper: compiles one @triton.jit kernel for a GPU
architecture without a GPU, and describes a kernel's signature.

TileScope runs it as a child process with a time limit (docs/triton.md),
`python3 resources/python/tilescope/triton_helper/__main__.py VERB ...`:

  version
      prints {"python": ..., "triton": "3.6.0"} (triton null when missing)
  compile REQUEST.json OUTDIR
      writes OUTDIR/result.json and, when it compiled, OUTDIR/kernel.cubin
  signature FILE.py KERNEL
      prints the kernel's parameters and what its body does with them
  tilelang REQUEST.json OUTDIR
      TileLang (tilescope.tilelang_helper): writes OUTDIR/kernel.cu (TileLang's
      CUDA) and OUTDIR/result.json

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

Modules: cli (the verbs), compiler (`compile`), signature (the JIT's
specialisation, pure), kernel (finding the @triton.jit function), describe
(`signature`), errors (an exception as a result); the kernel file's loader
and constexpr values are tilescope.common.kernel_file's.
"""
