// `run` and `sweep`: each point × trial in its own `tilescope-run worker`
// process; this process never touches the GPU.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>

#include "commands.h"
#include "options.h"
#include "tilescope/base/format.h"
#include "tilescope/base/json_input.h"
#include "tilescope/base/process.h"
#include "tilescope/base/python.h"
#include "tilescope/config/config.h"
#include "tilescope/export/summary.h"
#include "tilescope/run/remote.h"
#include "tilescope/run/session.h"
#include "tilescope/run/stream.h"

namespace tilescope::cli {

namespace {

/// GPU ordinals for --jobs, from CUDA_VISIBLE_DEVICES or nvidia-smi.
std::vector<int> localGpus() {
  std::vector<int> gpus;
  runChild({"nvidia-smi", "--query-gpu=index", "--format=csv,noheader"}, 10, [&](const std::string& line) {
    try {
      gpus.push_back(std::stoi(line));
    } catch (...) {
    }
  });
  if (const char* vis = std::getenv("CUDA_VISIBLE_DEVICES")) {
    // Ordinals inside the worker are relative to the visible set.
    int n = 0;
    for (const char* p = vis; *p; ++p) n += *p == ',';
    gpus.clear();
    for (int i = 0; i <= n; ++i) gpus.push_back(i);
  }
  if (gpus.empty()) gpus.push_back(0);
  return gpus;
}

}  // namespace

std::string setUpRemote(const std::string& host, bool shared, const Config& cfg, SessionOptions& opts,
                        std::unique_ptr<RemoteFolder>& copy) {
  const std::string problem = remoteHostProblem(host);
  if (!problem.empty()) return "--remote '" + clipForMessage(host) + "': " + problem;
  if (!shared) {
    try {
      copy = std::make_unique<RemoteFolder>(host, cfg, toolkitRoot());
      opts.configPath = copy->configPath();
      std::cerr << "copied " << copy->files() << " file(s), " << formatBytes(double(copy->bytes())) << ", to "
                << host << ":" << copy->dir() << '\n';
    } catch (const RemoteError& e) {
      // An unreachable host is the session's to report (remote_unreachable, per point).
      if (!e.unreachable()) return std::string("--remote: ") + e.what();
    }
  }
  // ssh hands the arguments to the remote shell as one line: they are quoted.
  opts.workerCommand = sshCommand(host);
  opts.workerThroughShell = true;
  opts.remoteHost = host;
  return "";
}

namespace {

/// The config, checked before anything runs (the no-GPU exit included): it
/// loads, every point resolves, and nothing it names is run or read without the
/// user's consent. An exit status when it cannot run.
std::optional<int> checkConfig(const RunArgs& a, Config& cfg) {
  // Before anything runs (the no-GPU exit included).
  if (auto status = admitConfig(a.config, a.consent, true, &cfg)) return status;
  // The overrides pass the consent check the config's own options pass.
  if (std::string why = applyCompileOverrides(cfg, a.compile); !why.empty())
    return usageError(a.config + ": " + why);
  if (std::string why = consentProblem(cfg, a.consent); !why.empty())
    return usageError(a.config + ": " + why);
  if (a.trials > 0 && a.verb == "sweep") {
    try {
      checkCaptureCount(cfg, a.trials, "--trials");
    } catch (const ConfigError& e) {
      return usageError(e.what());
    }
  }
  return std::nullopt;
}

/// A folder the workers of a local sweep share, removed when the run ends.
struct SharedFolder {
  std::string path;
  ~SharedFolder() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

/// How the session's workers run: where (this machine or --remote), how many,
/// on which GPUs, with which limits and counters, traced or not. "" or why not.
std::string sessionOptions(const RunArgs& a, const Config& cfg, std::size_t points, SessionOptions& opts,
                           std::unique_ptr<RemoteFolder>& remoteCopy, SharedFolder& baselineCache) {
  opts.configPath = std::filesystem::absolute(a.config).string();
  if (!a.remote.empty()) {
    if (std::string why = setUpRemote(a.remote, a.remoteShared, cfg, opts, remoteCopy); !why.empty())
      return why;
  } else {
    opts.workerCommand = {selfExecutable()};
  }
  opts.trials = a.trials > 0 ? a.trials : cfg.trials;
  opts.allowCommands = a.consent.commands;
  opts.extraWorkerArgs = consentArgs(a.consent);
  for (const std::string& c : compileOverrideArgs(a.compile)) opts.extraWorkerArgs.push_back(c);
  for (const std::string& c : counterArgs(a.counters)) opts.extraWorkerArgs.push_back(c);
  // The workers of a local sweep profile the baseline once between them
  // (docs/report.md, counters): a folder they share.
  if (a.remote.empty() && points > 1) {
    char t[] = "/tmp/tilescope-baseline-XXXXXX";
    if (::mkdtemp(t)) {
      baselineCache.path = t;
      opts.extraWorkerArgs.insert(opts.extraWorkerArgs.end(), {"--baseline-cache", baselineCache.path});
    }
  }
  // A sweep's points are compared by their counters; their PCs are sampled
  // with the full set (a point run alone samples a slow kernel's).
  if (points > 1) opts.extraWorkerArgs.push_back("--no-slow-sampling");
  opts.jobs = a.jobs;
  opts.devices = a.jobs > 1 ? localGpus() : std::vector<int>{0};
  opts.timeoutS = a.timeoutS;
  opts.launchTimeoutS = a.launchTimeoutS;
  // The tracer patches the context it starts with: a traced capture gets its own.
  opts.warmWorkers = !a.freshWorkers && !a.trace;
  if (a.trace) {
    opts.extraWorkerArgs.insert(opts.extraWorkerArgs.end(), {"--trace", "--trace-mode", a.traceMode});
    if (a.traceCells > 0)
      opts.extraWorkerArgs.insert(opts.extraWorkerArgs.end(),
                                  {"--trace-cells", std::to_string(a.traceCells)});
    // A traced launch runs many times slower than the kernel: more time for the worker.
    if (opts.timeoutS <= 0) opts.timeoutS = 4 * defaultWorkerTimeout(cfg) + 120;
  }
  return "";
}

/// What the workers stream, on stderr for a person (and on stdout with --stream):
/// progress lines, and a line per finished capture.
class RunProgress {
 public:
  RunProgress(const RunArgs& a, std::size_t total) : m_args(a), m_total(total) {}
  void operator()(const StreamEvent& e) {
    std::lock_guard<std::mutex> lock(m_io);
    if (m_args.stream) {
      StreamEvent out = e;
      out.tags.total = static_cast<std::int64_t>(m_total);
      std::cout << toLine(out) << '\n' << std::flush;
    }
    const int pointIndex = e.tags.pointIndex.value_or(0), trial = e.tags.trial.value_or(0);
    if (const auto* pr = std::get_if<ProgressEvent>(&e.body)) {
      char at[32] = "";
      if (pr->t) std::snprintf(at, sizeof at, " %6.2f s", *pr->t);
      std::cerr << "  [" << pointIndex << "." << trial << at << "] " << pr->message << '\n';
    } else if (const auto* pe = std::get_if<PointEvent>(&e.body)) {
      ++m_done;
      const Point& p = pe->point;
      // Without the Sanitizer API the trace says so once, in one line.
      if (m_args.trace && !m_traceNoted && !p.trace.status.empty() && p.trace.status != "ok") {
        m_traceNoted = true;
        std::cerr << "trace " << p.trace.status << ": " << p.trace.reason << " (the capture ran untraced)\n";
      }
      std::cerr << "point " << m_done << "/" << m_total << " " << p.label << " trial " << p.trial << ": "
                << verdictName(p.verdict) << '\n';
    }
  }

 private:
  const RunArgs& m_args;
  const std::size_t m_total;
  std::mutex m_io;
  std::size_t m_done = 0;
  bool m_traceNoted = false;
};

}  // namespace

namespace {

/// run --stages: the stages of the captured points, compiled here for the
/// architecture the worker compiled for (the first kMaxStagePoints points).
void addStages(Report& report, const Config& cfg) {
  const std::vector<SweepPoint> sweep = expandSweep(cfg);
  int done = 0;
  for (auto& p : report.points) {
    if (done >= kMaxStagePoints || p.status.noGpu) continue;
    const auto sp =
        std::find_if(sweep.begin(), sweep.end(), [&](const auto& s) { return s.index == p.index; });
    if (sp == sweep.end()) continue;
    std::cerr << "stages of " << cfg.name << (sweep.size() > 1 ? " [" + sp->label() + "]" : "") << "\n";
    attachStages(p, sp->config, p.compile.arch);
    ++done;
  }
}

}  // namespace

int cmdRun(const RunArgs& a) {
  Config cfg;
  if (auto failed = checkConfig(a, cfg)) return *failed;
  if (a.verb == "run" && !cfg.sweep.empty())
    std::cerr << "note: " << cfg.name
              << " has a sweep; `run` captures its first point (use `sweep` for all)\n";
  std::size_t points = sweepPointCount(sessionConfig(cfg, a.verb));
  std::optional<Shard> shard;
  if (!a.shard.empty()) {
    try {
      shard = parseShard(a.shard);
    } catch (const std::invalid_argument& e) {
      return usageError(e.what());
    }
    const auto [begin, end] = shardBounds(points, *shard);
    points = end - begin;
  }

  SessionOptions opts;
  std::unique_ptr<RemoteFolder> remoteCopy;  // removed from the host when the run ends
  SharedFolder baselineCache;                // removed when the run ends
  if (std::string why = sessionOptions(a, cfg, points, opts, remoteCopy, baselineCache); !why.empty())
    return usageError(why);
  opts.shard = shard;
  const std::size_t total = points * static_cast<std::size_t>(std::max(1, opts.trials));
  RunProgress progress(a, total);
  opts.onEvent = [&progress](const StreamEvent& e) { progress(e); };
  std::cerr << a.verb << " " << cfg.name << ": " << total << " capture(s)\n";
  Report report = runSession(cfg, a.verb, opts);
  // The stages compile the kernel here, in this process: a Python kernel with the
  // consent the workers were given (without it, confined, or refused without a sandbox).
  setPythonKernelsTrusted(a.consent.commands);
  if (a.stages) addStages(report, sessionConfig(cfg, a.verb));

  bool noGpu = !report.points.empty();
  for (const auto& p : report.points) noGpu = noGpu && p.status.noGpu;
  if (noGpu) {
    // A shard's report is one part of a sweep that `sweep --slurm` gathers: it is
    // written even here, so that the gatherer can tell "no GPU on that node" from
    // "the task died".
    if (shard && !a.output.empty()) saveReport(report, a.output);
    return noGpuExit(report.points.front().status);
  }
  return finishReport(report, a.output, a.stream);
}

int noGpuExit(const PointStatus& status) {
  std::cerr << (status.remoteUnreachable ? "tilescope-run: error: "
                                         : "tilescope-run: no GPU or CUDA driver available: ")
            << status.workerError << '\n';
  return kExitNoGpu;
}

int finishReport(const Report& report, const std::string& output, bool stream) {
  printSummary(report, std::cerr);
  if (stream) std::cout << toLine({ReportEvent{report}, {}}) << '\n' << std::flush;
  if (!output.empty()) {
    saveReport(report, output);
    std::cerr << "report written to " << output << '\n';
  }
  return exitCodeFor(report);
}

Verb addRunCommand(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* r = app.add_subcommand("run", "one capture in an isolated worker (needs a GPU)");
  addRunOptions(r, *a);
  addCompileOverrideOptions(r, a->compile);
  r->add_flag(
      "--stages", a->stages,
      "add the compiler stages (PTX, SASS, Triton's IR) with source lines, compiled here without a GPU");
  return {r, [a] {
            a->verb = "run";
            return cmdRun(*a);
          }};
}

}  // namespace tilescope::cli
