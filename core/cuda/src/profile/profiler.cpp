// profileRanges: CUPTI's profiler in kernel-replay, auto-range mode.
//   host:   Profiler Host object for the chip -> config image (metric list) -> passes
//   target: a session per profile (CUPTI's session API: begin, set config,
//           enable, launch, synchronise, disable, flush, unset, end) on a copy
//           of a counter data image laid out once -> evaluate every range on
//           the host. The range profiler (enable, set config, start, launch,
//           stop, decode, disable) where the session API is refused or
//           TILESCOPE_PROFILER_API=range.
// Each CUPTI object (host object, session, range profiler) and its release on
// every path is in profile/cupti_objects.h; this file is the profile's steps.
// Kernel replay lets CUPTI run each kernel as many passes as the metric list
// needs, saving and restoring device memory around the replays, so one call of
// the workload suffices. User replay (a caller that can put its buffers back,
// as the measurement can for the tensors it owns) runs the call once per pass
// itself, CUPTI saving and restoring nothing. Measured against kernel replay
// on an H200 (docs/measurements.md, "Counters on several GPUs"), a profile in
// a session of its own costs the same driver (system CPU) time either way.
// Why the session API, deprecated since CUDA 13.0, by default: a profile's
// fixed cost is the range profiler's first start after it is enabled (0.2 s),
// and keeping it enabled between profiles crashed CUPTI. A whole profile of a
// 38 us kernel took 130 ms in a session of its own against 300 ms with the
// range profiler (H200, CUDA 13.0; docs/measurements.md, "The profiler's start").
#include "tilescope/cuda/profiler.h"

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <stdexcept>

#include "profile/cupti_objects.h"
#include "profile/l2_flush.h"
#include "profile/phase_trace.h"

namespace tilescope::cuda {
namespace {

using detail::check;
using detail::checkCu;
using detail::CuptiFailure;
using detail::HostObject;
using detail::passesOf;
using detail::ProfilerSession;
using detail::RangeProfilerSession;
using detail::scratchFor;
using detail::sized;
using detail::Stream;

void initializeOnce() {
  static CUptiResult result = [] {
    auto p = sized<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    return cuptiProfilerInitialize(&p);
  }();
  check(result, "cuptiProfilerInitialize");
}

/// The current context (device 0's primary context when none is current) and its device.
CUcontext currentContext(CUdevice* dev) {
  checkCu(cuInit(0), "cuInit");
  CUcontext ctx = nullptr;
  checkCu(cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
  if (!ctx) {
    checkCu(cuDeviceGet(dev, 0), "cuDeviceGet");
    checkCu(cuDevicePrimaryCtxRetain(&ctx, *dev), "cuDevicePrimaryCtxRetain");
    checkCu(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  }
  checkCu(cuCtxGetDevice(dev), "cuCtxGetDevice");
  return ctx;
}

void checkSupported(CUdevice dev) {
  auto p = sized<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
  p.cuDevice = dev;
  p.api = CUPTI_PROFILER_RANGE_PROFILING;
  check(cuptiProfilerDeviceSupported(&p), "cuptiProfilerDeviceSupported");
  if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return;
  std::string why;
  if (p.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "its architecture";
  else if (p.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "vGPU without profiling enabled";
  else if (p.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "confidential computing";
  else if (p.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "a crypto-mining processor";
  else if (p.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "SLI";
  else if (p.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "WSL";
  else
    why = "an unsupported configuration";
  throw CuptiFailure("this GPU does not support CUPTI range profiling (" + why + ")");
}

std::string chipOf(CUdevice dev) {
  auto p = sized<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  p.deviceIndex = std::size_t(dev);
  check(cuptiDeviceGetChipName(&p), "cuptiDeviceGetChipName");
  return p.pChipName ? p.pChipName : "";
}

std::vector<std::uint8_t> counterAvailability(CUcontext ctx) {
  auto p = sized<CUpti_Profiler_GetCounterAvailability_Params>(
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  p.ctx = ctx;
  check(cuptiProfilerGetCounterAvailability(&p), "cuptiProfilerGetCounterAvailability");
  std::vector<std::uint8_t> image(p.counterAvailabilityImageSize);
  p.pCounterAvailabilityImage = image.data();
  check(cuptiProfilerGetCounterAvailability(&p), "cuptiProfilerGetCounterAvailability");
  return image;
}

std::map<std::string, double> evaluate(HostObject& host, std::vector<std::uint8_t>& data, std::size_t range,
                                       std::vector<const char*>& names) {
  std::vector<double> values(names.size(), 0.0);
  auto p = sized<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
  p.pHostObject = host.get();
  p.pCounterDataImage = data.data();
  p.counterDataImageSize = data.size();
  p.rangeIndex = range;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values.data();
  check(cuptiProfilerHostEvaluateToGpuValues(&p), "cuptiProfilerHostEvaluateToGpuValues");
  std::map<std::string, double> out;
  for (std::size_t i = 0; i < names.size(); ++i) out[names[i]] = values[i];
  return out;
}

std::string baseOf(const std::string& metric) { return metric.substr(0, metric.find('.')); }

/// The host object and config image of one metric list on one chip. Building
/// them costs more than a short kernel's replays (CUPTI resolves every metric
/// into counters), so a process builds them once and reuses them for the
/// kernel, the baseline and every later capture with the same list.
struct Prepared {
  std::string chip;
  std::vector<std::string> requested, metrics, missing;
  std::unique_ptr<HostObject> host;
  std::vector<std::uint8_t> config;
  int passes = 0;
  std::map<int, std::vector<std::uint8_t>> images;  ///< range slots -> a counter data image, as laid out
};

Prepared& prepare(const std::string& chip, CUcontext ctx, const std::vector<std::string>& requested) {
  // Never destroyed: tearing CUPTI objects down in static destructors at exit races CUPTI's own teardown.
  static Prepared& cache = *new Prepared;
  if (cache.host && cache.chip == chip && cache.requested == requested) return cache;
  Prepared p;
  p.chip = chip;
  p.requested = requested;
  std::vector<std::uint8_t> availability = counterAvailability(ctx);
  p.host = std::make_unique<HostObject>(chip, &availability);
  const std::set<std::string> bases = p.host->baseMetrics();
  for (const std::string& m : requested) (bases.count(baseOf(m)) ? p.metrics : p.missing).push_back(m);
  check(p.host->add(p.metrics),
        "cuptiProfilerHostConfigAddMetrics (run.metrics are checked first: a standard metric?)");
  p.config = p.host->configImage();
  p.passes = passesOf(p.config);
  cache = std::move(p);
  return cache;
}

}  // namespace

std::string baseName(const std::string& metric) { return baseOf(metric); }

std::vector<std::string> metricsOnChip(const std::string& chip, const std::vector<std::string>& names,
                                       std::vector<std::string>* missing) {
  std::vector<std::string> out;
  HostObject host(chip, nullptr);
  const std::set<std::string> bases = host.baseMetrics();
  for (const std::string& m : names) {
    if (bases.count(baseOf(m)))
      out.push_back(m);
    else if (missing)
      missing->push_back(m);
  }
  return out;
}

int replayPasses(const std::string& chip, const std::vector<std::string>& names) {
  HostObject host(chip, nullptr);
  std::vector<const char*> all;
  for (const std::string& m : names) all.push_back(m.c_str());
  auto add = sized<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = host.get();
  add.ppMetricNames = all.data();
  add.numMetrics = all.size();
  check(cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");
  std::vector<std::uint8_t> config = host.configImage();
  return passesOf(config);
}

std::string chipForArch(const std::string& arch) {
  static const std::map<std::string, std::string> chips = {
      {"sm_70", "GV100"}, {"sm_72", "GV11B"}, {"sm_75", "TU102"}, {"sm_80", "GA100"},  {"sm_86", "GA102"},
      {"sm_87", "GA10B"}, {"sm_89", "AD102"}, {"sm_90", "GH100"}, {"sm_100", "GB100"}, {"sm_120", "GB202"}};
  auto it = chips.find(arch);
  return it == chips.end() ? std::string() : it->second;
}

std::string validateMetrics(const std::string& chip, const std::vector<std::string>& names, int* badIndex) {
  try {
    {
      // One batch first (fast); only a failing list is checked name by name.
      HostObject batch(chip, nullptr);
      const std::set<std::string> bases = batch.baseMetrics();
      bool basesKnown = true;
      for (const std::string& m : names) basesKnown = basesKnown && bases.count(baseOf(m)) > 0;
      if (basesKnown && batch.add(names) == CUPTI_SUCCESS) return {};
    }
    HostObject host(chip, nullptr);
    const std::set<std::string> bases = host.baseMetrics();
    for (std::size_t i = 0; i < names.size(); ++i) {
      // A failed add leaves the host object unusable, so the base name is looked
      // up first; the add then checks the rollup and submetric.
      if (bases.count(baseOf(names[i])) && host.add({names[i]}) == CUPTI_SUCCESS) continue;
      if (badIndex) *badIndex = static_cast<int>(i);
      return "unknown metric '" + names[i] + "' for the " + chip +
             " chip (names as `ncu --query-metrics` lists them, with a rollup such as .sum or "
             ".avg.pct_of_peak_sustained_elapsed)";
    }
  } catch (const std::exception& e) {
    return std::string("cannot check metric names for chip '") + chip + "': " + e.what();
  }
  return {};
}

namespace {

/// Where the range profiler profiles (Api::range), it stays enabled on its
/// context from one profile to the next until releaseRangeProfiler(): a
/// capture's kernel and baseline share it.
struct Enabled {
  CUcontext ctx = nullptr;
  std::unique_ptr<RangeProfilerSession> session;
};
Enabled& enabled() {
  static Enabled& e = *new Enabled;  // never destroyed (see prepare)
  return e;
}

}  // namespace

void releaseRangeProfiler() {
  detail::PhaseTrace trace("profiler");
  const bool was = enabled().session != nullptr;
  enabled().session.reset();
  enabled().ctx = nullptr;
  if (was) trace("disable");
}

namespace {

enum class Api { session, range };

/// The session API, unless TILESCOPE_PROFILER_API=range or CUPTI refuses it
/// (then the range profiler for the rest of the process).
Api& api() {
  static Api a = [] {
    const char* v = std::getenv("TILESCOPE_PROFILER_API");
    return v && std::string(v) == "range" ? Api::range : Api::session;
  }();
  return a;
}

/// A counter data image for `slots` ranges of the prepared metrics: laid out
/// once (the range profiler enabled for it, then disabled), copied per profile.
std::vector<std::uint8_t>& pristineImage(Prepared& prep, CUcontext ctx, std::vector<const char*>& names,
                                         int slots) {
  auto it = prep.images.find(slots);
  if (it != prep.images.end()) return it->second;
  std::vector<std::uint8_t> image;
  {
    RangeProfilerSession layout(ctx);
    image = layout.counterDataImage(names, slots);
  }
  return prep.images.emplace(slots, std::move(image)).first->second;
}

std::size_t rangesIn(std::vector<std::uint8_t>& data) {
  auto info = sized<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  check(cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
  return info.numTotalRanges;
}

/// `count` ranges lost for lack of room; 0: some (the session API does not count them).
CuptiFailure dropped(std::size_t count, int maxRanges) {
  return CuptiFailure(
      (count ? std::to_string(count) + " kernel ranges were" : std::string("kernel ranges were")) +
      " dropped (more than " + std::to_string(maxRanges) + " launches)");
}

void evaluateAll(Prepared& prep, std::vector<std::uint8_t>& data, std::vector<const char*>& names,
                 RangeProfile& out) {
  const std::size_t n = rangesIn(data);
  for (std::size_t r = 0; r < n; ++r) out.ranges.push_back(evaluate(*prep.host, data, r, names));
}

/// Passes a user-replayed profile may take beyond the config's count before it is an error.
constexpr int kPassSlack = 2;

/// Every pass of a user-replayed profile: the call's buffers put back and L2
/// emptied of them, then the call between begin() and end(), until end() says
/// CUPTI has every pass. Returns the passes run.
template <class Begin, class End>
int replayPasses(const std::function<void(CUstream)>& call, const std::function<void(CUstream)>& restore,
                 CUstream stream, int passes, Begin begin, End end) {
  for (int pass = 0; pass < passes + kPassSlack; ++pass) {
    restore(stream);
    detail::evictL2(stream);  // as kernel replay runs a pass: the kernel's data not in L2
    checkCu(cuStreamSynchronize(stream), "restoring the profiled buffers");
    begin();
    call(stream);
    checkCu(cuStreamSynchronize(stream), "the profiled launches");
    if (end()) return pass + 1;
  }
  throw CuptiFailure("user replay did not submit every pass of the metric list in " +
                     std::to_string(passes + kPassSlack) + " passes");
}

/// One profile in a session of its own; user replay when `restore` is set.
/// One slot more than maxRanges tells a call that launched too many kernels.
/// False, with nothing run, where CUPTI refuses the session API.
bool profileInSession(const std::function<void(CUstream)>& call, const std::function<void(CUstream)>& restore,
                      Prepared& prep, CUcontext ctx, std::vector<const char*>& names, int maxRanges,
                      RangeProfile& out, detail::PhaseTrace& trace) {
  std::vector<std::uint8_t> data = pristineImage(prep, ctx, names, maxRanges + 1);
  std::vector<std::uint8_t> scratch = scratchFor(data);
  trace("image");
  {
    ProfilerSession session(ctx, data, scratch, maxRanges + 1,
                            restore ? CUPTI_UserReplay : CUPTI_KernelReplay);
    if (session.begun() == CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED ||
        session.begun() == CUPTI_ERROR_NOT_SUPPORTED)
      return false;
    check(session.begun(), "cuptiProfilerBeginSession");
    trace("begin session");
    session.configure(prep.config);
    Stream stream;
    if (restore) {
      out.replayedPasses = replayPasses(
          call, restore, stream.s, prep.passes,
          [&] {
            session.beginPass();
            session.enable();
          },
          [&] {
            session.disable();
            return session.endPass();
          });
    } else {
      session.enable();
      call(stream.s);
      checkCu(cuStreamSynchronize(stream.s), "the profiled launches");
      session.disable();
      out.replayedPasses = prep.passes;
    }
    trace("replay");
    session.finish();
    trace("end session");
  }
  if (rangesIn(data) > std::size_t(maxRanges)) throw dropped(0, maxRanges);
  evaluateAll(prep, data, names, out);
  trace("evaluate");
  return true;
}

/// One profile with the range profiler, enabled on the context until
/// releaseRangeProfiler(); user replay when `restore` is set.
void profileWithRangeProfiler(const std::function<void(CUstream)>& call,
                              const std::function<void(CUstream)>& restore, Prepared& prep, CUcontext ctx,
                              std::vector<const char*>& names, int maxRanges, RangeProfile& out,
                              detail::PhaseTrace& trace) {
  Enabled& e = enabled();
  if (e.session && e.ctx != ctx) releaseRangeProfiler();
  if (!e.session) {
    e.session = std::make_unique<RangeProfilerSession>(ctx);
    e.ctx = ctx;
  }
  trace("enable");
  std::vector<std::uint8_t> data = e.session->counterDataImage(names, maxRanges);
  e.session->setConfig(prep.config, data, maxRanges, restore ? CUPTI_UserReplay : CUPTI_KernelReplay);
  trace("set config");
  Stream stream;
  if (restore) {
    bool first = true;
    out.replayedPasses = replayPasses(
        call, restore, stream.s, prep.passes,
        [&] {
          e.session->start();
          if (first) trace("start");  // the first start after enabling is the range profiler's cost
          first = false;
        },
        [&] { return e.session->stop(); });
  } else {
    e.session->start();
    trace("start");
    call(stream.s);
    checkCu(cuStreamSynchronize(stream.s), "the profiled launches");
    if (!e.session->stop()) throw CuptiFailure("kernel replay did not submit every pass of the metric list");
    out.replayedPasses = prep.passes;
  }
  trace("replay");
  const std::size_t lost = e.session->decode();
  trace("decode");
  if (lost > 0) throw dropped(lost, maxRanges);
  evaluateAll(prep, data, names, out);
  trace("evaluate");
}

}  // namespace

RangeProfile profileRanges(const std::function<void(CUstream)>& call, const std::vector<std::string>& metrics,
                           int maxRanges, const std::function<void(CUstream)>& restore) {
  RangeProfile out;
  const auto t0 = std::chrono::steady_clock::now();
  detail::PhaseTrace trace("profiler");
  try {
    CUdevice dev = 0;
    CUcontext ctx = currentContext(&dev);
    initializeOnce();
    checkSupported(dev);
    out.chip = chipOf(dev);
    Prepared& prep = prepare(out.chip, ctx, metrics);
    std::vector<const char*> names;
    for (const std::string& m : prep.metrics) names.push_back(m.c_str());
    out.passes = prep.passes;
    out.missing = prep.missing;
    trace("prepare");
    out.replay = restore ? "user" : "kernel";
    if (api() == Api::session && !profileInSession(call, restore, prep, ctx, names, maxRanges, out, trace))
      api() = Api::range;
    if (api() == Api::range) profileWithRangeProfiler(call, restore, prep, ctx, names, maxRanges, out, trace);
  } catch (const std::exception& e) {
    out.error = e.what();
    out.ranges.clear();
    releaseRangeProfiler();  // a failed profile leaves nothing enabled behind
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace tilescope::cuda
