"""C[M, N] = A[M, K] @ B[K, N] in TileLang: f16 in and out, f32 accumulation.

One CTA of 128 threads per block_M x block_N tile of C; A and B tiles are
staged in shared memory by a num_stages pipeline (T.Pipelined) and multiplied
with T.gemm. The shapes are compile-time constants of the program.

gemm_tilelang.cu beside this file is the CUDA TileLang generated from
`gemm(1024, 1024, 1024)` (generate.py): TileScope opens it as a CUDA kernel.
"""
import tilelang.language as T


def gemm(M=1024, N=1024, K=1024, block_M=128, block_N=128, block_K=32, num_stages=3,
         dtype="float16", accum_dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])
    return main
