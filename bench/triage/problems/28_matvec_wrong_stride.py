import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, v):
        return a @ v


n = 512


def get_inputs():
    return [torch.randn(n, n), torch.randn(n)]


def get_init_inputs():
    return []
