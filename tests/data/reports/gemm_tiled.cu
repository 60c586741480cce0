// Fixture source for the GUI tests: the kernel of gemm_sweep.json's compile-error
// point (BLOCK_M=128 BLOCK_N=64). Line 42 uses `acc_frag`, which is not declared,
// and line 57 lacks a semicolon: the two errors its compile log reports.
#include <cuda_fp16.h>

#ifndef BLOCK_M
#define BLOCK_M 64
#endif
#ifndef BLOCK_N
#define BLOCK_N 64
#endif
#ifndef BLOCK_K
#define BLOCK_K 32
#endif

extern "C" __global__ void gemm_tiled(const __half* A, const __half* B, __half* C, int M, int N, int K) {
  __shared__ __half As[BLOCK_M][BLOCK_K];
  __shared__ __half Bs[BLOCK_K][BLOCK_N];
  const int row0 = blockIdx.y * BLOCK_M;
  const int col0 = blockIdx.x * BLOCK_N;
  const int lane = threadIdx.x % 32;
  float acc[BLOCK_M * BLOCK_N / 128] = {};
  for (int k0 = 0; k0 < K; k0 += BLOCK_K) {
    for (int i = threadIdx.x; i < BLOCK_M * BLOCK_K; i += blockDim.x) {
      const int r = i / BLOCK_K, c = i % BLOCK_K;
      As[r][c] = (row0 + r < M && k0 + c < K) ? A[(row0 + r) * K + k0 + c] : __float2half(0.f);
    }
    for (int i = threadIdx.x; i < BLOCK_K * BLOCK_N; i += blockDim.x) {
      const int r = i / BLOCK_N, c = i % BLOCK_N;
      Bs[r][c] = (k0 + r < K && col0 + c < N) ? B[(k0 + r) * N + col0 + c] : __float2half(0.f);
    }
    __syncthreads();
    for (int e = 0; e < BLOCK_M * BLOCK_N / 128; ++e) {
      const int idx = threadIdx.x + e * 128;
      const int r = idx / BLOCK_N, c = idx % BLOCK_N;
      for (int kk = 0; kk < BLOCK_K; ++kk) acc[e] += __half2float(As[r][kk]) * __half2float(Bs[kk][c]);
    }
    __syncthreads();
  }
  // The fragment accumulator was renamed to acc; this use was missed.
#if BLOCK_M == 128 && BLOCK_N == 64
  acc_frag[0] = acc[0];
#endif
  for (int e = 0; e < BLOCK_M * BLOCK_N / 128; ++e) {
    const int idx = threadIdx.x + e * 128;
    const int r = idx / BLOCK_N, c = idx % BLOCK_N;
    if (row0 + r < M && col0 + c < N) C[(row0 + r) * N + col0 + c] = __float2half(acc[e]);
  }
}

// Padding so the line numbers of the recorded log stay meaningful.
//
//
//
//
#if BLOCK_M == 128 && BLOCK_N == 64
static int broken = 0
#endif
