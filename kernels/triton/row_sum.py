"""out[r] = sum of x[r, 0:N], one program per row, f32.

BLOCK is the row length rounded up to a power of two; lanes past N are masked
(other=0.0). Planted bugs (kernels/README.md), each behind a constexpr flag:
  BUG_NO_LOAD_MASK     the load is not masked: lanes N..BLOCK read the next
                       row, and the last row reads past the end of x (seed 000's
                       "missing or wrong boundary masks").
  BUG_DYNAMIC_ARANGE   the row is walked in BLOCK_K chunks whose last one is
                       shortened with a run-time length, tl.arange(0, cur_K):
                       a compile error, "arange's arguments must be of type
                       tl.constexpr" (40% of seed 000's Triton compile errors).
"""
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, N, stride_row,
                   BLOCK: tl.constexpr, BLOCK_K: tl.constexpr = 64,
                   BUG_NO_LOAD_MASK: tl.constexpr = False, BUG_DYNAMIC_ARANGE: tl.constexpr = False):
    row = tl.program_id(0)
    base = x_ptr + row * stride_row
    if BUG_DYNAMIC_ARANGE:
        acc = 0.0
        for k in range(0, N, BLOCK_K):
            k_max = tl.minimum(k + BLOCK_K, N)
            cur_K = k_max - k
            x = tl.load(base + k + tl.arange(0, cur_K))
            acc += tl.sum(x)
        tl.store(out_ptr + row, acc)
    else:
        offs = tl.arange(0, BLOCK)
        if BUG_NO_LOAD_MASK:
            x = tl.load(base + offs)
        else:
            x = tl.load(base + offs, mask=offs < N, other=0.0)
        tl.store(out_ptr + row, tl.sum(x, axis=0))
