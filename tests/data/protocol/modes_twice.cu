// The trusted reference for modes.cu: y = 2x.
extern "C" __global__ void twice(const float* x, float* y, const int* flag, int n) {
  (void)flag;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
