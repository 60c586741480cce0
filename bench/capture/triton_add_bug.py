"""A PyTorch program with a buggy Triton kernel (bench/capture, docs/capture.md).

It calls the zoo's add_kernel (kernels/triton/add.py) with BUG_NO_STORE_MASK:
the last program stores a whole block, past the end of `out`. In PyTorch the
overrun lands in memory the program does not look at, so the program prints a
right-looking result; `tilescope-run capture` records the launch and
`diagnose` on its config names the bytes and the .py line.
"""
import os
import sys
import time

import torch
import triton

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kernels", "triton"))
from add import add_kernel  # noqa: E402


def main():
    torch.manual_seed(0)
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    t = time.perf_counter()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024, BUG_NO_STORE_MASK=True)
    torch.cuda.synchronize()
    err = (out - (x + y)).abs().max().item()
    print(f"add: n={n} max error {err:g} ({(time.perf_counter() - t) * 1e3:.1f} ms)")


if __name__ == "__main__":
    main()
