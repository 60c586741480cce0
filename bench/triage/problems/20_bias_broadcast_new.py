import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_kernel(x_ptr, b_ptr, out_ptr, rows, cols, BR: tl.constexpr, BC: tl.constexpr):
    r = tl.program_id(0) * BR + tl.arange(0, BR)
    c = tl.arange(0, BC)
    x = tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=(r[:, None] < rows) & (c[None, :] < cols))
    b = tl.load(b_ptr + r, mask=r < rows)
    y = x + b[None, :]  # <- expect
    tl.store(out_ptr + r[:, None] * cols + c[None, :], y, mask=(r[:, None] < rows) & (c[None, :] < cols))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        out = torch.empty_like(a)
        rows, cols = a.shape
        bias_kernel[(triton.cdiv(rows, 16),)](a, b, out, rows, cols, BR=16, BC=64)
        return out
