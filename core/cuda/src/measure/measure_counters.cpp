// The profiling pass of a measurement: runs after the timed launches and the
// baseline's timing, so neither is perturbed by replay or sampling.
//   1. the kernel under test, one range (kernel replay, the standard metrics + run.metrics)
//   2. after a checkpoint (the worker's `partial` event), the baseline call, one
//      range per kernel it launches, combined
//   3. PC sampling of the kernel, folded to source lines through the cubin's line table
// Counters that cannot be read (no permission, another profiler, unsupported
// GPU) leave one line in counters.note and set counters.pass_failed; the
// measurement's verdict never depends on them.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "measure/measure_detail.h"
#include "tilescope/base/atomic_write.h"
#include "tilescope/base/dtype.h"
#include "tilescope/base/hash.h"
#include "tilescope/base/json_text.h"
#include "tilescope/counters/counters.h"
#include "tilescope/cuda/pc_sampling.h"
#include "tilescope/cuda/profiler.h"

namespace tilescope::cuda::detail {
namespace {

/// The GPU's counters are held by another process's profiling session: another
/// worker of a sweep on the same GPU (a few seconds), or Nsight Compute/Systems.
bool busy(const RangeProfile& r) { return r.error.find("CUPTI_ERROR_HARDWARE_BUSY") != std::string::npos; }

/// profileRanges, waiting up to about 10 s for counters another process holds.
RangeProfile profileWhenFree(const std::function<void(CUstream)>& call,
                             const std::vector<std::string>& metrics, const MeasureOptions& opts,
                             const std::function<void(CUstream)>& restore = {}) {
  RangeProfile r = profileRanges(call, metrics, 64, restore);
  double waited = 0;
  for (double pause : {0.25, 0.5, 1.0, 2.0, 2.0, 2.0, 2.0}) {
    if (!busy(r)) break;
    if (waited == 0 && opts.progress)
      opts.progress("hardware counters busy (another profiling session): waiting");
    releaseRangeProfiler();
    std::this_thread::sleep_for(std::chrono::duration<double>(pause));
    waited += pause;
    r = profileRanges(call, metrics, 64, restore);
  }
  if (waited > 0 && !r.error.empty())
    r.error += " (still busy after waiting " + std::to_string(int(waited)) + " s)";
  return r;
}

/// Up to this many bytes of a snapshot's device copy stay allocated for the
/// next point of a warm worker (an allocation is driver work, which profiles
/// on different GPUs wait on each other for); a larger one is freed after use.
constexpr std::uint64_t kKeptSnapshotBytes = 256ull << 20;

/// The kernel's tensors, guard zones included, copied aside before its profile
/// so that user replay can put them back before each pass: what CUPTI's
/// kernel replay does for all of device memory, for the buffers the
/// measurement owns (the kernel's arguments are its tensors and scalars).
class TensorSnapshot {
 public:
  ~TensorSnapshot() {
    if (m_bytes > kKeptSnapshotBytes) release();
  }
  /// False, with nothing copied, when the copy does not fit in device memory.
  bool take(const std::vector<DeviceTensor>& tensors, CUstream stream) {
    m_parts.clear();
    std::uint64_t total = 0;
    for (const DeviceTensor& t : tensors) {
      if (!t.allocation || !t.allocationBytes) continue;
      m_parts.push_back({t.allocation, total, t.allocationBytes});
      total += (t.allocationBytes + 255) / 256 * 256;
    }
    if (m_parts.empty()) return false;
    // The kept copy belongs to the context it was made in: a context since
    // destroyed (its memory with it) is forgotten, not freed.
    CUcontext ctx = nullptr;
    unsigned long long id = 0;
    if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx || cuCtxGetId(ctx, &id) != CUDA_SUCCESS) return false;
    if (kept().context != id) kept() = {};
    if (total > kept().bytes) {
      release();
      if (cuMemAlloc(&kept().ptr, total) != CUDA_SUCCESS) {
        kept() = {};
        return false;
      }
      kept().bytes = total;
      kept().context = id;
    }
    m_bytes = total;
    for (const Part& p : m_parts)
      if (cuMemcpyDtoDAsync(kept().ptr + p.offset, p.tensor, p.bytes, stream) != CUDA_SUCCESS) return false;
    return cuStreamSynchronize(stream) == CUDA_SUCCESS;
  }
  /// Puts every tensor back as take() found it (on `stream`, not waited for).
  void restore(CUstream stream) const {
    for (const Part& p : m_parts) cuMemcpyDtoDAsync(p.tensor, kept().ptr + p.offset, p.bytes, stream);
  }

 private:
  struct Part {
    CUdeviceptr tensor;
    std::uint64_t offset, bytes;
  };
  struct Kept {
    CUdeviceptr ptr = 0;
    std::uint64_t bytes = 0;
    unsigned long long context = 0;  ///< cuCtxGetId of the context it was allocated in
  };
  /// The copy's device memory, kept from one profile to the next of this process.
  static Kept& kept() {
    static Kept k;  // freed with its context
    return k;
  }
  static void release() {
    if (kept().ptr) cuMemFree(kept().ptr);
    kept() = {};
  }
  std::vector<Part> m_parts;
  std::uint64_t m_bytes = 0;
};

/// TILESCOPE_PROFILER_REPLAY=user.
bool userReplayAsked() {
  static const bool asked = [] {
    const char* v = std::getenv("TILESCOPE_PROFILER_REPLAY");
    return v && std::string(v) == "user";
  }();
  return asked;
}

KernelCounters toCounters(const std::map<std::string, double>& values, const std::string& name) {
  KernelCounters k;
  k.name = name;
  k.metrics = values;
  return k;
}

/// What makes one baseline call the same as another: its config sections, the
/// tensors' resolved shapes, strides and dtypes, the metrics and the device.
/// Points of a sweep over tile sizes share it.
std::string baselineIdentity(const MeasureState& s, const std::vector<std::string>& metrics) {
  const nlohmann::json cfg = configToJson(*s.cfg);
  nlohmann::json id = {{"baseline", cfg.value("baseline", nlohmann::json())},
                       {"reference", cfg.value("reference", nlohmann::json())},
                       {"metrics", metrics},
                       {"device", s.limits.device}};
  for (const auto& t : s.resolved.tensors)
    id["tensors"].push_back(
        {t.spec ? t.spec->name : "", t.spec ? dtypeName(t.spec->dtype) : "", t.shape, t.strides});
  return id.dump();
}

/// A warm worker profiles a baseline once: the baseline's counters of an earlier
/// measurement in this process whose baseline call was the same.
struct BaselineCounters {
  std::vector<KernelCounters> kernels;
  double seconds = 0;
};
std::map<std::string, BaselineCounters>& baselineCache() {
  static std::map<std::string, BaselineCounters> cache;
  return cache;
}

/// The sweep's shared file of a baseline call's counters (MeasureOptions::baselineCacheDir).
std::filesystem::path sharedBaselineFile(const MeasureOptions& opts, const std::string& identity) {
  if (opts.baselineCacheDir.empty()) return {};
  const std::uint64_t h = fnv1a(identity);
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.json", static_cast<unsigned long long>(h));
  return std::filesystem::path(opts.baselineCacheDir) / name;
}

/// Another worker of the sweep profiled the same baseline call: its kernels.
std::optional<std::vector<KernelCounters>> readSharedBaseline(const std::filesystem::path& file) {
  std::error_code ec;
  if (file.empty() || !std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  try {
    std::ifstream in(file, std::ios::binary);
    const CountersInfo got = countersFromJson(nlohmann::json::parse(in));
    if (got.baselineKernels.empty()) return std::nullopt;
    return got.baselineKernels;
  } catch (const std::exception&) {
    return std::nullopt;  // a file being replaced: profile it here
  }
}

void reuseBaseline(const std::vector<KernelCounters>& kernels, MeasureState& s, CountersInfo& c) {
  c.baselineKernels = kernels;
  c.baselineSeconds = 0;
  if (!c.baselineKernels.empty()) c.baseline = combineKernels(c.baselineKernels, s.cfg->baseline.kind);
  c.baselineReused = true;
}

void profileBaseline(MeasureState& s, const std::vector<std::string>& metrics, CountersInfo& c,
                     const MeasureOptions& opts) {
  const std::string identity = baselineIdentity(s, metrics);
  if (const auto hit = baselineCache().find(identity); hit != baselineCache().end()) {
    reuseBaseline(hit->second.kernels, s, c);
    return;
  }
  const std::filesystem::path shared = sharedBaselineFile(opts, identity);
  if (auto kernels = readSharedBaseline(shared)) {
    reuseBaseline(*kernels, s, c);
    baselineCache()[identity] = {*kernels, 0};
    return;
  }
  StreamCall call;
  try {
    call = makeBaselineCall(s);
  } catch (const std::exception& e) {
    c.baselineNote = e.what();
    return;
  }
  if (!call) {
    c.baselineNote = "the " + s.cfg->baseline.kind + " baseline runs outside the worker: no counters";
    return;
  }
  releaseRangeProfiler();  // a fresh profiler session for the libraries' kernels (see profileCounters)
  RangeProfile r = profileWhenFree(call, metrics, opts);
  c.baselineSeconds = r.seconds;
  if (!r.error.empty()) {
    c.baselineNote = "baseline counters unavailable: " + r.error;
    c.passFailed = true;
    return;
  }
  const bool named = r.ranges.size() == s.baselineKernelNames.size();
  for (std::size_t i = 0; i < r.ranges.size(); ++i)
    c.baselineKernels.push_back(
        toCounters(r.ranges[i], named ? s.baselineKernelNames[i] : "kernel " + std::to_string(i + 1)));
  if (!c.baselineKernels.empty()) c.baseline = combineKernels(c.baselineKernels, s.cfg->baseline.kind);
  baselineCache()[identity] = {c.baselineKernels, r.seconds};
  if (!shared.empty() && !c.baselineKernels.empty()) {
    CountersInfo w;
    w.baselineKernels = c.baselineKernels;
    try {
      writeFileAtomically(shared, dumpJson(toJson(w)));
    } catch (const std::exception&) {
      // Not shared: the other workers profile it themselves.
    }
  }
}

/// A second copy of the kernel's module, loaded while PC sampling is enabled.
/// CUPTI maps sampled PCs to functions through the module loads it observes:
/// samples in a module loaded before sampling was enabled are counted but come
/// back without PC records (seen on an H100, CUDA 13.0). Unloaded after sampling.
struct ReloadedKernel {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  ~ReloadedKernel() {
    if (module) cuModuleUnload(module);
  }
  void load(const std::vector<char>& image, const std::string& symbol, CUfunction original) {
    if (image.empty() || cuModuleLoadData(&module, image.data()) != CUDA_SUCCESS) {
      module = nullptr;
      return;
    }
    if (cuModuleGetFunction(&function, module, symbol.c_str()) != CUDA_SUCCESS) {
      function = nullptr;
      return;
    }
    // The launch may need the dynamic shared memory the measurement opted the original into.
    int dynamic = 0;
    if (cuFuncGetAttribute(&dynamic, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, original) ==
            CUDA_SUCCESS &&
        dynamic > 0)
      cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamic);
  }
};

void samplePcsOfKernel(MeasureState& s, CUfunction fn, const LaunchGeometry& g, KernelArgs& args,
                       const std::string& symbol, const Point& p, CountersInfo& c) {
  double clockMHz = p.timing.smClockAfterMHz > 0 ? p.timing.smClockAfterMHz : 1500;
  const int period = pcSamplingPeriodLog2(p.timing.measured ? p.timing.kernelNs.median : 0, clockMHz,
                                          std::max(s.limits.smCount, 1));
  ReloadedKernel copy;
  CUresult launchError = CUDA_SUCCESS;
  auto call = [&](CUstream st) {
    CUresult r = launch(copy.function ? copy.function : fn, g, args, st);
    if (r != CUDA_SUCCESS) launchError = r;
  };
  const std::vector<char> none;
  const std::vector<char>& cubin =
      s.compiled.format == CompiledKernel::Format::cubin ? s.compiled.image : none;
  PcSamplingRun run = samplePcs(call, period, [&] { copy.load(cubin, symbol, fn); });
  c.pcSamplingSeconds = run.seconds;
  if (run.error.empty() && launchError != CUDA_SUCCESS)
    run.error = "the sampled launch failed: " + cuErrorText(launchError);
  if (!run.error.empty()) {
    c.pcSampling.note = "PC sampling unavailable: " + run.error;
    c.passFailed = true;
    return;
  }
  std::string lineError;
  LineTable table = cubin.empty() ? LineTable{} : parseCubinLineTable(cubin, &lineError);
  c.pcSampling = foldPcSamples(run.samples, symbol, table);
  c.pcSampling.periodLog2 = period;
  c.pcSampling.droppedSamples = run.droppedSamples;
  if (table.empty() && !cubin.empty())
    c.pcSampling.note = "no line table (" + (lineError.empty() ? std::string("empty") : lineError) +
                        "): samples are per kernel only";
  if (cubin.empty()) c.pcSampling.note = "the kernel is not a cubin here: samples are per kernel only";
  if (c.pcSampling.totalSamples == 0) {
    // Say what CUPTI did give, so that an empty result can be told from a mismatch of names.
    std::string names;
    for (const auto& f : run.functions) names += (names.empty() ? "" : ", ") + f;
    c.pcSampling.note = "no samples of " + symbol + ": " + std::to_string(run.records) + " PC records (" +
                        (names.empty() ? std::string("no functions") : names) + "), CUPTI counted " +
                        std::to_string(run.cuptiTotalSamples) + " samples at 2^" + std::to_string(period) +
                        " cycles";
  }
}

}  // namespace

void profileCounters(MeasureState& s, CUfunction fn, const LaunchGeometry& g, KernelArgs& args, Point& p,
                     const MeasureOptions& opts, const std::function<void(const Point&)>& checkpoint) {
  const auto t0 = std::chrono::steady_clock::now();
  CountersInfo& c = p.counters;
  const std::string setName = !opts.counterSet.empty()         ? opts.counterSet
                              : !s.cfg->run.counterSet.empty() ? s.cfg->run.counterSet
                                                               : "basic";
  const CounterSet set = parseCounterSet(setName);
  c.metrics = profileMetricList(s.cfg->run.metrics, set);
  CUresult launchError = CUDA_SUCCESS;
  auto kernelCall = [&](CUstream st) {
    CUresult r = launch(fn, g, args, st);
    if (r != CUDA_SUCCESS) launchError = r;
  };
  // TILESCOPE_PROFILER_REPLAY=user: user replay where the tensors can be
  // copied aside, CUPTI saving and restoring no device memory. Not the
  // default: on one H200 it cost a sweep point 50 ms more and the same driver
  // time (docs/measurements.md, "Counters on several GPUs").
  TensorSnapshot snapshot;
  std::function<void(CUstream)> restore;
  if (userReplayAsked()) {
    CUstream st = nullptr;
    if (cuStreamCreate(&st, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS) {
      if (snapshot.take(s.tensors, st)) restore = [&snapshot](CUstream r) { snapshot.restore(r); };
      cuStreamDestroy(st);
    }
  }
  if (opts.progress)
    opts.progress(std::string("profile the kernel: hardware counters (") + (restore ? "user" : "kernel") +
                  " replay)");
  RangeProfile k = profileWhenFree(kernelCall, c.metrics, opts, restore);
  c.chip = k.chip;
  c.passes = k.passes;
  c.replay = k.replay;
  c.kernelSeconds = k.seconds;
  if (!k.error.empty() || launchError != CUDA_SUCCESS || k.ranges.size() != 1) {
    c.note =
        "hardware counters unavailable: " +
        (!k.error.empty()              ? k.error
         : launchError != CUDA_SUCCESS ? "the profiled launch failed: " + cuErrorText(launchError)
                                       : std::to_string(k.ranges.size()) + " ranges for one kernel launch");
    c.passFailed = true;
    if (opts.progress) opts.progress(c.note);
    releaseRangeProfiler();
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return;
  }
  c.collected = true;
  c.kernel = toCounters(k.ranges.front(), s.modules.front().symbol);
  if (!k.missing.empty()) {
    std::string list;
    for (const auto& m : k.missing) list += (list.empty() ? "" : ", ") + m;
    c.note = "not on " + k.chip + " (skipped): " + list;
  }
  // A checkpoint with the kernel's counters before the baseline's libraries are
  // replayed: CUPTI's kernel replay of some cuDNN SDPA engines crashed inside
  // NVPW_CUDA_Profiler_BeginPass (H100, CUDA 13.0, cuDNN 9.14, head dim 64), and
  // then only the baseline's counters and the PC samples are lost. It crashed
  // whenever the kernel's profiler session was reused for the baseline, and
  // not when the baseline got a session of its own (after PC sampling, which
  // however failed once with CUPTI_ERROR_NOT_INITIALIZED for cuBLAS).
  if (opts.baseline && s.cfg->baseline.kind != "none") {
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (checkpoint) checkpoint(p);
    if (opts.progress) opts.progress("profile the baseline: " + s.cfg->baseline.kind);
    profileBaseline(s, c.metrics, c, opts);
  }
  // PC sampling where someone asks why it is slow: the full set, or a kernel
  // slower than its baseline (the basic set's cost target leaves no room for it).
  const bool slow = std::any_of(p.findings.begin(), p.findings.end(),
                                [](const Finding& f) { return f.category == "slow_vs_baseline"; });
  if (set == CounterSet::full || (slow && opts.sampleSlowKernels)) {
    releaseRangeProfiler();  // PC sampling cannot run while the range profiler is enabled
    if (opts.progress) opts.progress("sample the kernel's PCs (stall reasons per line)");
    samplePcsOfKernel(s, fn, g, args, s.modules.front().symbol, p, c);
  } else if (slow) {
    c.pcSampling.note =
        "not sampled: a sweep point under basic counters (run the point alone, or --counters full)";
  } else {
    c.pcSampling.note =
        "not sampled: basic counters on a kernel not slower than its baseline (--counters full)";
  }
  // Nothing stays enabled for the next measurement: a range profiler kept enabled
  // crashed CUPTI (SIGSEGV) in a later replay, in a warm worker and in
  // bench/profiler_sessions.cu alone; its first start after enabling is what
  // made a profile cost 0.3 s, and a session of the session API per profile
  // costs 0.13 s (docs/measurements.md, "The profiler's start"). Kept with
  // user replay it lost 2-3 of 16 sweep points' counters (same document,
  // "Counters on several GPUs").
  releaseRangeProfiler();
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace tilescope::cuda::detail
