"""A torch.compile'd function (bench/capture): Inductor generates Triton
kernels at run time; `capture` records them and their replays must give the
program's bytes exactly."""
import sys
import time

import torch


@torch.compile
def gelu_bias(x, b):
    return torch.nn.functional.gelu(x + b) * 0.5


def main():
    torch.manual_seed(0)
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 512
    x = torch.randn(rows, 1000, device="cuda")
    b = torch.randn(1000, device="cuda")
    t = time.perf_counter()
    y = gelu_bias(x, b)
    torch.cuda.synchronize()
    print(f"gelu_bias: {tuple(y.shape)} sum {y.sum().item():.4f} ({(time.perf_counter() - t) * 1e3:.0f} ms incl. compile)")


if __name__ == "__main__":
    main()
