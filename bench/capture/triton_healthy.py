"""A healthy PyTorch program with Triton kernels that Triton's JIT specialises
on 16-byte aligned pointers (bench/capture, docs/capture.md).

Every tensor comes from torch (cudaMalloc: 256-byte aligned), every size is a
multiple of 16, so the JIT marks each pointer and size argument with
tt.divisibility=16 and the kernels load with 16-byte vectors: 8 halves or 4
floats per access. A real Triton launcher given 4-byte aligned pointers would
compile another specialisation; `diagnose` must do the same, and so find
nothing wrong here: tests/gpu/test_diagnose_captured.cpp captures this program
and asserts 0 error findings for each captured config.

  scale_add         fp32 elementwise, masked (out = alpha * x + y)
  geglu_tanh        fp16 rows, Liger-Kernel's GEGLU forward (tanh approximation)
  cross_entropy     fp32 rows with int64 targets: a row reduction (max, sum of exp)
"""
import sys
import time

import torch
import triton
import triton.language as tl


@triton.jit
def scale_add_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, alpha * x + y, mask=mask)


@triton.jit
def geglu_tanh_kernel(a_ptr, b_ptr, c_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    a = tl.load(a_ptr + row * stride + cols, mask=mask, other=0).to(tl.float32)
    b = tl.load(b_ptr + row * stride + cols, mask=mask, other=0)
    inner = 0.7978845608028654 * (a + 0.044715 * a * a * a)
    tanh = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
    gelu = 0.5 * a * (1.0 + tanh)
    tl.store(c_ptr + row * stride + cols, gelu.to(b.dtype) * b, mask=mask)


@triton.jit
def cross_entropy_kernel(x_ptr, target_ptr, loss_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=float("-inf"))
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
    target = tl.load(target_ptr + row)
    logit = tl.load(x_ptr + row * stride + target)
    tl.store(loss_ptr + row, lse - logit)


def main():
    torch.manual_seed(0)
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    cols = 1024
    t = time.perf_counter()

    n = rows * cols
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    scale_add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, 0.5, BLOCK=1024)
    err_add = (out - (0.5 * x + y)).abs().max().item()

    a = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
    b = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
    c = torch.empty_like(a)
    geglu_tanh_kernel[(rows,)](a, b, c, a.stride(0), cols, BLOCK=1024)
    ref = torch.nn.functional.gelu(a.float(), approximate="tanh").half() * b
    err_geglu = (c.float() - ref.float()).abs().max().item()

    logits = torch.randn(rows, cols, device="cuda")
    target = torch.randint(0, cols, (rows,), device="cuda")
    loss = torch.empty(rows, device="cuda")
    cross_entropy_kernel[(rows,)](logits, target, loss, logits.stride(0), cols, BLOCK=1024)
    ref_loss = torch.nn.functional.cross_entropy(logits, target, reduction="none")
    err_ce = (loss - ref_loss).abs().max().item()

    torch.cuda.synchronize()
    print(f"healthy: rows={rows} max error add {err_add:g} geglu {err_geglu:g} cross_entropy {err_ce:g} "
          f"({(time.perf_counter() - t) * 1e3:.0f} ms incl. compile)")
    ok = err_add < 1e-5 and err_geglu < 0.1 and err_ce < 1e-3  # fp16 products: an ulp at 16 is 0.016
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
