// bench_timing: (a) what CUPTI kernel activity costs per launch of a short kernel,
// (b) timeCalls' median for a cuBLAS 4096³ f16 GEMM, to compare with Nsight
// Compute's gpu__time_duration. `bench_timing --plain N` only runs the GEMM N
// times (no CUPTI in the process) so that ncu can profile it:
//   ncu --metrics gpu__time_duration.sum bench_timing --plain 5
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tilescope/cuda/cupti_collector.h"
#include "tilescope/cuda/reference.h"
#include "tilescope/cuda/timing.h"

using namespace tilescope;
using namespace tilescope::cuda;

namespace {

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  std::fprintf(stderr, "bench_timing: %s failed: %s\n", what, name ? name : "?");
  std::exit(3);
}

struct Problem {
  DeviceTensorView a, b, c;
  explicit Problem(std::int64_t n) {
    for (auto* t : {&a, &b, &c}) {
      t->dtype = DType::f16;
      t->shape = {n, n};
      t->strides = {n, 1};
      check(cuMemAlloc(&t->ptr, static_cast<std::size_t>(n * n * 2)), "cuMemAlloc");
      check(cuMemsetD8(t->ptr, 0, static_cast<std::size_t>(n * n * 2)), "cuMemsetD8");
    }
  }
  ~Problem() {
    for (auto* t : {&a, &b, &c}) cuMemFree(t->ptr);
  }
};

/// ns per call of `loops` back-to-back calls, timed with events around the loop.
double loopNs(const StreamCall& call, CUstream s, int loops, bool cupti) {
  CUevent e0, e1;
  check(cuEventCreate(&e0, CU_EVENT_DEFAULT), "cuEventCreate");
  check(cuEventCreate(&e1, CU_EVENT_DEFAULT), "cuEventCreate");
  CuptiCollector& c = CuptiCollector::instance();
  check(cuEventRecord(e0, s), "cuEventRecord");
  for (int i = 0; i < loops; ++i) {
    if (cupti) c.pushId(static_cast<std::uint64_t>(i + 1));
    call(s);
    if (cupti) c.popId();
  }
  check(cuEventRecord(e1, s), "cuEventRecord");
  check(cuEventSynchronize(e1), "cuEventSynchronize");
  float ms = 0;
  check(cuEventElapsedTime(&ms, e0, e1), "cuEventElapsedTime");
  cuEventDestroy(e0);
  cuEventDestroy(e1);
  return ms * 1e6 / loops;
}

void overhead() {
  Problem p(64);  // a 64³ GEMM: one kernel of a few microseconds
  StreamCall call = makeGemm(ReferenceSpec{}, p.a, p.b, p.c);
  CUstream s = nullptr;
  check(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  const int loops = 5000;
  loopNs(call, s, 200, false);  // warm-up
  double off = 1e30, on = 1e30;
  CuptiCollector& c = CuptiCollector::instance();
  for (int round = 0; round < 5; ++round) {  // best of 5: the least disturbed round
    off = std::min(off, loopNs(call, s, loops, false));
    if (std::string err = c.start(); !err.empty()) {
      std::printf("(a) CUPTI unavailable: %s\n", err.c_str());
      return;
    }
    on = std::min(on, loopNs(call, s, loops, true));
    c.drain();
    c.stop();
  }
  std::printf("(a) 64^3 f16 GEMM, %d back-to-back calls, best of 5 rounds (events around the loop):\n",
              loops);
  std::printf(
      "    CUPTI off: %.0f ns/call   CUPTI on (+external ids): %.0f ns/call   overhead %.0f ns/call "
      "(%.1f%%)\n",
      off, on, on - off, 100 * (on - off) / off);
  TimingOptions o;
  TimingResult r = timeCalls(call, o);
  std::printf("    timeCalls 64^3: kernel median %.0f ns (p10 %.0f, p90 %.0f, n %d), event median %.0f ns\n",
              r.info.kernelNs.median, r.info.kernelNs.p10, r.info.kernelNs.p90, r.info.kernelNs.n,
              r.info.eventNs.median);
  cuStreamDestroy(s);
}

void fidelity() {
  const std::int64_t n = 4096;
  Problem p(n);
  StreamCall call = makeGemm(ReferenceSpec{}, p.a, p.b, p.c);
  for (bool flush : {true, false}) {
    TimingOptions o;
    o.flushL2 = flush;
    TimingResult r = timeCalls(call, o);
    const TimingInfo& t = r.info;
    if (!r.error.empty()) {
      std::printf("(b) timing failed: %s\n", r.error.c_str());
      return;
    }
    std::printf(
        "(b) cuBLAS 4096^3 f16 GEMM, L2 flush %s: CUPTI median %.0f ns (p10 %.0f, p90 %.0f, min %.0f, "
        "n %d, cv %.4f), %.1f TFLOP/s; event median %.0f ns; %d kernel(s)/call, regs %d; "
        "SM clock %.0f -> %.0f MHz%s\n    note: %s\n",
        flush ? "on" : "off", t.kernelNs.median, t.kernelNs.p10, t.kernelNs.p90, t.kernelNs.min, t.kernelNs.n,
        t.cv, 2.0 * n * n * n / t.kernelNs.median / 1e3, t.eventNs.median, r.kernelsPerCall, t.regs,
        t.smClockBeforeMHz, t.smClockAfterMHz, t.throttled ? " (throttled)" : "",
        t.note.empty() ? "-" : t.note.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  int n = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&n) != CUDA_SUCCESS || n == 0) {
    std::fprintf(stderr, "bench_timing: no CUDA GPU\n");
    return 3;
  }
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  if (argc == 3 && std::strcmp(argv[1], "--plain") == 0) {
    Problem p(4096);
    StreamCall call = makeGemm(ReferenceSpec{}, p.a, p.b, p.c);
    for (int i = 0; i < std::atoi(argv[2]); ++i) call(nullptr);
    check(cuCtxSynchronize(), "cuCtxSynchronize");
    return 0;
  }
  overhead();
  fidelity();
  return 0;
}
