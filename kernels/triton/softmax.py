"""y[r, :] = softmax(x[r, :]) over N columns, one program per row, f32.

The row is loaded once (BLOCK = N rounded up to a power of two, masked lanes
are -inf), its maximum subtracted before exp, and divided by the sum.
Planted bug (kernels/README.md): BUG_NO_MAX skips the max subtraction, so
exp overflows to inf for logits above 88.7 and the row becomes inf/inf = NaN
(seed 004).
"""
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, N, stride_x, stride_y,
                   BLOCK: tl.constexpr, BUG_NO_MAX: tl.constexpr = False):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + row * stride_x + offs, mask=mask, other=-float("inf"))
    if BUG_NO_MAX:
        num = tl.exp(x)
    else:
        num = tl.exp(x - tl.max(x, axis=0))
    y = num / tl.sum(num, axis=0)
    tl.store(y_ptr + row * stride_y + offs, y, mask=mask)
