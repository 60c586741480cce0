// Register pressure: LIVE independent accumulators stay live across the loop, so
// with --maxrregcount=24 ptxas must spill some of them to local memory.
#ifndef LIVE
#define LIVE 48
#endif

extern "C" __global__ void spill(const float* in, float* out, int n) {
  float acc[LIVE];
#pragma unroll
  for (int j = 0; j < LIVE; ++j) acc[j] = in[j];
  for (int i = 0; i < n; ++i) {
#pragma unroll
    for (int j = 0; j < LIVE; ++j) acc[j] = acc[j] * in[i + j] + acc[(j + 1) % LIVE];
  }
#pragma unroll
  for (int j = 0; j < LIVE; ++j) out[j * blockDim.x + threadIdx.x] = acc[j];
}
