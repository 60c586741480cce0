"""out[r, c] = x[r, c] + bias[c]: BLOCK_M whole rows per program, f32.

The rows divide evenly (M is a multiple of BLOCK_M), so only the columns past
N need a mask, and the kernel masks by columns alone: one 1-D mask, `cols < N`,
for the 2-D load of x and the 2-D store of out. Whether Triton accepts that is
a rule that changed between versions (docs/toolchains.md):
  3.6.0          compiles: tl.store broadcasts its mask against the pointers as
                 tl.load does (numpy's rules: the 1-D mask becomes 1 x N).
  3.5.0, 3.5.1   the load compiles, the store does not: tl.store broadcast its
                 mask to the pointers' shape only at their rank, "Cannot
                 broadcast, rank mismatch: ['1024'], ['4', '1024']".
  3.4.0, older   the load already fails so.
MASK_2D masks with `col_mask[None, :]`, which every version accepts.
"""
import triton
import triton.language as tl


@triton.jit
def add_bias_kernel(x_ptr, bias_ptr, out_ptr, N, stride_row,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, MASK_2D: tl.constexpr = False):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    col_mask = cols < N
    offs = rows[:, None] * stride_row + cols[None, :]
    bias = tl.load(bias_ptr + cols, mask=col_mask, other=0.0)
    if MASK_2D:
        x = tl.load(x_ptr + offs, mask=col_mask[None, :], other=0.0)
        tl.store(out_ptr + offs, x + bias[None, :], mask=col_mask[None, :])
    else:
        x = tl.load(x_ptr + offs, mask=col_mask, other=0.0)
        tl.store(out_ptr + offs, x + bias[None, :], mask=col_mask)
