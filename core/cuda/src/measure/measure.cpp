// measurePoint: the in-process measurement of one config point (see measure.h).
#include "tilescope/cuda/measure.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>

#include "measure/measure_detail.h"
#include "measure/measure_trace.h"
#include "tilescope/analysis/compare.h"
#include "tilescope/analysis/tiles.h"
#include "tilescope/base/hash.h"
#include "tilescope/cuda/compile.h"
#include "tilescope/cuda/timing.h"
#include "tilescope/diagnose/compile_error.h"
#include "tilescope/run/baseline.h"

namespace tilescope::cuda {
namespace detail {

MeasureState::~MeasureState() {
  if (dead) return;  // a dead context cannot free anything; the process exits next
  for (auto& t : tensors) freeTensor(&t);
  for (auto& t : refOutputs) freeTensor(&t);
  for (auto& m : modules)
    if (m.module) cuModuleUnload(m.module);
  for (CUdeviceptr d : scratch) cuMemFree(d);
}

DeviceTensor* MeasureState::tensor(const std::string& name) {
  for (auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

DeviceTensor* MeasureState::refOutput(const std::string& name) {
  for (auto& t : refOutputs)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace detail

namespace {

using namespace detail;

Finding simpleFinding(const std::string& category, const std::string& message, nlohmann::json evidence = {}) {
  Finding f;
  f.category = category;
  f.message = message;
  f.evidence = std::move(evidence);
  return f;
}

void finish(Point& p, Verdict floor = Verdict::ok) {
  p.verdict = worse(floor, verdictForFindings(p.findings));
}

// Compile for the live device and load; false when the measurement cannot go on.
bool compileAndLoad(const Config& cfg, MeasureState& s, const MeasureOptions& opts, Point& p) {
  CompiledKernel& ck = s.compiled;
  if (cfg.kernel.isPython()) {
    // Triton's JIT specialises on 16-byte aligned pointers: shifted bases compile as the
    // JIT would. Triton's cubins carry the .py line table already (docs/triton.md).
    p.compile = compilePoint(cfg, s.limits.arch(), opts.alignShiftBytes % 16 == 0, &ck);
    if (!p.compile.ok) {
      auto err = firstCompileError(p.compile.log);
      auto [line, column] = compileErrorPosition(p.compile.log);
      p.findings.push_back(
          pythonCompileErrorFinding(cfg, p.compile, line, column, err ? err->second : "compilation failed"));
      return false;
    }
  } else {
    KernelSpec k = cfg.kernel;
    // A traced run and PC sampling (the counters pass) need the SASS -> line table;
    // -lineinfo leaves the code itself alone.
    const std::string ext = k.sourcePath.extension().string();
    // The oracle run compiles the same way, so its PCs and lines are the traced run's.
    const bool lines = opts.trace.enabled || opts.oracle || (opts.counters && cfg.run.counters);
    if (lines && (ext == ".cu" || ext == ".CU") &&
        std::find(k.options.begin(), k.options.end(), "-lineinfo") == k.options.end())
      k.options.push_back("-lineinfo");
    p.compile = compileKernel(k, cfg.kernel.defines, s.limits.arch(), &ck);
  }
  if (!p.compile.ok) {
    auto err = firstCompileError(p.compile.log);
    Finding f = simpleFinding("compile_error", err ? err->second : "compilation failed",
                              {{"compiler", p.compile.compiler}, {"arch", p.compile.arch}});
    if (err && err->first > 0) {
      f.location.file = cfg.kernel.source;
      f.location.line = err->first;
    }
    p.findings.push_back(f);
    return false;
  }
  LoadedKernel lk;
  std::string error;
  if (!loadKernel(ck, &lk, &error)) {
    if (lk.module) s.modules.push_back(lk);
    p.findings.push_back(simpleFinding("compile_error", error, {{"arch", s.limits.arch()}}));
    return false;
  }
  s.modules.push_back(lk);
  readFunctionAttributes(lk.function, &p.compile);
  if (ck.triton) {
    // Triton sized the shared memory: it is launched as dynamic shared memory.
    s.triton = ck.triton;
    s.resolved.launch.sharedBytes = ck.triton->sharedBytes;
    p.launch.sharedBytes = ck.triton->sharedBytes;
    p.extra["triton"] = ck.triton->toJson();
  }
  if (ck.tilelang) {
    // TileLang decided the block (T.Kernel threads) and the pipeline's shared memory.
    for (int d = 0; d < 3; ++d) s.resolved.launch.block[d] = p.launch.block[d] = ck.tilelang->block[d];
    s.resolved.launch.sharedBytes = p.launch.sharedBytes = ck.tilelang->sharedBytes;
    p.extra["tilelang"] = ck.tilelang->toJson();
  }
  return true;
}

/// Triton's global and profile scratch: size per CTA × CTAs, zero-filled; null when unused.
bool allocateTritonScratch(MeasureState& s, Point& p, CUdeviceptr out[2]) {
  const TritonKernelMeta& m = *s.triton;
  const std::int64_t ctas = s.resolved.launch.blocks() * std::max(m.numCtas, 1);
  const std::int64_t sizes[2] = {m.globalScratchSize, m.profileScratchSize};
  for (int i = 0; i < 2; ++i) {
    out[i] = 0;
    if (sizes[i] <= 0) continue;
    const std::size_t bytes = std::size_t(sizes[i]) * std::size_t(ctas);
    if (CUresult r = cuMemAlloc(&out[i], bytes); r != CUDA_SUCCESS) {
      p.findings.push_back(simpleFinding(
          "invalid_launch", "allocating Triton's " + std::string(i ? "profile" : "global") + " scratch (" +
                                std::to_string(bytes) + " bytes) failed: " + cuErrorText(r)));
      return false;
    }
    s.scratch.push_back(out[i]);
    cuMemsetD8(out[i], 0, bytes);
  }
  return true;
}

bool allocateAll(const Config& cfg, MeasureState& s, const MeasureOptions& opts, Point& p) {
  for (const ResolvedTensor& rt : s.resolved.tensors) {
    DeviceTensor t;
    t.spec = rt.spec;
    t.name = rt.spec->name;
    t.dtype = rt.spec->dtype;
    t.shape = rt.shape;
    t.strides = rt.strides;
    t.bytes = rt.bytes();
    t.initial = initialBytes(cfg, rt, opts.sentinelVariant, &t.sentinel, &t.sentinelValue);
    // The oracle leaves sentinel outputs unwritten: initcheck then sees reads of never-written memory.
    if (opts.oracle && t.sentinel) t.initial.reset();
    std::string error;
    bool ok = allocateTensor(&t, !opts.oracle, opts.alignShiftBytes, &error);
    s.tensors.push_back(std::move(t));
    if (!ok) {
      p.status.captureError = error;
      p.findings.push_back(simpleFinding("invalid_launch", error));
      return false;
    }
  }
  return true;
}

std::vector<std::int64_t> tileExtentOf(const Config& cfg, const ResolvedPoint& rp,
                                       const std::string& tensor) {
  for (const TileSpec& ts : cfg.tiles) {
    if (ts.tensor != tensor) continue;
    std::vector<std::int64_t> ext;
    try {
      for (const auto& e : ts.tile) ext.push_back(evalInt(e, rp.symbols));
    } catch (const std::exception&) {
      ext.clear();
    }
    return ext;
  }
  return {};
}

// Guards of every tensor, then coverage and correctness of every output.
/// A plain mismatch whose output equals the product with a transposed operand
/// becomes `mismatch`/`transposed`, naming the operand (docs/report.md, Finding categories).
void labelTransposedOperand(MeasureState& s, const HostTensor& out, const std::vector<std::int64_t>& ext,
                            CompareResult& cmp) {
  for (auto& f : cmp.findings) {
    if (f.category != "mismatch" || !f.detail.empty()) continue;
    const std::string which = transposedOperand(s, out, ext);
    if (which.empty()) return;
    const std::string name = which == "a" ? s.cfg->reference.a : s.cfg->reference.b;
    f.detail = "transposed";
    f.treeNode = "wrong.mismatch.transposed";
    f.message = out.name + " equals the reference computed with " + name + " transposed: the kernel reads " +
                name + " with its row and column indices swapped (" + f.message + ")";
    f.evidence["transposed_operand"] = name;
    return;
  }
}

void collectEvidence(const Config& cfg, MeasureState& s, const MeasureOptions& opts, Point& p) {
  std::vector<TileCoverage> tiles;
  try {
    tiles = analyzeTiles(cfg, s.resolved);
  } catch (const std::exception& e) {
    p.status.tilesError = e.what();
  }
  auto tilesOf = [&](const std::string& name) -> const TileCoverage* {
    for (const auto& t : tiles)
      if (t.tensor() == name) return &t;
    return nullptr;
  };
  std::vector<GuardedInput> guardedInputs;
  for (const DeviceTensor& t : s.tensors) {
    std::string error;
    for (auto& f : checkGuards(t, tilesOf(t.name), &error)) p.findings.push_back(std::move(f));
    if (!error.empty()) p.status.guardError = error;
    if (!t.spec->output) guardedInputs.push_back({t.name, t.dtype, guardIsNan(t.dtype)});
  }

  if (opts.progress) opts.progress("reference: " + cfg.reference.op);
  std::map<std::string, HostTensor> refs;
  std::string refLabel;
  try {
    refs = runReference(s, opts, &refLabel);
  } catch (const std::exception& e) {
    p.status.referenceError = e.what();
    if (s.dead) p.findings.push_back(simpleFinding("illegal_address", e.what()));
  }
  if (s.dead) return;

  if (opts.progress)
    opts.progress("check the outputs: coverage" + std::string(refs.empty() ? "" : ", against the reference"));
  for (const DeviceTensor& t : s.tensors) {
    if (!t.spec->output) continue;
    HostTensor out;
    std::string error;
    if (!downloadTensor(t, &out, &error)) {
      p.status.downloadError = error;
      continue;
    }
    // A digest of the output's bytes: trials of a deterministic kernel on identical
    // inputs must agree bit for bit (race detection compares these). Over 8-byte
    // words: a byte at a time it was a chain of 64M dependent multiplies for a
    // 4096^2 f32 output (docs/measurements.md, "The loop").
    const std::uint64_t h = fnv1aWords(out.bytes.data(), out.bytes.size());
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    p.status.outputDigest[t.name] = hex;
    auto ext = tileExtentOf(cfg, s.resolved, t.name);
    auto refIt = refs.find(t.name);
    const HostTensor* ref = refIt == refs.end() ? nullptr : &refIt->second;
    ScanResult scan =
        t.sentinel ? scanOutput(out, t.sentinelValue, ext, ref) : scanOutputNoSentinel(out, ext, ref);
    scan.coverage.tensor = t.name;
    if (const TileCoverage* tc = tilesOf(t.name)) {
      scan.coverage.declaredCovered = tc->covered();
      scan.coverage.declaredUncovered = tc->uncovered();
      scan.coverage.declaredOverlapped = tc->overlapped();
    }
    for (auto& f : scan.findings) p.findings.push_back(f);
    for (auto& f : inferOobReads(scan, guardedInputs)) p.findings.push_back(f);
    if (ref) {
      CompareResult cmp = compareOutputs(out, *ref, cfg.tolerance.rtol, cfg.tolerance.atol, ext, &scan);
      cmp.info.reference = refLabel;
      cmp.info.tensor = t.name;
      applyMismatchStates(scan, cmp);
      labelTransposedOperand(s, out, ext, cmp);
      for (auto& f : cmp.findings) p.findings.push_back(f);
      p.correctness.push_back(cmp.info);
    }
    p.coverage.push_back(scan.coverage);
  }
}

void timeKernel(const Config& cfg, CUfunction fn, const LaunchGeometry& g, KernelArgs& args, Point& p) {
  TimingOptions to;
  to.warmup = cfg.run.warmup;
  to.minReps = cfg.run.minReps;
  to.maxReps = cfg.run.maxReps;
  to.budgetS = cfg.run.timeBudgetS;
  CUresult lastError = CUDA_SUCCESS;
  TimingResult r = timeCalls(
      [&](CUstream st) {
        CUresult e = launch(fn, g, args, st);
        if (e != CUDA_SUCCESS) lastError = e;
      },
      to);
  p.timing = r.info;
  if (!r.error.empty()) p.timing.note += (p.timing.note.empty() ? "" : "; ") + r.error;
  if (lastError != CUDA_SUCCESS) p.timing.note += "; a timed launch failed: " + cuErrorText(lastError);
}

/// One profiling pass at a time per GPU on this host: CUPTI's profilers in two
/// processes on one GPU (sweep --jobs on one GPU, parallel tests) make each
/// other fail, and a warm worker must not go on from a failed pass. An
/// advisory lock on a file named by the GPU's PCI bus id; without the file
/// (no temporary folder) the pass runs unlocked.
class ProfilerLock {
 public:
  ProfilerLock(CUdevice device, const std::function<void(const std::string&)>& progress) {
    std::string name = pciBusId(device);
    if (name.empty()) return;
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    std::error_code ec;
    const auto path = std::filesystem::temp_directory_path(ec) / ("tilescope-profiler-" + name + ".lock");
    if (ec) return;
    m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (m_fd < 0) return;
    if (::flock(m_fd, LOCK_EX | LOCK_NB) == 0) return;
    progress("wait for the GPU's profiler (another capture on this GPU is profiling)");
    while (::flock(m_fd, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~ProfilerLock() {
    if (m_fd >= 0) ::close(m_fd);  // closing releases the lock
  }
  ProfilerLock(const ProfilerLock&) = delete;
  ProfilerLock& operator=(const ProfilerLock&) = delete;

 private:
  int m_fd = -1;
};

void say(const MeasureOptions& opts, const std::string& message) {
  if (opts.progress) opts.progress(message);
}

/// The point before anything ran: the config's names and values, the launch's shape.
Point pointShell(const Config& cfg, const ResolvedLaunch& l) {
  Point p;
  p.label = cfg.name;
  p.defines = pointDefines(cfg);
  for (const auto& [name, v] : cfg.params) p.params[name] = v;
  for (int d = 0; d < 3; ++d) {
    p.launch.grid[d] = l.grid[d];
    p.launch.block[d] = l.block[d];
  }
  p.launch.sharedBytes = l.sharedBytes;
  return p;
}

/// The kernel's arguments and launch shape (a Triton kernel's own packing and
/// scratch buffers). False, with the finding, when they cannot be made.
bool kernelArgs(const Config& cfg, MeasureState& s, Point& p, KernelArgs* args, LaunchGeometry* g) {
  std::map<std::string, CUdeviceptr> ptrs;
  for (const auto& t : s.tensors) ptrs[t.name] = t.ptr;
  const ResolvedLaunch& l = s.resolved.launch;
  *g = toGeometry(l);
  std::string error;
  if (!s.triton) {
    if (!buildArgs(cfg.args, s.resolved.symbols, ptrs, "args", args, &error))
      throw ConfigError("args", error);
    return true;
  }
  CUdeviceptr scratch[2] = {0, 0};
  if (!allocateTritonScratch(s, p, scratch)) return false;
  if (!buildTritonArgs(cfg.args, *s.triton, s.resolved.symbols, ptrs, scratch, args, &error)) {
    p.findings.push_back(simpleFinding("invalid_launch", error, {{"triton", p.extra["triton"]}}));
    return false;
  }
  *g = tritonGeometry(l, *s.triton);
  return true;
}

/// The untraced launch. Its verdict when it failed: the measurement ends there.
std::optional<Verdict> launchUntraced(const Config& cfg, MeasureState& s, const MeasureOptions& opts,
                                      CUfunction fn, const LaunchGeometry& g, KernelArgs& args,
                                      const TraceAnalysis& traced, Point& p) {
  say(opts, "launch " + cfg.kernel.entry);
  if (opts.phase) opts.phase("launch");
  CUresult r = launch(fn, g, args, nullptr);
  if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
  if (opts.phase) opts.phase("launched");
  if (r == CUDA_SUCCESS) return std::nullopt;
  p.launch.error = cuErrorText(r);
  s.dead = isStickyError(r);
  p.findings.push_back(errorFinding(r, "kernel", s.resolved.launch));
  if (p.trace.traced()) mergeTraceFindings(traced, p);
  return classifyCuError(r).verdict;
}

/// The hardware counters of the launch, under the profiler lock. A traced
/// measurement reads none: the Sanitizer API's patches stay on the module, and a
/// launch the trace stopped would fault untraced.
void readCounters(MeasureState& s, const MeasureOptions& opts, CUfunction fn, const LaunchGeometry& g,
                  KernelArgs& args, Point& p) {
  if (opts.trace.enabled) {
    p.counters.note = "hardware counters not read: a traced capture (run it without --trace for counters)";
    return;
  }
  std::function<void(const Point&)> checkpoint;
  if (opts.checkpoint)
    checkpoint = [&](const Point& now) {
      Point sofar = now;
      finish(sofar);
      sofar.status.stickyError = s.dead;
      opts.checkpoint(sofar);
    };
  if (checkpoint) checkpoint(p);
  const ProfilerLock lock(s.limits.device, [&](const std::string& m) { say(opts, m); });
  profileCounters(s, fn, g, args, p, opts, checkpoint);
}

/// What is measured of a launch that ran: its time, the baseline's, the counters.
void measure(const Config& cfg, MeasureState& s, const MeasureOptions& opts, CUfunction fn,
             const LaunchGeometry& g, KernelArgs& args, bool skipUntraced, Point& p) {
  if (opts.timing && skipUntraced) {
    p.timing.note = "not timed: the untraced kernel would fault (see the trace's findings)";
  } else if (opts.timing) {
    say(opts, "time the kernel");
    timeKernel(cfg, fn, g, args, p);
  }
  if (opts.baseline && cfg.baseline.kind != "none") {
    say(opts, "time the baseline: " + cfg.baseline.kind);
    timeBaseline(s, p);
    if (auto f = compareWithBaseline(p, cfg.run.slowFactor)) p.findings.push_back(*f);
  }
  if (opts.counters && cfg.run.counters) readCounters(s, opts, fn, g, args, p);
}

}  // namespace

Point measurePoint(const Config& cfg, const MeasureOptions& opts) {
  auto t0 = std::chrono::steady_clock::now();
  MeasureState s;
  s.cfg = &cfg;
  s.resolved = resolvePoint(cfg);
  const ResolvedLaunch& l = s.resolved.launch;
  Point p = pointShell(cfg, l);
  auto done = [&](Verdict floor = Verdict::ok) {
    finish(p, floor);
    p.status.stickyError = s.dead;
    p.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return p;
  };

  // Device, compile, launch checks, tensors.
  CUcontext ctx = nullptr;
  std::string error;
  if (!openDevice(opts.device, &ctx, &s.limits, &error)) {
    p.status.captureError = error;
    p.status.noGpu = true;
    return done();
  }
  p.extra["device"] = {{"name", s.limits.name},
                       {"cc", std::to_string(s.limits.ccMajor) + "." + std::to_string(s.limits.ccMinor)},
                       {"sm_count", s.limits.smCount},
                       {"smem_per_block_optin", s.limits.smemPerBlockOptin}};
  say(opts, "compile " + cfg.kernel.source + " for " + s.limits.arch());
  if (!compileAndLoad(cfg, s, opts, p)) return done(Verdict::compile_error);
  CUfunction fn = s.modules.front().function;
  p.launch.attempted = true;
  if (!prepareLaunch(fn, p.compile, l, s.limits, &p.findings)) return done(Verdict::launch_error);
  say(opts, "allocate " + std::to_string(s.resolved.tensors.size()) + " tensors with guard zones");
  if (!allocateAll(cfg, s, opts, p)) return done();
  KernelArgs args;
  LaunchGeometry g;
  if (!kernelArgs(cfg, s, p, &args, &g)) return done(Verdict::launch_error);

  // The traced launch first (it may stand in for the untraced one), then the untraced one.
  TraceAnalysis traced;
  bool skipUntraced = false;
  if (opts.trace.enabled) {
    skipUntraced = traceBeforeLaunch(cfg, s, opts, g, args, p, &traced);
    if (s.dead) return done(Verdict::fault);
  }
  if (skipUntraced) {
    // The traced launch completed with the faulting warps stopped: its output is
    // what the rest of the measurement judges; an untraced launch would kill the context.
    say(opts, "the trace stopped accesses that would fault: the capture judges the traced launch's output");
    p.launch.error = "not launched untraced: the trace stopped accesses that would have faulted";
  } else if (auto failed = launchUntraced(cfg, s, opts, fn, g, args, traced, p)) {
    return done(*failed);
  }
  p.launch.ok = true;

  // The evidence, then the measurements.
  say(opts, "check guard zones, coverage and correctness");
  collectEvidence(cfg, s, opts, p);
  if (p.trace.traced()) mergeTraceFindings(traced, p);
  if (s.dead) return done(Verdict::fault);
  measure(cfg, s, opts, fn, g, args, skipUntraced, p);
  return done();
}

}  // namespace tilescope::cuda
