// A plain CUDA C++ program (bench/capture): two kernels through the runtime
// API, built with nvcc. `tilescope-run capture -- ./saxpy_rows` records both;
// their configs replay the program's bytes.
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void saxpy(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// One block per row: a shared-memory reduction of each row of a [rows, cols] matrix.
__global__ void row_sums(const float* m, float* sums, int cols) {
  extern __shared__ float part[];
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += m[blockIdx.x * cols + c];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = part[0];
}

#define CHECK(x)                                                                      \
  do {                                                                                \
    cudaError_t e = (x);                                                              \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20, rows = 256, cols = 1000;
  std::vector<float> hx(n), hy(n), hm(rows * cols);
  for (int i = 0; i < n; ++i) hx[i] = float(i % 97) / 97.0f, hy[i] = float(i % 13);
  for (int i = 0; i < rows * cols; ++i) hm[i] = float((i * 7) % 11) - 5.0f;
  float *x, *y, *m, *sums;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMalloc(&m, rows * cols * sizeof(float)));
  CHECK(cudaMalloc(&sums, rows * sizeof(float)));
  CHECK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(m, hm.data(), rows * cols * sizeof(float), cudaMemcpyHostToDevice));
  saxpy<<<(n + 255) / 256, 256>>>(x, y, 2.5f, n);
  row_sums<<<rows, 128, 128 * sizeof(float)>>>(m, sums, cols);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float s0 = 0;
  CHECK(cudaMemcpy(&s0, sums, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("saxpy_rows: n=%d row 0 sum %g\n", n, s0);
  return 0;
}
