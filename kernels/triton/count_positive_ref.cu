// Trusted reference for count_positive.py: a grid-stride count per thread, one
// integer atomic per thread (integer addition is exact in any order).
// out must start at zero (the config's init: zeros).
extern "C" __global__ void count_positive_ref(const float* x, int* out, int n) {
  int count = 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    count += x[i] > 0.0f;
  atomicAdd(out, count);
}
