"""A TileLang program (bench/capture): kernels/tilelang/gemm.py compiled by TileLang's
own JIT and launched on PyTorch tensors, checked against torch.matmul.

    python3 bench/capture/tilelang_gemm.py [N] [TARGET]

TARGET is TileLang's: `cuda` (the default: the GPU's own architecture, on Hopper
with TMA descriptors built on the host and passed by value) or an architecture
such as `sm_80` (cp.async and mma.sync, plain pointers). The CUDA recorder sees
TileLang's launch as a cubin launch like any other.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kernels", "tilelang"))
import tilelang  # noqa: E402
from gemm import gemm  # noqa: E402


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    target = sys.argv[2] if len(sys.argv) > 2 else "cuda"
    target = target if target == "cuda" else {"kind": "cuda", "arch": target}
    kernel = tilelang.compile(gemm(n, n, n), out_idx=[2], target=target)
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(n, n, device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16, generator=g)
    c = kernel(a, b)
    torch.cuda.synchronize()
    err = (c.float() - (a.float() @ b.float())).abs().max().item()
    print(f"tilelang {tilelang.__version__} gemm {n}^3 target {sys.argv[2] if len(sys.argv) > 2 else 'cuda'}: "
          f"max abs error {err:.4f} against torch.matmul (f32)")
    return 0 if err < 0.5 else 1


if __name__ == "__main__":
    sys.exit(main())
