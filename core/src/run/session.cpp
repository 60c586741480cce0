// The parent side of the worker protocol. Each worker prints stream events on
// stdout; the last `point` event is its result. A worker that dies or outlives
// its limits is described from the outside: `fault` with the signal, or `hang`
// with the phase that did not finish.
#include "tilescope/run/session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "tilescope/base/format.h"
#include "tilescope/base/json_input.h"
#include "tilescope/base/process.h"
#include "tilescope/logs/device_output.h"
#include "tilescope/run/baseline.h"
#include "tilescope/run/remote.h"

namespace tilescope {

using nlohmann::json;

double defaultWorkerTimeout(const Config& config) {
  if (config.run.timeoutS > 0) return config.run.timeoutS;
  // compile (a cold NVRTC compile takes seconds), context creation, allocation,
  // kernel + baseline timing budgets, reference computation, copies.
  return 60.0 + 4.0 * config.run.timeBudgetS;
}

namespace {

Point pointShell(const SweepPoint& sp, int trial) {
  Point p;
  p.index = sp.index;
  p.trial = trial;
  p.label = sp.label();
  p.defines = pointDefines(sp.config);
  for (const auto& [k, v] : sp.config.params) p.params[k] = v;
  return p;
}

Finding hangFinding(const ChildResult& r, double limit, const std::string& phase) {
  Finding f;
  f.category = "hang";
  f.severity = Severity::error;
  bool inLaunch = phase == "launch";
  f.message = inLaunch ? "the kernel did not finish within " + std::to_string(static_cast<int>(limit)) +
                             " s of its launch; the watchdog killed the worker"
                       : "the worker did not finish within " + std::to_string(static_cast<int>(limit)) +
                             " s (phase: " + (phase.empty() ? "total" : phase) + "); the watchdog killed it";
  f.evidence = {{"limit_s", limit}, {"phase", phase.empty() ? "total" : phase}, {"elapsed_s", r.seconds}};
  f.location.phase = phase.empty() ? "total" : phase;
  f.treeNode = "fault.hang";
  return f;
}

/// The command that starts a worker with `args` (quoted for ssh's remote shell).
std::vector<std::string> workerArgv(const SessionOptions& opts, const std::vector<std::string>& args) {
  std::vector<std::string> argv = opts.workerCommand;
  for (const auto& a : args) argv.push_back(opts.workerThroughShell ? shellQuote(a) : a);
  return argv;
}

/// Reads one worker's stream for one capture and turns whatever happened to the
/// worker (a result, a crash, a hang) into its Point. Each line is read once: the
/// watchdog sees it first (runChild calls it before onLine), onLine reuses what
/// it read. The last line of a worker that ended without a newline reaches onLine only.
class PointReader {
 public:
  PointReader(const SweepPoint& sp, int trial, const SessionOptions& opts, DeviceInfo* deviceOut)
      : sp_(sp), trial_(trial), opts_(opts), deviceOut_(deviceOut), result_(pointShell(sp, trial)) {}

  bool gotPoint() const { return gotPoint_; }
  const Point& point() const { return result_; }
  /// A line that could not be read and was meant as the result (a `point`, or no
  /// event that can be named).
  bool unreadableResult() const {
    return !readError_.empty() && (readErrorEvent_ == "point" || readErrorEvent_.empty());
  }

  double watchdog(const std::string& line, std::string* name) {
    read(line);
    const auto* e = readEvent_ ? std::get_if<PhaseEvent>(&readEvent_->body) : nullptr;
    if (!e) return 0;
    lastPhase_ = phaseName(e->phase);
    *name = lastPhase_;
    if (e->phase == Phase::launch) return opts_.launchTimeoutS;
    return -1;  // any other phase: the launch finished
  }

  void onLine(const std::string& line) {
    read(line);
    if (!readError_.empty()) {
      if (streamError_.empty()) streamError_ = clipForMessage(readError_, 2000);
      if (readErrorEvent_ == "partial") partial_.reset();  // a malformed checkpoint is no checkpoint
      return;
    }
    if (!readEvent_) return;  // not an event: a library's or a wrapper's text
    StreamEvent& e = *readEvent_;
    if (auto* p = std::get_if<PointEvent>(&e.body)) {
      result_ = p->point;
      gotPoint_ = true;
    } else if (auto* c = std::get_if<PartialEvent>(&e.body)) {
      partial_ = c->point;
    } else if (auto* g = std::get_if<ProgressEvent>(&e.body)) {
      lastProgress_ = g->message;
    } else if (auto* d = std::get_if<DeviceEvent>(&e.body)) {
      if (deviceOut_) *deviceOut_ = d->device;
      result_.gpu = d->gpu;  // a capture that dies before its point still says where it ran
    }
    if (opts_.onEvent) {
      e.tags.pointIndex = sp_.index;
      e.tags.trial = trial_;
      opts_.onEvent(e);
    }
  }

  /// The point, given how the worker's part in it ended (`total`: its limit).
  Point finish(const ChildResult& r, double total);

 private:
  void read(const std::string& line) {
    if (!readLine_.empty() && line == readLine_) return;
    readLine_ = line;
    readEvent_.reset();
    readError_.clear();
    readErrorEvent_.clear();
    try {
      readEvent_ = parseStreamEvent(line);
    } catch (const StreamError& e) {
      readError_ = e.what();
      readErrorEvent_ = e.event();
    }
  }

  const SweepPoint& sp_;
  int trial_;
  const SessionOptions& opts_;
  DeviceInfo* deviceOut_;
  std::string readLine_;
  std::optional<StreamEvent> readEvent_;
  std::string readError_, readErrorEvent_;
  std::string lastPhase_, lastProgress_;
  Point result_;
  bool gotPoint_ = false;
  std::optional<Point> partial_;  // the capture before the profiling pass
  std::string streamError_;       // the first line that could not be read
};

Point PointReader::finish(const ChildResult& r, double total) {
  result_.index = sp_.index;
  result_.trial = trial_;
  result_.label = sp_.label();
  result_.workerStderr = r.stderrText;
  result_.wallSeconds = r.seconds;
  result_.status.streamError = streamError_;

  if (!r.started) {
    result_.verdict = Verdict::launch_error;
    result_.launch.error = r.startError;
    result_.status.workerError = r.startError;
    return result_;
  }
  if (!gotPoint_ && partial_ && (r.timedOut || r.signal != 0 || r.exitCode != kExitNoGpu)) {
    // The kernel ran, was checked and timed; the worker died in the profiling
    // pass (CUPTI's profilers over the kernel or the baseline's library calls).
    // That is the tool's failure, not the kernel's: keep the capture, say what died.
    Point kept = std::move(*partial_);
    const std::string how = r.timedOut ? "stopped by the watchdog after " + std::to_string(int(total)) + " s"
                            : r.signal != 0 ? "killed by " + signalDescription(r.signal)
                                            : "ended with status " + std::to_string(r.exitCode);
    const std::string where = "the worker was " + how + " in the profiling pass" +
                              (lastProgress_.empty() ? std::string() : " (at: " + lastProgress_ + ")");
    kept.counters.passFailed = true;
    if (kept.counters
            .collected) {  // the checkpoint after the kernel's counters: only the baseline's are lost
      kept.counters.baselineNote =
          where + "; the kernel's counters are kept, the baseline's counters and the PC samples are lost";
      kept.status.workerError = kept.counters.baselineNote;
    } else {
      kept.counters.note =
          where +
          "; the capture before it is kept, without counters (run with --no-counters to skip the pass)";
      kept.status.workerError = kept.counters.note;
    }
    kept.status.workerExit = r.signal != 0 ? 128 + r.signal : r.exitCode;  // as a shell reports it
    result_ = std::move(kept);
    result_.workerStderr = r.stderrText;
    result_.wallSeconds = r.seconds;
    result_.status.streamError = streamError_;
    return result_;
  }
  if (r.timedOut) {
    double limit = r.timeoutPhase == "launch" ? opts_.launchTimeoutS : total;
    result_.findings.push_back(hangFinding(r, limit, r.timeoutPhase));
    result_.verdict = worse(result_.verdict, Verdict::hang);
    return result_;
  }
  if (!gotPoint_ && !opts_.remoteHost.empty() && r.exitCode == kSshConnectionFailed) {
    // ssh itself failed (no route, unknown host, refused key): nothing ran there.
    // Like a machine without a GPU, no capture is possible: no_gpu stops the
    // session's callers, remote_unreachable says why.
    std::string why = r.stderrText.substr(0, 2000);
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
    result_.status.noGpu = true;
    result_.status.remoteUnreachable = true;
    result_.status.workerExit = r.exitCode;
    result_.status.workerError =
        "cannot reach host '" + opts_.remoteHost + "' over ssh" + (why.empty() ? "" : ": " + why);
    return result_;
  }
  if (r.signal != 0 && !gotPoint_) {
    Finding f;
    f.category = "illegal_address";
    f.severity = Severity::error;
    f.message = "the worker was killed by " + signalDescription(r.signal) +
                (lastPhase_.empty() ? "" : " during phase '" + lastPhase_ + "'");
    f.evidence = {{"signal", r.signal}, {"phase", lastPhase_}};
    f.treeNode = "fault.illegal_address";
    result_.findings.push_back(f);
    result_.verdict = worse(result_.verdict, Verdict::fault);
    return result_;
  }
  if (gotPoint_) locateDeviceAssert(result_, r.stderrText);  // CUDA prints failed asserts on stderr
  if (!gotPoint_) {
    // The worker ended without a result: a configuration problem it reported on
    // stderr (exit 2), no GPU (exit 3), an internal error, or a result line
    // that could not be read (a broken or mismatched worker).
    std::string why = !streamError_.empty()  ? "its result could not be read: " + streamError_
                      : r.stderrText.empty() ? "no output"
                                             : r.stderrText.substr(0, 2000);
    result_.status.workerExit = r.exitCode;
    result_.status.workerError = why;
    if (r.exitCode == kExitNoGpu) {
      result_.status.noGpu = true;
    } else {
      // Nothing says the kernel faulted: the tool's side failed (issue 31, N8).
      Finding f;
      f.category = "worker_error";
      f.severity = Severity::error;
      f.message = "the worker exited with status " + std::to_string(r.exitCode) + " without a result: " + why;
      f.evidence = {{"exit_code", r.exitCode}, {"phase", lastPhase_}};
      f.treeNode = std::string(categoryInfo(f.category).treeNode);
      result_.findings.push_back(f);
      result_.verdict = worse(result_.verdict, categoryInfo(f.category).verdict);
    }
  }
  return result_;
}

}  // namespace

Point runWorkerPoint(const Config& config, const SweepPoint& sp, int trial, int device,
                     const SessionOptions& opts, DeviceInfo* deviceOut) {
  std::vector<std::string> args = {"worker",  opts.configPath,       "--point", std::to_string(sp.index),
                                   "--trial", std::to_string(trial), "--gpu",   std::to_string(device)};
  args.insert(args.end(), opts.extraWorkerArgs.begin(), opts.extraWorkerArgs.end());
  const double total = opts.timeoutS > 0 ? opts.timeoutS : defaultWorkerTimeout(config);
  PointReader reader(sp, trial, opts, deviceOut);
  ChildResult r = runChild(
      workerArgv(opts, args), total, [&](const std::string& line) { reader.onLine(line); },
      [&](const std::string& line, std::string* name) { return reader.watchdog(line, name); });
  return reader.finish(r, total);
}

WarmWorker::WarmWorker() : child_(std::make_unique<ServedChild>()) {}
WarmWorker::~WarmWorker() { retire(); }

void WarmWorker::retire() {
  if (child_->running()) (void)child_->finish(10);
}

Point WarmWorker::capture(const Config& config, const SweepPoint& sp, int trial, int device,
                          const SessionOptions& opts, DeviceInfo* deviceOut) {
  const double total = opts.timeoutS > 0 ? opts.timeoutS : defaultWorkerTimeout(config);
  for (int attempt = 0;; ++attempt) {
    if (!child_->running() || device != device_) {
      retire();
      std::vector<std::string> args = {"worker", opts.configPath, "--serve", "--gpu", std::to_string(device)};
      args.insert(args.end(), opts.extraWorkerArgs.begin(), opts.extraWorkerArgs.end());
      device_ = device;
      served_ = 0;
      ++started_;
      if (std::string why = child_->start(workerArgv(opts, args)); !why.empty()) {
        ChildResult r;
        r.startError = why;
        return PointReader(sp, trial, opts, deviceOut).finish(r, total);
      }
    }
    PointReader reader(sp, trial, opts, deviceOut);
    // The answer ends with its point, or with a line that should have been the
    // point and cannot be read (the worker's state is unknown then: it is ended).
    ChildResult r = child_->request(
        toRequestLine({sp.index, trial}), total, [&](const std::string& line) { reader.onLine(line); },
        [&](const std::string& line, std::string* name) { return reader.watchdog(line, name); },
        [&](const std::string&) { return reader.gotPoint() || reader.unreadableResult(); });
    // A worker that served earlier captures and had ended before this request
    // ran none of it: a fresh one does. One that never served any died starting,
    // which is this capture's outcome (no GPU, a config it cannot load).
    if (attempt == 0 && served_ > 0 && (r.unread || (!reader.gotPoint() && r.exitCode == kExitWorkerStale)))
      continue;
    ++served_;
    if (child_->running() && (!reader.gotPoint() || needsFreshWorker(reader.point()))) {
      // What it says on its way out (a failed assert's text) belongs to this capture.
      const ChildResult end = child_->finish(10);
      r.stderrText += end.stderrText;
      if (!reader.gotPoint()) {
        r.exitCode = end.exitCode;
        r.signal = end.signal;
      }
    }
    return reader.finish(r, total);
  }
}

bool needsFreshWorker(const Point& p) {
  if (p.status.stickyError.value_or(false) || p.verdict == Verdict::fault || p.verdict == Verdict::hang)
    return true;
  // A profiling pass that failed may leave CUPTI's state behind it broken.
  if (p.counters.passFailed) return true;
  // A write past a tensor may have landed in memory the next capture uses.
  return std::any_of(p.findings.begin(), p.findings.end(), [](const Finding& f) {
    return f.category == "oob_write" || f.category == "illegal_address" || f.category == "uninitialized_read";
  });
}

json runOutcome(const Point& p, bool withMaxErr, bool withDigest) {
  const Verdict v = p.verdict == Verdict::slow ? Verdict::ok : p.verdict;
  json s = {{"verdict", verdictName(v)}};
  // The digest decides exactly where both runs have one (trials of one point
  // start from identical inputs and sentinels); the figures are what every
  // point carries.
  if (withDigest && !p.status.outputDigest.empty()) s["digest"] = p.status.outputDigest;
  json outs = json::object();
  for (const auto& c : p.correctness) {
    if (!c.checked) continue;
    json o = {{"mismatches", c.mismatches}, {"nan", c.nan}, {"inf", c.inf}};
    if (withMaxErr) o["max_abs_err"] = c.maxAbsErr;
    outs[c.tensor.empty() ? "?" : c.tensor] = o;
  }
  for (const auto& cov : p.coverage)
    if (cov.measured) outs[cov.tensor]["unwritten"] = cov.unwritten;
  if (!outs.empty()) s["outputs"] = outs;
  return s;
}

namespace {

/// The GPUs trials of one point ran on, by UUID ("" when only one, or unknown).
std::map<std::string, std::vector<const Point*>> byGpu(const std::vector<Point*>& pts) {
  std::map<std::string, std::vector<const Point*>> groups;
  for (const Point* p : pts)
    if (!p->gpu.uuid.empty()) groups[p->gpu.uuid].push_back(p);
  return groups;
}

/// Each trial's GPU when the trials ran on more than one: [{trial, uuid, name, ordinal, host}].
json trialGpus(const std::vector<Point*>& pts) {
  if (byGpu(pts).size() < 2) return json::array();
  json out = json::array();
  for (const Point* p : pts)
    out.push_back({{"trial", p->trial},
                   {"uuid", p->gpu.uuid},
                   {"name", p->gpu.name},
                   {"ordinal", p->gpu.ordinal},
                   {"host", p->gpu.host}});
  return out;
}

}  // namespace

std::optional<Finding> gpuVarianceFinding(const std::vector<Point*>& pts, int index) {
  // Per GPU, the trials' kernel times: the fastest and slowest GPU differ when
  // their ranges (p10..p90 over every trial on them) do not overlap, by at least 10 %.
  struct Range {
    double lo = 1e300, hi = 0, median = 0;
    const Point* first = nullptr;
  };
  std::map<std::string, Range> ranges;
  for (const auto& [uuid, trials] : byGpu(pts)) {
    Range r;
    std::vector<double> medians;
    for (const Point* p : trials) {
      if (!p->timing.measured || p->timing.kernelNs.median <= 0) continue;
      r.lo = std::min(r.lo, p->timing.kernelNs.p10);
      r.hi = std::max(r.hi, p->timing.kernelNs.p90);
      medians.push_back(p->timing.kernelNs.median);
      if (!r.first) r.first = p;
    }
    if (medians.empty()) continue;
    std::sort(medians.begin(), medians.end());
    r.median = medians[medians.size() / 2];
    ranges[uuid] = r;
  }
  if (ranges.size() < 2) return std::nullopt;
  auto byMedian = [](const auto& a, const auto& b) { return a.second.median < b.second.median; };
  const auto fast = std::min_element(ranges.begin(), ranges.end(), byMedian);
  const auto slow = std::max_element(ranges.begin(), ranges.end(), byMedian);
  const double ratio = slow->second.median / fast->second.median;
  if (ratio < 1.10 || slow->second.lo <= fast->second.hi) return std::nullopt;
  auto describe = [](const Range& r) {
    const GpuRecord& g = r.first->gpu;
    std::string s = formatDuration(r.median) + " on GPU " + std::to_string(g.ordinal);
    if (!g.host.empty()) s += " of " + g.host;
    s += " (" + g.uuid + (g.smClockMHz > 0 ? ", SM " + std::to_string(int(g.smClockMHz)) + " MHz" : "") + ")";
    return s;
  };
  Finding f;
  f.category = "gpu_variance";
  f.severity = Severity::warning;
  f.message = "the same point runs " + std::to_string(int(std::lround((ratio - 1) * 100))) +
              " % slower on one GPU: " + describe(slow->second) + " against " + describe(fast->second) +
              "; check clocks, power limits and other work on the slower GPU before comparing points run on "
              "different GPUs";
  json gpus = json::array();
  for (const auto& [uuid, r] : ranges)
    gpus.push_back({{"uuid", uuid},
                    {"name", r.first->gpu.name},
                    {"ordinal", r.first->gpu.ordinal},
                    {"host", r.first->gpu.host},
                    {"median_ns", r.median},
                    {"p10_ns", r.lo},
                    {"p90_ns", r.hi},
                    {"sm_clock_mhz", r.first->gpu.smClockMHz}});
  f.evidence = {{"ratio", ratio}, {"gpus", gpus}};
  f.location.point = index;
  f.treeNode = std::string(categoryInfo("gpu_variance").treeNode);
  return f;
}

void summariseTrials(Report& report, int trials) {
  // Group points by sweep index.
  std::map<int, std::vector<Point*>> byIndex;
  for (auto& p : report.points) byIndex[p.index].push_back(&p);
  ResultMatrix matrix;
  matrix.trials = trials;
  for (auto& [index, pts] : byIndex) {
    matrix.points.push_back(pts.front()->label);
    auto& row = matrix.verdicts.emplace_back();
    for (auto* p : pts) row.push_back(p->verdict);
    if (pts.size() < 2) continue;
    if (auto f = gpuVarianceFinding(pts, index))
      for (auto* p : pts) p->findings.push_back(*f);
    // Trials of one point must agree: a deterministic kernel on identical inputs
    // gives identical bits.
    bool differ = false;
    json seen = json::array();
    for (auto* p : pts) {
      json sig = runOutcome(*p);
      seen.push_back(sig);
      if (sig != seen.front()) differ = true;
    }
    if (!differ) continue;
    Finding f;
    f.category = "race";
    f.severity = Severity::error;
    f.message = "trials of " + (pts.front()->label.empty() ? std::string("the point") : pts.front()->label) +
                " disagree on identical inputs: " + std::to_string(pts.size()) + " trials, outcomes " +
                seen.dump();
    f.evidence = {{"trials", seen}};
    if (const json gpus = trialGpus(pts); !gpus.empty()) {
      f.evidence["gpus"] =
          gpus;  // trial by trial: a difference that follows the GPU is not a race in the kernel
      f.message += "; the trials ran on " + std::to_string(gpus.size()) + " GPUs: compare them by gpu.uuid";
    }
    f.location.point = index;
    f.treeNode = "fault.race";
    for (auto* p : pts) {
      p->findings.push_back(f);
      p->verdict = worse(p->verdict, Verdict::incorrect);
    }
  }
  report.matrix = std::move(matrix);
}

Config sessionConfig(const Config& config, const std::string& verb) {
  // The worker captures point 0 of the file: the report's config is that point's
  // (the sweep's first values), not the defines the sweep overrides.
  if (verb == "run" && !config.sweep.empty()) return expandSweep(config).front().config;
  return config;
}

Report runSession(const Config& file, const std::string& verb, const SessionOptions& opts) {
  const Config config = sessionConfig(file, verb);
  Report report;
  report.verb = verb;
  report.toolVersion = toolVersion();
  report.createdAt = nowIso8601();
  report.host = hostName();
  report.config = configToJson(config);

  std::vector<SweepPoint> points = expandSweep(config);
  if (opts.shard) {  // a shard of the sweep (shard.h): its block of points, every trial
    const auto [begin, end] = shardBounds(points.size(), *opts.shard);
    points = std::vector<SweepPoint>(points.begin() + static_cast<std::ptrdiff_t>(begin),
                                     points.begin() + static_cast<std::ptrdiff_t>(end));
    std::vector<int> indices;
    for (const auto& sp : points) indices.push_back(sp.index);
    report.extra["shard"] = shardJson(*opts.shard, indices);
  }
  struct Job {
    std::size_t point;
    int trial;
  };
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < points.size(); ++i)
    for (int t = 0; t < std::max(1, opts.trials); ++t) jobs.push_back({i, t});

  std::vector<Point> results(jobs.size());
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  DeviceInfo device;
  bool haveDevice = false;
  int workers = 0;  // processes started
  auto workerLoop = [&](int slot) {
    int gpu = opts.devices.empty() ? 0 : opts.devices[static_cast<std::size_t>(slot) % opts.devices.size()];
    WarmWorker warm;  // this slot's worker, while its points allow
    int fresh = 0;    // one-capture workers this slot started
    for (std::size_t j; (j = next.fetch_add(1)) < jobs.size();) {
      DeviceInfo d;
      const SweepPoint& sp = points[jobs[j].point];
      Point p = opts.warmWorkers ? warm.capture(config, sp, jobs[j].trial, gpu, opts, &d)
                                 : runWorkerPoint(config, sp, jobs[j].trial, gpu, opts, &d);
      fresh += opts.warmWorkers ? 0 : 1;
      std::lock_guard<std::mutex> lock(mu);
      if (!haveDevice && !d.name.empty()) {
        device = d;
        haveDevice = true;
      }
      results[j] = std::move(p);
    }
    std::lock_guard<std::mutex> lock(mu);
    workers += warm.started() + fresh;
  };
  int nthreads = std::max(1, std::min<int>(opts.jobs, static_cast<int>(jobs.size())));
  std::vector<std::thread> threads;
  for (int s = 0; s < nthreads; ++s) threads.emplace_back(workerLoop, s);
  for (auto& t : threads) t.join();

  report.points = std::move(results);
  report.device = device;
  report.extra["workers"] = {{"warm", opts.warmWorkers}, {"started", workers}};
  if (opts.allowCommands)  // where the workers ran: on the remote host, in the config's folder there
    applyCommandBaseline(report.points, config, 300, opts.remoteHost,
                         std::filesystem::path(opts.configPath).parent_path().string());
  summariseTrials(report, std::max(1, opts.trials));
  report.finalize();
  return report;
}

}  // namespace tilescope
