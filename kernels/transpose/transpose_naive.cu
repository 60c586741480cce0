// Naive transpose, out[N, M] = in[M, N]^T, f32, one thread per element: the
// reads are coalesced, the writes stride by M floats, so every lane of a warp
// writes its own 32-byte sector (uncoalesced stores).
extern "C" __global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int M, int N) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < N && y < M) out[x * M + y] = in[y * N + x];
}
