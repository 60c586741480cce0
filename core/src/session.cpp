// The parent side of the worker protocol. Each worker prints stream events on
// stdout; the last `point` event is its result. A worker that dies or outlives
// its limits is described from the outside: `fault` with the signal, or `hang`
// with the phase that did not finish.
#include "tilescope/session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "tilescope/baseline.h"
#include "tilescope/device_output.h"
#include "tilescope/json_input.h"
#include "tilescope/process.h"
#include "tilescope/remote.h"

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

}  // namespace

Point runWorkerPoint(const Config& config, const SweepPoint& sp, int trial, int device,
                     const SessionOptions& opts, DeviceInfo* deviceOut) {
  std::vector<std::string> args = {"worker", opts.configPath, "--point", std::to_string(sp.index), "--trial",
                                   std::to_string(trial), "--gpu", std::to_string(device)};
  args.insert(args.end(), opts.extraWorkerArgs.begin(), opts.extraWorkerArgs.end());
  std::vector<std::string> argv = opts.workerCommand;
  for (const auto& a : args) argv.push_back(opts.workerThroughShell ? shellQuote(a) : a);

  const double total = opts.timeoutS > 0 ? opts.timeoutS : defaultWorkerTimeout(config);
  // Each line is read once: the watchdog sees it first (runChild calls it before
  // onLine), onLine reuses what it read. The last line of a worker that ended
  // without a newline reaches onLine only.
  std::string readLine;
  std::optional<StreamEvent> readEvent;
  std::string readError, readErrorEvent;
  auto read = [&](const std::string& line) {
    if (!readLine.empty() && line == readLine) return;
    readLine = line;
    readEvent.reset();
    readError.clear();
    readErrorEvent.clear();
    try {
      readEvent = parseStreamEvent(line);
    } catch (const StreamError& e) {
      readError = e.what();
      readErrorEvent = e.event();
    }
  };
  std::string lastPhase;
  auto watchdog = [&](const std::string& line, std::string* name) -> double {
    read(line);
    const auto* e = readEvent ? std::get_if<PhaseEvent>(&readEvent->body) : nullptr;
    if (!e) return 0;
    lastPhase = phaseName(e->phase);
    *name = lastPhase;
    if (e->phase == Phase::launch) return opts.launchTimeoutS;
    return -1;  // any other phase: the launch finished
  };

  Point result = pointShell(sp, trial);
  bool gotPoint = false;
  std::optional<Point> partial;  // the capture before the profiling pass
  std::string lastProgress;
  std::string streamError;       // the first line that could not be read
  auto onLine = [&](const std::string& line) {
    read(line);
    if (!readError.empty()) {
      if (streamError.empty()) streamError = clipForMessage(readError, 2000);
      if (readErrorEvent == "partial") partial.reset();  // a malformed checkpoint is no checkpoint
      return;
    }
    if (!readEvent) return;  // not an event: a library's or a wrapper's text
    StreamEvent& e = *readEvent;
    if (auto* p = std::get_if<PointEvent>(&e.body)) {
      result = p->point;
      gotPoint = true;
    } else if (auto* c = std::get_if<PartialEvent>(&e.body)) {
      partial = c->point;
    } else if (auto* g = std::get_if<ProgressEvent>(&e.body)) {
      lastProgress = g->message;
    } else if (auto* d = std::get_if<DeviceEvent>(&e.body); d && deviceOut) {
      *deviceOut = d->device;
    }
    if (opts.onEvent) {
      e.tags.pointIndex = sp.index;
      e.tags.trial = trial;
      opts.onEvent(e);
    }
  };
  ChildResult r = runChild(argv, total, onLine, watchdog);
  result.index = sp.index;
  result.trial = trial;
  result.label = sp.label();
  result.workerStderr = r.stderrText;
  result.wallSeconds = r.seconds;
  result.status.streamError = streamError;

  if (!r.started) {
    result.verdict = Verdict::launch_error;
    result.launch.error = r.startError;
    result.status.workerError = r.startError;
    return result;
  }
  if (!gotPoint && partial && (r.timedOut || r.signal != 0 || r.exitCode != kExitNoGpu)) {
    // The kernel ran, was checked and timed; the worker died in the profiling
    // pass (CUPTI's profilers over the kernel or the baseline's library calls).
    // That is the tool's failure, not the kernel's: keep the capture, say what died.
    Point kept = std::move(*partial);
    const std::string how = r.timedOut   ? "stopped by the watchdog after " + std::to_string(int(total)) + " s"
                            : r.signal != 0 ? "killed by " + signalDescription(r.signal)
                                            : "ended with status " + std::to_string(r.exitCode);
    const std::string where = "the worker was " + how + " in the profiling pass" +
                              (lastProgress.empty() ? std::string() : " (at: " + lastProgress + ")");
    if (kept.counters.collected) {  // the checkpoint after the kernel's counters: only the baseline's are lost
      kept.counters.baselineNote = where + "; the kernel's counters are kept, the baseline's counters and the PC samples are lost";
      kept.status.workerError = kept.counters.baselineNote;
    } else {
      kept.counters.note =
          where + "; the capture before it is kept, without counters (run with --no-counters to skip the pass)";
      kept.status.workerError = kept.counters.note;
    }
    kept.status.workerExit = r.signal != 0 ? 128 + r.signal : r.exitCode;  // as a shell reports it
    result = std::move(kept);
    result.workerStderr = r.stderrText;
    result.wallSeconds = r.seconds;
    result.status.streamError = streamError;
    return result;
  }
  if (r.timedOut) {
    double limit = r.timeoutPhase == "launch" ? opts.launchTimeoutS : total;
    result.findings.push_back(hangFinding(r, limit, r.timeoutPhase));
    result.verdict = worse(result.verdict, Verdict::hang);
    return result;
  }
  if (!gotPoint && !opts.remoteHost.empty() && r.exitCode == kSshConnectionFailed) {
    // ssh itself failed (no route, unknown host, refused key): nothing ran there.
    // Like a machine without a GPU, no capture is possible: no_gpu stops the
    // session's callers, remote_unreachable says why.
    std::string why = r.stderrText.substr(0, 2000);
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
    result.status.noGpu = true;
    result.status.remoteUnreachable = true;
    result.status.workerExit = r.exitCode;
    result.status.workerError = "cannot reach host '" + opts.remoteHost + "' over ssh" + (why.empty() ? "" : ": " + why);
    return result;
  }
  if (r.signal != 0 && !gotPoint) {
    Finding f;
    f.category = "illegal_address";
    f.severity = Severity::error;
    f.message = "the worker was killed by " + signalDescription(r.signal) +
                (lastPhase.empty() ? "" : " during phase '" + lastPhase + "'");
    f.evidence = {{"signal", r.signal}, {"phase", lastPhase}};
    f.treeNode = "fault.illegal_address";
    result.findings.push_back(f);
    result.verdict = worse(result.verdict, Verdict::fault);
    return result;
  }
  if (gotPoint) locateDeviceAssert(result, r.stderrText);  // CUDA prints failed asserts on stderr
  if (!gotPoint) {
    // The worker ended without a result: a configuration problem it reported on
    // stderr (exit 2), no GPU (exit 3), an internal error, or a result line
    // that could not be read (a broken or mismatched worker).
    std::string why = !streamError.empty()     ? "its result could not be read: " + streamError
                      : r.stderrText.empty() ? "no output"
                                             : r.stderrText.substr(0, 2000);
    result.status.workerExit = r.exitCode;
    result.status.workerError = why;
    if (r.exitCode == kExitNoGpu) {
      result.status.noGpu = true;
    } else {
      Finding f;
      f.category = "illegal_address";
      f.severity = Severity::error;
      f.message = "the worker exited with status " + std::to_string(r.exitCode) + " without a result: " + why;
      f.evidence = {{"exit_code", r.exitCode}, {"phase", lastPhase}};
      f.treeNode = "fault.illegal_address";
      result.findings.push_back(f);
      result.verdict = worse(result.verdict, Verdict::fault);
    }
  }
  return result;
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
                " disagree on identical inputs: " + std::to_string(pts.size()) + " trials, outcomes " + seen.dump();
    f.evidence = {{"trials", seen}};
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
  struct Job { std::size_t point; int trial; };
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < points.size(); ++i)
    for (int t = 0; t < std::max(1, opts.trials); ++t) jobs.push_back({i, t});

  std::vector<Point> results(jobs.size());
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  DeviceInfo device;
  bool haveDevice = false;
  auto workerLoop = [&](int slot) {
    int gpu = opts.devices.empty() ? 0 : opts.devices[static_cast<std::size_t>(slot) % opts.devices.size()];
    for (std::size_t j; (j = next.fetch_add(1)) < jobs.size();) {
      DeviceInfo d;
      Point p = runWorkerPoint(config, points[jobs[j].point], jobs[j].trial, gpu, opts, &d);
      std::lock_guard<std::mutex> lock(mu);
      if (!haveDevice && !d.name.empty()) {
        device = d;
        haveDevice = true;
      }
      results[j] = std::move(p);
    }
  };
  int nthreads = std::max(1, std::min<int>(opts.jobs, static_cast<int>(jobs.size())));
  std::vector<std::thread> threads;
  for (int s = 0; s < nthreads; ++s) threads.emplace_back(workerLoop, s);
  for (auto& t : threads) t.join();

  report.points = std::move(results);
  report.device = device;
  if (opts.allowCommands) applyCommandBaseline(report.points, config);
  summariseTrials(report, std::max(1, opts.trials));
  report.finalize();
  return report;
}

}  // namespace tilescope
