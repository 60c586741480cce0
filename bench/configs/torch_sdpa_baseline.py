#!/usr/bin/env python3
"""An external baseline for TileScope (config `baseline: {"command": ...}`): times
PyTorch's scaled_dot_product_attention on the config's shape and prints
{"median_ns": N}. The point's defines and params arrive as TILESCOPE_<NAME>
environment variables (B, H, S, HEAD_DIM)."""
import json
import os
import statistics

import torch
import torch.nn.functional as F

env = lambda k, d: int(os.environ.get("TILESCOPE_" + k, d))
b, h, s, d = env("B", 2), env("H", 8), env("S", 1024), env("HEAD_DIM", 64)
q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16) for _ in range(3))
flush = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")  # larger than L2, as TileScope does
for _ in range(5):
    F.scaled_dot_product_attention(q, k, v)
times = []
for _ in range(50):
    flush.zero_()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    F.scaled_dot_product_attention(q, k, v)
    end.record()
    end.synchronize()
    times.append(start.elapsed_time(end) * 1e6)
times.sort()
print(json.dumps({"median_ns": statistics.median(times), "p10_ns": times[len(times) // 10],
                  "p90_ns": times[9 * len(times) // 10], "min_ns": times[0], "n": len(times)}))
