import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def count_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    pos = tl.sum((x > 0).to(tl.float32), axis=0)
    old = tl.load(out_ptr)
    tl.store(out_ptr, old + pos)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.zeros(1, device=x.device, dtype=torch.float32)
        n = x.numel()
        count_kernel[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
        return out
