import torch
import torch.nn as nn
import triton_fused_ops_tilescope_bench  # <- expect


class ModelNew(nn.Module):
    def forward(self, x):
        return triton_fused_ops_tilescope_bench.relu(x)
