// Shared-memory tiled transpose: out[N, M] = in[M, N]ᵀ, f32. A CTA of 32 x 8
// threads moves one 32 x 32 tile: it loads the tile row by row into shared
// memory (coalesced), waits at a barrier, and writes it out column by column
// (coalesced in out). The tile row is padded to 33 floats so that reading a
// column touches 32 different banks. Grid: ceil_div(N, 32) x ceil_div(M, 32).
//
// Bug variants (each one thing; the tracer's tests and docs/measurements.md):
//   BUG_NO_PAD        tile rows of 32 floats: a column read hits one bank 32
//                     times (32-way bank conflicts); results stay right.
//   BUG_READ_NO_MASK  the loads skip their bounds check, the stores keep it:
//                     the last tiles read past in's end, the output is right
//                     (only the trace sees the reads).
//   BUG_NO_SYNC       no barrier between the tile's stores and its reads:
//                     warps read shared words other warps have not written.
#define TILE 32
#define ROWS 8
#ifdef BUG_NO_PAD
#define PAD 0
#else
#define PAD 1
#endif

extern "C" __global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int M, int N) {
  __shared__ float tile[TILE][TILE + PAD];
  const int x = blockIdx.x * TILE + threadIdx.x;  // column of in
  const int y0 = blockIdx.y * TILE;               // first row of in
  for (int r = threadIdx.y; r < TILE; r += ROWS) {
#ifdef BUG_READ_NO_MASK
    tile[r][threadIdx.x] = in[(y0 + r) * N + x];
#else
    if (x < N && y0 + r < M) tile[r][threadIdx.x] = in[(y0 + r) * N + x];
#endif
  }
#ifndef BUG_NO_SYNC
  __syncthreads();
#endif
  const int ox = y0 + threadIdx.x;                // column of out = row of in
  for (int r = threadIdx.y; r < TILE; r += ROWS) {
    const int oy = blockIdx.x * TILE + r;         // row of out = column of in
    if (ox < M && oy < N) out[oy * M + ox] = tile[threadIdx.x][r];
  }
}
