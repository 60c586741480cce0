// Tiled GEMM: C[M,N] = A[M,K] · B[K,N], f16 inputs, f32 accumulation,
// f16 output (or f32 with C_F32). Row-major, contiguous.
//
// One CTA owns a BLOCK_M × BLOCK_N tile of C: its origin is
// (blockIdx.y * BLOCK_M, blockIdx.x * BLOCK_N). NUM_WARPS * 32 threads stage
// BLOCK_M × BLOCK_K of A and BLOCK_K × BLOCK_N of B in dynamic shared memory
// ((BLOCK_M * BLOCK_K + BLOCK_K * BLOCK_N) * 2 bytes), then each thread
// computes a TM × TN micro-tile. The micro-tile is strided (rows ty + i*TY,
// columns tx + j*TX) so that a warp's stores to C are contiguous.
//
// The correct kernel works for any M, N, K. Bug variants (one define each):
//   BUG_NO_MASK      no boundary masks on loads and stores
//   BUG_MISALIGNED   16-byte vector loads (8 halfs) that assume K and N are
//                    multiples of 8 and the base pointers 16-byte aligned
//   BUG_NO_SYNC      no barrier between filling shared memory and reading it
//   BUG_NO_INIT      accumulates into C, which nobody zeroed
//   BUG_FP16_ACC     accumulates in f16 (overflows past 65504 at large K)
//   BUG_TRANSPOSED   reads B[k, n] at B[n * K + k] (as if B were N × K)
//   BUG_INT32_INDEX  global offsets in 32-bit int: wraps once row * K >= 2^31
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
#ifndef NUM_WARPS
#define NUM_WARPS 4
#endif

#define NUM_THREADS (NUM_WARPS * 32)
// 16 threads across N, the rest down M.
#define TX 16
#define TY (NUM_THREADS / TX)
#define TM (BLOCK_M / TY)
#define TN (BLOCK_N / TX)

static_assert(BLOCK_N % TX == 0, "BLOCK_N must be a multiple of 16");
static_assert(BLOCK_M % TY == 0, "BLOCK_M must be a multiple of NUM_WARPS * 2");

#ifdef C_F32
typedef float out_t;
#else
typedef __half out_t;
#endif

#ifdef BUG_INT32_INDEX
typedef int index_t;        // the bug: 32-bit offsets
#else
typedef long long index_t;  // M * K can exceed 2^31 elements
#endif

#ifdef BUG_NO_MASK
#define IN_BOUNDS(r, c, rows, cols) true
#else
#define IN_BOUNDS(r, c, rows, cols) ((r) < (rows) && (c) < (cols))
#endif

// Element (r, c) of a row-major matrix with leading dimension ld, or 0 outside.
__device__ __forceinline__ __half load_masked(const __half* p, int r, int c, int rows, int cols, int ld) {
  if (!IN_BOUNDS(r, c, rows, cols)) return __float2half(0.0f);
  index_t offset = (index_t)r * ld + c;  // with BUG_INT32_INDEX: int * int, wraps past 2^31
  return p[offset];
}

#ifdef BUG_MISALIGNED
// Copies 8 consecutive halfs with one 16-byte load when they are in bounds.
// The bug: it never checks that the address is 16-byte aligned, which holds
// only when the leading dimension is a multiple of 8 (and the base pointer
// 16-byte aligned); otherwise the load faults with "misaligned address".
__device__ __forceinline__ void load8(__half* dst, const __half* p, int r, int c, int rows, int cols, int ld) {
  if (r < rows && c + 8 <= cols) {
    *reinterpret_cast<int4*>(dst) = *reinterpret_cast<const int4*>(p + (long long)r * ld + c);
  } else {
    for (int e = 0; e < 8; ++e) dst[e] = (r < rows && c + e < cols) ? p[(long long)r * ld + c + e] : __float2half(0.0f);
  }
}
#endif

__device__ __forceinline__ void load_tiles(__half* As, __half* Bs, const __half* A, const __half* B,
                                           int M, int N, int K, int row0, int col0, int k0) {
#ifdef BUG_MISALIGNED
  static_assert(BLOCK_K % 8 == 0 && BLOCK_N % 8 == 0, "vector loads need tiles in multiples of 8");
  for (int v = threadIdx.x; v < BLOCK_M * BLOCK_K / 8; v += NUM_THREADS) {
    int r = v / (BLOCK_K / 8), c = (v % (BLOCK_K / 8)) * 8;
    load8(&As[r * BLOCK_K + c], A, row0 + r, k0 + c, M, K, K);
  }
  for (int v = threadIdx.x; v < BLOCK_K * BLOCK_N / 8; v += NUM_THREADS) {
    int r = v / (BLOCK_N / 8), c = (v % (BLOCK_N / 8)) * 8;
    load8(&Bs[r * BLOCK_N + c], B, k0 + r, col0 + c, K, N, N);
  }
#else
  for (int e = threadIdx.x; e < BLOCK_M * BLOCK_K; e += NUM_THREADS) {
    int r = e / BLOCK_K, c = e % BLOCK_K;
    As[e] = load_masked(A, row0 + r, k0 + c, M, K, K);
  }
  for (int e = threadIdx.x; e < BLOCK_K * BLOCK_N; e += NUM_THREADS) {
    int r = e / BLOCK_N, c = e % BLOCK_N;
#ifdef BUG_TRANSPOSED
    Bs[e] = load_masked(B, col0 + c, k0 + r, N, K, K);  // B[n * K + k]: B read as N × K
#else
    Bs[e] = load_masked(B, k0 + r, col0 + c, K, N, N);
#endif
  }
#endif
}

extern "C" __global__ void __launch_bounds__(NUM_THREADS)
gemm_tiled(const __half* __restrict__ A, const __half* __restrict__ B, out_t* C, int M, int N, int K) {
  extern __shared__ __align__(16) unsigned char smem[];
  __half* As = reinterpret_cast<__half*>(smem);  // BLOCK_M × BLOCK_K
  __half* Bs = As + BLOCK_M * BLOCK_K;           // BLOCK_K × BLOCK_N

  const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
  const int row0 = blockIdx.y * BLOCK_M, col0 = blockIdx.x * BLOCK_N;

#ifdef BUG_FP16_ACC
  __half acc[TM][TN];
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) acc[i][j] = __float2half(0.0f);
#else
  float acc[TM][TN];
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
#endif

  for (int k0 = 0; k0 < K; k0 += BLOCK_K) {
    load_tiles(As, Bs, A, B, M, N, K, row0, col0, k0);
#ifndef BUG_NO_SYNC
    __syncthreads();  // every thread's stores to As/Bs are visible before anyone reads them
#endif
    for (int kk = 0; kk < BLOCK_K; ++kk) {
      for (int i = 0; i < TM; ++i) {
        __half a = As[(ty + i * TY) * BLOCK_K + kk];
        for (int j = 0; j < TN; ++j) {
          __half b = Bs[kk * BLOCK_N + tx + j * TX];
#ifdef BUG_FP16_ACC
          acc[i][j] = __hfma(a, b, acc[i][j]);
#else
          acc[i][j] += __half2float(a) * __half2float(b);
#endif
        }
      }
    }
    __syncthreads();  // everyone is done reading before the next tile overwrites As/Bs
  }

  for (int i = 0; i < TM; ++i) {
    for (int j = 0; j < TN; ++j) {
      int r = row0 + ty + i * TY, c = col0 + tx + j * TX;
      if (!IN_BOUNDS(r, c, M, N)) continue;
      index_t offset = (index_t)r * N + c;
      float v = (float)acc[i][j];
#ifdef BUG_NO_INIT
      v += (float)C[offset];  // the bug: C is the accumulator and was never zeroed
#endif
#ifdef C_F32
      C[offset] = v;
#else
      C[offset] = __float2half(v);
#endif
    }
  }
}
