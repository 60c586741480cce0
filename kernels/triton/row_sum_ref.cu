// Trusted reference for row_sum.py: one thread per row, f64 accumulation.
// Launch grid ceil_div(rows, 128), block 128.
extern "C" __global__ void row_sum_ref(const float* x, float* out, int rows, int n) {
  long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  double s = 0.0;
  for (int c = 0; c < n; ++c) s += (double)x[row * n + c];
  out[row] = (float)s;
}
