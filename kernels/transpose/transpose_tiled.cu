// Shared-memory tiled transpose, out[N, M] = in[M, N]^T, f32: a CTA of 32 x 8
// threads loads a 32 x 32 tile row by row (coalesced), then writes it out
// column by column (coalesced in out). PAD = 0 leaves tile rows at 32 floats,
// so a column read puts all 32 lanes in one bank (32-way bank conflicts);
// PAD = 1 pads rows to 33 floats and the column read hits 32 banks.
#ifndef PAD
#define PAD 1
#endif
#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int M, int N) {
  __shared__ float tile[TILE][TILE + PAD];
  const int x = blockIdx.x * TILE + threadIdx.x;
  const int y0 = blockIdx.y * TILE;
  for (int r = threadIdx.y; r < TILE; r += ROWS)
    if (x < N && y0 + r < M) tile[r][threadIdx.x] = in[(y0 + r) * N + x];
  __syncthreads();
  const int ox = y0 + threadIdx.x;
  for (int r = threadIdx.y; r < TILE; r += ROWS) {
    const int oy = blockIdx.x * TILE + r;
    if (ox < M && oy < N) out[oy * M + ox] = tile[threadIdx.x][r];
  }
}
