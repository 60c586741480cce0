"""A small PyTorch + Triton program that gpu_capture_check.py runs under the
Triton recorder (needs a GPU, torch and triton).  It prints one JSON line of
timings; everything else is for the recorder to see:

  add_kernel     a plain @triton.jit launch, repeated (only the first of a
                 configuration is recorded by default), and a bf16 view
  scale_kernel   @triton.autotune over two configs (benchmark runs must not be
                 recorded; the final launch says autotuned and its config)
  torch.compile  an Inductor-generated pointwise kernel
"""
import json
import os
import time

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def transpose_copy(src_ptr, dst_ptr, rows, cols, s0, s1, BLOCK: tl.constexpr):
    # dst (rows x cols, contiguous) = src viewed with strides (s0, s1)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < rows * cols
    r, c = offs // cols, offs % cols
    tl.store(dst_ptr + offs, tl.load(src_ptr + r * s0 + c * s1, mask=mask), mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4),
                          triton.Config({"BLOCK": 1024}, num_warps=8)], key=["n"])
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


@torch.compile
def fused(a, b):
    return torch.relu(a * b + 1.0)


def main():
    torch.manual_seed(0)
    n = 10000
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)
    add_kernel[grid](x, y, out, n, BLOCK=1024)
    add_kernel[grid](x, y, out, n, BLOCK=1024)

    a = torch.randn(48, 40, device="cuda").to(torch.bfloat16)
    at = a.t()                                        # a non-contiguous view
    dst = torch.empty(40, 48, device="cuda", dtype=torch.bfloat16)
    transpose_copy[(triton.cdiv(40 * 48, 256),)](at, dst, 40, 48, at.stride(0), at.stride(1), BLOCK=256)
    assert torch.equal(dst, at.contiguous())

    scaled = torch.empty_like(x)
    scale_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, scaled, n, 2.0)
    assert torch.allclose(scaled, 2 * x)

    r = fused(x, y)
    assert torch.allclose(r, torch.relu(x * y + 1.0), atol=1e-5)   # Inductor fuses an FMA
    torch.cuda.synchronize()
    if os.environ.get("GPU_CAPTURE_NO_TIMING"):
        print(json.dumps({}))
        return

    # The cost of launches the recorder does not select (same configuration).
    for _ in range(50):
        add_kernel[grid](x, y, out, n, BLOCK=1024)
    torch.cuda.synchronize()
    reps = 2000
    t0 = time.perf_counter()
    for _ in range(reps):
        add_kernel[grid](x, y, out, n, BLOCK=1024)
    torch.cuda.synchronize()
    jit_us = (time.perf_counter() - t0) / reps * 1e6
    for _ in range(50):
        fused(x, y)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        fused(x, y)
    torch.cuda.synchronize()
    compiled_us = (time.perf_counter() - t0) / reps * 1e6
    print(json.dumps({"jit_launch_us": jit_us, "compiled_call_us": compiled_us}))


if __name__ == "__main__":
    main()
