"""C[M, N] = A[M, K] @ B[K, N] in Triton: f16 in, f32 accumulation, f16 out.

Each program owns one BLOCK_M x BLOCK_N tile of C. Programs are ordered in
groups of GROUP_M tile rows so that neighbouring programs share A and B tiles
in L2. The K loop masks the last partial BLOCK_K slice, and the store masks the
tiles that cross C's edges, so any M, N, K works.

Planted bug (kernels/README.md): BUG_DOT_SHAPE loads B's tile as
(BLOCK_N, BLOCK_K) and multiplies it without tl.trans, a compile error (seed
000). The wrong-stride bug of matmul_bug_wrong_stride is in the config: the
kernel is right, the caller passes B's two strides swapped. BUG_NO_K_MASK
masks A's tile by rows only: the last K slice reads past each row's end (the
next row's first elements, which B's masked zeros cancel) and, on the last
row, past A's end.
"""
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr, BUG_DOT_SHAPE: tl.constexpr = False,
                  BUG_NO_K_MASK: tl.constexpr = False):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    # Grouped ordering: GROUP_M tile rows are walked column by column.
    per_group = GROUP_M * tiles_n
    group = pid // per_group
    first_m = group * GROUP_M
    group_rows = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_rows
    pid_n = (pid % per_group) // group_rows

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    if BUG_DOT_SHAPE:
        b_ptrs = b_ptr + offs_n[:, None] * stride_bn + offs_k[None, :] * stride_bk
    else:
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        if BUG_NO_K_MASK:
            a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        else:
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        if BUG_DOT_SHAPE:
            b = tl.load(b_ptrs, mask=(offs_n[:, None] < N) & (offs_k[None, :] < k_left), other=0.0)
        else:
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    c = acc.to(tl.float16)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
