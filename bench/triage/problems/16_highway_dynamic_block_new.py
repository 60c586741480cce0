import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gate_kernel(x_ptr, g_ptr, out_ptr, D, BLOCK_K: tl.constexpr):
    row = tl.program_id(0)
    for k in range(0, D, BLOCK_K):
        k_max = tl.minimum(k + BLOCK_K, D)
        cur_k = k_max - k
        offs = k + tl.arange(0, cur_k)  # <- expect
        x = tl.load(x_ptr + row * D + offs)
        g = tl.sigmoid(tl.load(g_ptr + row * D + offs))
        tl.store(out_ptr + row * D + offs, g * x + (1 - g) * x)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        out = torch.empty_like(a)
        gate_kernel[(a.shape[0],)](a, b, out, a.shape[1], BLOCK_K=256)
        return out
