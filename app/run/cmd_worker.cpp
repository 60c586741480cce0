// `worker`: the isolated child that touches the GPU. It captures one point (or,
// with --serve, each point requested on stdin) and streams tilescope.stream/1
// events on stdout; the last of a capture is its point. A sticky CUDA error ends
// the process after the point is printed: the context is unusable and the parent
// starts a fresh worker for the next point.
#include <execinfo.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "options.h"
#include "tilescope/analysis/locations.h"
#include "tilescope/analysis/static_analysis.h"
#include "tilescope/base/python.h"
#include "tilescope/config/config.h"
#include "tilescope/counters/counters.h"
#include "tilescope/logs/device_output.h"
#include "tilescope/model/devices.h"
#include "tilescope/run/session.h"
#include "tilescope/run/stream.h"
#ifdef TILESCOPE_HAVE_CUDA
#include "tilescope/cuda/live_device.h"
#include "tilescope/cuda/measure.h"
#include "tilescope/cuda/tracer.h"
#endif

namespace tilescope::cli {

namespace {

// A crash of the worker (in a library: CUPTI, cuDNN, a driver) leaves its stack
// on stderr, which the parent keeps as the point's worker_stderr. Only
// async-signal-safe calls; the default action then ends the process with the
// same signal, so the parent still sees it.
void onFatalSignal(int sig) {
  static const char head[] = "tilescope-run worker: fatal signal, stack:\n";
  (void)!::write(2, head, sizeof head - 1);
  void* frames[64];
  ::backtrace_symbols_fd(frames, ::backtrace(frames, 64), 2);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void reportCrashes() {
  void* warm[1];
  ::backtrace(warm, 1);  // loads the unwinder now, not inside the handler
  struct sigaction sa {};
  sa.sa_handler = onFatalSignal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::sigaction(sig, &sa, nullptr);
}

// The stream's file descriptor: stdout until DeviceOutput moves it.
int g_streamFd = STDOUT_FILENO;

// Compile logs and kernel names may hold invalid UTF-8: toLine replaces it.
void emit(StreamBody body) {
  const std::string line = toLine({std::move(body), {}}) + '\n';
  for (std::size_t done = 0; done < line.size();) {
    const ssize_t n = ::write(g_streamFd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone
    done += std::size_t(n);
  }
}

/// What the kernel prints with printf reaches the process's stdout when the host
/// synchronises (failed asserts go to stderr, read by the parent). The stream
/// moves to a copy of stdout and stdout itself to an unnamed temporary file,
/// read back into the point (device_output.h): kernel text never corrupts the
/// stream, and is kept.
class DeviceOutput {
 public:
  DeviceOutput() {
    std::fflush(stdout);
    m_file = std::tmpfile();
    const int stream = m_file ? ::dup(STDOUT_FILENO) : -1;
    if (stream < 0 || ::dup2(::fileno(m_file), STDOUT_FILENO) < 0) {
      if (stream >= 0) ::close(stream);
      return;  // no temporary file: kernel text goes to the stream, which the parent skips
    }
    g_streamFd = stream;
  }
  /// A new capture starts: what was printed before is not its output.
  void mark() {
    if (g_streamFd == STDOUT_FILENO) return;
    std::fflush(stdout);
    struct stat st {};
    m_mark = ::fstat(STDOUT_FILENO, &st) == 0 ? st.st_size : 0;
  }
  /// The last kReadBytes the kernel printed since mark().
  std::string read() const {
    if (g_streamFd == STDOUT_FILENO) return {};
    std::fflush(stdout);
    struct stat st {};
    if (::fstat(STDOUT_FILENO, &st) != 0 || st.st_size <= m_mark) return {};
    const off_t from = std::max(m_mark, st.st_size > kReadBytes ? st.st_size - kReadBytes : off_t(0));
    std::string text(std::size_t(st.st_size - from), '\0');
    const ssize_t n = ::pread(STDOUT_FILENO, text.data(), text.size(), from);
    text.resize(n > 0 ? std::size_t(n) : 0);
    return text;
  }

 private:
  static constexpr off_t kReadBytes = 1 << 20;  // the default device printf FIFO is 1 MiB
  std::FILE* m_file = nullptr;
  off_t m_mark = 0;
};

}  // namespace

#ifdef TILESCOPE_HAVE_CUDA
namespace {

/// One capture of a worker: point `request.point` of the config, trial
/// `request.trial`, streamed as events, the last one its point. Returns the exit
/// status a one-capture worker ends with; *dead: the context is unusable after it.
int captureOne(const WorkerArgs& a, const std::vector<SweepPoint>& points, const WorkerRequest& request,
               const DeviceSpec& dev, DeviceOutput& deviceOutput, bool* dead) {
  if (request.point >= static_cast<int>(points.size()))
    return usageError("point " + std::to_string(request.point) + " out of range (" +
                      std::to_string(points.size()) + " points)");
  SweepPoint sp = points[static_cast<std::size_t>(request.point)];
  try {
    for (const auto& kv : a.overrides) applySetOverride(sp.config, kv);
    if (a.inputScale != 1.0) scaleInputs(sp.config, a.inputScale);
    if (a.tolerance.size() == 2) sp.config.tolerance = Tolerance{a.tolerance[0], a.tolerance[1]};
    (void)resolvePoint(sp.config);
  } catch (const ConfigError& e) {
    return usageError(configMessage(a.config, e));
  }
  if (std::string why = runMetricsError(sp.config, dev.arch); !why.empty())
    return usageError(a.config + ": " + why);
  deviceOutput.mark();
  GpuRecord gpu = cuda::describeGpu(a.gpu);
  gpu.host = hostName();
  const DeviceInfo deviceInfo = toDeviceInfo(dev);
  emit(DeviceEvent{deviceInfo, gpu});
  cuda::MeasureOptions opts;
  opts.device = a.gpu;
  opts.alignShiftBytes = a.alignShift;
  opts.sentinelVariant = a.sentinelVariant;
  opts.timing = !a.noTiming;
  opts.trace.enabled = a.trace;
  opts.trace.hazards = a.traceMode != "memory";
  if (a.traceCells > 0) opts.trace.reportCells = std::size_t(a.traceCells);
  opts.oracle = a.oracle;
  opts.baseline = !a.noBaseline;
  opts.counters = !a.noCounters;
  opts.counterSet = a.counters;
  opts.baselineCacheDir = a.baselineCache;
  opts.sampleSlowKernels = !a.noSlowSampling;
  const auto start = std::chrono::steady_clock::now();
  opts.progress = [start](const std::string& msg) {
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ProgressEvent p;
    p.message = msg;
    p.t = t;  // seconds since the capture started
    emit(std::move(p));
  };
  // The launch phase arms and disarms the parent's launch watchdog (docs/protocol.md).
  opts.phase = [](const std::string& phase) { emit(PhaseEvent{parsePhase(phase)}); };
  // What the parent reads: the capture with the static view of the point laid on.
  auto complete = [&](Point p) {
    // A Triton/TileLang kernel's block and shared memory are known once compiled: the
    // static view uses what was launched.
    Config pointCfg = sp.config;
    if (pointCfg.kernel.isPython() && p.compile.ok) {
      for (int d = 0; d < 3; ++d) pointCfg.launch.block[std::size_t(d)] = std::to_string(p.launch.block[d]);
      pointCfg.launch.sharedBytes = std::to_string(p.launch.sharedBytes);
    }
    if (p.compile.ok || !p.compile.attempted) mergeStatic(p, analyzeStatic(pointCfg, dev, p.compile));
    // After the merge: measured occupancy is judged against the theoretical; the
    // device's peaks bound the tensor cores' estimated gain.
    applyCounterFindings(p, {}, &deviceInfo);
    fillDefaultLocations(p, pointCfg);
    applyDeviceOutput(p, deviceOutput.read());  // after the defaults: a failed assert names its own line
    p.index = sp.index;
    p.trial = request.trial;
    p.label = sp.label();
    p.gpu = gpu;
    if (p.timing.measured && p.timing.smClockBeforeMHz > 0) p.gpu.smClockMHz = p.timing.smClockBeforeMHz;
    return p;
  };
  // Before the profiling pass: the parent keeps this one if the worker dies in it.
  opts.checkpoint = [&](const Point& sofar) { emit(PartialEvent{complete(sofar)}); };
  const Point p = complete(cuda::measurePoint(sp.config, opts));
  *dead = p.status.stickyError.value_or(false);
  emit(PointEvent{p});
  return kExitOk;
}

}  // namespace
#endif

int cmdWorker(const WorkerArgs& a) {
  reportCrashes();
  Config cfg;
  std::vector<SweepPoint> points;
  try {
    cfg = loadConfig(a.config);
    if (std::string why = applyCompileOverrides(cfg, a.compile); !why.empty())
      return usageError(a.config + ": " + why);
    points = expandSweep(cfg);
  } catch (const ConfigError& e) {
    return usageError(configMessage(a.config, e));
  }
  if (!a.serve && (a.point < 0 || a.point >= static_cast<int>(points.size())))
    return usageError("point " + std::to_string(a.point) + " out of range (" + std::to_string(points.size()) +
                      " points)");
  // The parent checked consent already; a worker started by hand checks again.
  if (std::string why = consentProblem(cfg, a.consent); !why.empty())
    return usageError(a.config + ": " + why);
  // A Python kernel's file runs when it compiles: confined unless --allow-commands.
  setPythonKernelsTrusted(a.consent.commands);
#ifndef TILESCOPE_HAVE_CUDA
  std::cerr << "this tilescope-run was built without CUDA: it cannot capture\n";
  return kExitNoGpu;
#else
  DeviceOutput deviceOutput;
  // The Sanitizer API must be in place before the CUDA context exists.
  if (a.trace) {
    const std::string why = cuda::initTracer();
    if (!why.empty()) std::cerr << "trace unavailable: " << why << "; the capture runs untraced\n";
  }
  DeviceSpec dev;
  std::string why;
  if (!cuda::queryLiveDevice(a.gpu, &dev, &why)) {
    std::cerr << why << '\n';
    return kExitNoGpu;
  }
  bool dead = false;
  if (!a.serve) return captureOne(a, points, {a.point, a.trial}, dev, deviceOutput, &dead);
  // --serve: a request per line on stdin until it closes (docs/protocol.md). A
  // capture that leaves the context dead ends the worker after its point.
  for (std::string line; std::getline(std::cin, line);) {
    WorkerRequest request;
    try {
      request = parseRequestLine(line);
    } catch (const StreamError& e) {
      return usageError(std::string("worker --serve: ") + e.what());
    }
    if (const int rc = captureOne(a, points, request, dev, deviceOutput, &dead); rc != kExitOk || dead)
      return rc;
    // A context that broke after its capture's point (a library's late error)
    // must not take the next request: the parent gives it to a fresh worker.
    if (std::string why = cuda::contextError(a.gpu); !why.empty()) {
      std::cerr << "worker --serve: the CUDA context broke after a capture (" << why << "); ending\n";
      return kExitWorkerStale;
    }
  }
  return kExitOk;
#endif
}

Verb addWorkerCommand(CLI::App& app) {
  auto a = std::make_shared<WorkerArgs>();
  auto* w = app.add_subcommand("worker", "internal: capture one point and stream the result");
  w->add_option("CONFIG", a->config)->required();
  w->add_option("--point", a->point);
  w->add_option("--trial", a->trial);
  w->add_option("--gpu", a->gpu);
  w->add_flag("--serve", a->serve, "capture each request read on stdin, one per line (a warm worker)");
  w->add_option("--align-shift", a->alignShift, "shift tensor base pointers by N bytes");
  w->add_option("--sentinel-variant", a->sentinelVariant, "0 or 1: which poison pattern outputs start with");
  w->add_option("--input-scale", a->inputScale, "multiply every generated float input by F")
      ->check(CLI::PositiveNumber);
  w->add_option("--tolerance", a->tolerance,
                "RTOL ATOL: judge the outputs at this tolerance, not the config's")
      ->expected(2)
      ->check(CLI::NonNegativeNumber);
  w->add_flag("--no-timing", a->noTiming);
  w->add_flag("--no-baseline", a->noBaseline, "do not time the baseline");
  w->add_flag("--no-counters", a->noCounters, "skip the profiling pass (hardware counters, PC sampling)");
  w->add_option("--counters", a->counters, "basic | full: the counter set of the profiling pass")
      ->check(CLI::IsMember({"basic", "full"}));
  w->add_option("--baseline-cache", a->baselineCache,
                "a folder the workers of one sweep share for the baseline's counters");
  w->add_flag("--no-slow-sampling", a->noSlowSampling,
              "basic counters: no PC sampling of a kernel slower than its baseline (a sweep's points)");
  w->add_option("--set", a->overrides, "NAME=VALUE: override a define or param");
  addCompileOverrideOptions(w, a->compile);
  w->add_flag("--trace", a->trace, "trace the kernel first");
  w->add_option("--trace-mode", a->traceMode, "full | memory")->check(CLI::IsMember({"full", "memory"}));
  w->add_option("--trace-cells", a->traceCells, "footprint map cells per tensor in the report");
  w->add_flag("--oracle", a->oracle,
              "for compute-sanitizer as an oracle: no guard zones, exact allocations, outputs without init "
              "unwritten");
  addConsentOptions(w, a->consent);
  return {w, [a] { return cmdWorker(*a); }};
}

}  // namespace tilescope::cli
