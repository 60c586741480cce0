// C[M,N] = A[M,K] * B[K,N], f32, one BLOCK x BLOCK tile of C per CTA.
// BUG selects a planted defect for the capture tests:
//   0 correct, 1 the last tile row also writes row M (one past the end of C),
//   2 CTA (SKIP_X, SKIP_Y) returns early (a coverage gap),
//   3 thread 0 of CTA 0 stores to a wild address (an illegal address fault).
#ifndef BLOCK
#define BLOCK 16
#endif
#ifndef BUG
#define BUG 0
#endif
#ifndef SKIP_X
#define SKIP_X 1
#endif
#ifndef SKIP_Y
#define SKIP_Y 2
#endif

extern "C" __global__ void gemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
#if BUG == 2
  if (blockIdx.x == SKIP_X && blockIdx.y == SKIP_Y) return;
#endif
  int row = blockIdx.y * BLOCK + threadIdx.y;
  int col = blockIdx.x * BLOCK + threadIdx.x;
#if BUG == 3
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0)
    *(volatile float*)((char*)C + (1ull << 40)) = 1.0f;
#endif
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
#if BUG == 1
  if (row == M - 1) C[(row + 1) * N + col] = acc;
#endif
}
