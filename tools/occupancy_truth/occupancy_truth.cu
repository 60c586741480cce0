// occupancy_truth: ground truth for TileScope's occupancy model.
//
// For kernels with real register pressure (NACC live accumulators), compiled with
// several register caps, and with several static shared-memory sizes, prints what the
// CUDA runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor answers for a grid
// of block sizes x dynamic shared-memory sizes, with the register count and static
// shared memory cudaFuncGetAttributes reports for the compiled kernel.
//
// Build and run on the GPU whose truth you want (one JSON document on stdout):
//   nvcc -O3 -arch=native -o occupancy_truth occupancy_truth.cu
//   ./occupancy_truth > tests/data/occupancy/h100_truth.json
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#define CHECK(x)                                                                               \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

// NACC accumulators are all live across the loop (each step reads its neighbour),
// so the register count grows with NACC until the cap forces spills.
template <int NACC, int SMEM_STATIC>
__device__ __forceinline__ void body(float* out, const float* in, int n) {
  float acc[NACC];
#pragma unroll
  for (int i = 0; i < NACC; ++i) acc[i] = in[(threadIdx.x + i) % 1024];
  for (int k = 0; k < n; ++k) {
    float x = in[k];
#pragma unroll
    for (int i = 0; i < NACC; ++i) acc[i] = fmaf(acc[i], acc[(i + 1) % NACC], x);
  }
  if constexpr (SMEM_STATIC > 0) {
    constexpr int kWords = SMEM_STATIC / 4;
    __shared__ float s[kWords];
    s[threadIdx.x % kWords] = acc[0];
    __syncthreads();
    acc[0] += s[(threadIdx.x + 1) % kWords];
  }
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < NACC; ++i) sum += acc[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <int NACC, int SMEM>
__global__ void k_plain(float* out, const float* in, int n) {
  body<NACC, SMEM>(out, in, n);
}

template <int NACC, int SMEM, int MAXREG>
__global__ void __maxnreg__(MAXREG) k_maxreg(float* out, const float* in, int n) {
  body<NACC, SMEM>(out, in, n);
}

// __launch_bounds__(256, 3): the compiler caps registers so 3 blocks of 256 fit (<= 80).
template <int NACC>
__global__ void __launch_bounds__(256, 3) k_bounds(float* out, const float* in, int n) {
  body<NACC, 0>(out, in, n);
}

struct Kernel {
  const char* name;
  const void* fn;
};

static void printDevice(int dev) {
  auto attr = [&](cudaDeviceAttr a) {
    int v = 0;
    CHECK(cudaDeviceGetAttribute(&v, a, dev));
    return v;
  };
  cudaDeviceProp p{};
  CHECK(cudaGetDeviceProperties(&p, dev));
  std::printf("{\n\"schema\": \"tilescope.occupancy_truth/1\",\n");
  std::printf(
      "\"device\": {\"name\": \"%s\", \"cc\": \"%d.%d\", \"sm_count\": %d, "
      "\"max_threads_per_block\": %d, \"max_threads_per_sm\": %d, \"max_blocks_per_sm\": %d, "
      "\"regs_per_sm\": %d, \"regs_per_block\": %d, \"smem_per_sm\": %d, \"smem_per_block\": %d, "
      "\"smem_per_block_optin\": %d, \"reserved_smem_per_block\": %d, \"l2_bytes\": %d, "
      "\"warp_size\": %d, \"memory_bus_width\": %d, \"memory_clock_khz\": %d, \"clock_khz\": %d, "
      "\"max_grid\": [%d, %d, %d], \"max_block\": [%d, %d, %d], \"runtime\": %d, \"driver\": %d},\n",
      p.name, p.major, p.minor, attr(cudaDevAttrMultiProcessorCount), attr(cudaDevAttrMaxThreadsPerBlock),
      attr(cudaDevAttrMaxThreadsPerMultiProcessor), attr(cudaDevAttrMaxBlocksPerMultiprocessor),
      attr(cudaDevAttrMaxRegistersPerMultiprocessor), attr(cudaDevAttrMaxRegistersPerBlock),
      attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor), attr(cudaDevAttrMaxSharedMemoryPerBlock),
      attr(cudaDevAttrMaxSharedMemoryPerBlockOptin), attr(cudaDevAttrReservedSharedMemoryPerBlock),
      attr(cudaDevAttrL2CacheSize), attr(cudaDevAttrWarpSize), attr(cudaDevAttrGlobalMemoryBusWidth),
      attr(cudaDevAttrMemoryClockRate), attr(cudaDevAttrClockRate), attr(cudaDevAttrMaxGridDimX),
      attr(cudaDevAttrMaxGridDimY), attr(cudaDevAttrMaxGridDimZ), attr(cudaDevAttrMaxBlockDimX),
      attr(cudaDevAttrMaxBlockDimY), attr(cudaDevAttrMaxBlockDimZ),
      [] {
        int v = 0;
        cudaRuntimeGetVersion(&v);
        return v;
      }(),
      [] {
        int v = 0;
        cudaDriverGetVersion(&v);
        return v;
      }());
}

int main() {
  int dev = 0;
  CHECK(cudaSetDevice(dev));
  int optin = 0;
  CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  const std::vector<Kernel> kernels = {
      {"plain_nacc2", (const void*)k_plain<2, 0>},
      {"plain_nacc16", (const void*)k_plain<16, 0>},
      {"plain_nacc32", (const void*)k_plain<32, 0>},
      {"plain_nacc56", (const void*)k_plain<56, 0>},
      {"plain_nacc80", (const void*)k_plain<80, 0>},
      {"plain_nacc120", (const void*)k_plain<120, 0>},
      {"plain_nacc200", (const void*)k_plain<200, 0>},
      {"maxreg40_nacc56", (const void*)k_maxreg<56, 0, 40>},
      {"maxreg72_nacc120", (const void*)k_maxreg<120, 0, 72>},
      {"maxreg168_nacc200", (const void*)k_maxreg<200, 0, 168>},
      {"bounds256x3_nacc120", (const void*)k_bounds<120>},
      {"static4k_nacc16", (const void*)k_plain<16, 4096>},
      {"static20000_nacc32", (const void*)k_plain<32, 20000>},
      {"static40k_nacc56", (const void*)k_plain<56, 40960>},
  };
  std::vector<int> blockSizes;
  for (int b = 32; b <= 1024; b += 32) blockSizes.push_back(b);
  for (int b : {1, 33, 100, 250, 1000}) blockSizes.push_back(b);
  const std::vector<int> dynSizes = {0,     1,     1000,   4096,   12345,  32768,
                                     48000, 65536, 100000, 150000, 200000, optin};

  printDevice(dev);
  std::printf("\"records\": [\n");
  bool first = true;
  // Pass 0: opt-in set to the device maximum, default carveout. Pass 1: no opt-in.
  // Pass 2: opt-in and a 25% shared-memory carveout preference.
  for (int pass = 0; pass < 3; ++pass) {
    for (const Kernel& k : kernels) {
      if (pass > 0 && k.name[0] != 's' && std::string_view(k.name) != "plain_nacc32") continue;
      cudaFuncAttributes fa{};
      CHECK(cudaFuncGetAttributes(&fa, k.fn));
      int maxDyn = pass == 1 ? 48 * 1024 - (int)fa.sharedSizeBytes : optin - (int)fa.sharedSizeBytes;
      CHECK(cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, maxDyn));
      int carveout = pass == 2 ? 25 : -1;
      CHECK(cudaFuncSetAttribute(k.fn, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
      for (int bs : blockSizes) {
        for (int dyn : dynSizes) {
          int blocks = -1;
          cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k.fn, bs, (size_t)dyn);
          std::printf(
              "%s{\"kernel\": \"%s\", \"regs\": %d, \"smem_static\": %zu, \"local_bytes\": %zu, "
              "\"max_threads_per_block\": %d, \"max_dynamic_smem\": %d, \"carveout\": %d, "
              "\"block\": %d, \"smem_dynamic\": %d, \"blocks_per_sm\": %d, \"error\": \"%s\"}",
              first ? "" : ",\n", k.name, fa.numRegs, fa.sharedSizeBytes, fa.localSizeBytes,
              fa.maxThreadsPerBlock, maxDyn, carveout, bs, dyn, e == cudaSuccess ? blocks : -1,
              e == cudaSuccess ? "" : cudaGetErrorName(e));
          first = false;
          cudaGetLastError();
        }
      }
    }
  }
  std::printf("\n]\n}\n");
  return 0;
}
