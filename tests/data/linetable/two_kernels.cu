extern "C" __global__ void transpose(float* out, const float* in, int n) {
  __shared__ float tile[32][32];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  if (x < n && y < n) out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}
extern "C" __global__ void other(float* out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = out[i] * 2.0f;
}
