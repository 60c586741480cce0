// timeCalls: the repetition loop. Each repetition is
//   [L2 flush memset] [event start] push(rep id) call() pop [event end]
// so CUPTI kernel records carry the repetition's id through external
// correlation; records without an id (warm-up, the flush) are never summed.
#include "tilescope/cuda/timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>

#include "tilescope/cuda/cupti_collector.h"
#include "tilescope/cuda/nvml_clock.h"

namespace tilescope::cuda {
namespace {

constexpr int kBatch = 10;  // repetitions between CUPTI flushes and stop checks

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  throw std::runtime_error(std::string(what) + " failed: " + (name ? name : "?") + " (" + (text ? text : "") +
                           ")");
}

/// The stream, events and flush buffer of one timeCalls, released on every path.
struct Resources {
  CUstream stream = nullptr;
  CUdeviceptr flush = 0;
  std::size_t flushBytes = 0;
  std::vector<CUevent> starts, ends;
  ~Resources() {
    for (CUevent e : starts) cuEventDestroy(e);
    for (CUevent e : ends) cuEventDestroy(e);
    if (flush) cuMemFree(flush);
    if (stream) cuStreamDestroy(stream);
  }
};

CUdevice currentDevice() {
  check(cuInit(0), "cuInit");
  CUcontext ctx = nullptr;
  check(cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
  if (!ctx) {
    // No context yet: use device 0's primary context, the one the runtime API
    // (cuBLAS, cuDNN) uses as well. Retained for the life of the process.
    CUdevice dev = 0;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet(0)");
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  }
  CUdevice dev = 0;
  check(cuCtxGetDevice(&dev), "cuCtxGetDevice");
  return dev;
}

void setup(Resources& res, CUdevice dev, bool flushL2) {
  check(cuStreamCreate(&res.stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  res.starts.resize(kBatch);
  res.ends.resize(kBatch);
  for (int i = 0; i < kBatch; ++i) {
    check(cuEventCreate(&res.starts[i], CU_EVENT_DEFAULT), "cuEventCreate");
    check(cuEventCreate(&res.ends[i], CU_EVENT_DEFAULT), "cuEventCreate");
  }
  if (!flushL2) return;
  int l2 = 0;
  check(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev),
        "cuDeviceGetAttribute(L2_CACHE_SIZE)");
  // Twice L2: writing it evicts everything the previous repetition left there.
  res.flushBytes = std::max<std::size_t>(2 * static_cast<std::size_t>(l2), 1u << 20);
  check(cuMemAlloc(&res.flush, res.flushBytes), "cuMemAlloc(L2 flush buffer)");
}

/// Per-repetition sums of the kernel records, plus the longest kernel's resources.
struct Collected {
  std::map<std::uint64_t, std::vector<std::pair<std::uint64_t, std::string>>>
      names;  ///< per repetition: (start, name)
  std::map<std::uint64_t, double> sumNs;
  std::map<std::uint64_t, int> count;
  KernelRecord longest;
  std::uint64_t longestNs = 0;
};

void collect(const std::vector<KernelRecord>& records, Collected& c) {
  for (const KernelRecord& k : records) {
    if (k.endNs <= k.startNs) continue;
    std::uint64_t d = k.endNs - k.startNs;
    c.sumNs[k.externalId] += static_cast<double>(d);
    c.count[k.externalId] += 1;
    c.names[k.externalId].emplace_back(k.startNs, k.name);
    if (d > c.longestNs) {
      c.longestNs = d;
      c.longest = k;
    }
  }
}

std::string clockNote(const ClockSample& before, const ClockSample& after, TimingInfo& info) {
  if (!before.ok || !after.ok) return before.ok ? after.error : before.error;
  info.smClockBeforeMHz = before.smMHz;
  info.smClockAfterMHz = after.smMHz;
  info.throttled = before.throttled || after.throttled;
  std::string text = after.throttled ? after.throttleText : before.throttleText;
  if (info.throttled) return "SM clock throttled (" + text + ")";
  if (after.smMaxMHz > 0 && after.smMHz < 0.85 * after.smMaxMHz)
    return "SM clock " + std::to_string(static_cast<int>(after.smMHz)) + " MHz, below 85% of its maximum " +
           std::to_string(static_cast<int>(after.smMaxMHz)) + " MHz";
  return {};
}

void addNote(std::string& note, const std::string& more) {
  if (more.empty()) return;
  note += (note.empty() ? "" : "; ") + more;
}

/// Evicts what the previous repetition left in L2 (when asked to).
void flushL2(const Resources& res) {
  if (res.flush)
    check(cuMemsetD8Async(res.flush, 0, res.flushBytes, res.stream), "cuMemsetD8Async(L2 flush)");
}

/// What the repetitions measured: the events' durations, CUPTI's kernel records.
struct Samples {
  std::vector<double> eventNs, kernelNs;  ///< per repetition
  Collected col;
};

/// Repetitions in batches of kBatch until the median settles (minReps, then the
/// noise target), the budget is spent or maxReps ran.
void repeat(const std::function<void(CUstream)>& call, const TimingOptions& opts, Resources& res,
            bool cuptiOn, Samples& s, TimingInfo& info) {
  CuptiCollector& cupti = CuptiCollector::instance();
  std::uint64_t rep = 0;
  auto t0 = std::chrono::steady_clock::now();
  const int maxReps = std::max(opts.maxReps, 1);
  while (static_cast<int>(s.eventNs.size()) < maxReps) {
    int batch = std::min(kBatch, maxReps - static_cast<int>(s.eventNs.size()));
    for (int i = 0; i < batch; ++i) {
      flushL2(res);
      check(cuEventRecord(res.starts[i], res.stream), "cuEventRecord");
      if (cuptiOn) cupti.pushId(++rep);
      try {
        call(res.stream);
      } catch (...) {
        if (cuptiOn) cupti.popId();  // leave CUPTI's id stack as we found it
        throw;
      }
      if (cuptiOn) cupti.popId();
      check(cuEventRecord(res.ends[i], res.stream), "cuEventRecord");
    }
    check(cuStreamSynchronize(res.stream), "the timed calls");
    for (int i = 0; i < batch; ++i) {
      float ms = 0;
      check(cuEventElapsedTime(&ms, res.starts[i], res.ends[i]), "cuEventElapsedTime");
      s.eventNs.push_back(static_cast<double>(ms) * 1e6);
    }
    const std::vector<double>& samples = cuptiOn ? s.kernelNs : s.eventNs;
    if (cuptiOn) {
      collect(cupti.drain(), s.col);
      s.kernelNs.clear();
      for (auto& [id, ns] : s.col.sumNs) s.kernelNs.push_back(ns);
    }
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (static_cast<int>(samples.size()) >= opts.minReps && medianRelNoise(samples) <= opts.targetRelNoise)
      break;
    if (elapsed >= opts.budgetS && static_cast<int>(s.eventNs.size()) >= std::min(opts.minReps, maxReps)) {
      addNote(info.note, "time budget reached before the median settled");
      break;
    }
  }
}

/// The kernels' statistics from CUPTI's records: kernels per call (the most
/// common count), their names, the longest one's resources.
void summarizeKernels(Samples& s, TimingResult& result) {
  TimingInfo& info = result.info;
  info.kernelNs = summarize(s.kernelNs);
  info.cv = coefficientOfVariation(s.kernelNs);
  std::map<int, int> histogram;
  for (auto& [id, n] : s.col.count) histogram[n] += 1;
  result.kernelsPerCall = std::max_element(histogram.begin(), histogram.end(), [](auto& a, auto& b) {
                            return a.second < b.second;
                          })->first;
  if (histogram.size() > 1) addNote(info.note, "the number of kernels per call varied between repetitions");
  for (auto& [id, named] : s.col.names)
    if (static_cast<int>(named.size()) == result.kernelsPerCall) {
      std::sort(named.begin(), named.end());
      for (auto& [start, name] : named) result.kernelNames.push_back(name);
      break;
    }
  if (s.col.sumNs.size() < s.eventNs.size())
    addNote(info.note,
            std::to_string(s.eventNs.size() - s.col.sumNs.size()) + " repetitions had no kernel record");
  info.regs = s.col.longest.regs;
  info.smemStatic = s.col.longest.smemStatic;
  info.smemDynamic = s.col.longest.smemDynamic;
  info.localPerThread = s.col.longest.localPerThread;
  // Events also see launch gaps between a call's kernels and host-side work
  // inside the call; a large gap means the kernel time is not the whole story.
  if (info.eventNs.median > 1.5 * info.kernelNs.median + 5000)
    addNote(info.note, "event median " + std::to_string(static_cast<long long>(info.eventNs.median)) +
                           " ns is well above the CUPTI kernel median " +
                           std::to_string(static_cast<long long>(info.kernelNs.median)) +
                           " ns (launch gaps or host work inside the call)");
}

}  // namespace

TimingResult timeCalls(const std::function<void(CUstream)>& call, const TimingOptions& opts) {
  TimingResult result;
  TimingInfo& info = result.info;
  Resources res;
  CuptiCollector& cupti = CuptiCollector::instance();
  bool cuptiOn = false;
  try {
    CUdevice dev = currentDevice();
    setup(res, dev, opts.flushL2);
    for (int i = 0; i < opts.warmup; ++i) {
      flushL2(res);
      call(res.stream);
    }
    check(cuStreamSynchronize(res.stream), "the warm-up calls");
    ClockSample before = sampleSmClock(dev);
    std::string cuptiError = cupti.start();
    cuptiOn = cuptiError.empty();
    if (!cuptiOn) addNote(info.note, cuptiError + "; kernel times are CUDA-event times");
    Samples s;
    repeat(call, opts, res, cuptiOn, s, info);
    if (cuptiOn) {
      cupti.stop();
      cuptiOn = false;
    }
    ClockSample after = sampleSmClock(dev);
    addNote(info.note, clockNote(before, after, info));
    info.eventNs = summarize(s.eventNs);
    if (!s.col.sumNs.empty()) {
      summarizeKernels(s, result);
    } else {
      if (cuptiError.empty())
        addNote(info.note, "CUPTI recorded no kernel for the call; kernel times are CUDA-event times");
      info.kernelNs = info.eventNs;
      info.cv = coefficientOfVariation(s.eventNs);
    }
    if (std::uint64_t lost = cupti.dropped(); lost > 0)
      addNote(info.note, std::to_string(lost) + " CUPTI records were dropped");
    info.measured = true;
  } catch (const std::exception& e) {
    if (cuptiOn) cupti.stop();
    result.error = e.what();
    info.measured = false;
    addNote(info.note, "timing failed: " + result.error);
  }
  return result;
}

}  // namespace tilescope::cuda
