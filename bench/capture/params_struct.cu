// A CUDA C++ program whose kernels take a struct by value (bench/capture), as
// CUTLASS's `Params`, FlashAttention's `Flash_fwd_params` and PyTorch's
// TensorIterator functors do. `tilescope-run capture -- ./params_struct`
// records three launches; each becomes a config whose struct argument is its
// recorded bytes with every device pointer relocated (docs/capture.md,
// "Structs passed by value"), and `run` of it replays bit-exactly.
//
// - axpby(AxpbyParams): pointers at allocation starts, sizes, a float.
// - row_scale(RowParams, float* sums): the struct's matrix pointer is a view
//   one row into its allocation (a pointer into the middle), its output is
//   also passed as a top-level pointer, and the struct has a fixed array.
// - gather(GatherParams): a 1 KiB struct (PyTorch's are 1048 bytes) with a
//   table of source pointers, some into one allocation, and offsets.
#include <cstdio>
#include <cstdlib>
#include <vector>

struct AxpbyParams {
  const float* x;
  const float* y;
  float* out;
  long n;
  float alpha, beta;
};

struct RowParams {
  const float* m;  // rows x cols, the first row of its allocation skipped
  float* sums;     // the same buffer the kernel also gets as a top-level pointer
  int rows, cols;
  float weight[8];  // one per row, cycled
};

struct GatherParams {
  const float* src[4];  // src[1] and src[3] point into src[0]'s allocation
  float* dst;
  long offsets[120];  // element offsets into src[i % 4]
  int count;
  float scale;
};

__global__ void axpby(AxpbyParams p) {
  const long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < p.n) p.out[i] = p.alpha * p.x[i] + p.beta * p.y[i];
}

__global__ void row_scale(RowParams p, float* sums) {
  extern __shared__ float part[];
  float s = 0;
  for (int c = threadIdx.x; c < p.cols; c += blockDim.x) s += p.m[blockIdx.x * p.cols + c];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    p.sums[blockIdx.x] = part[0] * p.weight[blockIdx.x % 8];
    sums[p.rows + blockIdx.x] = part[0];  // the second half of the same buffer
  }
}

__global__ void gather(GatherParams p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.count) p.dst[i] = p.scale * p.src[i % 4][p.offsets[i]];
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
  const long n = argc > 1 ? std::atol(argv[1]) : 1 << 16;
  const int rows = 64, cols = 300, count = 120;
  std::vector<float> hx(n), hy(n), hm((rows + 1) * cols);
  for (long i = 0; i < n; ++i) hx[i] = float(i % 97) / 97.0f, hy[i] = float(i % 13) - 6.0f;
  for (int i = 0; i < (rows + 1) * cols; ++i) hm[i] = float((i * 7) % 11) - 5.0f;
  float *x, *y, *out, *m, *sums, *pool, *other, *dst;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMalloc(&m, (rows + 1) * cols * sizeof(float)));
  CHECK(cudaMalloc(&sums, 2 * rows * sizeof(float)));
  CHECK(cudaMalloc(&pool, 4096 * sizeof(float)));
  CHECK(cudaMalloc(&other, 1024 * sizeof(float)));
  CHECK(cudaMalloc(&dst, count * sizeof(float)));
  CHECK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(m, hm.data(), hm.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(pool, hx.data(), 4096 * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(other, hy.data(), 1024 * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(sums, 0, 2 * rows * sizeof(float)));

  AxpbyParams a{x, y, out, n, 2.5f, -0.5f};
  axpby<<<unsigned((n + 255) / 256), 256>>>(a);
  CHECK(cudaGetLastError());

  RowParams r{m + cols, sums, rows, cols, {1, 2, 3, 4, 0.5f, 0.25f, -1, 8}};
  row_scale<<<rows, 128, 128 * sizeof(float)>>>(r, sums);
  CHECK(cudaGetLastError());

  GatherParams g{};
  g.src[0] = pool;
  g.src[1] = pool + 1024;
  g.src[2] = other;
  g.src[3] = pool + 3000;
  g.dst = dst;
  for (int i = 0; i < count; ++i) g.offsets[i] = (i * 37) % 1000;
  g.count = count;
  g.scale = 3.0f;
  static_assert(sizeof(GatherParams) > 1000, "a PyTorch-sized struct");
  gather<<<1, 128>>>(g);
  CHECK(cudaGetLastError());

  std::vector<float> hout(n), hsums(2 * rows), hdst(count);
  CHECK(cudaMemcpy(hout.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hsums.data(), sums, hsums.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hdst.data(), dst, count * sizeof(float), cudaMemcpyDeviceToHost));
  double s = 0;
  for (long i = 0; i < n; ++i) s += hout[i];
  for (float v : hsums) s += v;
  for (float v : hdst) s += v;
  std::printf("params_struct: n=%ld checksum %.3f\n", n, s);
  for (float* p : {x, y, out, m, sums, pool, other, dst}) CHECK(cudaFree(p));
  return 0;
}
