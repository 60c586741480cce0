import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def total_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    acc = tl.load(out_ptr)
    tl.store(out_ptr, acc + tl.sum(x, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.zeros(1, device=x.device, dtype=torch.float32)
        n = x.numel()
        total_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
