import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mean_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n, BLOCK):
        acc += tl.load(x_ptr + start + offs, mask=start + offs < n, other=0.0)
    total = tl.sum(acc, axis=0) / n
    for start in range(0, n, BLOCK):
        tl.store(out_ptr + start + offs, tl.zeros((BLOCK,), dtype=tl.float32) + total, mask=start + offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        mean_kernel[(1,)](x, out, x.numel(), BLOCK=1024)
        return out
