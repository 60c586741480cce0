// profileRanges in-process on the GPU: user replay runs the call once per
// pass from buffers the restore puts back, so the profiled call's result is
// one call's, as under CUPTI's kernel replay; the two give the same counts.
#include <gtest/gtest.h>

#include <vector>

#include "cuda_context.h"
#include "tilescope/counters/counters.h"
#include "tilescope/cuda/profiler.h"

namespace tilescope::cuda {
namespace {

// x[i] += 1 for i < n: a result that shows how many times it ran.
const char* kIncrementPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry increment(.param .u64 x, .param .u32 n) {
  .reg .pred %p;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [x];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p, %r5, %r1;
  @%p bra DONE;
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  add.s32 %r2, %r2, 1;
  st.global.u32 [%rd3], %r2;
DONE:
  ret;
}
)";

struct Increment {
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
  CUdeviceptr x = 0, saved = 0;
  unsigned n = 1u << 20;
  Increment() {
    EXPECT_EQ(cuModuleLoadData(&module, kIncrementPtx), CUDA_SUCCESS);
    EXPECT_EQ(cuModuleGetFunction(&fn, module, "increment"), CUDA_SUCCESS);
    EXPECT_EQ(cuMemAlloc(&x, n * 4ull), CUDA_SUCCESS);
    EXPECT_EQ(cuMemAlloc(&saved, n * 4ull), CUDA_SUCCESS);
    std::vector<unsigned> init(n);
    for (unsigned i = 0; i < n; ++i) init[i] = i;
    EXPECT_EQ(cuMemcpyHtoD(x, init.data(), n * 4ull), CUDA_SUCCESS);
  }
  ~Increment() {
    cuMemFree(x);
    cuMemFree(saved);
    cuModuleUnload(module);
  }
  void launch(CUstream s) {
    void* args[] = {&x, &n};
    cuLaunchKernel(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s, args, nullptr);
  }
  /// How many times every element was incremented (-1: not all alike).
  long long increments() {
    std::vector<unsigned> got(n);
    cuMemcpyDtoH(got.data(), x, n * 4ull);
    const long long k = static_cast<long long>(got[0]);
    for (unsigned i = 0; i < n; ++i)
      if (static_cast<long long>(got[i]) - i != k) return -1;
    return k;
  }
};

TEST(ProfilerReplay, UserReplayRunsEveryPassFromTheRestoredBuffers) {
  REQUIRE_GPU();
  Increment k;
  const std::vector<std::string> metrics = basicMetricNames();
  ASSERT_EQ(cuMemcpyDtoD(k.saved, k.x, k.n * 4ull), CUDA_SUCCESS);
  int restores = 0;
  const RangeProfile user = profileRanges([&](CUstream s) { k.launch(s); }, metrics, 64,
                                          [&](CUstream s) {
                                            ++restores;
                                            cuMemcpyDtoDAsync(k.x, k.saved, k.n * 4ull, s);
                                          });
  ASSERT_TRUE(user.error.empty()) << user.error;
  EXPECT_EQ(user.replay, "user");
  ASSERT_GE(user.passes, 2) << "the basic list needs two passes or more on every supported chip";
  EXPECT_EQ(user.replayedPasses, user.passes);
  EXPECT_EQ(restores, user.passes);
  ASSERT_EQ(user.ranges.size(), 1u);
  EXPECT_EQ(k.increments(), 1) << "the profiled call ran " << user.passes
                               << " passes; the result must be one call's";

  const RangeProfile kernel = profileRanges([&](CUstream s) { k.launch(s); }, metrics);
  ASSERT_TRUE(kernel.error.empty()) << kernel.error;
  EXPECT_EQ(kernel.replay, "kernel");
  EXPECT_EQ(k.increments(), 2) << "CUPTI's kernel replay restores memory itself";
  ASSERT_EQ(kernel.ranges.size(), 1u);
  for (const char* m :
       {"smsp__inst_executed.sum", "sm__sass_data_bytes_mem_global_op_ld.sum",
        "sm__sass_data_bytes_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"}) {
    ASSERT_TRUE(user.ranges[0].count(m) && kernel.ranges[0].count(m)) << m;
    EXPECT_EQ(user.ranges[0].at(m), kernel.ranges[0].at(m)) << m;
  }
  EXPECT_EQ(user.ranges[0].at("sm__sass_data_bytes_mem_global_op_st.sum"), k.n * 4.0);
  std::printf("[replay] passes %d; user %.1f ms, kernel %.1f ms; duration %.0f / %.0f ns\n", user.passes,
              user.seconds * 1e3, kernel.seconds * 1e3, user.ranges[0].at("gpu__time_duration.sum"),
              kernel.ranges[0].at("gpu__time_duration.sum"));
  releaseRangeProfiler();
}

// One call of the workload per pass and no more: with a restore that puts
// nothing back, the result grows by one call per pass.
TEST(ProfilerReplay, TheCallRunsOncePerPass) {
  REQUIRE_GPU();
  Increment k;
  int calls = 0;
  const RangeProfile r = profileRanges(
      [&](CUstream s) {
        ++calls;
        k.launch(s);
      },
      basicMetricNames(), 64, [](CUstream) {});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(calls, r.passes);
  EXPECT_EQ(k.increments(), r.passes);
  releaseRangeProfiler();
}

}  // namespace
}  // namespace tilescope::cuda
