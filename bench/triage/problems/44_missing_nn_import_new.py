import torch
import triton
import triton.language as tl



class ModelNew(nn.Module):  # <- expect
    def forward(self, x):
        return x
