// A CUDA C++ program whose second launch faults with a misaligned address
// because of where its pointer lands (seed 002's story), and whose first reads
// legally before its pointer (bench/capture). `tilescope-run capture -- ./misaligned_vec4`
// records both; the configs keep each pointer's address modulo 256 and the
// bytes before it (docs/capture.md, "Where a pointer points"), so:
//
// - stencil(x, y, n) gets x = buf + 64, a pointer into the middle of its
//   allocation, and reads x[i - 1]: at i = 0 that is the float before x, legal
//   in the program. Its replay must end `ok`, bit-exact.
// - copy4(in, out, n) loads float4s from `in`, which the program passes as
//   `src + 1` (4 bytes past a 16-byte boundary): CUDA_ERROR_MISALIGNED_ADDRESS
//   in the program, and the same fault at this file's load line in the replay.
//
// Build with -lineinfo: the findings then name this file's lines.
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void stencil(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] - 0.5f * x[i - 1];  // x[-1] lies inside the allocation
}

__global__ void copy4(const float4* in, float4* out, int n4) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    const float4 v = in[i];  // misaligned when `in` is not 16-byte aligned
    out[i] = make_float4(v.x * 2.f, v.y * 2.f, v.z * 2.f, v.w * 2.f);
  }
}

int check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return 0;
  std::printf("%s: %s\n", what, cudaGetErrorName(e));
  return 1;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  std::vector<float> host(n + 64);
  for (int i = 0; i < n + 64; ++i) host[i] = float(i % 97) * 0.25f;
  float *buf = nullptr, *y = nullptr, *src = nullptr, *dst = nullptr;
  if (check(cudaMalloc(&buf, (n + 64) * sizeof(float)), "cudaMalloc") ||
      check(cudaMalloc(&y, n * sizeof(float)), "cudaMalloc") ||
      check(cudaMalloc(&src, (n + 4) * sizeof(float)), "cudaMalloc") ||
      check(cudaMalloc(&dst, n * sizeof(float)), "cudaMalloc"))
    return 2;
  cudaMemcpy(buf, host.data(), (n + 64) * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(src, host.data(), (n + 4) * sizeof(float), cudaMemcpyHostToDevice);
  stencil<<<(n + 255) / 256, 256>>>(buf + 64, y, n);
  if (check(cudaDeviceSynchronize(), "stencil")) return 1;
  copy4<<<(n / 4 + 255) / 256, 256>>>(reinterpret_cast<const float4*>(src + 1),
                                      reinterpret_cast<float4*>(dst), n / 4);
  const int failed = check(cudaDeviceSynchronize(), "copy4");
  std::printf("stencil ok; copy4 %s\n", failed ? "faulted" : "ok");
  return failed;
}
