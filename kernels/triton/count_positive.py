"""out[0] = number of x[i] > 0, BLOCK elements per program, i32.

Each program counts its block and adds the count to out[0] with
tl.atomic_add. Planted bug (kernels/README.md): BUG_NON_ATOMIC adds with a
plain load and store, so programs that run at the same time overwrite each
other's sums: the count is too small and differs from run to run (seed 000's
non-deterministic failures). Counting in i32 keeps the correct kernel
bit-for-bit deterministic, unlike a float sum whose rounding depends on the
order of the atomics.
"""
import triton
import triton.language as tl


@triton.jit
def count_positive_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, BUG_NON_ATOMIC: tl.constexpr = False):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    count = tl.sum((x > 0).to(tl.int32), axis=0)
    if BUG_NON_ATOMIC:
        total = tl.load(out_ptr)
        tl.store(out_ptr, total + count)
    else:
        tl.atomic_add(out_ptr, count)
