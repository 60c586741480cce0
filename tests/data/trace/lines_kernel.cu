extern "C" __global__ void k(float* a, const float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = b[i] * 2.0f;
  __syncthreads();
  a[i + 1] += 1.0f;
}
