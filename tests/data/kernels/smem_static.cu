// A kernel whose static shared memory is known by construction:
// SMEM_FLOATS floats = 4 * SMEM_FLOATS bytes (test_compile checks the figure).
#ifndef SMEM_FLOATS
#define SMEM_FLOATS 1000
#endif

extern "C" __global__ void smem_static(float* out, int n) {
  __shared__ float buf[SMEM_FLOATS];
  for (int i = threadIdx.x; i < SMEM_FLOATS; i += blockDim.x) buf[i] = float(i);
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = buf[i % SMEM_FLOATS];
}

template <int SCALE>
__global__ void scaled(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = float(SCALE * i);
}
template __global__ void scaled<3>(float*, int);

__global__ void __launch_bounds__(128) bounded(float* out) { out[threadIdx.x] = 1.0f; }
