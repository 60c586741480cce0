// The tools of bench/profiler_sessions.cu: CUPTI calls checked, phase
// timing, a test kernel, the metric list's host object and the range
// profiler and session API wrappers its modes share. For that one program.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace pb {

/// The basic counter set, core's own list (basicMetricNames, counters.cpp).
inline const std::vector<const char*> kMetrics = {
#include "../core/src/counters/basic_metrics.inc"
};

struct Failed {
  std::string what;
};

inline void ck(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  throw Failed{std::string(what) + ": " + (s ? s : "?")};
}
inline void ckrt(cudaError_t r, const char* what) {
  if (r != cudaSuccess) throw Failed{std::string(what) + ": " + cudaGetErrorString(r)};
}

template <class T>
T sized(std::size_t n) {
  T p{};
  p.structSize = n;
  return p;
}
#define SIZED(T) sized<T>(T##_STRUCT_SIZE)

inline double now() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Phase -> the times it took, in ms.
struct Phases {
  std::map<std::string, std::vector<double>> t;
  std::vector<std::string> order;
  double last = now();
  void mark(const std::string& phase) {
    const double n = now();
    if (!t.count(phase)) order.push_back(phase);
    t[phase].push_back(n - last);
    last = n;
  }
  void reset() { last = now(); }
  void print(const char* mode) const {
    for (const std::string& p : order) {
      std::vector<double> v = t.at(p);
      std::sort(v.begin(), v.end());
      std::printf("%-12s %-22s median %9.3f ms  min %9.3f  max %9.3f  (n=%zu)\n", mode, p.c_str(),
                  v[v.size() / 2], v.front(), v.back(), v.size());
    }
  }
};

__global__ void work(float* x, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int k = 0; k < iters; ++k) v = v * 1.0000001f + 0.5f;
  x[i] = v;
}

struct Kernel {
  float* x = nullptr;
  int n = 1 << 22;
  int iters = 200;
  cudaStream_t s = nullptr;
  Kernel() {
    ckrt(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc");
    ckrt(cudaMemset(x, 0, n * sizeof(float)), "cudaMemset");
    ckrt(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  void launch() { work<<<(n + 255) / 256, 256, 0, s>>>(x, n, iters); }
  void sync() { ckrt(cudaStreamSynchronize(s), "the launch"); }
  /// Median of `count` launches timed with events, in microseconds.
  double timed(int count) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<double> us;
    for (int i = 0; i < count; ++i) {
      cudaEventRecord(a, s);
      launch();
      cudaEventRecord(b, s);
      cudaEventSynchronize(b);
      float ms = 0;
      cudaEventElapsedTime(&ms, a, b);
      us.push_back(ms * 1e3);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
  }
};

/// The basic list less its SASS metrics: the hardware counters alone fit one
/// pass on GH100 (a SASS metric never shares a pass with them).
inline std::vector<const char*> onePass() {
  std::vector<const char*> out;
  for (const char* m : kMetrics)
    if (std::string(m).rfind("sm__sass", 0) != 0) out.push_back(m);
  return out;
}

struct Host {
  CUpti_Profiler_Host_Object* host = nullptr;
  std::vector<uint8_t> config;
  std::vector<const char*> metrics;
  explicit Host(const std::string& chip, std::vector<const char*> list = kMetrics) : metrics(list) {
    auto p = SIZED(CUpti_Profiler_Host_Initialize_Params);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    ck(cuptiProfilerHostInitialize(&p), "cuptiProfilerHostInitialize");
    host = p.pHostObject;
    auto a = SIZED(CUpti_Profiler_Host_ConfigAddMetrics_Params);
    a.pHostObject = host;
    std::vector<const char*> names = metrics;
    a.ppMetricNames = names.data();
    a.numMetrics = names.size();
    ck(cuptiProfilerHostConfigAddMetrics(&a), "cuptiProfilerHostConfigAddMetrics");
    auto s = SIZED(CUpti_Profiler_Host_GetConfigImageSize_Params);
    s.pHostObject = host;
    ck(cuptiProfilerHostGetConfigImageSize(&s), "GetConfigImageSize");
    config.resize(s.configImageSize);
    auto g = SIZED(CUpti_Profiler_Host_GetConfigImage_Params);
    g.pHostObject = host;
    g.configImageSize = config.size();
    g.pConfigImage = config.data();
    ck(cuptiProfilerHostGetConfigImage(&g), "GetConfigImage");
  }
  /// Every metric of the list in `range`, in list order.
  std::vector<double> values(std::vector<uint8_t>& data, size_t range) {
    std::vector<double> v(metrics.size(), -1);
    std::vector<const char*> names = metrics;
    auto p = SIZED(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    p.pHostObject = host;
    p.pCounterDataImage = data.data();
    p.counterDataImageSize = data.size();
    p.rangeIndex = range;
    p.ppMetricNames = names.data();
    p.numMetrics = names.size();
    p.pMetricValues = v.data();
    ck(cuptiProfilerHostEvaluateToGpuValues(&p), "EvaluateToGpuValues");
    return v;
  }
  double duration(std::vector<uint8_t>& data, size_t range) {
    const char* name = "gpu__time_duration.sum";
    double v = -1;
    auto p = SIZED(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    p.pHostObject = host;
    p.pCounterDataImage = data.data();
    p.counterDataImageSize = data.size();
    p.rangeIndex = range;
    p.ppMetricNames = &name;
    p.numMetrics = 1;
    p.pMetricValues = &v;
    ck(cuptiProfilerHostEvaluateToGpuValues(&p), "EvaluateToGpuValues");
    return v;
  }
};

inline size_t rangesIn(std::vector<uint8_t>& data) {
  auto info = SIZED(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  ck(cuptiRangeProfilerGetCounterDataInfo(&info), "GetCounterDataInfo");
  return info.numTotalRanges;
}

struct Range {
  CUpti_RangeProfiler_Object* obj = nullptr;
  explicit Range(CUcontext ctx) {
    auto p = SIZED(CUpti_RangeProfiler_Enable_Params);
    p.ctx = ctx;
    ck(cuptiRangeProfilerEnable(&p), "cuptiRangeProfilerEnable");
    obj = p.pRangeProfilerObject;
  }
  ~Range() {
    auto p = SIZED(CUpti_RangeProfiler_Disable_Params);
    p.pRangeProfilerObject = obj;
    cuptiRangeProfilerDisable(&p);
  }
  std::vector<uint8_t> image(int ranges, std::vector<const char*> names = kMetrics) {
    auto s = SIZED(CUpti_RangeProfiler_GetCounterDataSize_Params);
    s.pRangeProfilerObject = obj;
    s.pMetricNames = names.data();
    s.numMetrics = names.size();
    s.maxNumOfRanges = ranges;
    s.maxNumRangeTreeNodes = ranges;
    ck(cuptiRangeProfilerGetCounterDataSize(&s), "GetCounterDataSize");
    std::vector<uint8_t> img(s.counterDataSize);
    auto i = SIZED(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    i.pRangeProfilerObject = obj;
    i.counterDataSize = img.size();
    i.pCounterData = img.data();
    ck(cuptiRangeProfilerCounterDataImageInitialize(&i), "CounterDataImageInitialize");
    return img;
  }
  void setConfig(std::vector<uint8_t>& config, std::vector<uint8_t>& data, int ranges,
                 CUpti_ProfilerReplayMode replay = CUPTI_KernelReplay) {
    auto p = SIZED(CUpti_RangeProfiler_SetConfig_Params);
    p.pRangeProfilerObject = obj;
    p.configSize = config.size();
    p.pConfig = config.data();
    p.counterDataImageSize = data.size();
    p.pCounterDataImage = data.data();
    p.range = CUPTI_AutoRange;
    p.replayMode = replay;
    p.maxRangesPerPass = ranges;
    p.numNestingLevels = 1;
    p.minNestingLevel = 1;
    p.targetNestingLevel = 1;
    ck(cuptiRangeProfilerSetConfig(&p), "cuptiRangeProfilerSetConfig");
  }
  void start() {
    auto p = SIZED(CUpti_RangeProfiler_Start_Params);
    p.pRangeProfilerObject = obj;
    ck(cuptiRangeProfilerStart(&p), "cuptiRangeProfilerStart");
  }
  void stop() {
    auto p = SIZED(CUpti_RangeProfiler_Stop_Params);
    p.pRangeProfilerObject = obj;
    ck(cuptiRangeProfilerStop(&p), "cuptiRangeProfilerStop");
  }
  size_t decode() {
    auto p = SIZED(CUpti_RangeProfiler_DecodeData_Params);
    p.pRangeProfilerObject = obj;
    ck(cuptiRangeProfilerDecodeData(&p), "cuptiRangeProfilerDecodeData");
    return p.numOfRangeDropped;
  }
};

inline int passesOf(std::vector<uint8_t>& config) {
  auto p = SIZED(CUpti_Profiler_Host_GetNumOfPasses_Params);
  p.configImageSize = config.size();
  p.pConfigImage = config.data();
  ck(cuptiProfilerHostGetNumOfPasses(&p), "GetNumOfPasses");
  return static_cast<int>(p.numOfPasses);
}

inline const char* kPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry touch(.param .u64 p) {
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, 1;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

/// A new module holding `touch`, loaded from kPtx.
struct TouchModule {
  CUmodule m = nullptr;
  CUfunction f = nullptr;
  TouchModule() {
    if (cuModuleLoadData(&m, kPtx) != CUDA_SUCCESS) throw Failed{"cuModuleLoadData"};
    cuModuleGetFunction(&f, m, "touch");
  }
  /// touch<<<1, 1>>>(p), waited for.
  void launch(CUdeviceptr p, CUstream s) {
    void* arg[] = {&p};
    cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, arg, nullptr);
    cuStreamSynchronize(s);
  }
};

/// CUPTI's session API on one context: the calls modeSession and
/// modeSessionPer make, each checked.
struct Session {
  CUcontext ctx;
  std::vector<uint8_t> scratch;

  /// Begins a session writing into `data` (auto range; kernel replay unless told).
  Session(CUcontext c, std::vector<uint8_t>& data, int slots,
          CUpti_ProfilerReplayMode replay = CUPTI_KernelReplay)
      : ctx(c) {
    auto sc = SIZED(CUpti_Profiler_CounterDataImage_CalculateScratchBufferSize_Params);
    sc.counterDataImageSize = data.size();
    sc.pCounterDataImage = data.data();
    ck(cuptiProfilerCounterDataImageCalculateScratchBufferSize(&sc), "CalculateScratchBufferSize");
    scratch.resize(sc.counterDataScratchBufferSize);
    auto si = SIZED(CUpti_Profiler_CounterDataImage_InitializeScratchBuffer_Params);
    si.counterDataImageSize = data.size();
    si.pCounterDataImage = data.data();
    si.counterDataScratchBufferSize = scratch.size();
    si.pCounterDataScratchBuffer = scratch.data();
    ck(cuptiProfilerCounterDataImageInitializeScratchBuffer(&si), "InitializeScratchBuffer");
    auto b = SIZED(CUpti_Profiler_BeginSession_Params);
    b.ctx = ctx;
    b.counterDataImageSize = data.size();
    b.pCounterDataImage = data.data();
    b.counterDataScratchBufferSize = scratch.size();
    b.pCounterDataScratchBuffer = scratch.data();
    b.range = CUPTI_AutoRange;
    b.replayMode = replay;
    b.maxRangesPerPass = slots;
    b.maxLaunchesPerPass = slots;
    ck(cuptiProfilerBeginSession(&b), "cuptiProfilerBeginSession");
  }
  void setConfig(std::vector<uint8_t>& config) {
    auto c = SIZED(CUpti_Profiler_SetConfig_Params);
    c.ctx = ctx;
    c.pConfig = config.data();
    c.configSize = config.size();
    c.minNestingLevel = 1;
    c.numNestingLevels = 1;
    c.targetNestingLevel = 1;
    ck(cuptiProfilerSetConfig(&c), "cuptiProfilerSetConfig");
  }
  /// A call whose only parameter is the context.
  template <class P>
  void call(CUptiResult (*f)(P*), std::size_t size, const char* what) {
    P p = sized<P>(size);
    p.ctx = ctx;
    ck(f(&p), what);
  }
  void enable() {
    call(cuptiProfilerEnableProfiling, CUpti_Profiler_EnableProfiling_Params_STRUCT_SIZE, "EnableProfiling");
  }
  void disableAndFlush() {
    call(cuptiProfilerDisableProfiling, CUpti_Profiler_DisableProfiling_Params_STRUCT_SIZE,
         "DisableProfiling");
    call(cuptiProfilerFlushCounterData, CUpti_Profiler_FlushCounterData_Params_STRUCT_SIZE,
         "FlushCounterData");
  }
  void beginPass() { call(cuptiProfilerBeginPass, CUpti_Profiler_BeginPass_Params_STRUCT_SIZE, "BeginPass"); }
  /// Ends a pass of user replay: true once every pass of the config is submitted.
  bool endPass() {
    auto p = SIZED(CUpti_Profiler_EndPass_Params);
    p.ctx = ctx;
    ck(cuptiProfilerEndPass(&p), "EndPass");
    return p.allPassesSubmitted;
  }
  void disable() {
    call(cuptiProfilerDisableProfiling, CUpti_Profiler_DisableProfiling_Params_STRUCT_SIZE,
         "DisableProfiling");
  }
  void flush() {
    call(cuptiProfilerFlushCounterData, CUpti_Profiler_FlushCounterData_Params_STRUCT_SIZE,
         "FlushCounterData");
  }
  void unset() {
    call(cuptiProfilerUnsetConfig, CUpti_Profiler_UnsetConfig_Params_STRUCT_SIZE, "UnsetConfig");
  }
  void end() { call(cuptiProfilerEndSession, CUpti_Profiler_EndSession_Params_STRUCT_SIZE, "EndSession"); }
};

}  // namespace pb
