// GPU tests of timeCalls: a cuBLAS 4096^3 GEMM timed with CUPTI, the kernel count
// per call (the L2 flush must not be counted), event cross-check, failures.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "cuda_context.h"
#include "tilescope/cuda/reference.h"
#include "tilescope/cuda/timing.h"

namespace tilescope::cuda {
namespace {

/// A square f16 GEMM problem in zero-filled device memory (values do not matter for timing).
struct Gemm {
  DeviceTensorView a, b, c;
  explicit Gemm(std::int64_t n) {
    for (auto* t : {&a, &b, &c}) {
      t->dtype = DType::f16;
      t->shape = {n, n};
      t->strides = {n, 1};
      EXPECT_EQ(cuMemAlloc(&t->ptr, static_cast<std::size_t>(n * n * 2)), CUDA_SUCCESS);
      EXPECT_EQ(cuMemsetD8(t->ptr, 0, static_cast<std::size_t>(n * n * 2)), CUDA_SUCCESS);
    }
    a.name = "A";
    b.name = "B";
    c.name = "C";
  }
  ~Gemm() {
    for (auto* t : {&a, &b, &c}) cuMemFree(t->ptr);
  }
  StreamCall call() const { return makeGemm(ReferenceSpec{}, a, b, c); }
};

TEST(Timing, CublasGemm4096IsTimedWithCupti) {
  REQUIRE_GPU();
  Gemm g(4096);
  TimingOptions opts;
  opts.minReps = 10;
  const TimingResult r = timeCalls(g.call(), opts);
  ASSERT_TRUE(r.error.empty()) << r.error;
  const TimingInfo& t = r.info;
  std::printf(
      "[timing] median %.0f ns p10 %.0f p90 %.0f n %d cv %.4f event median %.0f ns kernels/call %d "
      "regs %d clock %.0f->%.0f MHz note: %s\n",
      t.kernelNs.median, t.kernelNs.p10, t.kernelNs.p90, t.kernelNs.n, t.cv, t.eventNs.median,
      r.kernelsPerCall, t.regs, t.smClockBeforeMHz, t.smClockAfterMHz, t.note.c_str());
  EXPECT_TRUE(t.measured);
  EXPECT_GE(t.kernelNs.n, opts.minReps);
  EXPECT_LE(t.kernelNs.n, opts.maxReps);
  EXPECT_LE(t.kernelNs.min, t.kernelNs.p10);
  EXPECT_LE(t.kernelNs.p10, t.kernelNs.median);
  EXPECT_LE(t.kernelNs.median, t.kernelNs.p90);
  EXPECT_LE(t.kernelNs.p90, t.kernelNs.max);
  ASSERT_GE(r.kernelsPerCall, 1) << "CUPTI recorded no kernel: " << t.note;
  EXPECT_GT(t.regs, 0);
  // 2·4096³ flop = 137 GFLOP: between 10 µs (13.7 PFLOP/s) and 100 ms (1.4 TFLOP/s) on any recent GPU.
  EXPECT_GT(t.kernelNs.median, 1e4);
  EXPECT_LT(t.kernelNs.median, 1e8);
  // Kernel time excludes launch gaps, events include them: CUPTI ≤ events (+ event
  // resolution), and for one long kernel not far below.
  EXPECT_LE(t.kernelNs.median, 1.05 * t.eventNs.median + 2000);
  EXPECT_GE(t.kernelNs.median, 0.5 * t.eventNs.median);
}

TEST(Timing, KernelsOfOneCallAreSummedAndTheFlushIsNot) {
  REQUIRE_GPU();
  Gemm g(1024);
  StreamCall once = g.call();
  StreamCall twice = [once](CUstream s) {
    once(s);
    once(s);
  };
  TimingOptions opts;
  opts.budgetS = 0.5;
  const TimingResult r1 = timeCalls(once, opts);
  const TimingResult r2 = timeCalls(twice, opts);
  ASSERT_TRUE(r1.error.empty() && r2.error.empty()) << r1.error << r2.error;
  ASSERT_GE(r1.kernelsPerCall, 1) << r1.info.note;
  // Were the flush memset counted, one call would give k + 1 and two 2k + 1.
  EXPECT_EQ(r2.kernelsPerCall, 2 * r1.kernelsPerCall);
  // Summed: two calls' kernel time is clearly more than one call's (one kernel
  // counted would give about 1). No upper bound: a clock that drops between the
  // two measurements or a cold cache makes the ratio larger without a bug.
  EXPECT_GE(r2.info.kernelNs.median / r1.info.kernelNs.median, 1.4);
}

TEST(Timing, EventsOnlyWhenTheCallLaunchesNoKernel) {
  REQUIRE_GPU();
  CUdeviceptr buf = 0;
  ASSERT_EQ(cuMemAlloc(&buf, 1 << 20), CUDA_SUCCESS);
  TimingOptions opts;
  opts.budgetS = 0.2;
  opts.maxReps = 20;
  // A memset is not a kernel record: timeCalls must say so instead of reporting 0 ns.
  const TimingResult r = timeCalls([buf](CUstream s) { cuMemsetD8Async(buf, 1, 1 << 20, s); }, opts);
  cuMemFree(buf);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.kernelsPerCall, 0);
  EXPECT_GT(r.info.kernelNs.median, 0);
  EXPECT_NE(r.info.note.find("event"), std::string::npos) << r.info.note;
}

TEST(Timing, ACallThatThrowsIsAnErrorNotACrash) {
  REQUIRE_GPU();
  TimingOptions opts;
  opts.warmup = 0;
  const TimingResult r = timeCalls([](CUstream) { throw std::runtime_error("boom in the call"); }, opts);
  EXPECT_FALSE(r.info.measured);
  EXPECT_NE(r.error.find("boom in the call"), std::string::npos) << r.error;
  // CUPTI was stopped on the error path: the next timing works.
  Gemm g(256);
  opts.budgetS = 0.2;
  EXPECT_GE(timeCalls(g.call(), opts).kernelsPerCall, 1);
}

TEST(TimingStats, QuantilesInterpolateBetweenOrderStatistics) {
  std::vector<double> x;
  for (int i = 10; i >= 1; --i) x.push_back(i);  // unsorted on purpose
  const Stats s = summarize(x);
  EXPECT_EQ(s.n, 10);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.p10, 1.9);  // position 0.1 · 9 = 0.9 between 1 and 2
  EXPECT_DOUBLE_EQ(s.p90, 9.1);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  EXPECT_NEAR(coefficientOfVariation(x), std::sqrt(55.0 / 6.0) / 5.5, 1e-12);
  EXPECT_GT(medianRelNoise({1, 2}), medianRelNoise({1, 2, 1, 2, 1, 2, 1, 2}));
  EXPECT_TRUE(std::isinf(medianRelNoise({3})));
}

}  // namespace
}  // namespace tilescope::cuda
