// Row sums: out[r] = sum_j x[r, j], one thread per row accumulating straight
// into out (as a naive kernel does). BUG_NO_INIT skips the `out[r] = 0` before
// the loop: the first `+=` reads an output element nothing has written yet
// (uninitialized_read; the tool's sentinel, a NaN, then spreads).
extern "C" __global__ void rowsum(const float* __restrict__ x, float* __restrict__ out, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
#ifndef BUG_NO_INIT
  out[r] = 0.0f;
#endif
  for (int j = 0; j < cols; ++j) out[r] += x[(long long)r * cols + j];
}
